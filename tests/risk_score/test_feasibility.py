import itertools
import math

import numpy as np
import pytest

from riskexplore.errors import InfeasibleError
from riskexplore.risk_score.constraints import (
    AtLeastKOf,
    AtMostKOf,
    Exclude,
    Implies,
    Include,
    PointsBetween,
    PredictedRisk,
    Sign,
)
from riskexplore.risk_score.feasibility import (
    check_feasible,
    conflicting_constraints,
    find_feasible,
)
from riskexplore.risk_score.problem import RiskScoreProblem
from riskexplore.risk_score.rows import LinearRow


def make_problem(d=6, seed=0, **kw):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(50, d))
    y = rng.integers(0, 2, size=50)
    names = [f"f{j}" for j in range(d)]
    return RiskScoreProblem(X, y, feature_names=names, **kw)


def test_feasible_returns_a_feasible_integer_model():
    problem = make_problem(
        constraints=[
            AtMostKOf(["f0", "f1", "f2"]),
            Implies("f3", ["f4", "f5"]),
            Include("f3"),
            Exclude("f4"),
            Sign("f5", -1),
            PredictedRisk(when={"f3": 1, "f5": 1}, at_least=0.9),
        ],
        min_size=3,
        max_size=4,
    )
    lam = check_feasible(problem)
    assert lam.shape == (7,)
    assert np.array_equal(lam, np.round(lam))
    assert problem.violations(lam) == []
    assert np.array_equal(find_feasible(problem), lam)
    assert conflicting_constraints(problem) is None


def test_group_conflict_names_both_constraints():
    problem = make_problem(constraints=[AtLeastKOf(["f0", "f1"], 2), AtMostKOf(["f0", "f1", "f2"])])
    with pytest.raises(InfeasibleError) as info:
        check_feasible(problem)
    message = str(info.value)
    assert "'Use at least 2 of: f0, f1' conflicts with 'Use at most 1 of: f0, f1, f2'" in message
    assert info.value.culprits == ["Use at least 2 of: f0, f1", "Use at most 1 of: f0, f1, f2"]


def test_size_bound_conflict_reported_and_innocent_constraints_left_out():
    problem = make_problem(
        constraints=[Implies("f5", ["f4"]), AtLeastKOf(["f0", "f1", "f2"], 3), Sign("f4", 1)],
        max_size=2,
    )
    with pytest.raises(InfeasibleError, match="Model size at most 2") as info:
        check_feasible(problem)
    assert set(info.value.culprits) == {"Model size at most 2", "Use at least 3 of: f0, f1, f2"}
    assert find_feasible(problem) is None


def test_single_constraint_against_coefficient_bounds():
    problem = make_problem(constraints=[Include("f1")], bounds={"f1": (0, 0)})
    with pytest.raises(
        InfeasibleError, match="'Use f1' cannot be satisfied within the coefficient"
    ):
        check_feasible(problem)


def test_single_constraint_infeasible_on_its_own():
    problem = make_problem(constraints=[AtLeastKOf(["f0", "f1"], 3)])
    with pytest.raises(InfeasibleError, match="cannot be satisfied by any risk score"):
        check_feasible(problem)


def test_predicted_risk_needs_the_intercept_bounds():
    # risk >= 0.99 with all features 0 needs intercept >= 5
    problem = make_problem(
        constraints=[PredictedRisk(when={}, at_least=0.99)], intercept_min=-3, intercept_max=3
    )
    with pytest.raises(InfeasibleError, match="coefficient bounds"):
        check_feasible(problem)
    ok = make_problem(constraints=[PredictedRisk(when={}, at_least=0.99)])
    assert check_feasible(ok)[0] >= 5


def test_three_way_conflict():
    problem = make_problem(
        constraints=[Include("f0"), Implies("f0", ["f1"]), Exclude("f1"), Sign("f2", 1)]
    )
    with pytest.raises(InfeasibleError, match="cannot all hold") as info:
        check_feasible(problem)
    assert info.value.culprits == ["Use f0", "If f0 is used then f1 is used", "Do not use f1"]


