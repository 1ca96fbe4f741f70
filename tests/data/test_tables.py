"""Reading CSV files (``read_csv_table``): what pandas reads, except that a header row
that repeats a column name is refused with the name (pandas would silently read the
second ``a`` as ``a.1``, a feature that is not in the user's file), and every other
problem is one readable line."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import riskexplore
from riskexplore import InputError, fit_checklist, fit_risk_score, read_csv_table

REPEATED = "outcome,age,smoker,age\n1,70,1,1\n0,40,0,0\n1,65,1,1\n0,30,1,0\n"
MESSAGE = (
    "{name} repeats the column name 'age' (columns 2 and 4); rename the repeated columns "
    "so that each column has a unique name"
)


def test_reads_what_pandas_reads_from_a_path_bytes_or_a_file(tmp_path):
    text = 'y,"a, quoted",b\n1,2,x\n0,3,\n'
    path = tmp_path / "fine.csv"
    path.write_text(text)
    expected = pd.read_csv(path)
    assert list(expected.columns) == ["y", "a, quoted", "b"]
    for source in (path, str(path), text.encode(), io.BytesIO(text.encode()), io.StringIO(text)):
        pd.testing.assert_frame_equal(read_csv_table(source), expected)


def test_a_repeated_column_name_is_refused_naming_it(tmp_path):
    assert list(pd.read_csv(io.StringIO(REPEATED)).columns)[-1] == "age.1"  # what pandas does
    path = tmp_path / "patients.csv"
    path.write_text(REPEATED)
    with pytest.raises(InputError) as err:
        read_csv_table(path)
    assert str(err.value) == MESSAGE.format(name="patients.csv")
    with pytest.raises(InputError) as err:
        read_csv_table(REPEATED.encode())
    assert str(err.value) == MESSAGE.format(name="the CSV file")
    with pytest.raises(InputError, match="^upload.csv repeats the column names 'a' "):
        read_csv_table(b"a,b,a,b\n1,2,3,4\n", "upload.csv")


def test_header_names_are_compared_as_written():
    # distinct names pandas might confuse, and blank names (pandas: "Unnamed: j")
    frame = read_csv_table(b"a,A,a.1, a,,\n1,2,3,4,5,6\n")
    assert list(frame.columns) == ["a", "A", "a.1", " a", "Unnamed: 4", "Unnamed: 5"]
    with pytest.raises(InputError, match=r"'1' \(columns 1 and 2\)"):
        read_csv_table(b"1,1\n2,3\n")  # a header of numbers is still a header


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "f.csv is empty"),
        (b"  \n\n", "f.csv is empty"),
        (b"\xff\xfe\x00\x81\x00", "f.csv is not a text CSV file (UTF-8)"),
        (b'y,a\n1,"0\n', "could not read f.csv as CSV: Error tokenizing data"),
        (b"a,b\n1,2\n1,2,3\n", "could not read f.csv as CSV: Error tokenizing data"),
    ],
)
def test_unreadable_files_are_one_line(content, message):
    with pytest.raises(InputError) as err:
        read_csv_table(content, "f.csv")
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_python_api_refuses_repeated_columns(tmp_path):
    """The Python API: the CSV reader (exported at the top level) and, for a DataFrame
    built otherwise, the input validation of both model families."""
    assert riskexplore.read_csv_table is read_csv_table
    path = tmp_path / "patients.csv"
    path.write_text(REPEATED)
    with pytest.raises(InputError, match="'age' \\(columns 2 and 4\\)"):
        read_csv_table(path)
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 2, (40, 3)), columns=["age", "smoker", "age"])
    y = rng.integers(0, 2, 40)
    for fit in (fit_risk_score, fit_checklist):
        with pytest.raises(InputError) as err:
            fit(X, y, time_limit=5)
        assert str(err.value) == MESSAGE.format(name="X").replace("2 and 4", "1 and 3")
