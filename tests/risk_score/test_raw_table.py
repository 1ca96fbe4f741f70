"""Risk scores from a raw table: binarize="auto", one item per variable, raw predictions."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from riskexplore import Binarizer, RiskScore, fit_risk_score, iter_fit_risk_score
from riskexplore.errors import InputError

#: Small bounds so that every integer model can be enumerated.
BOX = {"coef_min": -2, "coef_max": 2, "intercept_min": -3, "intercept_max": 3, "max_size": 3}


def raw_table(n: int = 90, seed: int = 3) -> tuple[pd.DataFrame, np.ndarray]:
    """A numeric column with missing values, a 3-level string column, a yes/no column."""
    rng = np.random.default_rng(seed)
    age = rng.integers(30, 90, n).astype(float)
    age[rng.random(n) < 0.15] = np.nan
    grade = rng.choice(["I", "II", "III"], n)
    smoker = rng.choice(["yes", "no"], n)
    logit = -1.5 + 1.2 * (age >= 55) + 1.0 * (age >= 70) + 1.4 * (grade == "III")
    logit = logit + 1.0 * np.isnan(age) + 0.5 * (smoker == "yes")
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return pd.DataFrame({"age": age, "grade": grade, "smoker": smoker}), y


def brute_force(problem) -> float:
    """Smallest objective over every integer model in the box (at most max_size items)
    that obeys every constraint of the problem."""
    lo, hi = problem.lam_bounds()
    d = problem.n_features
    best = math.inf
    for size in range(problem.max_size + 1):
        for support in itertools.combinations(range(d), size):
            ranges = [[v for v in range(int(lo[j + 1]), int(hi[j + 1]) + 1) if v] for j in support]
            for points in itertools.product(*ranges):
                for b in range(int(lo[0]), int(hi[0]) + 1):
                    lam = np.zeros(d + 1)
                    lam[0] = b
                    lam[[j + 1 for j in support]] = points
                    if not problem.violations(lam):
                        best = min(best, float(problem.objective(lam)))
    return best


def items_per_column(model: RiskScore) -> dict[str, int]:
    groups = model.binarizer.item_groups_
    counts: dict[str, int] = {}
    for name in model.points:
        counts[groups[name]] = counts.get(groups[name], 0) + 1
    return counts


@pytest.fixture(scope="module")
def table():
    return raw_table()


@pytest.mark.parametrize("rule", [True, False])
def test_certified_objective_is_brute_force_optimum(table, rule):
    X, y = table
    model = fit_risk_score(
        X, y, binarize="auto", thresholds={"age": [55, 70]}, one_per_variable=rule, **BOX
    )
    problem = model._problem
    assert list(problem.feature_names) == [
        "age ≥ 55",
        "age ≥ 70",
        "age missing",
        "grade = I",
        "grade = II",
        "grade = III",
        "smoker = no",  # two values: one item, for the less common (40 no, 50 yes)
    ]
    # one AtMostKOf per column with 2+ items: age, grade
    assert len(problem.rows) == (2 if rule else 0)
    assert all(row.name.startswith("Use at most 1 of") for row in problem.rows)
    assert model.certificate.status == "optimal", model.certificate
    assert model.objective == pytest.approx(brute_force(problem), rel=1e-6, abs=1e-9)
    if rule:
        assert max(items_per_column(model).values()) == 1


def test_rule_keeps_one_item_per_column(table):
    X, y = table
    kw = {**BOX, "max_size": 4, "c0": 1e-4}
    free = fit_risk_score(
        X, y, binarize="auto", thresholds={"age": [55, 70]}, one_per_variable=False, **kw
    )
    ruled = fit_risk_score(X, y, binarize="auto", thresholds={"age": [55, 70]}, **kw)
    assert max(items_per_column(ruled).values()) == 1
    # on this table the best free score takes two thresholds of age: the rule binds
    assert max(items_per_column(free).values()) >= 2
    assert free.objective < ruled.objective


def test_raw_predictions_and_json_round_trip(table):
    X, y = table
    model = fit_risk_score(X, y, binarize="auto", thresholds={"age": [55, 70]}, **BOX)
    assert isinstance(model.binarizer, Binarizer)
    p = model.predict_proba(X)
    assert p.shape == (len(X), 2) and np.all(np.isfinite(p))
    new = pd.DataFrame(
        {"age": [np.nan, 80.0, 40.0], "grade": ["IV", None, "III"], "smoker": ["yes", "no", None]}
    )
    assert np.all(np.isfinite(model.predict_proba(new)))
    items = model.binarizer.transform(new)
    np.testing.assert_array_equal(model.decision_function(new), model.decision_function(items))
    restored = RiskScore.from_json(model.to_json())
    assert restored == model and restored.binarizer.to_dict() == model.binarizer.to_dict()
    np.testing.assert_array_equal(restored.predict_proba(X), p)
    np.testing.assert_array_equal(restored.predict(new), model.predict(new))
    text = model.to_text()
    assert all(name in text for name in model.points)
    # a hand edit keeps the binarizer and still reads raw rows
    edited = model.with_points({"age missing": 1})
    assert edited.binarizer is model.binarizer
    assert np.all(np.isfinite(edited.predict_proba(new)))
    # a model read back from JSON takes the raw table again for an edit
    again = restored.with_points({"age missing": 1}, X=X, y=y)
    assert again.points == edited.points and again.objective == pytest.approx(edited.objective)


def test_a_given_binarizer_is_used_as_is(table):
    X, y = table
    binarizer = Binarizer(method="fixed", complements=False, missing="indicator")
    model = fit_risk_score(X, y, binarize=binarizer, **BOX)
    assert model.binarizer is binarizer
    assert list(model.feature_names) == list(binarizer.get_feature_names_out())
    with pytest.raises(InputError, match="Binarizer itself"):
        fit_risk_score(X, y, binarize=binarizer, thresholds={"age": [60]}, **BOX)


def test_linear_columns_and_errors(table):
    X, y = table
    X = X.assign(bmi=np.linspace(18, 35, len(X)).round())
    model = fit_risk_score(X, y, binarize="auto", linear=["bmi"], **BOX)
    assert "bmi" in model.feature_names
    assert model.binarizer.item_groups_.keys().isdisjoint({"bmi"})
    assert np.all(np.isfinite(model.predict_proba(X)))
    with pytest.raises(InputError, match="binarize"):
        fit_risk_score(X, y, binarize=False, thresholds={"age": [60]}, **BOX)
    with pytest.raises(InputError, match="not in the data"):
        fit_risk_score(X, y, binarize="auto", linear=["weight"], **BOX)
    with pytest.raises(InputError, match="binarize must be"):
        fit_risk_score(X, y, binarize="quantiles", **BOX)


def test_a_binary_table_is_used_as_given():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 2, (60, 3)), columns=["a", "b", "c"])
    y = (rng.random(60) < 0.4).astype(int)
    model = fit_risk_score(X, y, **BOX)  # binarize="auto", the default
    assert model.binarizer is None and "binarizer" not in model.to_dict()
    plain = fit_risk_score(X, y, binarize=False, **BOX)
    assert model.to_dict() | {"stats": None} == plain.to_dict() | {"stats": None}
    assert fit_risk_score(X.astype(bool), y, **BOX).binarizer is None


def test_the_default_binarizes_a_raw_table(table):
    X, y = table
    model = fit_risk_score(X, y, **BOX)
    assert isinstance(model.binarizer, Binarizer) and model.binarizer.round_cuts
    assert set(model.binarizer.item_groups_.values()) == {"age", "grade", "smoker"}
    assert np.all(np.isfinite(model.predict_proba(X)))
    # integer codes and real values are binarized too; False keeps the points per unit
    codes = pd.DataFrame({"stage": np.resize([1, 2, 3, 4], len(y))})
    assert fit_risk_score(codes, y, **BOX).binarizer is not None
    per_unit = fit_risk_score(codes, y, binarize=False, **BOX)
    assert per_unit.binarizer is None and per_unit.feature_names == ["stage"]
    assert fit_risk_score(codes, y, binarize=None, **BOX).binarizer is None  # as before


def test_arrays_are_never_binarized_and_errors_say_why(table):
    X, y = table
    codes = np.resize([1.0, 2.0, 3.0], (len(y), 1))
    model = fit_risk_score(codes, y, **BOX)
    assert model.binarizer is None and model.feature_names == ["x0"]
    with pytest.raises(InputError, match="never binarized.*DataFrame"):
        fit_risk_score(X.to_numpy(), y, **BOX)  # text and missing values in an array
    with pytest.raises(InputError, match="binarize=False uses the features as given"):
        fit_risk_score(X, y, binarize=False, **BOX)
    with pytest.raises(InputError, match="need X as a DataFrame"):
        fit_risk_score(codes, y, thresholds={"x0": [2]}, **BOX)
    with pytest.raises(InputError, match="every column is in linear"):
        fit_risk_score(X[["age"]].fillna(50), y, linear=["age"], **BOX)


def test_iter_fit_keeps_the_binarizer(table):
    X, y = table
    events = iter_fit_risk_score(X, y, binarize="auto", thresholds={"age": [55, 70]}, **BOX)
    while True:
        try:
            next(events)
        except StopIteration as done:
            model = done.value
            break
    direct = fit_risk_score(X, y, binarize="auto", thresholds={"age": [55, 70]}, **BOX)
    assert model.binarizer is not None and model.points == direct.points
    np.testing.assert_array_equal(model.predict_proba(X), direct.predict_proba(X))


def test_card_lists_items_by_variable():
    X = pd.DataFrame(
        {
            "age": [50, 66, 80, 72, 45, 90],
            "creatinine": [1.0, np.nan, 2.1, 1.3, np.nan, 0.9],
            "sex": ["F", "M", "M", "F", "F", "F"],
        }
    )
    binarizer = Binarizer(
        thresholds={"age": [65, 75], "creatinine": [2]}, complements=False, missing="indicator"
    ).fit(X)
    assert list(binarizer.get_feature_names_out()) == [
        "age ≥ 65",
        "age ≥ 75",
        "creatinine ≥ 2",
        "creatinine missing",
        "sex = M",
    ]
    names = ["sex = M", "age ≥ 75", "bmi", "creatinine missing", "age ≥ 65", "creatinine ≥ 2"]
    info = {n: {"min": 0, "max": 1, "integer": True} for n in names}
    info["bmi"] = {"min": 18, "max": 35, "integer": True}  # a linear column
    points = {"sex = M": 1, "age ≥ 75": 2, "bmi": 1, "creatinine missing": 1, "age ≥ 65": 1}
    model = RiskScore(names, points, -4, feature_info=info, binarizer=binarizer)
    rows = model.card_rows()
    assert [(r.variable, r.label, r.points_text) for r in rows] == [
        ("sex", "= M", "1 point"),
        ("age", "≥ 75", "2 points"),
        ("age", "≥ 65", "1 point"),  # the items of age together, under age
        ("bmi", "", "1 point per unit"),  # per unit only for the linear column
        ("creatinine", "missing", "1 point"),
    ]
    text = model.to_text()
    assert [line.split("  ")[0] for line in text.splitlines()[:5]] == [
        "1. sex = M",
        "2. age ≥ 75",
        "3. age ≥ 65",
        "4. bmi",
        "5. creatinine missing",
    ]
    assert text.count("per unit") == 1
    card = model.to_html()
    # each variable once, above its items; its first row ruled off from the last variable
    assert card.count('class="rx-variable">age<') == 1 and card.count('class="rx-variable"><') == 1
    assert card.count("border-top:2px") == 3 * 5  # 3 new variables after the first, 5 cells
    assert "per unit" in card and card.count("per unit") == 1
    plain = RiskScore(["a", "b"], {"a": 1, "b": 2}, 0)  # no binarizer: one name column
    assert "rx-variable" not in plain.to_html() and "per unit" not in plain.to_text()