@pytest.mark.parametrize(
    "bounds",
    [
        {"f0": (1, 3)},  # cannot be zero, positive
        {"f0": (-3, -2)},  # cannot be zero, negative
        {"f0": (0, 4)},
        {"f0": (-4, 0)},
    ],
)
def test_sign_cases_of_alpha_link(bounds):
    # alpha must follow lambda != 0 in every sign case
    (lo, hi), zero_ok = bounds["f0"], bounds["f0"][0] <= 0 <= bounds["f0"][1]
    excluded = make_problem(bounds=bounds, constraints=[Exclude("f0")])
    included = make_problem(bounds=bounds, constraints=[Include("f0")])
    if zero_ok:
        assert check_feasible(excluded) is not None
    else:
        with pytest.raises(InfeasibleError):
            check_feasible(excluded)
    lam = check_feasible(included)
    assert lo <= lam[1] <= hi and lam[1] != 0
    pinned = make_problem(bounds=bounds, constraints=[PointsBetween("f0", lo, lo)])
    assert check_feasible(pinned)[1] == lo


def _enumerate_feasible(problem) -> bool:
    lo, hi = problem.lam_bounds()
    ranges = [range(int(a), int(b) + 1) for a, b in zip(lo, hi, strict=True)]
    return any(
        not problem.violations(np.array(lam, dtype=float)) for lam in itertools.product(*ranges)
    )


def test_agrees_with_brute_force_on_tiny_problems():
    rng = np.random.default_rng(42)
    names = ["f0", "f1", "f2"]
    outcomes = []
    for trial in range(80):
        bounds = {}
        for n in names:
            lo = int(rng.integers(-2, 3))
            bounds[n] = (lo, int(rng.integers(lo, 3)))
        rows = []
        for r in range(int(rng.integers(1, 4))):
            points = {n: float(v) for n, v in zip(names, rng.integers(-2, 3, 3), strict=True) if v}
            if rng.random() < 0.3:
                points["(Intercept)"] = float(rng.integers(-1, 2)) or 1.0
            included = {
                n: float(v) for n, v in zip(names, rng.integers(-1, 3, 3), strict=True) if v
            }
            center = float(rng.integers(-3, 4))
            kind = rng.integers(3)
            lower = center if kind != 1 else -math.inf
            upper = center + float(rng.integers(0, 2)) if kind != 0 else math.inf
            rows.append(LinearRow(f"row{r}", points, included, lower, upper))
        min_size = int(rng.integers(0, 2))
        problem = make_problem(
            d=3,
            seed=trial,
            bounds=bounds,
            intercept_min=-2,
            intercept_max=2,
            min_size=min_size,
            max_size=int(rng.integers(min_size, 4)),
            constraints=rows,
        )
        expected = _enumerate_feasible(problem)
        try:
            lam = check_feasible(problem)
            got = True
            assert problem.violations(lam) == []
        except InfeasibleError as err:
            got = False
            assert err.culprits
        assert got == expected, f"trial {trial}"
        outcomes.append(expected)
    # the random instances exercise both outcomes
    assert 10 < sum(outcomes) < 70


def test_forty_features_and_twenty_rows():
    d = 40
    names = [f"f{j}" for j in range(d)]
    constraints = [AtMostKOf(names[i : i + 3]) for i in range(0, 30, 3)]
    constraints += [Implies(names[i], [names[i + 1], names[i + 2]]) for i in range(0, 28, 4)]
    constraints += [PredictedRisk(when={"f1": 1, "f5": 1}, at_least=0.9), Include("f9")]
    constraints += [Sign("f7", -1)]
    problem = make_problem(d=d, constraints=constraints, min_size=3, max_size=8)
    assert len(problem.rows) == 20
    lam = check_feasible(problem)
    assert problem.violations(lam) == []


@pytest.mark.parametrize(
    ("kw", "intercept"),
    [
        ({}, 0),
        ({"intercept_min": 3, "intercept_max": 7}, 3),
        ({"intercept_min": -9, "intercept_max": -2}, -2),
        ({"constraints": [Exclude("f1"), AtMostKOf(["f0", "f2"], 1)]}, 0),
    ],
)
def test_a_problem_the_intercept_alone_satisfies_needs_no_mip(monkeypatch, kw, intercept):
    import riskexplore.risk_score.feasibility as feasibility

    def no_mip(*args, **kwargs):
        raise AssertionError("the MIP was built")

    monkeypatch.setattr(feasibility, "FeasibilityModel", no_mip)
    problem = make_problem(**kw)
    lam = check_feasible(problem)
    assert lam.tolist() == [intercept] + [0] * 6 and problem.violations(lam) == []


@pytest.mark.parametrize(
    "kw",
    [
        {"constraints": [Include("f3")]},
        {"min_size": 2},
        {"constraints": [PredictedRisk(when={}, at_least=0.9)]},
    ],
)
def test_a_problem_the_intercept_alone_breaks_still_gets_a_model(kw):
    problem = make_problem(**kw)
    lam = check_feasible(problem)
    assert problem.violations(lam) == [] and np.any(lam != 0)
