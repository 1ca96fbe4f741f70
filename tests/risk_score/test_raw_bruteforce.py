"""Risk scores of small raw tables against brute force, in both scales, with the
one-per-variable rule on and off, through every engine that must honour the rule.

The table has a numeric column with three cut points, a numeric column with missing
values (a cut point and a ``"lab missing"`` item), a categorical column with three
categories and a yes/no column. The brute force (``tests/_raw_reference.py``) recomputes
the items from the raw rows and enumerates every model of the box.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest
from _raw_reference import enumerate_points, item_matrix, objective_of, optimum

from riskexplore import fit_risk_score
from riskexplore.risk_score.fit import fixed_scale_engine
from riskexplore.risk_score.lcpa.search import LCPASettings
from riskexplore.risk_score.scaled.search import ScaledLCPASettings

#: A box small enough to enumerate (8,441 points vectors on 10 items).
BOX = {"coef_min": -2, "coef_max": 2, "intercept_min": -3, "intercept_max": 3, "max_size": 3}
C0 = 0.004
M_RANGE = (0.25, 10.0)
THRESHOLDS = {"age": [50, 65, 75], "lab": [2.0]}

#: The fixed scale's engines: the default pick, LCPA (with and without root fixing, two
#: threads), the support screen with m = 1 (with the lattice search, with a lattice of
#: two boxes a node, without the lattice search, and without the screen: its plain LP
#: branch-and-bound).
FIXED_ENGINES = {
    "auto": None,
    "lcpa": LCPASettings(n_jobs=1),
    "lcpa, no root fixing, 2 threads": LCPASettings(root_fixing=False, n_jobs=2),
    "screen, lattice": ScaledLCPASettings(n_jobs=1),
    "screen, lattice of 2 boxes a node": ScaledLCPASettings(lattice_max_nodes=2, n_jobs=1),
    "screen, no lattice": ScaledLCPASettings(lattice_search=False, n_jobs=1),
    "no screen": ScaledLCPASettings(support_screen=False, beam_width=0, n_jobs=1),
}
#: The learned scale's engine with and without its support screen.
LEARNED_ENGINES = {
    "learned": None,
    "learned, no screen": ScaledLCPASettings(support_screen=False, beam_width=0, n_jobs=1),
}


def raw_table(n: int = 160, seed: int = 3) -> tuple[pd.DataFrame, np.ndarray]:
    """Age (two steps of risk: two of its thresholds pay together), a lab value missing
    in a fifth of the rows, a grade I/II/III and a yes/no smoker column."""
    rng = np.random.default_rng(seed)
    age = rng.integers(35, 90, n).astype(float)
    lab = rng.gamma(2.0, 1.0, n).round(1)
    lab[rng.random(n) < 0.2] = np.nan
    grade = rng.choice(["I", "II", "III"], n)
    smoker = rng.choice(["yes", "no"], n)
    logit = -2.2 + 1.5 * (age >= 65) + 2.0 * (age >= 75) + 1.0 * (grade == "III")
    logit = logit + 0.8 * np.isnan(lab) + 0.6 * (np.nan_to_num(lab) >= 2) + 0.4 * (smoker == "yes")
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    X = pd.DataFrame({"age": age, "lab": lab, "grade": grade, "smoker": smoker})
    return X, y


TABLE = raw_table()


def fit(scale: str, rule: bool, settings=None):
    X, y = TABLE
    extra = (
        {"multiplier_min": M_RANGE[0], "multiplier_max": M_RANGE[1]} if scale == "learned" else {}
    )
    return fit_risk_score(
        X,
        y,
        binarize="auto",
        thresholds=THRESHOLDS,
        one_per_variable=rule,
        scale=scale,
        c0=C0,
        gap_tolerance=0.0,
        settings=settings,
        **BOX,
        **extra,
    )


@functools.cache
def items_and_columns():
    """The binarizer's items (from a fit) and their matrix on the raw rows."""
    model = fit("fixed", True)
    items = model.binarizer.items_
    return items, item_matrix(items, TABLE[0])


