"""GroupCalibration: a group's average score near the log-odds of its observed rate.

The certified optimum with the constraint is checked against brute force on small
instances, for both engines (the fixed scale, LCPA; the learned scale, scaled LCPA). The
brute force computes each group's average score from the raw data, apart from the row
the constraint compiles to.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from _scaled_reference import scaled_value

from riskexplore.core.limits import Limits
from riskexplore.errors import ConstraintError, InfeasibleError, InputError
from riskexplore.risk_score.constraints import MaxFeatures, PredictedRisk
from riskexplore.risk_score.fit import fit_risk_score
from riskexplore.risk_score.group_calibration import CALIBRATION_LIMITS, GroupCalibration
from riskexplore.risk_score.lcpa.search import solve_lcpa
from riskexplore.risk_score.problem import RiskScoreProblem
from riskexplore.risk_score.scaled.search import solve_scaled_lcpa


def _logit(p):
    return math.log(p / (1 - p))


def small_data(seed: int):
    """Up to 4 binary (one ordinal) features, a group column that is not a feature."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(80, 300)), int(rng.integers(2, 5))
    X = rng.integers(0, 2, (n, d)).astype(float)
    if rng.random() < 0.4:
        X[:, 0] = rng.integers(0, 4, n)
    site = rng.integers(0, 3, n)
    beta = rng.normal(size=d) * 1.5
    # the outcome depends on the site, which the features do not see
    logit = X @ beta - 0.5 + np.where(site == 2, 1.2, 0.0)
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    names = [f"f{j}" for j in range(d)]
    w = rng.uniform(0.5, 2, n) if rng.random() < 0.3 else None
    return pd.DataFrame(X, columns=names), y, pd.DataFrame({"site": site}), w


def group_ok(lam, X, y, w, mask, gap, limit, m=1.0, target=None):
    """Whether the group's average of ``score / m`` is in the band (from the raw data)."""
    w = np.ones(len(y)) if w is None else w
    score = (lam[0] + X @ lam[1:]) / m
    mean = float(w[mask] @ score[mask] / w[mask].sum())
    rate = float(w[mask] @ (y[mask] == 1) / w[mask].sum())
    t = _logit(rate) if target is None else target
    lower = t - gap if limit in ("both", "under") else -math.inf
    upper = t + gap if limit in ("both", "over") else math.inf
    return lower - 1e-9 <= mean <= upper + 1e-9


def fixed_brute_force(problem, base, X, y, w, masks, gaps, limits_, target=None):
    """Least objective over every model in the box meeting ``base`` (the problem without
    the group rows) and each group's band."""
    lo, hi = base.lam_bounds()
    best, best_lam = math.inf, None
    for lam in itertools.product(*[range(int(a), int(b) + 1) for a, b in zip(lo, hi, strict=True)]):
        lam = np.array(lam, dtype=float)
        if base.violations(lam):
            continue
        if not all(
            group_ok(lam, X, y, w, mk, g, li, target=target)
            for mk, g, li in zip(masks, gaps, limits_, strict=True)
        ):
            continue
        value = base.objective(lam)
        if value < best:
            best, best_lam = value, lam
    return best, best_lam


CASES = [
    # (seed, conditions, max_gap, limit): each binds (the optimum without it breaks it),
    # but the fourth, which no model meets
    (0, {"site": 2}, 0.1, "both"),
    (1, {"site": 2}, 0.0, "under"),
    (2, {"site": 0}, 0.0, "under"),
    (3, {"site": (1, None)}, 0.0, "both"),
    (4, {"site": 2, "f1": 1}, 0.3, "under"),
    (5, {"f0": (None, 1)}, 0.15, "both"),
    (6, {"site": 1}, 0.0, "over"),
    (7, {"site": (None, 2)}, 0.0, "over"),
]


