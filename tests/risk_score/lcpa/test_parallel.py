"""Risk scores on several workers: threads over subtrees and support ranges, a Dask cluster.

The model and the status of the certificate must be those of one worker; on small
problems both are checked against brute force.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from _scaled_reference import random_scaled_problem as learned_problem
from _scaled_reference import scaled_optimum
from _small_problems import enumerate_optimum
from _small_problems import random_problem as fixed_problem

from riskexplore.core.events import Trace
from riskexplore.core.limits import Limits
from riskexplore.core.parallel import check_client, ordered_map
from riskexplore.errors import InfeasibleError, InputError
from riskexplore.risk_score.fit import fit_risk_score
from riskexplore.risk_score.lcpa.search import LCPASettings, solve_lcpa
from riskexplore.risk_score.problem import RiskScoreProblem
from riskexplore.risk_score.scaled.search import ScaledLCPASettings, solve_scaled_lcpa
from riskexplore.risk_score.support.screen import SupportData, screen_supports

EXACT = Limits(gap_tolerance=0.0)


def _both(solve, problem, settings_class, **settings):
    """The serial and the two-thread solves (None when the problem is infeasible)."""
    results = []
    for n_jobs in (1, 2):
        trace = Trace()
        try:
            result = solve(problem, settings_class(n_jobs=n_jobs, **settings), trace)
        except InfeasibleError:
            results.append(None)
            continue
        results.append((result, trace))
    return results


def _same(serial, parallel, optimum: float) -> None:
    (one, _), (two, trace) = serial, parallel
    assert one.status == two.status == "optimal"
    assert one.upper_bound == pytest.approx(optimum, rel=1e-9, abs=1e-12)
    assert two.upper_bound == one.upper_bound
    np.testing.assert_array_equal(one.solution, two.solution)
    assert two.stats["n_jobs"] == 2
    # every bound the threads reported is valid
    assert all(e.lower_bound <= optimum + 1e-12 for e in trace.events)
    assert two.lower_bound <= optimum + 1e-12


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("initialization", [True, False])
def test_threads_give_the_serial_fixed_scale_model(seed, initialization):
    problem = fixed_problem(3000 + seed, with_constraints=seed % 2 == 1)
    optimum = enumerate_optimum(problem)

    def solve(p, settings, trace):
        return solve_lcpa(p, limits=EXACT, settings=settings, listeners=[trace])

    serial, parallel = _both(
        solve, problem, LCPASettings, initialization=initialization, root_fixing=False
    )
    if not math.isfinite(optimum):
        assert serial is None and parallel is None
        return
    _same(serial, parallel, optimum)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("screen", [True, False])
def test_threads_give_the_serial_learned_scale_model(seed, screen):
    problem = learned_problem(4000 + seed, with_constraints=seed % 2 == 1)
    m_range = [(0.25, 10.0), (0.5, 2.0), (1.0, 1.0)][seed % 3]
    optimum = scaled_optimum(problem, m_range)

    def solve(p, settings, trace):
        return solve_scaled_lcpa(p, m_range, limits=EXACT, settings=settings, listeners=[trace])

    serial, parallel = _both(
        solve, problem, ScaledLCPASettings, support_screen=screen, initialization=False
    )
    if not math.isfinite(optimum):
        assert serial is None or serial[0].status == "infeasible"
        assert parallel is None or parallel[0].status == "infeasible"
        return
    _same(serial, parallel, optimum)


def _sixteen_features(seed: int = 7) -> RiskScoreProblem:
    """Large enough for many nodes and a screen of more than one batch."""
    rng = np.random.default_rng(seed)
    n, d = 800, 16
    X = rng.integers(0, 2, (n, d)).astype(float)
    beta = np.zeros(d)
    beta[:5] = [1.5, -1.0, 1.0, 0.7, -0.6]
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ beta - 0.5)))).astype(int)
    return RiskScoreProblem(X, y, max_size=5, coef_min=-3, coef_max=3)


def test_threads_give_the_serial_model_on_a_larger_tree():
    problem = _sixteen_features()
    results = [
        solve_lcpa(
            problem, limits=EXACT, settings=LCPASettings(n_jobs=n, root_fixing=False)
        )  # fmt: skip
        for n in (1, 2)
    ]
    assert results[0].status == results[1].status == "optimal"
    assert results[0].nodes > 50  # a tree, not a root
    assert results[1].upper_bound == results[0].upper_bound
    np.testing.assert_array_equal(results[0].solution, results[1].solution)


def test_a_stop_keeps_a_valid_bound_with_threads():
    problem = _sixteen_features()
    best = solve_lcpa(problem, limits=EXACT, settings=LCPASettings(n_jobs=1))
    stopped = solve_lcpa(
        problem,
        limits=Limits(node_limit=None, time_limit=0.3, gap_tolerance=0.0),
        settings=LCPASettings(n_jobs=2, initialization=False, root_fixing=False),
    )
    assert stopped.lower_bound <= best.upper_bound + 1e-12
    assert stopped.upper_bound >= best.upper_bound - 1e-12


def test_ordered_map_keeps_the_order_in_threads():
    out = list(ordered_map(lambda a, b: a * b, ((i,) for i in range(50)), n_jobs=3, shared=(2,)))
    assert out == [2 * i for i in range(50)]


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def test_a_dask_screen_gives_the_serial_screen(dask_client, small_batches):
    problem = _sixteen_features()
    d = problem.n_features
    lo = np.concatenate([[-5.0], np.full(d, -3.0)])
    hi = np.concatenate([[5.0], np.full(d, 3.0)])
    data = SupportData(problem.loss)
    kwargs = dict(forced=(), free=range(d), k_min=0, k_max=5, w_lower=lo, w_upper=hi)
    one = screen_supports(data, **kwargs, c0=problem.c0)
    cluster = screen_supports(data, **kwargs, c0=problem.c0, client=dask_client)
    assert len(one) == len(cluster) > 2 * 2048  # several tasks of several batches
    np.testing.assert_array_equal(one.supports, cluster.supports)
    np.testing.assert_array_equal(one.bounds, cluster.bounds)
    np.testing.assert_array_equal(one.thetas, cluster.thetas)


@pytest.mark.parametrize("scale", ["fixed", "learned"])
def test_a_dask_cluster_gives_the_serial_model(dask_client, scale, small_batches):
    problem = _sixteen_features()
    m_range = (1.0, 1.0) if scale == "fixed" else (0.5, 2.0)
    serial = solve_scaled_lcpa(
        problem, m_range, limits=EXACT, settings=ScaledLCPASettings(n_jobs=1)
    )
    cluster = solve_scaled_lcpa(
        problem, m_range, limits=EXACT, settings=ScaledLCPASettings(n_jobs=1, client=dask_client)
    )
    assert serial.status == cluster.status == "optimal"
    assert cluster.stats["dask"] is True
    assert cluster.stats["supports_screened"] > 4 * small_batches
    assert cluster.upper_bound == serial.upper_bound
    np.testing.assert_array_equal(serial.solution, cluster.solution)


def test_fit_risk_score_takes_workers_and_a_client(dask_client):
    problem = _sixteen_features()
    one = fit_risk_score(problem.X, problem.y, max_size=3, n_jobs=1, gap_tolerance=0.0)
    both = fit_risk_score(
        problem.X, problem.y, max_size=3, n_jobs=2, client=dask_client, gap_tolerance=0.0
    )
    assert one.points == both.points and one.intercept == both.intercept
    assert one.certificate.status == both.certificate.status == "optimal"


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"client": "tcp://127.0.0.1:8786"}, "dask.distributed.Client"),
        ({"client": object()}, "dask.distributed.Client"),
        ({"n_jobs": 0}, "n_jobs=0"),
        ({"n_jobs": 1.5}, "whole number"),
    ],
)
def test_bad_workers_are_refused(kwargs, message):
    problem = _sixteen_features()
    with pytest.raises(InputError, match=message):
        fit_risk_score(problem.X, problem.y, max_size=2, **kwargs)
    with pytest.raises(InputError, match=message):
        LCPASettings(**kwargs)
    with pytest.raises(InputError, match=message):
        ScaledLCPASettings(**kwargs)


def test_check_client_takes_none_and_clients(dask_client):
    assert check_client(None) is None
    assert check_client(dask_client) is dask_client


def test_the_screen_limit_follows_the_workers(dask_client):
    assert ScaledLCPASettings(n_jobs=1).screen_limit() == 500_000
    assert ScaledLCPASettings(n_jobs=2).screen_limit() == 2_000_000
    assert ScaledLCPASettings(n_jobs=1, client=dask_client).screen_limit() == 2_000_000
    assert ScaledLCPASettings(n_jobs=1, screen_max_supports=123).screen_limit() == 123
    # settings given other workers later (as fit_risk_score's n_jobs does) follow them
    replaced = dataclasses.replace(ScaledLCPASettings(n_jobs=2), n_jobs=1)
    assert replaced.screen_limit() == 500_000


@pytest.mark.parametrize("scale", ["fixed", "learned"])
def test_a_smaller_screen_limit_certifies_the_same_model(scale):
    # a limit below the root's supports makes the LP nodes split the regions before the
    # screen takes them: another path to the same certified optimum
    problem = _sixteen_features()
    m_range = (1.0, 1.0) if scale == "fixed" else (0.5, 2.0)
    results = [
        solve_scaled_lcpa(
            problem,
            m_range,
            limits=EXACT,
            settings=ScaledLCPASettings(n_jobs=1, screen_max_supports=limit),
        )
        for limit in (None, 300)
    ]
    default, small = results
    assert default.status == small.status == "optimal"
    assert small.upper_bound == pytest.approx(default.upper_bound, rel=1e-12)
    assert small.lower_bound <= default.upper_bound + 1e-12
    assert 0 < small.stats["supports_screened"] < default.stats["supports_screened"]
