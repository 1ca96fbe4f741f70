"""Bundled datasets: counts, dtypes, cleaning, API and packaging."""

from __future__ import annotations

import gzip
from importlib import resources

import numpy as np
import pandas as pd
import pytest

from riskexplore import fit_survival_score
from riskexplore.datasets import Dataset, dataset_info, list_datasets, load_dataset
from riskexplore.datasets._build import write_gzip_csv
from riskexplore.datasets._simulate import FIVE_YEARS, simulate_heart_followup
from riskexplore.errors import InputError

EXPECTED = {
    # name: (rows, features, positives, outcome column)
    "mammo": (961, 14, 445, "Malignant"),
    "breastcancer": (683, 9, 239, "Malignant"),
    "income": (32561, 36, 7841, "Over50K"),
    "heart": (303, 13, 165, "target"),
    "adult_raw": (32561, 13, 7841, "income_over_50k"),
}


SIMULATED = {"heart_followup": (800, 8, 262, "died", "days")}


def test_list_datasets():
    assert list_datasets() == sorted([*EXPECTED, *SIMULATED])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_counts_and_types(name):
    rows, features, positives, column = EXPECTED[name]
    data = load_dataset(name)
    assert isinstance(data, Dataset)
    assert data.X.shape == (rows, features)
    assert len(data.y) == rows
    assert int(data.y.sum()) == positives
    assert data.y.dtype == "int64"
    assert set(data.y.unique()) == {0, 1}
    assert data.y.name == column
    assert column not in data.X.columns
    assert data.name == name
    assert data.outcome and data.description
    assert "UCI" in data.source and "CC BY 4.0" in data.source
    info = dataset_info(name)
    assert (info["n_rows"], info["n_features"], info["n_positive"]) == (rows, features, positives)
    assert info["outcome_column"] == column


@pytest.mark.parametrize("name", ["mammo", "breastcancer", "income", "heart"])
def test_ready_datasets_are_numeric_and_complete(name):
    X = load_dataset(name).X
    assert all(pd.api.types.is_numeric_dtype(t) for t in X.dtypes)
    assert not X.isna().any().any()


def test_frame_has_outcome_first():
    data = load_dataset("mammo")
    frame = data.frame
    assert list(frame.columns) == ["Malignant", *data.X.columns]
    assert frame.shape == (961, 15)
    assert data.feature_names == [str(c) for c in data.X.columns]
    assert "961 rows" in repr(data)


def test_binarized_values():
    X = load_dataset("income").X
    assert set(pd.unique(X.to_numpy().ravel())) == {0, 1}
    mammo = load_dataset("mammo").X
    assert set(mammo["Density"].unique()) <= {1, 2, 3, 4}
    bc = load_dataset("breastcancer").X
    assert bc.min().min() >= 1 and bc.max().max() <= 10


def test_breastcancer_outcome_renamed():
    data = load_dataset("breastcancer")
    assert data.y.name == "Malignant"
    assert "Benign" not in data.frame.columns
    assert "malignant" in data.outcome


def test_heart_raw_columns():
    data = load_dataset("heart")
    assert list(data.X.columns)[:3] == ["age", "sex", "cp"]  # BOM stripped from 'age'
    assert data.X["oldpeak"].dtype == "float64"
    assert set(dataset_info("heart")["categorical"]) == {"cp", "thal", "ca", "slope", "restecg"}


def test_adult_raw_splits_and_cleaning():
    train = load_dataset("adult_raw")
    test = load_dataset("adult_raw", split="test")
    both = load_dataset("adult_raw", split="all")
    assert train.split == "train" and test.split == "test" and both.split == "all"
    assert len(train.y) == 32561 and len(test.y) == 16281 and len(both.y) == 48842
    assert int(test.y.sum()) == 3846 and int(both.y.sum()) == 7841 + 3846
    assert both.X.index.is_unique
    X = test.X
    assert "education_num" in X.columns and "education-num" not in X.columns
    assert X["age"].dtype == "int64"
    values = pd.unique(X[X.columns[X.dtypes != "int64"]].stack())
    assert "?" not in values
    assert not any(str(v) != str(v).strip() or str(v).endswith(".") for v in values)
    assert X["workclass"].isna().sum() == 963
    assert train.X["occupation"].isna().sum() == 1843
    assert dataset_info("adult_raw")["splits"]["test"] == {"n_rows": 16281, "n_positive": 3846}


def test_loads_are_independent_copies():
    first = load_dataset("mammo")
    first.X.iloc[0, 0] = 99
    first.y.iloc[0] = 7
    second = load_dataset("mammo")
    assert second.X.iloc[0, 0] != 99 and second.y.iloc[0] in (0, 1)


