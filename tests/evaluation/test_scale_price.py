"""The certified price of a fixed scale against brute force in both classes; the learned
scale through the comparisons, the size paths, cross-validation and grids."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _scaled_reference import scaled_optimum  # the learned class's brute force
from _small_problems import enumerate_optimum as fixed_optimum  # and m = 1's

from riskexplore import fit_risk_score
from riskexplore.errors import InputError
from riskexplore.evaluation.compare import compare_models
from riskexplore.evaluation.cv import cross_validate_recipe, risk_score_recipe
from riskexplore.evaluation.grids import run_grid
from riskexplore.evaluation.paths import risk_score_size_path
from riskexplore.risk_score.constraints import AtMostKOf, Exclude, PredictedRisk
from riskexplore.risk_score.fit import build_problem
from riskexplore.risk_score.lcpa.cut_pool import CutPool
from riskexplore.risk_score.scale_price import price_of_fixed_scale, scale_price_interval

SMALL = {"coef_min": -2, "coef_max": 2, "intercept_min": -4, "intercept_max": 4}


def tiny(seed: int) -> tuple[pd.DataFrame, pd.Series]:
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(80, 300)), int(rng.integers(2, 4))
    X = rng.integers(0, 2, (n, d)).astype(float)
    beta = rng.normal(size=d) * 2
    steep = rng.choice([0.4, 1.0, 3.0])  # risk curves steeper and flatter than sigma
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ beta - 0.3) / steep))).astype(int)
    return pd.DataFrame(X, columns=[f"f{j}" for j in range(d)]), pd.Series(y, name="y")


CASES = [  # (multiplier range, constraints, solve limits)
    ((0.25, 10.0), [], {}),
    ((0.5, 2.0), [AtMostKOf(["f0", "f1"], k=1)], {}),
    ((2.0, 6.0), [], {}),  # 1 outside the range: the price may be negative
    ((0.25, 10.0), [PredictedRisk(when={"f0": 1}, at_least=0.3)], {}),
    ((0.25, 1.0), [Exclude("f1")], {"node_limit": 1}),  # stopped early: still valid
    ((0.25, 10.0), [], {"node_limit": 2}),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_price_interval_contains_the_true_difference(case):
    m_range, constraints, limits = CASES[case]
    X, y = tiny(case)
    kwargs = {"max_size": 2, "constraints": constraints, "gap_tolerance": 0.0, **SMALL}
    price = price_of_fixed_scale(
        X, y, multiplier_min=m_range[0], multiplier_max=m_range[1], **limits, **kwargs
    )
    problem = build_problem(X, y, max_size=2, constraints=constraints, **SMALL)
    truth = fixed_optimum(problem) - scaled_optimum(problem, m_range)
    lo, hi = price.interval
    assert lo - 1e-9 <= truth <= hi + 1e-9, (price.interval, truth)
    if m_range[0] <= 1 <= m_range[1]:
        assert lo >= 0
    if not limits:  # both certified: (nearly) a point
        assert price.fixed.certificate.status == price.learned.certificate.status == "optimal"
        assert hi - lo <= 1e-6 * max(1.0, abs(truth))
    assert price.fixed.scale == "fixed" and price.learned.scale == "learned"
    assert m_range[0] <= price.learned.multiplier <= m_range[1]
    assert price.multiplier_range == m_range
    assert "Price of a fixed scale" in price.describe() and "[" in price.summary()


def test_price_from_a_given_model_matches_and_shares_the_pool():
    X, y = tiny(11)
    pool = CutPool()
    fixed = fit_risk_score(X, y, max_size=2, cut_pool=pool, gap_tolerance=0.0, **SMALL)
    cuts = len(pool)
    price = price_of_fixed_scale(
        X, y, fixed=fixed, cut_pool=pool, max_size=2, gap_tolerance=0.0, **SMALL
    )
    assert price.fixed is fixed and len(pool) >= cuts  # the learned solve used the pool
    both = price_of_fixed_scale(X, y, max_size=2, gap_tolerance=0.0, **SMALL)
    assert price.interval == pytest.approx(both.interval, abs=1e-9)
    learned_first = price_of_fixed_scale(
        X, y, learned=both.learned, max_size=2, gap_tolerance=0.0, **SMALL
    )
    assert learned_first.learned is both.learned
    assert learned_first.interval == pytest.approx(both.interval, abs=1e-9)


def test_price_interval_from_certificates():
    from riskexplore.core.certificate import Certificate

    fixed = Certificate.from_bounds("time_limit", 0.50, 0.45)
    learned = Certificate.from_bounds("optimal", 0.47, 0.47)
    assert scale_price_interval(fixed, learned) == pytest.approx((0.0, 0.03))
    assert scale_price_interval(fixed, learned, contains_one=False) == pytest.approx((-0.02, 0.03))


def test_price_refuses_bad_input():
    X, y = tiny(12)
    with pytest.raises(InputError, match="sets scale itself"):
        price_of_fixed_scale(X, y, scale="learned")
    with pytest.raises(InputError, match="sets warm_start itself"):
        price_of_fixed_scale(X, y, warm_start=[0, 0, 0])
    with pytest.raises(InputError, match=r"multiplier_min \(3\) must be less"):
        price_of_fixed_scale(X, y, multiplier_min=3, multiplier_max=1)
    learned = fit_risk_score(X, y, max_size=1, scale="learned", **SMALL)
    with pytest.raises(InputError, match="fixed= must be a certified fit with scale='fixed'"):
        price_of_fixed_scale(X, y, fixed=learned, max_size=1, **SMALL)
    with pytest.raises(InputError, match="multiplier range"):
        price_of_fixed_scale(X, y, learned=learned, multiplier_max=5, max_size=1, **SMALL)
    with pytest.raises(InputError, match=r"fitted on \d+ rows, not 10"):
        price_of_fixed_scale(X.iloc[:10], y.iloc[:10], learned=learned, max_size=1, **SMALL)


def test_compare_models_with_the_learned_scale():
    X, y = tiny(13)
    comparison = compare_models(
        X, y, constraints=[Exclude("f0")], max_size=2, scale="learned", gap_tolerance=0.0, **SMALL
    )
    free, bound = comparison.models
    assert free.scale == bound.scale == "learned"
    lo, hi = comparison.price_of_constraints
    problem = build_problem(X, y, max_size=2, **SMALL)
    constrained = build_problem(X, y, max_size=2, constraints=[Exclude("f0")], **SMALL)
    truth = scaled_optimum(constrained, (0.25, 10.0)) - scaled_optimum(problem, (0.25, 10.0))
    assert lo - 1e-9 <= truth <= hi + 1e-9


def test_size_path_with_the_learned_scale():
    X, y = tiny(14)
    path = risk_score_size_path(
        X, y, sizes=2, time_limit_per_size=20, scale="learned", gap_tolerance=0.0, **SMALL
    )
    assert [m.scale for m in path.models] == ["learned", "learned"]
    for row, model in zip(path.rows, path.models, strict=True):
        problem = build_problem(X, y, max_size=row["size"], **SMALL)
        optimum = scaled_optimum(problem, (0.25, 10.0))
        assert row["objective_lower"] <= optimum + 1e-12
        assert row["loss"] == model.loss and model.multiplier != 1.0


def test_cross_validation_and_grids_pass_the_scale_through():
    X, y = tiny(15)
    recipe = risk_score_recipe(max_size=2, scale="learned", time_limit=10, **SMALL)
    result = cross_validate_recipe(recipe, X, y, n_splits=2, return_models=True)
    assert len(result) == 2 and all(m.scale == "learned" for m in result["model"])

    def fit_cell(cell):
        model = fit_risk_score(X, y, max_size=1, time_limit=10, **cell, **SMALL)
        return {"upper_bound": model.objective, "multiplier": model.multiplier}

    cells = [{"scale": "fixed"}, {"scale": "learned", "multiplier_max": 4.0}]
    grid = run_grid(cells, fit_cell)
    frame = grid.to_frame()
    assert list(frame["status"]) == ["ok", "ok"]
    assert frame["multiplier"].iloc[0] == 1.0 and 0.25 <= frame["multiplier"].iloc[1] <= 4.0
