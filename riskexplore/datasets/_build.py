"""Rebuild the bundled dataset files (maintainers only; users never run this).

The package ships cleaned, gzip-compressed copies of a few public UCI datasets in
``riskexplore/datasets/files/``. This one-off script regenerates them from the raw
reference files kept outside the repository, by default in ``../shared/data`` relative
to the repository root::

    python -m riskexplore.datasets._build                 # uses ../shared/data
    python -m riskexplore.datasets._build --source DIR    # or another copy

Inputs (see ``DIR/README.md``)::

    riskscores/mammo.csv, riskscores/breastcancer.csv, riskscores/adult.csv
        binarized, first column is the 0/1 outcome
    checklists/heart.csv
        raw; UTF-8 byte order mark and CRLF line ends
    checklists/adult_train.csv, checklists/adult_test.csv
        raw; values with a leading space, test labels ending in '.', missing as '?'

Cleaning: strip the BOM and all surrounding whitespace from names and values, normalise
the outcome to integers 0/1 in the first column (``breastcancer``'s ``Benign`` header is
renamed ``Malignant``, since its ones are the malignant cases), and for ``adult_raw``
write column names in snake_case, drop the trailing '.' of test labels, map '?' to
missing and encode the outcome as ``income_over_50k`` (1 = '>50K').

Output is deterministic (gzip ``mtime=0``, no file name in the header, ``\\n`` line
ends), so rebuilding from the same inputs reproduces the committed files byte for byte.
The expected row and positive counts in ``_catalog.py`` are checked before writing.

``heart_followup`` is not read from ``--source``: it is **simulated** by
:func:`riskexplore.datasets._simulate.simulate_heart_followup` (seeded), and
``python -m riskexplore.datasets._build --simulated-only`` rewrites only it (no raw
copies needed).
"""

from __future__ import annotations

import argparse
import gzip
import io
from pathlib import Path

import pandas as pd

from riskexplore.datasets._catalog import CATALOG
from riskexplore.datasets._simulate import simulate_heart_followup

FILES_DIR = Path(__file__).resolve().parent / "files"
DEFAULT_SOURCE = Path(__file__).resolve().parents[2].parent / "shared" / "data"


def _read_binarized(path: Path, outcome_column: str) -> pd.DataFrame:
    frame = pd.read_csv(path, encoding="utf-8-sig")
    frame.columns = [str(c).strip() for c in frame.columns]
    frame = frame.rename(columns={frame.columns[0]: outcome_column})
    frame[outcome_column] = _as_01(frame[outcome_column], positive={1})
    return frame


def _as_01(values: pd.Series, positive: set) -> pd.Series:
    """Map the outcome to 0/1, failing on anything unexpected."""
    kinds = set(values.unique().tolist())
    if len(kinds) != 2 or not positive <= kinds:
        raise ValueError(f"unexpected outcome values {sorted(map(str, kinds))}")
    return values.isin(positive).astype("int64")


def build_mammo(source: Path) -> pd.DataFrame:
    return _read_binarized(source / "riskscores" / "mammo.csv", "Malignant")


def build_breastcancer(source: Path) -> pd.DataFrame:
    # The header says 'Benign' but the 239 ones are the malignant tumours (UCI: 444
    # benign, 239 malignant after dropping rows with missing values).
    return _read_binarized(source / "riskscores" / "breastcancer.csv", "Malignant")


def build_income(source: Path) -> pd.DataFrame:
    return _read_binarized(source / "riskscores" / "adult.csv", "Over50K")


def build_heart(source: Path) -> pd.DataFrame:
    frame = pd.read_csv(source / "checklists" / "heart.csv", encoding="utf-8-sig")
    frame.columns = [str(c).strip() for c in frame.columns]
    target = _as_01(frame.pop("target"), positive={1})
    frame.insert(0, "target", target)
    return frame


def build_adult_raw(source: Path, split: str) -> pd.DataFrame:
    path = source / "checklists" / f"adult_{split}.csv"
    frame = pd.read_csv(path, skipinitialspace=True, dtype=str, keep_default_na=False)
    frame.columns = [str(c).strip().replace("-", "_") for c in frame.columns]
    frame = frame.apply(lambda col: col.str.strip())
    label = frame.pop("target").str.rstrip(".")
    frame = frame.mask(frame == "?")
    numeric = ["age", "education_num", "capital_gain", "capital_loss", "hours_per_week"]
    for column in numeric:
        frame[column] = pd.to_numeric(frame[column], errors="raise").astype("int64")
    frame.insert(0, "income_over_50k", _as_01(label, positive={">50K"}))
    return frame


def write_gzip_csv(frame: pd.DataFrame, path: Path) -> None:
    """Write ``frame`` as CSV inside a reproducible gzip stream (``mtime=0``)."""
    text = frame.to_csv(index=False, lineterminator="\n", na_rep="")
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as gz:
        gz.write(text.encode("utf-8"))
    path.write_bytes(buffer.getvalue())


def _check(frame: pd.DataFrame, name: str, split: str) -> None:
    info = CATALOG[name]
    expected = info.splits[split]
    outcome = (
        [info.outcome_column]
        if info.time_column is None
        else [info.time_column, info.outcome_column]
    )
    got = (len(frame), frame.shape[1] - len(outcome), int(frame[info.outcome_column].sum()))
    want = (expected.n_rows, info.n_features, expected.n_positive)
    if got != want or list(frame.columns[: len(outcome)]) != outcome:
        raise SystemExit(f"{name}/{split}: (rows, features, positives) {got} != {want}")


def _public(source: Path) -> dict[tuple[str, str], pd.DataFrame]:
    return {
        ("mammo", "all"): build_mammo(source),
        ("breastcancer", "all"): build_breastcancer(source),
        ("income", "all"): build_income(source),
        ("heart", "all"): build_heart(source),
        ("adult_raw", "train"): build_adult_raw(source, "train"),
        ("adult_raw", "test"): build_adult_raw(source, "test"),
    }


def build(
    source: Path = DEFAULT_SOURCE, out: Path = FILES_DIR, simulated_only: bool = False
) -> list[Path]:
    """Clean every dataset from ``source`` (unless ``simulated_only``), simulate
    ``heart_followup``, and write ``out/*.csv.gz``; return the paths."""
    frames = {} if simulated_only else _public(source)
    frames["heart_followup", "all"] = simulate_heart_followup()
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for (name, split), frame in frames.items():
        _check(frame, name, split)
        path = out / CATALOG[name].splits[split].file
        write_gzip_csv(frame, path)
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--out", type=Path, default=FILES_DIR)
    parser.add_argument(
        "--simulated-only", action="store_true", help="rewrite only the simulated tables"
    )
    args = parser.parse_args(argv)
    for path in build(args.source, args.out, args.simulated_only):
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
