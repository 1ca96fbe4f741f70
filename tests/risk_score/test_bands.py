"""Monotone bands (``bands=``): certified against brute force, monotone, shown as bands."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest
from _raw_reference import enumerate_points, item_matrix, optimum

from riskexplore import (
    Binarizer,
    RiskScore,
    RiskSlimClassifier,
    fit_risk_score,
    iter_fit_risk_score,
)
from riskexplore.errors import InputError
from riskexplore.risk_score.bands import band_rows, parse_bands
from riskexplore.risk_score.card_rows import CardRow
from riskexplore.risk_score.coefficients import CoefficientSet
from riskexplore.risk_score.lcpa.search import LCPASettings
from riskexplore.risk_score.scaled.search import ScaledLCPASettings

BOX = {"coef_min": -2, "coef_max": 2, "intercept_min": -3, "intercept_max": 3, "max_size": 3}
C0 = 0.004
M_RANGE = (0.25, 10.0)
THRESHOLDS = {"age": [50, 65, 75], "hb": [10.0, 12.0]}
ENGINES = {
    "fixed": {
        "auto": None,
        "lcpa": LCPASettings(n_jobs=1),
        "screen, lattice": ScaledLCPASettings(n_jobs=1),
        "no screen": ScaledLCPASettings(support_screen=False, beam_width=0, n_jobs=1),
    },
    "learned": {"learned": None},
}


def raw_table(n: int = 150, seed: int = 5) -> tuple[pd.DataFrame, np.ndarray]:
    """Risk rising with age (steps at 65 and 75), falling with haemoglobin (hb, missing
    in some rows), a grade I/II/III."""
    rng = np.random.default_rng(seed)
    age = rng.integers(35, 90, n).astype(float)
    hb = rng.normal(12.5, 2.0, n).round(1)
    hb[rng.random(n) < 0.15] = np.nan
    grade = rng.choice(["I", "II", "III"], n)
    logit = -2.5 + 1.5 * (age >= 65) + 2.0 * (age >= 75) + 1.2 * (np.nan_to_num(hb, nan=13) < 10)
    logit = logit + 0.8 * (grade == "III")
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return pd.DataFrame({"age": age, "hb": hb, "grade": grade}), y


TABLE = raw_table()


def fit(bands=("age", "hb"), scale="fixed", settings=None, **kw):
    X, y = TABLE
    extra = {"multiplier_min": M_RANGE[0], "multiplier_max": M_RANGE[1]}
    return fit_risk_score(
        X,
        y,
        binarize="auto",
        thresholds=THRESHOLDS,
        bands=bands,
        c0=C0,
        gap_tolerance=0.0,
        scale=scale,
        settings=settings,
        **BOX,
        **(extra if scale == "learned" else {}),
        **kw,
    )


@functools.cache
def items():
    """The binarizer's items and their matrix on the raw rows."""
    binarizer = fit(bands=None, one_per_variable=False).binarizer
    return binarizer.items_, item_matrix(binarizer.items_, TABLE[0])


@functools.cache
def brute_force(scale: str, signs: tuple, max_bands: int | None = None) -> tuple[float, np.ndarray]:
    """The optimum over every model of the box in which each band column's threshold
    items have points of its sign (``signs``: ``(column, +1 or -1)`` pairs) and at most
    ``max_bands`` of them are used, and every other column has at most one item."""
    its, Z = items()
    sign = dict(signs)
    values, kinds = [], []
    for item in its:
        banded = item.column in sign and item.op != "missing"
        s = sign.get(item.column, 0) if banded else 0
        values.append(range(0, 3) if s > 0 else range(-2, 1) if s < 0 else range(-2, 3))
        kinds.append((item.column, banded))

    def allowed(support) -> bool:
        free = [kinds[j][0] for j in support if kinds[j][0] not in sign]
        thresholds = [kinds[j][0] for j in support if kinds[j][1]]
        counts = [thresholds.count(c) for c in sign]
        return len(free) == len(set(free)) and all(k <= (max_bands or 9) for k in counts)

    points = enumerate_points(len(its), BOX["max_size"], values, allowed)
    intercepts = range(BOX["intercept_min"], BOX["intercept_max"] + 1)
    return optimum(Z, TABLE[1], points, intercepts, C0, M_RANGE if scale == "learned" else None)