def build(seed, where, gap, limit, target=None, **kw):
    X, y, groups, w = small_data(seed)
    common = dict(
        sample_weight=w,
        coef_min=-2,
        coef_max=2,
        intercept_min=-4,
        intercept_max=4,
        c0=0.01,
        groups=groups,
        **kw,
    )
    rule = GroupCalibration(where, max_gap=gap, limit=limit, target=target)
    problem = RiskScoreProblem(X, y, constraints=[rule], **common)
    base = RiskScoreProblem(X, y, **common)
    mask = np.ones(len(y), dtype=bool)
    frame = pd.concat([X, groups], axis=1)
    for column, value in where.items():
        values = frame[column].to_numpy(dtype=float)
        if isinstance(value, tuple):
            low, high = value
            mask &= (values >= (-np.inf if low is None else low)) & (
                values < (np.inf if high is None else high)
            )
        else:
            mask &= values == value
    return problem, base, X.to_numpy(float), y, w, mask


@pytest.mark.parametrize(("seed", "where", "gap", "limit"), CASES)
def test_fixed_scale_matches_brute_force(seed, where, gap, limit):
    problem, base, X, y, w, mask = build(seed, where, gap, limit)
    optimum, lam_best = fixed_brute_force(problem, base, X, y, w, [mask], [gap], [limit])
    if not math.isfinite(optimum):
        with pytest.raises(InfeasibleError):
            solve_lcpa(problem)
        return
    free, _ = fixed_brute_force(base, base, X, y, w, [], [], [])
    assert optimum > free + 1e-9  # the rule binds: the brute force without it differs
    result = solve_lcpa(problem, limits=Limits(gap_tolerance=0.0))
    assert result.status == "optimal"
    assert result.upper_bound == pytest.approx(optimum, rel=1e-9, abs=1e-12)
    assert result.lower_bound <= optimum + 1e-12
    assert group_ok(result.solution, X, y, w, mask, gap, limit)
    # the row and the raw data agree on every model of the box
    assert problem.is_feasible(lam_best)


def test_the_constraint_binds_and_costs():
    """Site 2's risk is underestimated by a score that cannot see the site; the rule
    moves the score and the certified optimum rises (checked by brute force above)."""
    problem, base, X, y, w, mask = build(0, {"site": 2}, 0.05, "under")
    free = solve_lcpa(base, limits=Limits(gap_tolerance=0.0))
    assert not group_ok(free.solution, X, y, w, mask, 0.05, "under")
    ruled = solve_lcpa(problem, limits=Limits(gap_tolerance=0.0))
    assert group_ok(ruled.solution, X, y, w, mask, 0.05, "under")
    assert ruled.upper_bound > free.upper_bound


def scaled_brute_force(problem, base, X, y, w, mask, gap, limit, m_range):
    """Least objective over points and multiplier: ``scaled_value`` with the group's
    band on ``score / m`` computed from the raw data (the band is an interval of t)."""
    best = math.inf
    lo, hi = base.lam_bounds()
    weights = np.ones(len(y)) if w is None else w
    rate = float(weights[mask] @ (y[mask] == 1) / weights[mask].sum())
    t_obs = _logit(rate)
    band_lo = t_obs - gap if limit in ("both", "under") else -math.inf
    band_hi = t_obs + gap if limit in ("both", "over") else math.inf
    for lam in itertools.product(*[range(int(a), int(b) + 1) for a, b in zip(lo, hi, strict=True)]):
        lam = np.array(lam, dtype=float)
        if base.violations(lam):
            continue
        mean = float(weights[mask] @ (lam[0] + X[mask] @ lam[1:]) / weights[mask].sum())
        # problem has exactly one predicted-risk row: the group's; scaled_value uses it
        value, m = scaled_value(problem, lam, m_range)
        if math.isfinite(value):
            assert band_lo - 1e-7 <= mean / m <= band_hi + 1e-7
        best = min(best, value)
    return best


