"""Binarizer: raw features -> 0/1 checklist items (adaptive, fixed, user thresholds)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from riskexplore.data.binarize import Binarizer, format_value
from riskexplore.data.column_screen import named_like_id
from riskexplore.data.round_cuts import round_cut_points, roundness
from riskexplore.datasets import load_dataset
from riskexplore.errors import DataWarning, InputError, RiskExploreError

HEART_CATEGORICAL = ["cp", "thal", "ca", "slope", "restecg"]


@pytest.fixture(scope="module")
def heart():
    return load_dataset("heart").X


@pytest.fixture(scope="module")
def adult():
    return load_dataset("adult_raw").X, load_dataset("adult_raw", split="test").X


@pytest.fixture
def small():
    return pd.DataFrame(
        {
            "pH": [7.1, 7.35, 7.29, 7.45, np.nan, 7.2],
            "sbp": [120, 150, 140, 90, 135, 160],
            "sex": ["F", "M", "M", "F", "M", "F"],
            "smoker": [1, 0, 0, 1, 1, 0],
            "site": ["a", "b", "c", "a", None, "b"],
        },
        index=[10, 11, 12, 13, 14, 15],
    )


def one_line(err):
    message = str(err.value)
    assert message and "\n" not in message
    assert isinstance(err.value, RiskExploreError) and isinstance(err.value, ValueError)
    return message


# --- adaptive / fixed on heart ---------------------------------------------------------
def test_heart_adaptive_quintiles_and_groups(heart):
    b = Binarizer(categorical=HEART_CATEGORICAL).fit(heart)
    Z = b.transform(heart)
    names = list(b.get_feature_names_out())
    assert list(Z.columns) == names and len(set(names)) == len(names)
    assert (Z.dtypes == np.uint8).all() and Z.index.equals(heart.index)
    # quintile cut points of age (integers: 45, 53, 58, 62), plus complements
    np.testing.assert_allclose(np.quantile(heart["age"], [0.2, 0.4, 0.6, 0.8]), [45, 53, 58, 62])
    assert b.thresholds_["age"] == [(">=", 45), (">=", 53), (">=", 58), (">=", 62)]
    age_items = [n for n, g in b.item_groups_.items() if g == "age"]
    assert age_items == ["age ≥ 45", "age ≥ 53", "age ≥ 58", "age ≥ 62"] + [
        "age < 45",
        "age < 53",
        "age < 58",
        "age < 62",
    ]
    np.testing.assert_array_equal(Z["age ≥ 53"], (heart["age"] >= 53).astype(int))
    np.testing.assert_array_equal(Z["age < 53"], (heart["age"] < 53).astype(int))
    # oldpeak: the first quintile is its minimum 0 -> "oldpeak > 0"; real thresholds kept
    assert b.thresholds_["oldpeak"][0] == (">", 0)
    assert "oldpeak ≥ 0.38" in names and "oldpeak ≤ 0" in names
    # categorical codes: one-hot + complements, all in the column's group
    cp = [n for n, g in b.item_groups_.items() if g == "cp"]
    assert cp == [f"cp = {v}" for v in range(4)] + [f"cp ≠ {v}" for v in range(4)]
    np.testing.assert_array_equal(Z["cp = 2"], (heart["cp"] == 2).astype(int))
    np.testing.assert_array_equal(Z["cp ≠ 2"], (heart["cp"] != 2).astype(int))
    # binary columns pass through
    assert b.column_kinds_["sex"] == "binary" and b.item_groups_["not sex"] == "sex"
    np.testing.assert_array_equal(Z["sex"], heart["sex"])
    np.testing.assert_array_equal(Z["not sex"], 1 - heart["sex"])
    # every item belongs to a source column, and every column is a group
    assert set(b.item_groups_.values()) == set(heart.columns)
    assert [it.name for it in b.items_] == names
    # no constant item, no two identical columns within a group for threshold items
    assert ((Z.sum() > 0) & (Z.sum() < len(Z))).all()


def test_heart_auto_categorical_by_count_matches_explicit_list(heart):
    by_list = Binarizer(categorical=HEART_CATEGORICAL).fit(heart)
    by_count = Binarizer(max_categories_auto=5).fit(heart)
    assert list(by_list.get_feature_names_out()) == list(by_count.get_feature_names_out())
    plain = Binarizer().fit(heart)  # auto: integer codes are ordinal (thresholds)
    assert plain.column_kinds_["cp"] == "numeric"


def test_heart_fixed_uses_medians_and_modes(heart):
    b = Binarizer(method="fixed", categorical=HEART_CATEGORICAL, complements=False).fit(heart)
    Z = b.transform(heart)
    for col in ["age", "trestbps", "chol", "thalach", "oldpeak"]:
        assert b.thresholds_[col] == [(">=", np.median(heart[col]))]
        np.testing.assert_array_equal(
            Z[f"{col} ≥ {format_value(np.median(heart[col]))}"],
            1 * (heart[col] >= np.median(heart[col])),
        )
    assert "age ≥ 55" in Z.columns
    for col in HEART_CATEGORICAL:
        top = heart[col].value_counts().idxmax()
        assert [n for n, g in b.item_groups_.items() if g == col] == [f"{col} = {top}"]
    assert Z.shape[1] == heart.shape[1]  # one item per column
    with_complements = Binarizer(method="fixed", categorical=HEART_CATEGORICAL).fit(heart)
    assert with_complements.transform(heart).shape[1] == 2 * heart.shape[1]
    assert "age < 55" in with_complements.item_groups_


def test_fixed_median_at_minimum_uses_strict_threshold():
    X = pd.DataFrame({"gain": [0, 0, 0, 5, 100]})
    b = Binarizer(method="fixed", complements=False).fit(X)
    assert list(b.get_feature_names_out()) == ["gain > 0"]
    np.testing.assert_array_equal(b.transform(X)["gain > 0"], [0, 0, 0, 1, 1])


# --- user thresholds, names -------------------------------------------------------------
def test_user_thresholds_names_and_values(small):
    b = Binarizer(
        thresholds={"pH": [("<=", 7.29)], "sbp": [(">=", 140), ("<", 100), 150]},
    ).fit(small)
    names = list(b.get_feature_names_out())
    assert names[:2] == ["pH ≤ 7.29", "pH > 7.29"]
    assert names[2:8] == [
        "sbp ≥ 140",
        "sbp < 100",
        "sbp ≥ 150",
        "sbp < 140",
        "sbp ≥ 100",
        "sbp < 150",
    ]
    Z = b.transform(small)
    # pH 7.29 is <= 7.29; the missing pH row (index 14) has both items 0
    np.testing.assert_array_equal(Z["pH ≤ 7.29"], [1, 0, 1, 0, 0, 1])
    np.testing.assert_array_equal(Z["pH > 7.29"], [0, 1, 0, 1, 0, 0])
    np.testing.assert_array_equal(Z["sbp ≥ 140"], [0, 1, 1, 0, 0, 1])
    np.testing.assert_array_equal(Z["sbp < 100"], [0, 0, 0, 1, 0, 0])
    assert list(Z.index) == [10, 11, 12, 13, 14, 15]
    # operators > and ≥ spelled as symbols
    b2 = Binarizer(thresholds={"sbp": [(">", 140), ("≥", 150)]}, complements=False).fit(small)
    sbp = [n for n, g in b2.item_groups_.items() if g == "sbp"]
    assert sbp == ["sbp > 140", "sbp ≥ 150"]


def test_small_frame_kinds_and_two_level_categoricals(small):
    b = Binarizer().fit(small)
    assert b.column_kinds_ == {
        "pH": "numeric",
        "sbp": "numeric",
        "sex": "categorical",
        "smoker": "binary",
        "site": "categorical",
    }
    groups = b.item_groups_
    assert [n for n, g in groups.items() if g == "sex"] == ["sex = F", "sex = M"]
    assert [n for n, g in groups.items() if g == "smoker"] == ["smoker", "not smoker"]
    site = [n for n, g in groups.items() if g == "site"]
    assert site == ["site = a", "site = b", "site = c", "site ≠ a", "site ≠ b", "site ≠ c"]
    Z = b.transform(small)
    # missing site (index 14): every item of the column is 0, complements too
    assert Z.loc[14, site].sum() == 0
    np.testing.assert_array_equal(Z["site ≠ a"], [0, 1, 1, 0, 0, 1])


def test_format_value_and_rounding():
    assert format_value(55.0) == "55" and format_value(np.int64(7)) == "7"
    assert format_value(7.29) == "7.29" and format_value(1 / 3) == "0.3333"
    assert format_value(0.000012345) == "0.00001234"
    assert format_value(12345.6) == "12346" and format_value(-0.5) == "-0.5"
    assert format_value("Male") == "Male" and format_value(True) == "True"
    X = pd.DataFrame({"r": np.linspace(0, 1, 31) / 3})
    b = Binarizer(complements=False).fit(X)
    for item in b.items_:  # thresholds rounded so that the name shows them exactly
        assert item.name == f"r {'≥' if item.op == '>=' else '>'} {format_value(item.value)}"
        assert float(format_value(item.value)) == item.value


def test_names_are_unique():
    X = pd.DataFrame({"x": [0, 1, 0, 1], "not x": [1, 1, 0, 0]})
    names = list(Binarizer().fit(X).get_feature_names_out())
    assert len(set(names)) == len(names) == 4
    assert names == ["x", "not x", "not x #2", "not not x"]


def test_duplicate_quantiles_deduplicated_and_constant_dropped():
    X = pd.DataFrame({"h": [40] * 6 + [20, 50, 60, 30], "k": [3] * 10, "g": list("aaaaaaaaaa")})
    with pytest.warns(DataWarning) as caught:
        b = Binarizer(complements=False).fit(X)
    assert [str(w.message) for w in caught] == [
        "column 'k' is skipped: constant (every non-missing value is 3); the other columns "
        "are used",
        "column 'g' is skipped: constant (every non-missing value is a); the other columns "
        "are used",
    ]
    cuts = b.thresholds_["h"]
    assert len(cuts) == len({v for _, v in cuts}) and len(cuts) <= 4
    Z = b.transform(X)
    assert Z.T.drop_duplicates().shape[0] == Z.shape[1]  # no two items split alike
    assert set(b.dropped_columns_) == {"k", "g"} and "constant" in b.dropped_columns_["k"]
    assert set(b.item_groups_.values()) == {"h"}
    Z2 = b.transform(X[["h"]])  # dropped columns are not needed at transform
    assert Z2.equals(Z)


# --- train vs test ----------------------------------------------------------------------
def test_adult_train_test_reuses_thresholds(adult):
    train, test = adult
    b = Binarizer().fit(train)
    before = b.to_dict()
    Zt = b.transform(test)
    assert b.to_dict() == before  # transform never refits
    assert list(Zt.columns) == list(b.get_feature_names_out()) and Zt.index.equals(test.index)
    assert (Zt.dtypes == np.uint8).all()
    # thresholds come from train even where test quantiles differ
    refit = Binarizer().fit(test)
    assert b.thresholds_["age"] == [(">=", v) for v in (26, 33, 41, 50)]
    for item in b.items_:
        if item.column == "age" and item.op == ">=":
            np.testing.assert_array_equal(Zt[item.name], test["age"] >= item.value)
    assert b.thresholds_ != refit.thresholds_  # test quantiles differ (age ≥ 51)
    older = test.assign(age=test["age"] + 30)  # shifted data: still the train cut points
    Zo = b.transform(older)
    np.testing.assert_array_equal(Zo["age ≥ 50"], older["age"] >= 50)
    np.testing.assert_array_equal(Zo["age < 26"], older["age"] < 26)
    assert b.thresholds_["capital_gain"] == [(">", 0)]
    # missing categories (NaN in workclass) -> all workclass items 0
    workclass = [n for n, g in b.item_groups_.items() if g == "workclass"]
    nan_rows = test["workclass"].isna().to_numpy()
    assert nan_rows.sum() == 963
    assert Zt.loc[nan_rows, workclass].to_numpy().sum() == 0
    assert (Zt.loc[~nan_rows, [n for n in workclass if " = " in n]].sum(axis=1) == 1).all()
    with pytest.raises(InputError, match="'workclass'.*963 rows"):
        Binarizer(missing="error").fit(train.dropna()).transform(test)


def test_unseen_categories_policy(adult):
    train, test = adult
    train = train[train["native_country"] != "Holand-Netherlands"]
    b = Binarizer().fit(train)
    assert "native_country = Holand-Netherlands" not in b.item_groups_
    X = test.head(50).copy()
    X.iloc[3, X.columns.get_loc("native_country")] = "Holand-Netherlands"
    Z = b.transform(X)
    country = [n for n, g in b.item_groups_.items() if g == "native_country"]
    row = Z.iloc[3][country]
    assert row[[n for n in country if " = " in n]].sum() == 0
    assert (row[[n for n in country if " ≠ " in n]] == 1).all()
    strict = clone(b).set_params(unknown="error").fit(train)
    with pytest.raises(InputError) as err:
        strict.transform(X)
    message = one_line(err)
    assert "'native_country'" in message and "Holand-Netherlands" in message and "1 rows" in message


def test_binary_column_unseen_value_and_missing():
    b = Binarizer().fit(pd.DataFrame({"f": [0, 1, 1, 0]}))
    Z = b.transform(pd.DataFrame({"f": [1, 0, 2, np.nan]}))
    np.testing.assert_array_equal(Z["f"], [1, 0, 0, 0])
    np.testing.assert_array_equal(Z["not f"], [0, 1, 1, 0])


# --- serialisation ----------------------------------------------------------------------
@pytest.mark.parametrize("method", ["adaptive", "fixed"])
def test_to_dict_from_dict_round_trip(method, heart, adult, small):
    train, test = adult
    cases = [
        (Binarizer(method=method, categorical=HEART_CATEGORICAL), heart, heart),
        (Binarizer(method=method), train.head(3000), test.head(2000)),
        (Binarizer(method=method, thresholds={"pH": [("<=", 7.29)], "sbp": [140]}), small, small),
    ]
    for b, fit_on, apply_to in cases:
        b.fit(fit_on)
        text = json.dumps(b.to_dict(), ensure_ascii=False)
        restored = Binarizer.from_dict(json.loads(text))
        assert restored.item_groups_ == b.item_groups_
        assert list(restored.get_feature_names_out()) == list(b.get_feature_names_out())
        pd.testing.assert_frame_equal(restored.transform(apply_to), b.transform(apply_to))
        assert restored.to_dict() == json.loads(text)
    with pytest.raises(InputError, match="not a serialised Binarizer"):
        Binarizer.from_dict({"format": "something else"})


def test_describe_and_items_metadata(small):
    b = Binarizer(thresholds={"pH": [("<=", 7.29)]}).fit(small)
    d = b.describe()
    assert list(d.columns) == ["name", "column", "op", "value"]
    assert d.iloc[0].to_dict() == {"name": "pH ≤ 7.29", "column": "pH", "op": "<=", "value": 7.29}
    assert len(d) == len(b.items_)


# --- input forms and errors -------------------------------------------------------------
def test_numpy_input_gets_x_names():
    arr = np.array([[1.0, 0], [2.0, 1], [3.0, 0], [4.0, 1], [5.0, 1]])
    b = Binarizer(complements=False).fit(arr)
    assert list(b.feature_names_in_) == ["x0", "x1"]
    names = list(b.get_feature_names_out())
    assert names[-1] == "x1" and all(n.startswith("x0 ") for n in names[:-1])
    pd.testing.assert_frame_equal(
        b.transform(arr), b.fit_transform(pd.DataFrame(arr, columns=["x0", "x1"]))
    )
    with pytest.raises(InputError, match="3 columns"):
        b.transform(np.zeros((2, 3)))


def test_errors_name_the_column(small):
    b = Binarizer().fit(small)
    with pytest.raises(InputError) as err:
        b.transform(small.drop(columns=["sbp", "site"]))
    assert "'sbp'" in one_line(err) and "'site'" in str(err.value)
    with pytest.raises(InputError) as err:
        Binarizer(missing="error").fit(small)
    assert "'pH'" in one_line(err) and "1 row" in str(err.value)
    bad = small.assign(sbp=["120", "x", "140", "90", "135", "160"])
    with pytest.raises(InputError) as err:
        b.transform(bad)
    assert "'sbp'" in one_line(err) and "'x'" in str(err.value)
    with pytest.raises(InputError) as err, pytest.warns(DataWarning):
        Binarizer().fit(small[["pH"]].assign(pH=np.nan))
    assert one_line(err) == "no column of X can give items: 'pH' is all missing (6 rows)"
    with pytest.raises(InputError) as err:
        Binarizer(thresholds={"nope": [1]}).fit(small)
    assert "'nope'" in one_line(err)
    with pytest.raises(InputError) as err:
        Binarizer(categorical=["nope"]).fit(small)
    assert "'nope'" in one_line(err)
    with pytest.raises(InputError) as err:
        Binarizer(thresholds={"sex": [1]}).fit(small)
    assert "'sex'" in one_line(err)
    with pytest.raises(InputError) as err:
        Binarizer(thresholds={"sbp": [("~", 1)]}).fit(small)
    assert "'sbp'" in one_line(err) and "'~'" in str(err.value)
    with pytest.raises(InputError, match="method"):
        Binarizer(method="optbinning").fit(small)


def test_sklearn_compatibility(small):
    b = Binarizer(method="fixed", thresholds={"sbp": [140]})
    assert clone(b).get_params() == b.get_params()
    Z = b.fit_transform(small)
    assert Z.equals(b.transform(small))
    assert b.n_features_in_ == small.shape[1]
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        Binarizer().transform(small)


def test_missing_indicator_items_by_hand(small):
    b = Binarizer(
        missing="indicator", complements=False, thresholds={"pH": [7.29], "sbp": [140]}
    ).fit(small)
    # pH and site have missing values at fit: one "missing" item each, last in the group
    groups = b.item_groups_
    assert [n for n, g in groups.items() if g == "pH"] == ["pH ≥ 7.29", "pH missing"]
    assert [n for n, g in groups.items() if g == "sbp"] == ["sbp ≥ 140"]
    site = [n for n, g in groups.items() if g == "site"]
    assert site == ["site = a", "site = b", "site = c", "site missing"]
    assert [it.op for it in b.items_ if it.name.endswith(" missing")] == ["missing"] * 2
    # sex has two values, 3 rows each: one item, for the later of the two (M)
    expected = pd.DataFrame(
        {
            "pH ≥ 7.29": [0, 1, 1, 1, 0, 0],
            "pH missing": [0, 0, 0, 0, 1, 0],
            "sbp ≥ 140": [0, 1, 1, 0, 0, 1],
            "sex = M": [0, 1, 1, 0, 1, 0],
            "smoker": [1, 0, 0, 1, 1, 0],
            "site = a": [1, 0, 0, 1, 0, 0],
            "site = b": [0, 1, 0, 0, 0, 1],
            "site = c": [0, 0, 1, 0, 0, 0],
            "site missing": [0, 0, 0, 0, 1, 0],
        },
        index=small.index,
        dtype=np.uint8,
    )
    pd.testing.assert_frame_equal(b.transform(small), expected)


def test_missing_indicator_at_transform_and_round_trip(small):
    b = Binarizer(missing="indicator").fit(small)
    new = pd.DataFrame(
        {
            "pH": [np.nan, 7.4],
            "sbp": [np.nan, 150],  # no missing sbp at fit: its items are 0, as "zero" does
            "sex": ["F", None],
            "smoker": [1, 0],
            "site": [None, "z"],  # missing, unseen
        }
    )
    Z = b.transform(new)
    sbp = [n for n, g in b.item_groups_.items() if g == "sbp"]
    assert "sbp missing" not in b.item_groups_ and Z.loc[0, sbp].sum() == 0
    assert Z.loc[0, "pH missing"] == 1 and Z.loc[1, "pH missing"] == 0
    ph = [n for n, g in b.item_groups_.items() if g == "pH" and n != "pH missing"]
    assert Z.loc[0, ph].sum() == 0
    assert Z.loc[0, "site missing"] == 1 and Z.loc[1, "site missing"] == 0
    site = [n for n, g in b.item_groups_.items() if g == "site" and n != "site missing"]
    assert Z.loc[0, site].sum() == 0  # complements (≠) too are 0 where missing
    assert Z.loc[1, "site ≠ a"] == 1  # unseen category: every ≠ item is 1
    # the zero policy gives the same items without the missing ones
    zero = Binarizer().fit(small).transform(new)
    pd.testing.assert_frame_equal(Z.drop(columns=["pH missing", "site missing"]), zero)
    text = json.dumps(b.to_dict(), ensure_ascii=False)
    restored = Binarizer.from_dict(json.loads(text))
    assert restored.missing == "indicator"
    pd.testing.assert_frame_equal(restored.transform(new), Z)
    with pytest.raises(InputError, match="'indicator'"):
        Binarizer(missing="drop").fit(small)


# --- columns that cannot give items -----------------------------------------------------
def test_unusable_columns_are_skipped_with_a_warning():
    n = 24
    rng = np.random.default_rng(0)
    X = pd.DataFrame(
        {
            "record": [f"P{k:04d}" for k in range(n)],  # text, unique per row: an identifier
            "patient_id": np.arange(100, 100 + n),  # whole numbers named like an id
            "age": rng.permutation(np.arange(40, 40 + n)),  # unique per row, but not an id
            "thyroid": rng.permutation(np.arange(n)),  # ends in "id", not an identifier
            "lactate": np.full(n, np.nan),
            "site": ["a"] * n,
            "sex": rng.choice(["F", "M"], n),
        }
    )
    with pytest.warns(DataWarning) as caught:
        b = Binarizer(missing="indicator").fit(X)
    assert b.dropped_columns_ == {
        "record": "an identifier (a different value in every row)",
        "patient_id": "an identifier (a different value in every row)",
        "lactate": f"all missing ({n} rows)",
        "site": "constant (every non-missing value is a)",
    }
    messages = [str(w.message) for w in caught]
    assert [m.split(" is skipped: ")[0] for m in messages] == [
        f"column {c!r}" for c in b.dropped_columns_
    ]
    assert set(b.item_groups_.values()) == {"age", "thyroid", "sex"}
    Z = b.transform(X[["age", "thyroid", "sex"]])  # skipped columns are not needed
    assert list(Z.columns) == list(b.get_feature_names_out())
    # a column with user cut points is never taken for an identifier
    kept = Binarizer(thresholds={"patient_id": [110]}).fit(X[["patient_id", "sex"]])
    assert "patient_id ≥ 110" in kept.item_groups_ and not kept.dropped_columns_
    # a tiny table's text column with distinct values is a category, not an identifier
    tiny = Binarizer().fit(pd.DataFrame({"grade": ["I", "II", "III"]}))
    assert tiny.categories_["grade"] == ["I", "II", "III"]


def test_id_names():
    for name in ["id", "ID", "patient_id", "record id", "PatientID", "patientId", "id_visit"]:
        assert named_like_id(name), name
    for name in ["thyroid", "lipid", "fluid", "idea", "valid", "age"]:
        assert not named_like_id(name), name


# --- two-valued columns without complements ---------------------------------------------
def test_two_valued_column_gives_one_item_without_complements():
    X = pd.DataFrame({"horTh": ["no", "yes", "no", "no", "yes"], "sex": ["F", "M", "M", "F", "F"]})
    b = Binarizer(complements=False).fit(X)
    assert list(b.get_feature_names_out()) == ["horTh = yes", "sex = M"]  # the less common
    np.testing.assert_array_equal(b.transform(X)["horTh = yes"], [0, 1, 0, 0, 1])
    tie = Binarizer(complements=False).fit(pd.DataFrame({"sex": ["M", "F", "M", "F"]}))
    assert list(tie.get_feature_names_out()) == ["sex = M"]  # a tie: the later sorted
    both = Binarizer().fit(X)  # with complements: both values, as before
    assert [n for n, g in both.item_groups_.items() if g == "horTh"] == [
        "horTh = no",
        "horTh = yes",
    ]
    fixed = Binarizer(method="fixed", complements=False).fit(X)  # fixed: the most common
    assert list(fixed.get_feature_names_out()) == ["horTh = no", "sex = F"]


# --- clinically round cut points --------------------------------------------------------
def test_roundness_order():
    assert roundness(100) > roundness(250) > roundness(60) > roundness(55) > roundness(58)
    assert roundness(1.2) > roundness(1.12) and roundness(0.25) > roundness(0.27)
    assert roundness(230) > roundness(225) and roundness(54) == roundness(53)
    assert roundness(0) == np.inf


def test_round_cut_points_small_examples():
    ages = np.arange(30, 90)  # 60 ages, one each
    assert round_cut_points(ages, [41.8, 53.6, 65.4, 77.2]) == [40, 55, 65, 80]
    # 58: 55 and 60 move more than 5 % of the rows; no rounder number is close enough
    dense = np.repeat(np.arange(50, 66), 10)  # 10 patients per year of age: 6.25 % each
    assert round_cut_points(dense, [58]) == [58]
    assert round_cut_points(dense, [58], tolerance=0.13) == [60]  # 12.5 % moved
    # never two cut points on one split: 51 and 54 both want 50 -> the second takes 55
    values = np.arange(100)
    assert round_cut_points(values, [51, 54]) == [50, 55]
    # 52 stays: 50 is taken and 55 would pass the next cut point, 53
    assert round_cut_points(values, [51, 52, 53]) == [50, 52, 55]
    # decimals on a real-valued column: 7.5 is the roundest number within 2 % of the rows
    assert round_cut_points(np.arange(200) / 10, [7.45], tolerance=0.02) == [7.5]
    assert round_cut_points(np.arange(200) / 100, [1.13]) == [1.1]
    assert round_cut_points(np.arange(50), [7], integral=True) == [5]
    # a cut at the minimum is not moved (it becomes "col > min")
    assert round_cut_points([3, 3, 3, 8, 9], [3]) == [3]


def test_binarizer_round_cuts(heart):
    plain = Binarizer(complements=False).fit(heart)
    rounded = Binarizer(complements=False, round_cuts=True, thresholds={"age": [57]}).fit(heart)
    assert plain.thresholds_["chol"] == [(">=", v) for v in (204, 230, 254, 286)]
    assert rounded.thresholds_["chol"] == [(">=", v) for v in (200, 230, 250, 290)]
    assert rounded.thresholds_["oldpeak"] == [(">", 0), (">=", 0.5), (">=", 1.2), (">=", 2)]
    assert rounded.thresholds_["age"] == [(">=", 57)]  # user cut points are never moved
    Z = rounded.transform(heart)
    for col in ("chol", "oldpeak", "trestbps", "thalach"):
        before = plain.transform(heart)[[n for n, g in plain.item_groups_.items() if g == col]]
        after = Z[[n for n, g in rounded.item_groups_.items() if g == col]]
        assert after.shape == before.shape  # no two cut points merged
        # each item's share of rows moves by at most 5 percentage points
        assert np.all(np.abs(after.mean().to_numpy() - before.mean().to_numpy()) <= 0.05)
    restored = Binarizer.from_dict(json.loads(json.dumps(rounded.to_dict())))
    assert restored.round_cuts and restored.thresholds_ == rounded.thresholds_


def test_min_rows_leaves_out_items_of_few_rows():
    X = pd.DataFrame(
        {
            "grade": ["I"] * 12 + ["II"] * 12 + ["III"] * 3,
            "lab": [1.0] * 26 + [np.nan],
        }
    )
    every = Binarizer(complements=False, missing="indicator").fit(X)
    assert "grade = III" in every.get_feature_names_out()
    assert "lab missing" not in every.get_feature_names_out()  # lab is constant otherwise
    few = Binarizer(complements=False, missing="indicator", min_rows=10).fit(X)
    names = list(few.get_feature_names_out())
    assert names == ["grade = I", "grade = II"]
    # a row of the rare category (or a missing value) has 0 in every item of its column
    rows = few.transform(X.iloc[[0, 24]])
    assert rows.to_numpy().tolist() == [[1, 0], [0, 0]]
    assert few.categories_["grade"] == ["I", "II", "III"]
    assert Binarizer.from_dict(few.to_dict()).min_rows == 10


@pytest.mark.parametrize("bad", [0, 2.5, True, "10"])
def test_min_rows_must_be_a_whole_number(bad):
    with pytest.raises(InputError, match="min_rows"):
        Binarizer(min_rows=bad).fit(pd.DataFrame({"a": [1, 2, 3]}))


def test_min_rows_and_missing_values():
    lab = np.r_[np.linspace(0, 1, 40), [np.nan] * 3]
    X = pd.DataFrame({"lab": lab})
    assert "lab missing" in Binarizer(missing="indicator").fit(X).get_feature_names_out()
    few = Binarizer(missing="indicator", min_rows=4).fit(X)
    assert "lab missing" not in few.get_feature_names_out()
    assert few.transform(X.tail(1)).to_numpy().sum() == 0


def test_a_column_read_as_text_gives_the_same_items_as_read_as_numbers():
    # Fitted on numbers 0/1 (and a category), applied to the same values written as text in
    # another file: the items must be the same, not silently all 0.
    fitted = pd.DataFrame({"diabetes": [0, 1, 1, 0], "grade": [1, 2, 3, 2]})
    binarizer = Binarizer(categorical=["grade"]).fit(fitted)
    as_text = pd.DataFrame({"diabetes": ["0", "1", " 1", "0"], "grade": ["1", "2.0", "3", "2"]})
    pd.testing.assert_frame_equal(binarizer.transform(as_text), binarizer.transform(fitted))
    # and the other way round: fitted on text, applied to numbers
    binarizer = Binarizer().fit(fitted.astype(str))
    pd.testing.assert_frame_equal(
        binarizer.transform(fitted), binarizer.transform(fitted.astype(str))
    )


def test_values_written_like_two_categories_stay_unseen():
    # "1" and "01" are both categories: a value 1 matches both, so it is left unseen
    binarizer = Binarizer(unknown="error").fit(pd.DataFrame({"code": ["1", "01", "2", "1"]}))
    with pytest.raises(InputError, match="categories not seen"):
        binarizer.transform(pd.DataFrame({"code": [1, 2]}))