def used_thresholds(model, column: str) -> list[str]:
    return [
        i.name
        for i in model.binarizer.items_
        if i.column == column and i.op != "missing" and i.name in model.points
    ]


def check(model, best: float, name: str) -> None:
    assert model.certificate.status == "optimal", name
    assert model.objective == pytest.approx(best, rel=1e-8, abs=1e-10), name
    assert model.certificate.lower_bound <= best + 1e-9, name


@pytest.mark.parametrize(
    ("scale", "engine"), [(s, e) for s, engines in ENGINES.items() for e in engines]
)
def test_bands_match_brute_force(scale, engine):
    model = fit(scale=scale, settings=ENGINES[scale][engine])
    # "auto": risk rises with age and falls with haemoglobin
    assert model.stats["bands"] == {
        "age": {"direction": "increasing", "max_bands": None, "integer": True},
        "hb": {"direction": "decreasing", "max_bands": None, "integer": False},
    }
    check(model, brute_force(scale, (("age", 1), ("hb", -1)))[0], engine)
    assert all(model.points[n] > 0 for n in used_thresholds(model, "age"))
    assert all(model.points[n] < 0 for n in used_thresholds(model, "hb"))
    # on this table the bands pay: both steps of age
    assert len(used_thresholds(model, "age")) == 2


def test_a_limit_on_bands_and_a_given_direction_match_brute_force():
    model = fit(bands={"age": {"direction": "increasing", "max_bands": 1}})
    check(model, brute_force("fixed", (("age", 1),), 1)[0], "max_bands 1")
    assert len(used_thresholds(model, "age")) == 1
    model = fit(bands={"age": "decreasing"})
    check(model, brute_force("fixed", (("age", -1),))[0], "decreasing")
    assert all(model.points[n] < 0 for n in used_thresholds(model, "age"))


def test_bands_lie_between_the_rule_and_no_rule():
    """Bands allow every age step of one sign: better than one item per column here
    (risk rises twice), never better than no rule at all."""
    banded = fit(bands=["age"])
    ruled = fit(bands=None)
    free = fit(bands=None, one_per_variable=False)
    assert free.objective <= banded.objective + 1e-12
    assert banded.objective < ruled.objective


def test_the_score_never_falls_as_age_rises():
    model = fit(bands=["age"])
    row = TABLE[0].iloc[[0]]
    ages = np.arange(30, 100)
    rows = pd.concat([row.assign(age=float(a)) for a in ages], ignore_index=True)
    scores = model.decision_function(rows)
    assert np.all(np.diff(scores) >= 0) and scores[-1] > scores[0]


def test_the_card_shows_bands_with_cumulative_points():
    model = fit(bands=["age"])
    p65, p75 = model.points["age ≥ 65"], model.points["age ≥ 75"]
    text = model.to_text()
    lines = [" ".join(line.split()) for line in text.splitlines()]
    # one line per band, with the points of every threshold at or below it
    assert any(f"age 65–74 {p65} point{'s' if p65 > 1 else ''}" in line for line in lines), text
    assert any(f"age ≥ 75 {p65 + p75} points" in line for line in lines), text
    assert "age ≥ 65" not in text
    html = model.to_html()  # grouped by variable: "age" once, then each band's range
    assert ">65–74<" in html and ">≥ 75<" in html and f">{p65 + p75} points<" in html
    assert "≥ 65" not in html
    restored = RiskScore.from_json(model.to_json())
    assert restored == model and restored.to_text() == text
    # a hand edit keeps the bands; an edit against the direction is named
    edited = model.with_points({"age ≥ 75": -1})
    assert edited.stats["bands"] == model.stats["bands"]
    assert any("age ≥ 75" in b for b in edited.distance.breaks)