@pytest.mark.parametrize(("seed", "where", "gap", "limit"), CASES[:6])
def test_learned_scale_matches_brute_force(seed, where, gap, limit):
    m_range = (0.5, 3.0)
    problem, base, X, y, w, mask = build(seed, where, gap, limit)
    optimum = scaled_brute_force(problem, base, X, y, w, mask, gap, limit, m_range)
    if not math.isfinite(optimum):
        with pytest.raises(InfeasibleError):
            solve_scaled_lcpa(problem, m_range)
        return
    result = solve_scaled_lcpa(problem, m_range, limits=Limits(gap_tolerance=0.0))
    assert result.status == "optimal"
    assert result.upper_bound == pytest.approx(optimum, rel=1e-7, abs=1e-10)
    assert result.lower_bound <= optimum + 1e-10
    m = result.stats["multiplier"]
    assert group_ok(result.solution, X, y, w, mask, gap, limit, m=m)


def test_fit_risk_score_takes_it_with_both_scales():
    X, y, groups, _ = small_data(0)
    rule = GroupCalibration({"site": 2}, max_gap=0.1)
    for scale in ("fixed", "learned"):
        model = fit_risk_score(
            X,
            y,
            max_size=2,
            coef_min=-2,
            coef_max=2,
            constraints=[rule, MaxFeatures(2)],
            groups=groups,
            scale=scale,
            time_limit=30,
        )
        assert model.certificate.lower_bound <= model.certificate.upper_bound


def test_a_group_column_may_be_a_feature():
    X, y, _, _ = small_data(3)
    problem = RiskScoreProblem(X, y, constraints=[GroupCalibration({"f1": 1}, max_gap=0.2)])
    (row,) = problem.rows
    mask = X["f1"].to_numpy() == 1
    assert row.points["f1"] == pytest.approx(1.0)
    assert row.points["(Intercept)"] == 1.0
    assert row.points["f0"] == pytest.approx(X["f0"].to_numpy()[mask].mean())
    rate = y[mask].mean()
    assert row.lower == pytest.approx(_logit(rate) - 0.2)
    assert row.upper == pytest.approx(_logit(rate) + 0.2)
    assert row.logit_bounds == (row.lower, row.upper)
    assert "observed" in row.name and "e-" not in row.name


# --- checks and messages ---------------------------------------------------------------
def test_arguments_are_checked_early():
    with pytest.raises(ConstraintError, match="max_gap must be a number of log-odds >= 0"):
        GroupCalibration({"site": 1}, max_gap=-0.1)
    with pytest.raises(ConstraintError, match="max_gap is NaN"):
        GroupCalibration({"site": 1}, max_gap=float("nan"))
    with pytest.raises(ConstraintError, match="limit must be one of both, under, over"):
        GroupCalibration({"site": 1}, limit="lower")
    with pytest.raises(ConstraintError, match="where is empty"):
        GroupCalibration({})
    with pytest.raises(ConstraintError, match="must map group columns"):
        GroupCalibration("site")
    with pytest.raises(ConstraintError, match="low=60 must be less than high=40"):
        GroupCalibration({"age": (60, 40)})
    with pytest.raises(ConstraintError, match="give low and/or high"):
        GroupCalibration({"age": (None, None)})
    with pytest.raises(ConstraintError, match="a value or a pair"):
        GroupCalibration({"age": (1, 2, 3)})
    assert CALIBRATION_LIMITS == ("both", "under", "over")


def test_data_errors_name_the_problem():
    X, y, groups, _ = small_data(1)
    with pytest.raises(ConstraintError, match="unknown group column 'sit'; did you mean 'site'"):
        RiskScoreProblem(X, y, groups=groups, constraints=[GroupCalibration({"sit": 1})])
    with pytest.raises(ConstraintError, match="the group has no rows in the training data"):
        RiskScoreProblem(X, y, groups=groups, constraints=[GroupCalibration({"site": 7})])
    yy = y.copy()
    yy[groups["site"].to_numpy() == 1] = 0
    with pytest.raises(ConstraintError, match="every training row of the group is negative"):
        RiskScoreProblem(X, yy, groups=groups, constraints=[GroupCalibration({"site": 1})])
    with pytest.raises(ConstraintError, match="depends on the training data"):
        GroupCalibration({"site": 1}).to_rows(["f0"])
    with pytest.raises(InputError, match="groups has 3 rows but X has"):
        RiskScoreProblem(X, y, groups=pd.Series([1, 2, 3]))