@functools.cache
def brute_force(scale: str, rule: bool) -> tuple[float, np.ndarray]:
    """The optimum of the box by enumeration, with the rule checked on item columns."""
    items, Z = items_and_columns()
    columns = [item.column for item in items]

    def one_per_column(support) -> bool:
        used = [columns[j] for j in support]
        return len(used) == len(set(used))

    points = enumerate_points(
        len(items),
        BOX["max_size"],
        [range(BOX["coef_min"], BOX["coef_max"] + 1)] * len(items),
        one_per_column if rule else (lambda support: True),
    )
    intercepts = range(BOX["intercept_min"], BOX["intercept_max"] + 1)
    m_range = M_RANGE if scale == "learned" else None
    return optimum(Z, TABLE[1], points, intercepts, C0, m_range)


def columns_used(model) -> list[str]:
    groups = {item.name: item.column for item in model.binarizer.items_}
    return [groups[name] for name in model.points]


def test_the_items_are_those_of_the_raw_rows():
    items, Z = items_and_columns()
    model = fit("fixed", True)
    names = [item.name for item in items]
    assert names[:5] == ["age ≥ 50", "age ≥ 65", "age ≥ 75", "lab ≥ 2", "lab missing"]
    assert names[5:8] == ["grade = I", "grade = II", "grade = III"]
    assert {item.column for item in items[8:]} == {"smoker"}
    np.testing.assert_array_equal(np.asarray(model._problem.X, dtype=float), Z)


def check(model, scale: str, rule: bool, name: str) -> None:
    best, _ = brute_force(scale, rule)
    assert model.certificate.status == "optimal", name
    assert model.objective == pytest.approx(best, rel=1e-8, abs=1e-10), name
    assert model.certificate.lower_bound <= best + 1e-9, name
    # the reported objective is that of the model itself, on the raw rows
    _, Z = items_and_columns()
    lam = np.array([model.intercept, *(model.all_points[n] for n in model.feature_names)])
    own = objective_of(Z, TABLE[1], lam, C0, model.multiplier)
    assert own == pytest.approx(model.objective, rel=1e-9), name
    assert model.size <= BOX["max_size"] and np.all(np.abs(lam[1:]) <= BOX["coef_max"])
    if scale == "learned":
        assert M_RANGE[0] <= model.multiplier <= M_RANGE[1]
    else:
        assert model.multiplier == 1.0
    if rule:
        assert len(set(columns_used(model))) == len(columns_used(model)), (name, model.points)


@pytest.mark.parametrize("rule", [True, False], ids=["one per variable", "free"])
@pytest.mark.parametrize("engine", list(FIXED_ENGINES))
def test_fixed_scale_engines_match_brute_force(engine, rule):
    check(fit("fixed", rule, FIXED_ENGINES[engine]), "fixed", rule, engine)


@pytest.mark.parametrize("rule", [True, False], ids=["one per variable", "free"])
@pytest.mark.parametrize("engine", list(LEARNED_ENGINES))
def test_learned_scale_engines_match_brute_force(engine, rule):
    check(fit("learned", rule, LEARNED_ENGINES[engine]), "learned", rule, engine)


def test_the_engines_of_the_fixed_scale_are_those_named():
    model = fit("fixed", True)
    picks = {name: fixed_scale_engine(model._problem, s) for name, s in FIXED_ENGINES.items()}
    assert picks["lcpa"] == picks["lcpa, no root fixing, 2 threads"] == "lcpa"
    assert picks["screen, lattice"] == picks["no screen"] == "screen"
    # 0/1 items: the kernel merges the rows on every support, so the screen is the default
    assert picks["auto"] == "screen"


@pytest.mark.parametrize("scale", ["fixed", "learned"])
def test_the_rule_binds_and_costs_objective(scale):
    """On this table the best free score takes two thresholds of age (risk rises at 65 and
    again at 75): the rule's optimum is strictly worse, never better."""
    ruled, free = brute_force(scale, True), brute_force(scale, False)
    assert ruled[0] > free[0]
    groups = {j: item.column for j, item in enumerate(items_and_columns()[0])}
    used = [groups[j] for j in np.flatnonzero(free[1][1:])]
    assert len(used) > len(set(used))
    # the learned scale's class holds the fixed one's (m = 1)
    if scale == "learned":
        assert ruled[0] <= brute_force("fixed", True)[0] + 1e-12
        assert free[0] <= brute_force("fixed", False)[0] + 1e-12
