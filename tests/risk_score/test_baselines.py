"""Baselines of Section 5.1: PLR pool, rounding rules, pooled selection, heuristic certificates."""

from __future__ import annotations

import math

import numpy as np
import pytest

from riskexplore.datasets import load_dataset
from riskexplore.errors import InputError
from riskexplore.evaluation.metrics import risk_score_metrics
from riskexplore.risk_score import baselines as B
from riskexplore.risk_score import plr
from riskexplore.risk_score.model import RiskScore
from riskexplore.risk_score.problem import RiskScoreProblem


@pytest.fixture(scope="module")
def mammo():
    data = load_dataset("mammo")
    pool = B.plr_pool(data.X, data.y, alphas=(0.0, 0.5, 1.0), n_gammas=8)
    return data, pool


def test_pool_shape_params_and_paths(mammo):
    data, pool = mammo
    assert len(pool) == 3 * 8 == len(pool.params)
    assert all(c.shape == (data.X.shape[1] + 1,) for c in pool)
    sizes = pool.sizes()
    # gamma_max of a lasso path zeroes every feature; its smallest gamma uses many
    lasso = [i for i, (a, _) in enumerate(pool.params) if a == 1.0]
    assert sizes[lasso[0]] == 0 and sizes[lasso[-1]] >= 10
    # ridge never has exact zeros
    ridge = [i for i, (a, _) in enumerate(pool.params) if a == 0.0]
    assert all(sizes[i] == data.X.shape[1] for i in ridge)
    small = B.plr_pool(data.X, data.y, alphas=(1.0,), n_gammas=8, max_size=3)
    assert len(small) > 0 and max(small.sizes()) <= 3


def test_cd_solver_matches_saga_objective():
    rng = np.random.default_rng(0)
    X = (rng.random((300, 5)) < 0.4).astype(float)
    y = (X @ [1.5, -1.0, 0.5, 0.0, 0.0] + rng.normal(size=300) > 0.2).astype(int)
    problem = RiskScoreProblem(X, y)
    Xc, yc, w, n = plr._rows(problem)
    A = np.column_stack([np.ones(len(X)), X])
    y01 = y.astype(float)
    v = np.full(len(y), 1.0 / len(y))
    gammas = [0.05, 0.01, 0.001]
    for alpha in (0.0, 0.5, 1.0):
        cd = plr._fit_path(Xc, yc, w, n, alpha, gammas, 2000, 1e-4, "cd")
        saga = plr._fit_path(
            X, np.where(y > 0, 1.0, -1.0), np.ones(300), 300.0, alpha, gammas, 20000, 1e-8, "saga"
        )
        for g, a_cd, a_saga in zip(gammas, cd, saga, strict=True):
            o_cd = plr._plr_objective(A, y01, v, a_cd, g * alpha, g * (1 - alpha))
            o_saga = plr._plr_objective(A, y01, v, a_saga, g * alpha, g * (1 - alpha))
            assert o_cd <= o_saga + 1e-7
            assert np.allclose(a_cd, a_saga, atol=2e-3)


def test_rounding_rules():
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]] * 5, dtype=float)
    y = np.array([0, 1, 1, 0] * 5)
    problem = RiskScoreProblem(X, y, coef_min=-5, coef_max=5)
    coef = np.array([-0.6, 7.4, -0.3])
    assert B._round(problem, coef).tolist() == [-1, 5, 0]
    # rescaled: largest |w| becomes 5, the intercept is scaled too
    assert B._rescaled_round(problem, coef).tolist() == [round(-0.6 * 5 / 7.4), 5, -0]
    unit = B._unit(problem, coef)
    assert unit[1:].tolist() == [1, -1]
    best = min(range(-100, 101), key=lambda b: problem.loss.value(np.array([b, 1.0, -1.0])))
    assert unit[0] == best
    assert B._unit(problem, coef, intercept="round")[0] == -1


