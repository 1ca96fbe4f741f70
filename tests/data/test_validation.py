"""Input validation: conversions and one-line errors naming the fault."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from riskexplore.data.validation import check_features, check_training_data, split_outcome
from riskexplore.errors import InputError, RiskExploreError


@pytest.fixture
def frame():
    return pd.DataFrame(
        {
            "age_geq_60": [1, 0, 1, 0, 1, 0],
            "density": [1.0, 2.0, 3.0, 4.0, 2.0, 1.0],
            "smoker": [True, False, True, True, False, False],
        }
    )


Y = [1, 0, 1, 0, 0, 1]


def assert_one_line(err):
    message = str(err.value)
    assert "\n" not in message and message
    assert isinstance(err.value, RiskExploreError) and isinstance(err.value, ValueError)


# --- conversions -----------------------------------------------------------------------
def test_dataframe_input(frame):
    X, y, w, names = check_training_data(frame, pd.Series(Y, name="outcome"))
    assert X.dtype == np.float64 and X.shape == (6, 3) and X.flags.c_contiguous
    assert names == ["age_geq_60", "density", "smoker"]
    np.testing.assert_array_equal(X[:, 2], [1, 0, 1, 1, 0, 0])
    assert y.dtype == np.int64
    np.testing.assert_array_equal(y, [1, -1, 1, -1, -1, 1])
    assert w.dtype == np.float64 and w.shape == (6,) and np.all(w == 1)


def test_array_and_list_inputs():
    X, y, w, names = check_training_data(np.eye(3, dtype=int), np.array([0, 1, 1]))
    assert X.dtype == np.float64 and names == ["x0", "x1", "x2"]
    X2, y2, _, names2 = check_training_data(
        [[1, 2], [3, 4]], [True, False], feature_names=["a", "b"]
    )
    assert X2.tolist() == [[1.0, 2.0], [3.0, 4.0]] and names2 == ["a", "b"]
    np.testing.assert_array_equal(y2, [1, -1])  # True is the positive class


@pytest.mark.parametrize(
    "labels, expected",
    [
        (["yes", "no", "no", "yes"], [1, -1, -1, 1]),
        (np.array(["no", "yes", "yes", "no"]), [-1, 1, 1, -1]),
        ([-1, 1, 1, -1], [-1, 1, 1, -1]),
        ([0.0, 2.5, 2.5, 0.0], [-1, 1, 1, -1]),
        (pd.Series([False, True, True, False]), [-1, 1, 1, -1]),
        (pd.Series(["malignant", "benign", "benign", "malignant"]), [1, -1, -1, 1]),
        (pd.Series([1, 0, 0, 1], dtype="Int64"), [1, -1, -1, 1]),
        (pd.DataFrame({"y": [0, 1, 1, 0]}), [-1, 1, 1, -1]),
        (np.array([[0], [1], [1], [0]]), [-1, 1, 1, -1]),
    ],
)
def test_outcome_encodings(labels, expected):
    _, y, _, _ = check_training_data(np.ones((4, 1)), labels)
    assert y.dtype == np.int64
    np.testing.assert_array_equal(y, expected)


def test_ordered_categorical_outcome_uses_category_order():
    labels = pd.Series(
        pd.Categorical(["high", "low", "low"], categories=["low", "high"], ordered=True)
    )
    _, y, _, _ = check_training_data(np.ones((3, 1)), labels)
    np.testing.assert_array_equal(y, [1, -1, -1])


def test_nullable_and_object_numeric_columns_accepted():
    X = pd.DataFrame(
        {"a": pd.array([1, 0, 1], dtype="Int64"), "b": pd.Series([1, 2, 3], dtype=object)}
    )
    out, _, _, names = check_training_data(X, [0, 1, 1])
    assert out.tolist() == [[1, 1], [0, 2], [1, 3]] and names == ["a", "b"]


def test_feature_names_select_dataframe_columns(frame):
    X, _, _, names = check_training_data(frame, Y, feature_names=["smoker", "age_geq_60"])
    assert names == ["smoker", "age_geq_60"]
    np.testing.assert_array_equal(X[:, 1], frame["age_geq_60"])
    with pytest.raises(InputError, match="missing 1 feature column.*'bmi'"):
        check_training_data(frame, Y, feature_names=["smoker", "bmi"])


def test_non_string_column_labels_become_strings():
    _, _, _, names = check_training_data(pd.DataFrame(np.eye(2)), [0, 1])
    assert names == ["0", "1"]


def test_sample_weight_returned(frame):
    _, _, w, _ = check_training_data(frame, Y, sample_weight=[1, 2, 0, 1, 1, 3])
    assert w.dtype == np.float64 and w.tolist() == [1, 2, 0, 1, 1, 3]


def test_inputs_not_modified(frame):
    before = frame.copy()
    weights = np.array([1.0, 2, 3, 4, 5, 6])
    X, _, w, _ = check_training_data(frame, Y, sample_weight=weights)
    X[:] = 0
    w[:] = 0
    pd.testing.assert_frame_equal(frame, before)
    assert weights[0] == 1.0


# --- errors on X ---------------------------------------------------------------------
def test_empty_data():
    with pytest.raises(InputError, match="no rows") as err:
        check_training_data(np.zeros((0, 2)), [])
    assert_one_line(err)
    with pytest.raises(InputError, match="no feature columns"):
        check_training_data(pd.DataFrame(index=range(3)), [0, 1, 0])


def test_length_mismatch(frame):
    with pytest.raises(InputError, match="X has 6 rows but y has 5 values") as err:
        check_training_data(frame, Y[:5])
    assert_one_line(err)


@pytest.mark.parametrize("X", [np.arange(4), np.zeros((2, 2, 2)), pd.Series([1, 2, 3, 4])])
def test_x_not_2d(X):
    with pytest.raises(InputError, match="2-D|Series") as err:
        check_training_data(X, [0, 1, 0, 1])
    assert_one_line(err)


def test_ragged_rows():
    with pytest.raises(InputError, match="different lengths"):
        check_training_data([[1, 2], [3]], [0, 1])


def test_nan_in_feature_names_column_and_count(frame):
    frame.loc[[2, 4], "density"] = np.nan
    with pytest.raises(InputError) as err:
        check_training_data(frame, Y)
    message = str(err.value)
    assert "'density'" in message and "missing (NaN)" in message
    assert "2 of 6 rows" in message and "row position 2" in message
    assert_one_line(err)


def test_inf_in_feature(frame):
    frame.loc[0, "density"] = np.inf
    with pytest.raises(InputError, match=r"'density' has infinite values in 1 of 6 rows"):
        check_training_data(frame, Y)


def test_nan_in_array_uses_given_names():
    X = np.array([[1.0, np.nan], [0.0, 1.0], [1.0, np.nan]])
    with pytest.raises(InputError, match=r"'bmi' has missing \(NaN\) values in 2 of 3 rows"):
        check_training_data(X, [0, 1, 1], feature_names=["age", "bmi"])


def test_nan_in_several_columns_lists_the_others(frame):
    frame["a"] = [np.nan] * 6
    frame["b"] = [np.nan] * 6
    with pytest.raises(InputError, match=r"'a' has .* \(also in 'b'\)"):
        check_training_data(frame, Y)


@pytest.mark.parametrize(
    "column",
    [
        ["red", "blue", "red", "red", "blue", "red"],
        pd.Categorical(["a", "b", "a", "b", "a", "b"]),
        pd.to_datetime(["2020-01-01"] * 6),
        [1, 2, "three", 4, 5, 6],
    ],
)
def test_non_numeric_feature_named(frame, column):
    frame["colour"] = column
    with pytest.raises(InputError, match="feature 'colour' is not numeric") as err:
        check_training_data(frame, Y)
    assert "encode or binarize" in str(err.value)
    assert_one_line(err)


def test_numbers_stored_as_text_get_a_specific_hint():
    X = pd.DataFrame({"age": ["31", "45", "52"]})
    with pytest.raises(InputError, match="'age' is not numeric.*pd.to_numeric"):
        check_training_data(X, [0, 1, 1])
    with pytest.raises(InputError, match="'x1' is not numeric"):
        check_training_data(np.array([[1, "a"], [2, "b"]], dtype=object), [0, 1])


def test_duplicate_and_empty_names():
    X = pd.DataFrame([[1, 2, 3], [4, 5, 6]], columns=["a", "b", "a"])
    with pytest.raises(InputError) as err:
        check_training_data(X, [0, 1])
    assert str(err.value) == (
        "X repeats the column name 'a' (columns 1 and 3); rename the repeated columns so "
        "that each column has a unique name"
    )
    with pytest.raises(InputError, match=r"feature_names repeats the column name 'b' \(col"):
        check_training_data(np.eye(2), [0, 1], feature_names=["b", "b"])
    with pytest.raises(
        InputError,
        match=r"^X repeats the column names 'a' \(columns 1, 2 and 4\), 'c' \(columns 3 and 5\)",
    ):
        check_training_data(pd.DataFrame(np.eye(5), columns=list("aacac")), [0, 1, 0, 1, 1])
    with pytest.raises(InputError, match="position 1 is empty"):
        check_training_data(np.eye(2), [0, 1], feature_names=["a", " "])
    with pytest.raises(InputError, match="got 3 feature names for 2 columns"):
        check_training_data(np.eye(2), [0, 1], feature_names=["a", "b", "c"])


# --- errors on y -----------------------------------------------------------------------
@pytest.mark.parametrize("missing", [np.nan, None, pd.NA])
def test_missing_outcome(missing):
    y = pd.Series([1, 0, missing, 1], dtype=object)
    with pytest.raises(InputError, match="outcome has 1 missing value .*row position 2") as err:
        check_training_data(np.ones((4, 1)), y)
    assert_one_line(err)


def test_constant_outcome():
    with pytest.raises(InputError, match="constant outcome: all rows are 'yes'") as err:
        check_training_data(np.ones((3, 1)), ["yes", "yes", "yes"])
    assert_one_line(err)
    with pytest.raises(InputError, match="constant outcome: all rows are 1"):
        check_training_data(np.ones((3, 1)), [1, 1, 1])


def test_more_than_two_outcome_values_shows_a_few():
    with pytest.raises(InputError) as err:
        check_training_data(np.ones((8, 1)), list(range(8)))
    message = str(err.value)
    assert "8 distinct values" in message and "0, 1, 2, 3, 4" in message
    assert "3 more" in message and "binary" in message
    assert_one_line(err)


def test_mixed_type_outcome():
    with pytest.raises(InputError, match="mixes value types"):
        check_training_data(np.ones((2, 1)), [0, "yes"])


def test_multi_column_outcome():
    with pytest.raises(InputError, match="y has 2 columns"):
        check_training_data(np.ones((2, 1)), pd.DataFrame({"a": [0, 1], "b": [1, 0]}))
    with pytest.raises(InputError, match="y is missing"):
        check_training_data(np.ones((2, 1)), None)


# --- errors on sample_weight -----------------------------------------------------------
@pytest.mark.parametrize(
    "weights, pattern",
    [
        ([1, 1, 1], "shape \\(3,\\) but X has 6 rows"),
        ([1, 1, -2, 1, 1, 1], "1 negative value \\(smallest -2\\)"),
        ([1, np.nan, 1, np.inf, 1, 1], "2 NaN or infinite values .*row position 1"),
        ([0, 0, 0, 0, 0, 0], "zero for every row"),
        ([0, 1, 0, 1, 1, 0], "every positive example has zero sample_weight"),
        (["a", "b", "c", "d", "e", "f"], "sample_weight must be numbers"),
    ],
)
def test_bad_sample_weight(frame, weights, pattern):
    with pytest.raises(InputError, match=pattern) as err:
        check_training_data(frame, Y, sample_weight=weights)
    assert_one_line(err)


# --- check_features --------------------------------------------------------------------
def test_check_features_reorders_dataframe_by_name(frame):
    names = ["smoker", "density", "age_geq_60"]
    out = check_features(frame.assign(extra="ignored"), names)
    assert out.dtype == np.float64 and out.shape == (6, 3)
    np.testing.assert_array_equal(out[:, 1], frame["density"])
    np.testing.assert_array_equal(out[:, 2], frame["age_geq_60"])


def test_check_features_reports_missing_columns_by_name(frame):
    with pytest.raises(InputError) as err:
        check_features(frame, ["age_geq_60", "bmi", "sbp"])
    message = str(err.value)
    assert "missing 2 feature column(s) used in training" in message
    assert "'bmi'" in message and "'sbp'" in message
    assert_one_line(err)


def test_check_features_arrays():
    out = check_features([[1, 0], [0, 1]], ["a", "b"])
    assert out.tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert check_features(np.array([1, 0, 1]), ["a", "b", "c"]).shape == (1, 3)  # one row
    with pytest.raises(InputError, match="X has 3 columns but the model uses 2 features"):
        check_features(np.ones((2, 3)), ["a", "b"])


def test_check_features_column_checks(frame):
    frame.loc[1, "density"] = np.nan
    with pytest.raises(InputError, match="'density' has missing"):
        check_features(frame, list(frame.columns))
    with pytest.raises(InputError, match="'smoker' is not numeric"):
        check_features(frame.assign(smoker=["y"] * 6), ["smoker"])
    with pytest.raises(InputError, match="no rows"):
        check_features(frame.iloc[:0], ["smoker"])


# --- split_outcome ---------------------------------------------------------------------
def test_split_outcome_first_column_by_default(frame):
    X, y = split_outcome(frame)
    assert y.name == "age_geq_60" and list(X.columns) == ["density", "smoker"]


def test_split_outcome_named_target(frame):
    X, y = split_outcome(frame, "density")
    assert y.name == "density" and list(X.columns) == ["age_geq_60", "smoker"]
    assert len(X) == len(y) == 6


def test_split_outcome_unknown_target_lists_columns(frame):
    with pytest.raises(InputError) as err:
        split_outcome(frame, "target")
    message = str(err.value)
    assert "unknown outcome column 'target'" in message
    assert all(name in message for name in frame.columns)
    assert_one_line(err)


def test_split_outcome_needs_a_table():
    with pytest.raises(InputError, match="DataFrame"):
        split_outcome(np.ones((3, 2)))
    with pytest.raises(InputError, match="1 column"):
        split_outcome(pd.DataFrame({"y": [0, 1]}))


def test_split_then_check_on_bundled_data():
    from riskexplore.datasets import load_dataset

    X, y = split_outcome(load_dataset("breastcancer").frame)
    Xa, ya, w, names = check_training_data(X, y)
    assert Xa.shape == (683, 9) and int((ya == 1).sum()) == 239 and names[0] == "ClumpThickness"
    raw = load_dataset("adult_raw", split="test").X
    with pytest.raises(InputError, match="feature 'workclass' is not numeric"):
        check_training_data(raw, np.arange(len(raw)) % 2)
