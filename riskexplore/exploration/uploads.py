"""An uploaded CSV file as a table: the Explorer's one way to read a file a person gives it
(the development data, and the other file a model is validated on)."""

from __future__ import annotations

import pandas as pd

from riskexplore.data.tables import read_csv_table
from riskexplore.errors import InputError

__all__ = ["MAX_UPLOAD_BYTES", "read_upload"]

#: Largest CSV file accepted (20 MB).
MAX_UPLOAD_BYTES = 20 * 1024 * 1024


def read_upload(content: bytes, name: str = "upload.csv") -> pd.DataFrame:
    """The table of an uploaded CSV file, its column names as text.

    Parameters
    ----------
    content : bytes or memoryview
        The file's bytes (as an upload widget gives them).
    name : str
        The file's name, for messages.

    Returns
    -------
    DataFrame
        The table.

    Raises
    ------
    InputError
        For something other than bytes, a file over :data:`MAX_UPLOAD_BYTES`, or a file
        that is not a readable CSV table (a repeated column name included).
    """
    if isinstance(content, memoryview):
        content = content.tobytes()
    if not isinstance(content, (bytes, bytearray)):
        raise InputError(f"expected the file's bytes, got {type(content).__name__}")
    if len(content) > MAX_UPLOAD_BYTES:
        raise InputError(
            f"{name} is {len(content) / 2**20:.1f} MB; files up to "
            f"{MAX_UPLOAD_BYTES // 2**20} MB are accepted"
        )
    frame = read_csv_table(content, name)  # refuses a repeated column name
    frame.columns = [str(c) for c in frame.columns]
    return frame