def test_band_labels_of_other_cut_offs():
    X = pd.DataFrame({"crea": [0.8, 1.3, 2.4, 1.9, 3.1, 0.9], "n": [0, 1, 2, 3, 4, 5]})
    binarizer = Binarizer(
        complements=False, thresholds={"crea": [1.2, 2], "n": [(">", 0), (">=", 2), (">", 2)]}
    ).fit(X)
    points = {"crea ≥ 1.2": 1, "crea ≥ 2": 2, "n > 0": 1, "n ≥ 2": 1, "n > 2": 1}
    rows = [CardRow(name.split()[0], "", name, p, False) for name, p in points.items()]
    record = {"crea": {"integer": False}, "n": {"integer": True}}
    banded = band_rows(rows, points, binarizer, record)
    assert [(row.name, row.points_text) for row in banded] == [
        ("1.2 ≤ crea < 2", "1 point"),
        ("crea ≥ 2", "3 points"),
        ("n 1", "1 point"),
        ("n 2", "2 points"),
        ("n > 2", "3 points"),
    ]
    # without a record (or a binarizer) the rows stay as they are
    assert band_rows(rows, points, binarizer, None) == rows
    assert band_rows(rows, points, None, record) == rows


def test_iter_fit_and_the_estimator_take_bands():
    X, y = TABLE
    events = iter_fit_risk_score(
        X, y, binarize="auto", thresholds=THRESHOLDS, bands=["age"], c0=C0, **BOX
    )
    while True:
        try:
            next(events)
        except StopIteration as done:
            model = done.value
            break
    assert model.points == fit(bands=["age"]).points and "bands" in model.stats
    numeric = X[["age"]].assign(old=(X["age"] >= 80).astype(int))
    clf = RiskSlimClassifier(bands={"age": "increasing"}, c0=C0, time_limit=10, **BOX)
    clf.fit(numeric, y)
    assert clf.model_.stats["bands"]["age"]["direction"] == "increasing"
    assert np.all(np.isfinite(clf.predict_proba(numeric)))


@pytest.mark.parametrize(
    ("bands", "kw", "message"),
    [
        (["weight"], {}, "not in the data"),
        (["grade"], {}, "categorical"),
        (["age"], {"linear": ["age"], "thresholds": {"hb": [10.0]}}, "linear"),
        ({"age": "up"}, {}, "direction"),
        ({"age": {"direction": "auto", "max_bands": 0}}, {}, "max_bands"),
        ({"age": {"sign": 1}}, {}, "give a direction"),
        (3, {}, "list of column names"),
        ({"age": "increasing"}, {"signs": {"age ≥ 65": -1}}, "other sign"),
        (["age"], {"binarize": None, "thresholds": None}, "bands need a binarized table"),
        (
            ["age"],
            {"binarize": Binarizer(thresholds={"age": [65]}), "thresholds": None},
            "below a cut-off",
        ),
    ],
)
def test_bad_bands_fail_early(bands, kw, message):
    X, y = TABLE
    args = {"binarize": "auto", "thresholds": THRESHOLDS, **kw}
    with pytest.raises(InputError, match=message):
        fit_risk_score(X, y, bands=bands, **BOX, **args)


def test_a_column_without_items_cannot_be_banded():
    X, y = TABLE
    binarizer = Binarizer(complements=False, missing="indicator").fit(X[["hb", "grade"]])
    with pytest.raises(InputError, match="'age' gave no items"):
        fit_risk_score(X, y, binarize=binarizer, bands=["age"], **BOX)


def test_bands_need_signs_not_a_coefficient_set():
    X, y = TABLE
    names = list(fit(bands=None).feature_names)
    cset = CoefficientSet.uniform(
        names, coef_min=-2, coef_max=2, c0=C0, intercept_min=-3, intercept_max=3
    )
    with pytest.raises(InputError, match="coefficient_set"):
        fit_risk_score(
            X, y, binarize="auto", thresholds=THRESHOLDS, bands=["age"], coefficient_set=cset
        )


def test_parse_bands():
    assert parse_bands(None) == {}
    assert parse_bands("age") == {"age": {"direction": "auto", "max_bands": None}}
    assert parse_bands({"age": {"max_bands": 2}}) == {"age": {"direction": "auto", "max_bands": 2}}