@pytest.mark.parametrize("name", list(B.BASELINES))
def test_each_baseline_returns_a_feasible_risk_score(mammo, name):
    data, pool = mammo
    model = B.BASELINES[name](data.X, data.y, max_size=3, pool=pool)
    assert isinstance(model, RiskScore)
    assert model.stats["method"] == name
    assert model.stats["solver"]["pool_size"] == len(pool)
    assert model.size <= 3
    assert all(-5 <= p <= 5 for p in model.points.values())
    problem = RiskScoreProblem(data.X, data.y, max_size=3)
    assert not problem.violations(model.coefficients)
    assert model.loss == pytest.approx(problem.loss.value(model.coefficients.astype(float)))
    # no certificate: status "heuristic", upper bound = objective, lower bound -inf
    cert = model.certificate
    assert cert.status == B.HEURISTIC_STATUS and not cert.is_optimal
    assert cert.upper_bound == pytest.approx(model.objective)
    assert cert.lower_bound == -math.inf and cert.gap == math.inf
    assert "heuristic" in model.certificate_line()
    # every view and metric works; JSON round trip is exact
    assert RiskScore.from_json(model.to_json()) == model
    assert "SCORE" in model.to_text() and "<table" in model.to_html()
    metrics = risk_score_metrics(model, data.X, data.y)
    assert metrics["status"] == "heuristic" and metrics["size"] == model.size
    assert metrics["loss"] == pytest.approx(model.loss)


def test_polished_and_pooled_are_no_worse_than_rounding(mammo):
    data, pool = mammo
    kw = dict(max_size=5, pool=pool)
    rd = B.pooled_rd(data.X, data.y, **kw)
    rd_star = B.pooled_rd_star(data.X, data.y, **kw)
    seq_star = B.pooled_seqrd_star(data.X, data.y, **kw)
    plr = B.plr_rd(data.X, data.y, **kw)
    assert rd_star.objective <= rd.objective + 1e-12
    assert rd.objective <= plr.objective + 1e-12  # the pool contains the PLR model
    assert seq_star.objective < 0.5
    # polishing never adds features to the rounded model it starts from
    assert rd_star.stats["solver"]["plr_size"] >= 0


def test_choose_callable_and_cv_auc(mammo):
    data, pool = mammo
    seen = {}

    def first(coefs, X, y):
        seen["n"] = len(coefs)
        return 0

    model = B.plr_rd(data.X, data.y, max_size=3, pool=pool, choose=first)
    sizes = pool.sizes()
    assert seen["n"] == int(np.sum(sizes <= 3))
    assert model.stats["solver"]["choose"] == "first"
    cv = B.plr_unit(data.X, data.y, max_size=3, pool=pool, choose="cv_auc", cv_splits=3)
    assert cv.size <= 3 and cv.stats["solver"]["choose"] == "cv_auc"
    with pytest.raises(InputError, match="choose"):
        B.plr_rd(data.X, data.y, max_size=3, pool=pool, choose="cal")
    with pytest.raises(InputError, match="index"):
        B.plr_rd(data.X, data.y, max_size=3, pool=pool, choose=lambda c, X, y: len(c))


def test_constraints_and_plain_list_pools(mammo):
    data, pool = mammo
    plain = [np.array(c) for c in pool]
    model = B.pooled_rd_star(
        data.X, data.y, max_size=4, pool=plain, bounds={"IrregularShape": (0, 1)}
    )
    assert model.all_points["IrregularShape"] in (0, 1)
    assert math.isnan(model.stats["solver"]["alpha"])
    assert B.fit_baseline("PooledRD*", data.X, data.y, max_size=4, pool=pool).size <= 4
    with pytest.raises(InputError, match="unknown baseline"):
        B.fit_baseline("nope", data.X, data.y)
    with pytest.raises(InputError, match="entries"):
        B.pooled_rd(data.X, data.y, pool=[np.zeros(3)])
