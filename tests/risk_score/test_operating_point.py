"""Operating-point rules of risk scores (OperatingPoint): checked against brute force.

Every integer model of a small lattice is enumerated with numpy (its objective and its
rates at the threshold computed here, independently of the package), the best one that
meets the rule is the truth, and the certified solve must find its objective, meet the
rule and report a lower bound below it, also when cut short.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from _scaled_reference import region_models, scaled_value

from riskexplore import OperatingPoint
from riskexplore.core.limits import Limits
from riskexplore.errors import ConstraintError, InfeasibleError, InputError
from riskexplore.evaluation.compare import compare_models
from riskexplore.exploration.study.codec import decode_constraint, encode_constraint
from riskexplore.risk_score.constraints import MaxFeatures
from riskexplore.risk_score.feasibility import check_feasible
from riskexplore.risk_score.fit import fit_risk_score, fixed_scale_engine, points_feasible
from riskexplore.risk_score.lcpa.cpa import solve_cpa
from riskexplore.risk_score.lcpa.search import solve_lcpa
from riskexplore.risk_score.near_optimal import solve_near_optimal
from riskexplore.risk_score.problem import RiskScoreProblem
from riskexplore.risk_score.scaled.search import solve_scaled_lcpa

BOUNDS = dict(coef_min=-3, coef_max=3, intercept_min=-4, intercept_max=4)
REL = 1e-9


def make_data(seed: int, d: int = 4, n: int = 300, real: bool = False):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, d)).astype(float)
    if real:  # a real-valued column with negative values
        X[:, 0] = rng.normal(size=n).round(2)
    beta = rng.normal(0, 1.2, d)
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ beta - 0.5)))).astype(int)
    return X, y


def lattice(d: int, bounds) -> np.ndarray:
    ranges = [range(bounds["intercept_min"], bounds["intercept_max"] + 1)]
    ranges += [range(bounds["coef_min"], bounds["coef_max"] + 1)] * d
    return np.array(list(itertools.product(*ranges)), dtype=float)


def brute_force(X, y, rule: OperatingPoint | None, c0=1e-6, max_size=None, bounds=BOUNDS):
    """Objectives of every lattice model and which of them meet the rule (numpy only)."""
    L = lattice(X.shape[1], bounds)
    ys = np.where(y > 0, 1.0, -1.0)
    scores = L[:, :1].T + X @ L[:, 1:].T  # rows x models
    loss = np.logaddexp(0.0, -ys[:, None] * scores).mean(axis=0)
    size = np.count_nonzero(L[:, 1:], axis=1)
    objective = loss + c0 * size
    ok = np.ones(len(L), dtype=bool) if max_size is None else size <= max_size
    if rule is not None:
        flagged = X @ L[:, 1:].T >= rule.at_score - 1e-9
        if rule.min_sensitivity is not None:
            ok &= flagged[y > 0].mean(axis=0) >= rule.min_sensitivity - 1e-12
        if rule.specificity_needed is not None:
            ok &= 1.0 - flagged[y == 0].mean(axis=0) >= rule.specificity_needed - 1e-12
    return L, objective, ok


def best(objective, ok) -> float:
    return float(objective[ok].min()) if ok.any() else np.inf


CASES = [  # (seed, real column, rule): the rule binds in each (checked below)
    (0, False, OperatingPoint(at_score=2, min_sensitivity=0.8)),
    (2, False, OperatingPoint(at_score=1, min_sensitivity=0.6, min_specificity=0.7)),
    (3, False, OperatingPoint(at_score=2, min_sensitivity=0.8)),
    (5, True, OperatingPoint(at_score=1, max_false_positive_rate=0.2)),
]


@pytest.mark.parametrize(("seed", "real", "rule"), CASES)
def test_certified_solve_matches_brute_force(seed, real, rule):
    X, y = make_data(seed, real=real)
    L, objective, ok = brute_force(X, y, rule)
    truth = best(objective, ok)
    free = best(objective, np.ones(len(L), dtype=bool))
    assert np.isfinite(truth) and truth > free + 1e-4  # the rule binds and can be met
    problem = RiskScoreProblem(X, y, constraints=[rule], **BOUNDS)
    result = solve_lcpa(problem)
    assert result.status == "optimal"
    assert result.upper_bound == pytest.approx(truth, rel=REL)
    assert problem.objective(result.solution) == pytest.approx(truth, rel=REL)
    assert result.lower_bound <= truth + 1e-12
    assert not problem.violations(result.solution)
    k = int(np.flatnonzero((L == result.solution).all(axis=1))[0])
    assert ok[k]  # meets the rule by the independent count too
    # cut short, the bound stays valid and any model found meets the rule
    for limits in (Limits(node_limit=3), Limits(time_limit=0.05)):
        early = solve_lcpa(problem, limits=limits)
        assert early.lower_bound <= truth + 1e-12
        if early.solution is not None:
            assert not problem.violations(early.solution)
            assert early.upper_bound >= truth - 1e-12


def test_rule_with_other_constraints_and_weights_and_threads():
    X, y = make_data(0)
    rule = OperatingPoint(at_score=2, min_sensitivity=0.7)
    L, objective, ok = brute_force(X, y, rule, c0=0.01, max_size=2)
    problem = RiskScoreProblem(X, y, constraints=[rule, MaxFeatures(2)], c0=0.01, **BOUNDS)
    result = fit_risk_score(X, y, constraints=[rule, MaxFeatures(2)], c0=0.01, n_jobs=2, **BOUNDS)
    assert result.certificate.is_optimal
    assert problem.objective(result.coefficients) == pytest.approx(best(objective, ok), rel=REL)
    assert result.stats["operating_points"] == [rule.describe()]
    # positive rows weighted twice: sensitivity counts weights (class weight cancels)
    w = np.where(np.arange(len(y)) % 2 == 0, 2.0, 1.0)
    weighted = RiskScoreProblem(X, y, sample_weight=w, constraints=[rule], **BOUNDS)
    lam = solve_lcpa(weighted).solution
    flagged = X @ lam[1:] >= 2
    assert (w[y > 0] * flagged[y > 0]).sum() >= 0.7 * w[y > 0].sum()


def test_infeasible_rules_raise_clearly():
    X, y = make_data(2)
    # no model of the bounds lets 80% of positives reach 2 points: caught before a search
    with pytest.raises(InfeasibleError, match="at most .* of positive rows can reach it"):
        solve_lcpa(RiskScoreProblem(X, y, constraints=[OperatingPoint(2, 0.8)], **BOUNDS))
    # each limit alone can be met in the box, never both: the search proves it
    rule = OperatingPoint(at_score=1, min_sensitivity=0.7, min_specificity=0.8)
    _, objective, ok = brute_force(X, y, rule)
    assert not ok.any()
    problem = RiskScoreProblem(X, y, constraints=[rule], **BOUNDS)
    check_feasible(problem)  # the rows alone are feasible: no false alarm
    with pytest.raises(InfeasibleError, match="saw every model"):
        solve_lcpa(problem)


def test_price_of_a_rule_contains_brute_force_price():
    X, y = make_data(3)
    rule = OperatingPoint(at_score=2, min_sensitivity=0.8)
    L, objective, ok = brute_force(X, y, rule)
    truth = best(objective, ok) - best(objective, np.ones(len(L), dtype=bool))
    frame = pd.DataFrame(X, columns=list("abcd"))
    comparison = compare_models(frame, y, constraints=[rule], binarize=False, **BOUNDS)
    lo, hi = comparison.price_of_constraints
    assert truth > 1e-3 and lo - 1e-9 <= truth <= hi + 1e-9 and hi - lo < 1e-6


def test_near_optimal_set_with_a_rule_is_the_brute_force_set():
    X, y = make_data(0, d=3)
    rule = OperatingPoint(at_score=1, min_sensitivity=0.8)
    L, objective, ok = brute_force(X, y, rule)
    problem = RiskScoreProblem(X, y, constraints=[rule], **BOUNDS)
    found = solve_near_optimal(problem, tolerance=0.02, max_models=500)
    threshold = best(objective, ok) * 1.02
    truth = {tuple(int(v) for v in lam) for lam in L[ok & (objective <= threshold - 1e-9)]}
    got = {m.lam for m in found.models}
    assert found.complete and truth <= got
    assert all(ok[np.flatnonzero((L == m.lam).all(axis=1))[0]] for m in found.models)


def test_constraint_checks_words_and_json():
    rule = OperatingPoint(at_score=3, min_sensitivity=0.9, max_false_positive_rate=0.25)
    assert rule.describe() == (
        "At a total score of 3 or more: sensitivity at least 90%, false-positive rate at most 25%"
    )
    assert rule.specificity_needed == 0.75
    assert rule.to_rows(["a"]) == []
    assert decode_constraint(encode_constraint(rule, "risk_score"), "risk_score") == rule
    for bad, match in [
        (dict(at_score=3), "give min_sensitivity"),
        (dict(at_score=2.5, min_sensitivity=0.9), "at_score"),
        (dict(at_score=2, min_sensitivity=90), r"in \(0, 1\]"),
        (dict(at_score=2, min_specificity=0.0), r"in \(0, 1\]"),
        (dict(at_score=2, max_false_positive_rate=1.0), r"in \[0, 1\)"),
    ]:
        with pytest.raises(ConstraintError, match=match):
            OperatingPoint(**bad)


def meets(X, y, rule: OperatingPoint, lam) -> bool:
    flagged = X @ np.asarray(lam, dtype=float)[1:] >= rule.at_score - 1e-9
    return flagged[y > 0].mean() >= rule.min_sensitivity - 1e-12


def test_learned_scale_and_screen_engine_match_brute_force():
    X, y = make_data(2, d=3)
    rule = OperatingPoint(at_score=2, min_sensitivity=0.7)
    small = dict(coef_min=-2, coef_max=2, intercept_min=-3, intercept_max=3)
    problem = RiskScoreProblem(
        X, y, constraints=[rule], scale="learned", multiplier_min=0.5, multiplier_max=3, **small
    )
    m_range = problem.multiplier_range
    values = [(scaled_value(problem, lam, m_range)[0], lam) for lam in region_models(problem)]
    truth = min(v for v, lam in values if meets(X, y, rule, lam))
    assert truth > min(v for v, _ in values) + 1e-4  # the rule binds
    result = solve_scaled_lcpa(problem, m_range)
    assert result.status == "optimal" and problem.meets_rules(result.solution)
    assert result.upper_bound == pytest.approx(truth, rel=1e-8)
    assert result.lower_bound <= truth + 1e-9
    # the support screen of the fixed scale (m = 1), its lattice search off for the rule
    fixed = RiskScoreProblem(X, y, constraints=[rule], **small)
    L, objective, ok = brute_force(X, y, rule, bounds=small)
    screened = solve_scaled_lcpa(fixed, (1.0, 1.0))
    assert screened.upper_bound == pytest.approx(best(objective, ok), rel=REL)
    assert screened.lower_bound <= best(objective, ok) + 1e-12
    assert fixed.meets_rules(screened.solution)


def test_engines_and_warm_starts_with_a_rule():
    X, y = make_data(0, d=3)
    rule = OperatingPoint(at_score=1, min_sensitivity=0.8)
    problem = RiskScoreProblem(X, y, constraints=[rule], **BOUNDS)
    assert fixed_scale_engine(problem) == "screen"  # binary features: rows merge
    real = RiskScoreProblem(*make_data(5, d=3, real=True), constraints=[rule], **BOUNDS)
    assert fixed_scale_engine(real) == "lcpa"  # the lattice search is off with a rule
    with pytest.raises(InputError, match="cannot certify operating-point rules"):
        solve_cpa(problem)
    with pytest.raises(InputError, match="warm start breaks: At a total score of 1"):
        solve_lcpa(problem, warm_start=np.zeros(4))
    learned = RiskScoreProblem(X, y, constraints=[rule], scale="learned", **BOUNDS)
    with pytest.raises(InputError, match="warm start breaks: At a total score of 1"):
        solve_scaled_lcpa(learned, learned.multiplier_range, warm_start=np.zeros(4))
    assert not points_feasible(learned, np.zeros(4))