def test_words():
    rule = GroupCalibration({"age": (60, None), "sex": 1}, max_gap=0.2, limit="under")
    assert rule.group == "age at least 60 and sex = 1"
    assert rule.describe() == (
        "Group age at least 60 and sex = 1: average score at most 0.2 log-odds below its "
        "observed risk"
    )
    named = GroupCalibration({"age": (40, 60)}, label="age 40 to 59")
    assert named.describe().startswith("Group age 40 to 59: average score within 0.25")
    assert GroupCalibration({"site": "B"}).group == "site = B"


def test_risk_bounds_in_plain_numbers():
    X, y, groups, _ = small_data(0)
    problem = RiskScoreProblem(X, y, groups=groups)
    rule = GroupCalibration({"site": 2}, max_gap=0.2, limit="under")
    rate, low, high = rule.risk_bounds(problem)
    mask = groups["site"].to_numpy() == 2
    assert rate == pytest.approx(y[mask].mean())
    assert low == pytest.approx(1 / (1 + math.exp(-(_logit(rate) - 0.2))))
    assert high == 1.0


def test_other_constraints_still_compile_without_the_problem():
    # constraints that do not need the data are unchanged by the new problem argument
    X, y, _, _ = small_data(2)
    problem = RiskScoreProblem(X, y, constraints=[PredictedRisk(when={"f0": 1}, at_least=0.2)])
    assert problem.rows[0].lower == math.ceil(_logit(0.2) - 1e-9)


TARGETS = [
    (0, {"site": 2}, 0.1, "both", 0.5),
    (1, {"site": 2}, 0.0, "under", 1.8),
    (2, {"site": 0}, 0.0, "over", -3.0),
    (5, {"f0": (None, 1)}, 0.0, "under", 0.0),
]


@pytest.mark.parametrize(("seed", "where", "gap", "limit", "target"), TARGETS)
def test_a_target_of_its_own_matches_brute_force(seed, where, gap, limit, target):
    problem, base, X, y, w, mask = build(seed, where, gap, limit, target=target)
    optimum, _ = fixed_brute_force(problem, base, X, y, w, [mask], [gap], [limit], target)
    free, _ = fixed_brute_force(base, base, X, y, w, [], [], [])
    assert math.isfinite(optimum) and optimum > free + 1e-9  # it binds
    result = solve_lcpa(problem, limits=Limits(gap_tolerance=0.0))
    assert result.upper_bound == pytest.approx(optimum, rel=1e-9, abs=1e-12)
    assert result.lower_bound <= optimum + 1e-12
    assert group_ok(result.solution, X, y, w, mask, gap, limit, target=target)
    # the learned scale: the band holds for the average of score / m
    m_range = (0.5, 3.0)
    scaled = solve_scaled_lcpa(problem, m_range, limits=Limits(gap_tolerance=0.0))
    m = scaled.stats["multiplier"]
    assert group_ok(scaled.solution, X, y, w, mask, gap, limit, m=m, target=target)
    assert scaled.upper_bound <= result.upper_bound + 1e-9  # m = 1 is in the range


def test_a_target_reads_as_risks():
    rule = GroupCalibration({"site": 2}, max_gap=0.2, limit="both", target=0.0)
    assert rule.describe() == (
        "Group site = 2: risk at the group's average score between 45% and 55%"
    )
    over = GroupCalibration({"site": 2}, max_gap=0.0, limit="over", target=-2.0, label="site B")
    assert over.describe() == "Group site B: risk at the group's average score at most 12%"
    with pytest.raises(ConstraintError, match="target must be a finite log-odds"):
        GroupCalibration({"site": 2}, target=float("inf"))
    X, y, groups, _ = small_data(1)
    yy = y.copy()
    yy[groups["site"].to_numpy() == 1] = 0  # a target needs no log-odds of the rate
    problem = RiskScoreProblem(
        X, yy, groups=groups, constraints=[GroupCalibration({"site": 1}, target=-3.0)]
    )
    assert problem.rows[0].lower == pytest.approx(-3.25)