def test_name_is_case_insensitive():
    assert load_dataset(" Mammo ").name == "mammo"


def test_unknown_name_lists_valid_names():
    with pytest.raises(InputError, match="unknown dataset 'mamo'") as err:
        load_dataset("mamo")
    for name in EXPECTED:
        assert name in str(err.value)
    with pytest.raises(InputError, match="choose one of"):
        dataset_info("nope")
    with pytest.raises(InputError):
        load_dataset(None)


def test_bad_split():
    with pytest.raises(InputError, match="unknown split 'valid'.*train, test, all"):
        load_dataset("adult_raw", split="valid")
    with pytest.raises(InputError, match="'mammo' has no train/test split"):
        load_dataset("mammo", split="train")
    assert len(load_dataset("mammo", split="all").y) == 961


@pytest.mark.parametrize("name", sorted([*EXPECTED, *SIMULATED]))
def test_files_are_deterministic_gzip(name):
    for file in dataset_info(name)["files"]:
        blob = resources.files("riskexplore.datasets").joinpath("files", file).read_bytes()
        assert blob[:2] == b"\x1f\x8b"
        assert blob[4:8] == b"\x00\x00\x00\x00"  # mtime = 0
        text = gzip.decompress(blob).decode("utf-8")
        assert "\r" not in text and not text.startswith("\ufeff")


def test_readme_is_packaged_and_documents_counts():
    readme = resources.files("riskexplore.datasets").joinpath("README.md").read_text()
    assert "CC BY 4.0" in readme
    for number in ("961", "683", "32,561", "16,281", "7,841", "445", "239", "165", "3,846"):
        assert number in readme
    for number in ("800", "262", "1,826"):
        assert number in readme
    assert "simulated" in readme.lower()


def test_heart_followup_is_a_labelled_simulated_survival_table():
    rows, features, events, event, time = SIMULATED["heart_followup"]
    data = load_dataset("heart_followup")
    assert data.X.shape == (rows, features) and int(data.y.sum()) == events
    assert data.y.name == event and data.time.name == time
    assert list(data.frame.columns[:2]) == [time, event]
    assert "follow-up in 'days'" in repr(data)
    assert data.time.min() >= 1 and data.time.max() == FIVE_YEARS
    assert (data.time[data.y == 0] < FIVE_YEARS).sum() > 0  # lost to follow-up
    info = dataset_info("heart_followup")
    assert info["time_column"] == time and dataset_info("mammo")["time_column"] is None
    assert "SIMULATED" in data.source and "SIMULATED" in data.outcome
    assert "UCI" not in info["license"] and "CC BY" not in data.source
    assert data.X["ejection_fraction"].isna().sum() == 54
    assert set(data.X["kidney_function"]) == {"normal", "mild", "moderate", "severe"}
    assert set(data.X["smoker"]) == {"never", "former", "current"}
    y = data.survival
    assert y.dtype.names == ("event", "time") and y["event"].dtype == bool
    np.testing.assert_array_equal(y["time"], data.time.to_numpy(float))
    assert int(y["event"].sum()) == events
    with pytest.raises(AttributeError, match="no follow-up time"):
        _ = load_dataset("mammo").survival


def test_heart_followup_hazard_rises_in_its_steps():
    data = load_dataset("heart_followup")
    died_in_a_year = (data.y == 1) & (data.time <= 365)
    old = data.X["age"] >= 65
    assert died_in_a_year[old].mean() > 2 * died_in_a_year[~old].mean()
    severe = data.X["kidney_function"] == "severe"
    assert died_in_a_year[severe].mean() > died_in_a_year[~severe].mean()


def test_heart_followup_file_is_rebuilt_byte_for_byte(tmp_path):
    path = tmp_path / "heart_followup.csv.gz"
    write_gzip_csv(simulate_heart_followup(), path)
    packaged = resources.files("riskexplore.datasets").joinpath("files", path.name)
    assert path.read_bytes() == packaged.read_bytes()
    assert not simulate_heart_followup(seed=1).equals(simulate_heart_followup())


def test_heart_followup_is_what_a_survival_fit_takes():
    data = load_dataset("heart_followup")
    rows = slice(0, 300)
    model = fit_survival_score(
        data.X[rows], data.survival[rows], max_size=1, horizon=365, time_limit=30, n_jobs=1
    )
    same = fit_survival_score(
        data.X[rows], data.time[rows], data.y[rows], max_size=1, horizon=365, n_jobs=1
    )
    assert model.certificate.status == "optimal" and model.points == same.points
    assert len(model.points) == 1 and model.stats["n_events"] == int(data.y[rows].sum())
