"""The exact checklist search at scale: the equivalent-row cells bound, the tie order,
threads and a Dask cluster, all against brute force and the serial search."""

from __future__ import annotations

import dataclasses
import math
import threading

import numpy as np
import pandas as pd
import pytest
from _checklist_reference import TOL, brute_force, check_open_nodes, lexicographic, random_problem

from riskexplore.checklist.constraints import FNRLimit, GroupRateGap, OneItemPerGroup
from riskexplore.checklist.problem import ChecklistProblem
from riskexplore.checklist.search import (
    ExactSearch,
    ExactSearchSettings,
    build_search,
    kernel,
    solve_checklist_exact,
)
from riskexplore.checklist.search.cells import later_signatures
from riskexplore.checklist.search.settings import DEFER_FRONTIER_SIZE
from riskexplore.core.events import Trace
from riskexplore.core.limits import Limits
from riskexplore.core.parallel import available_cores, resolve_n_jobs
from riskexplore.errors import InputError


def _thresholds(seed: int, n: int = 300, features: int = 5, cuts: int = 3, **kwargs):
    """Rows with few distinct patterns and noisy labels: features cut at several
    thresholds (neighbouring items of one group), so cells of rows no completion can
    tell apart hold both labels."""
    rng = np.random.default_rng(seed)
    values = rng.integers(0, cuts + 1, size=(n, features))
    columns, groups = {}, {}
    for f in range(features):
        for t in range(1, cuts + 1):
            name = f"v{f} >= {t}"
            columns[name] = (values[:, f] >= t).astype(int)
            groups[name] = f"v{f}"
    score = values @ rng.normal(0.5, 1.0, features) + rng.normal(scale=2.0, size=n)
    y = (score > np.median(score)).astype(int)
    X = pd.DataFrame(columns)
    sex = pd.DataFrame({"sex": rng.choice(["F", "M"], size=n)})
    kwargs.setdefault("constraints", [OneItemPerGroup()])
    return ChecklistProblem(X, y, item_groups=groups, groups=sex, **kwargs)


def _weights_and_rules(seed: int, rng, n: int = 300) -> dict:
    """Weights, an FNR limit or a group gap for some seeds (arguments of ``_thresholds``)."""
    extra = {}
    if seed % 3 == 1:
        extra["sample_weight"] = rng.integers(1, 4, size=n).astype(float)
    if seed % 4 == 2:
        extra["constraints"] = [OneItemPerGroup(), FNRLimit(0.5)]
    if seed % 5 == 3:
        extra["constraints"] = [OneItemPerGroup(), GroupRateGap("fpr", 0.4, by="sex")]
    return extra


def _same_answer(problem, a, b):
    assert a.status == b.status
    if a.solution is None:
        assert b.solution is None
        return
    assert lexicographic(problem, *a.solution) == lexicographic(problem, *b.solution)
    assert sorted(a.solution.items) == sorted(b.solution.items)
    assert a.solution.M == b.solution.M
    assert a.upper_bound == b.upper_bound


# ------------------------------------------------------------------------ the cells
def test_later_signatures_are_nested_and_group_equal_rows():
    rng = np.random.default_rng(0)
    checked = rng.random((200, 9)) < 0.4
    group_start = np.array([0, 3, 5, 9])
    sig = later_signatures(checked, group_start)
    assert sig.shape == (4, 200)
    assert (sig[3] == 0).all()  # past the last group every row is alike
    for q in range(3):
        same = sig[q][:, None] == sig[q][None, :]
        want = (checked[:, None, group_start[q] :] == checked[None, :, group_start[q] :]).all(-1)
        assert (same == want).all()
        # refining: equal from q means equal from q + 1
        assert (~same | (sig[q + 1][:, None] == sig[q + 1][None, :])).all()


@pytest.mark.parametrize("seed", range(25))
def test_cell_bound_is_sound_at_open_nodes(seed):
    """Every open node's bound (cells included) is at most the best checklist below it,
    on data whose cells mix labels; weights, FNR limits and group gaps included."""
    rng = np.random.default_rng(seed)
    extra = _weights_and_rules(seed, rng)
    problem = _thresholds(seed, max_items=4, **extra)
    data = build_search(problem)
    assert data.cells.entry_start[-1] > 0  # the instance has mixed cells
    search = ExactSearch(problem)
    search.start()
    optimum, _, _ = brute_force(problem)
    checked = 0
    for _ in range(60):
        done = search.step(int(rng.integers(1, 30)))
        checked += check_open_nodes(problem, search)
        assert search.lower_bound <= optimum * (1 + TOL) + 1e-12
        if done:
            break
    assert checked > 0
    assert search.counters[kernel.CELL_BOUNDS] > 0


@pytest.mark.parametrize("seed", range(12))
def test_cell_bound_prunes_more_and_keeps_the_optimum(seed):
    problem = _thresholds(100 + seed, n=600, features=6, cuts=4, max_items=5)
    serial = ExactSearchSettings(n_jobs=1)
    plain = ExactSearchSettings(n_jobs=1, cell_bound=False)
    with_cells = solve_checklist_exact(problem, settings=serial)
    without = solve_checklist_exact(problem, settings=plain)
    _same_answer(problem, with_cells, without)
    assert with_cells.nodes <= without.nodes


@pytest.mark.parametrize("seed", range(30))
def test_threshold_instances_match_brute_force(seed):
    problem = _thresholds(200 + seed, n=120, features=4, cuts=3, max_items=4)
    optimum, items, M = brute_force(problem)
    result = solve_checklist_exact(problem, settings=ExactSearchSettings(n_jobs=1))
    assert result.status == "optimal"
    assert result.upper_bound == pytest.approx(optimum, rel=1e-12)
    assert lexicographic(problem, *result.solution)[1:] == lexicographic(problem, items, M)[1:]


# ------------------------------------------------------------- the sibling bound
def _sibling_instance(seed: int, **kwargs):
    """Neighbouring thresholds of few features with few noisy rows: siblings of one
    group differ on few rows, so the sibling bound rules some of them out (weights on
    every third seed, each row twice with opposite labels on every fourth)."""
    rng = np.random.default_rng(seed)
    n, features, cuts = 80, 4, 8
    values = rng.integers(0, cuts + 1, size=(n, features))
    score = values @ rng.normal(0.5, 1.0, features) + rng.normal(scale=1.0, size=n)
    y = (score > np.median(score)).astype(int)
    if seed % 4 == 2:
        values = np.vstack([values, values[: n // 4]])
        y = np.concatenate([y, 1 - y[: n // 4]])
    if seed % 3 == 1:
        kwargs["sample_weight"] = rng.integers(1, 4, size=len(y)).astype(float)
    columns, groups = {}, {}
    for f in range(features):
        for t in range(1, cuts + 1):
            columns[f"v{f} >= {t}"] = (values[:, f] >= t).astype(int)
            groups[f"v{f} >= {t}"] = f"v{f}"
    kwargs.setdefault("constraints", [OneItemPerGroup()])
    kwargs.setdefault("max_items", 3)
    return ChecklistProblem(pd.DataFrame(columns), y, item_groups=groups, **kwargs)


def _thermometer(data, positions) -> np.ndarray:
    """Planes ``v`` = rows with at least ``v`` of ``positions`` checked, as the search
    keeps them."""
    T = np.zeros((data.reach.shape[1], len(data.valid)), dtype=np.uint64)
    T[0] = data.valid
    for k, p in enumerate(positions):
        for v in range(min(k + 1, T.shape[0] - 1), 0, -1):
            T[v] |= T[v - 1] & data.X[p]
    return T


def _leaf_key(problem, data, positions, M) -> float:
    mask = np.zeros(problem.n_items, bool)
    mask[data.items[positions]] = True
    return data.key(problem, mask, M)


@pytest.mark.parametrize("seed", range(30))
def test_sibling_bound_is_below_every_leaf_of_the_sibling(seed):
    """At random nodes S and items j, k of one later group: the bound computed from the
    best leaf S + k + l at threshold M is at most every leaf S + j + l at M (weights,
    rows twice with opposite labels, weights off any grid: float keys)."""
    from riskexplore.checklist.search.bounds import sibling_bound

    rng = np.random.default_rng(seed)
    kwargs = {"max_items": 4}
    if seed % 5 == 4:  # no common grid: float keys
        kwargs["sample_weight"] = rng.uniform(0.5, 2.0, size=80 + (20 if seed % 4 == 2 else 0))
    problem = _sibling_instance(seed, **kwargs)
    data = build_search(problem)
    starts = data.group_start
    n_groups = len(starts) - 1
    checked = 0
    for _ in range(20):
        g = int(rng.integers(1, n_groups - 1))  # the group of j and k; S before, l after
        before = rng.choice(g, size=int(rng.integers(0, min(g, 2) + 1)), replace=False)
        S = sorted(int(rng.integers(starts[q], starts[q + 1])) for q in before)
        j, k = rng.choice(np.arange(starts[g], starts[g + 1]), size=2, replace=False)
        later = range(starts[g + 1], starts[-1])
        T = _thermometer(data, S)
        for M in range(1, min(len(S) + 2, data.max_m) + 1):
            best_k = min(_leaf_key(problem, data, [*S, k, last], M) for last in later)
            best_j = min(_leaf_key(problem, data, [*S, j, last], M) for last in later)
            bound = sibling_bound(data.X, data.objc, T, len(S), j, k, M, best_k, -np.inf)
            assert bound <= best_j + 1e-9 * abs(best_j)
            checked += 1
    assert checked > 0


@pytest.mark.parametrize("seed", range(12))
def test_sibling_bound_is_sound_and_keeps_the_optimum(seed):
    """Every open node's bound (and each threshold's) stays at most the best checklist
    below it while siblings rule nodes and thresholds out; the answer is the plain
    enumeration's, and the same without the bound. Constraints (which may rule out a
    sibling's best leaf) turn the bound off."""
    from _checklist_reference import best_by_size

    rng = np.random.default_rng(seed)
    kwargs = {}
    if seed % 6 == 5:
        kwargs["constraints"] = [OneItemPerGroup(), FNRLimit(0.4)]
    problem = _sibling_instance(seed, **kwargs)
    plain = solve_checklist_exact(
        problem, settings=ExactSearchSettings(n_jobs=1, sibling_bound=False)
    )
    search = ExactSearch(problem, settings=ExactSearchSettings(n_jobs=1, refine=False))
    search.start()
    for k in range(2000):
        done = search.step(int(rng.integers(1, 25)))
        if k % 3 == 0:
            check_open_nodes(problem, search)  # nodes with at most 12 later items
        assert search.lower_bound <= plain.upper_bound * (1 + TOL) + 1e-12
        if done:
            break
    assert done
    assert search.ub == plain.upper_bound
    if "constraints" in kwargs:
        assert search.counters[kernel.SIBLING_PRUNED] == 0
    else:
        names = problem.item_names
        group_ids = np.unique([n.split(" ")[0] for n in names], return_inverse=True)[1]
        by_size = best_by_size(problem, group_ids, 3)
        assert plain.stats["train_errors"] == pytest.approx(np.min(by_size[1:]))
    with_bound = solve_checklist_exact(problem, settings=ExactSearchSettings(n_jobs=1))
    _same_answer(problem, with_bound, plain)


def test_sibling_bound_rules_out_nodes():
    """On instances of neighbouring thresholds it does rule nodes out (so the soundness
    test above tests something)."""
    pruned = 0
    for seed in range(12):
        problem = _sibling_instance(seed)
        settings = ExactSearchSettings(n_jobs=1, refine=False, defer_band=0.0)
        search = ExactSearch(problem, settings=settings)
        search.run()
        pruned += int(search.counters[kernel.SIBLING_PRUNED] > 0)
    assert pruned >= 6


# ------------------------------------------------------------------- refinement
def _frontier_after_build(problem, settings):
    """A search stepped until its frontier is built (and refined, if set)."""
    search = ExactSearch(problem, settings=settings)
    search.start()
    while search.counters[kernel.PHASE] != kernel.DESCEND:
        if search.step(50):
            break
    return search


@pytest.mark.parametrize("seed", range(3))
def test_refining_the_frontier_keeps_bounds_sound_and_the_answer(seed):
    """A refined frontier holds deeper nodes; every open node's bound stays below its
    subtree's best checklist, and the answer is the unrefined one."""
    problem = _thresholds(500 + seed, n=300, features=8, cuts=3, max_items=5)
    plain = ExactSearchSettings(n_jobs=1, frontier_size=500, refine=False)
    built = _frontier_after_build(problem, plain)
    assert built.depth == 2
    n_built = int(built.counters[kernel.N_FRONTIER])
    settings = dataclasses.replace(
        plain, refine=True, frontier_limit=n_built + 20, refine_share=1e9
    )
    search = _frontier_after_build(problem, settings)
    sizes = [len(node.items) for node in search.open_nodes()]
    assert max(sizes) > 2  # nodes of depth 2 were replaced by their children
    # no time to refine: a share of zero of the time spent building leaves the frontier
    unrefined = _frontier_after_build(problem, dataclasses.replace(settings, refine_share=0.0))
    assert max(len(node.items) for node in unrefined.open_nodes()) == 2
    assert check_open_nodes(problem, search) > 0
    _same_answer(
        problem,
        solve_checklist_exact(problem, settings=plain),
        solve_checklist_exact(problem, settings=settings),
    )


# ------------------------------------------------------------------ deferred nodes
_DEFERRING = [
    {"defer_band": 0.05},
    {"defer_band": 0.25, "defer_depth": 4},  # parents of leaves too
    {"defer_band": 0.6, "defer_depth": 3},
]


@pytest.mark.parametrize("seed", range(12))
def test_deferred_nodes_keep_every_open_bound_sound(seed):
    """Children put back with the frontier keep a bound below every checklist of their
    subtree (weights, FNR limits and group gaps included), the certificate stays below
    the optimum at every step, and the answer is the depth-first search's."""
    rng = np.random.default_rng(seed)
    extra = _weights_and_rules(seed, rng)
    problem = _thresholds(700 + seed, n=300, features=7, cuts=2, max_items=5, **extra)
    settings = ExactSearchSettings(
        n_jobs=1, refine=False, frontier_size=100, **_DEFERRING[seed % 3]
    )
    optimum, items, M = brute_force(problem)
    search = ExactSearch(problem, settings=settings)
    search.start()
    checked, done = 0, False
    while not done:
        done = search.step(int(rng.integers(1, 30)))
        checked += check_open_nodes(problem, search)
        assert search.lower_bound <= optimum * (1 + TOL) + 1e-12
    assert search.deferred_nodes > 0
    assert checked > 0
    result = solve_checklist_exact(problem, settings=settings)
    assert result.stats["deferred_nodes"] > 0
    depth_first = solve_checklist_exact(
        problem, settings=dataclasses.replace(settings, defer_band=0.0)
    )
    assert depth_first.stats["deferred_nodes"] == 0
    _same_answer(problem, result, depth_first)
    assert lexicographic(problem, *result.solution)[1:] == lexicographic(problem, items, M)[1:]


def test_deferring_raises_the_bound_earlier():
    """Searched least bound first down to the deferred depth, the search reaches a
    lower bound of 80% of the optimum after fewer nodes than depth-first below the same
    frontier (measured: 306k nodes against 372k, which is the whole search)."""
    problem = _thresholds(7, n=3000, features=9, cuts=5, max_items=6)

    def nodes_to_reach(band):
        trace = Trace()
        settings = ExactSearchSettings(
            n_jobs=1, refine=False, defer_band=band, frontier_size=1000, progress_interval=0.0
        )
        result = solve_checklist_exact(problem, settings=settings, listeners=[trace])
        assert result.status == "optimal"
        target = 0.8 * result.upper_bound
        return min(e.nodes for e in trace.events if e.lower_bound >= target), result

    deferred, with_deferral = nodes_to_reach(0.25)
    depth_first, without = nodes_to_reach(0.0)
    _same_answer(problem, with_deferral, without)
    assert deferred < depth_first


def test_deferring_is_on_by_default_only_on_large_data():
    """Small data (under DEFER_MIN_WORDS words of rows): depth-first, as before; large
    data: deferring, with a shallow frontier and no refining."""
    small = solve_checklist_exact(_thresholds(3, n=300, max_items=4))
    assert small.stats["defer_band"] == 0.0
    assert small.stats["deferred_nodes"] == 0
    problem = _thresholds(7, n=3000, features=9, cuts=5, max_items=6)
    large = solve_checklist_exact(problem, settings=ExactSearchSettings(n_jobs=1))
    assert large.stats["defer_band"] == 0.25
    assert large.stats["frontier_nodes"] <= DEFER_FRONTIER_SIZE
    off = ExactSearchSettings(n_jobs=1, defer_band=0.0)
    _same_answer(problem, large, solve_checklist_exact(problem, settings=off))


@pytest.mark.parametrize("bad", [{"defer_band": -0.1}, {"defer_band": 1.5}, {"defer_depth": -1}])
def test_bad_defer_settings_are_refused(bad):
    with pytest.raises(InputError, match="defer_"):
        ExactSearchSettings(**bad)


# ------------------------------------------------------------------ the tie order
def test_ties_go_to_the_first_checklist_in_item_order():
    """Two items with the same column: the search keeps the one that comes first,
    whatever it met first."""
    rng = np.random.default_rng(3)
    a = (rng.random(80) < 0.5).astype(int)
    b = (rng.random(80) < 0.5).astype(int)
    y = ((a + b + rng.normal(scale=0.6, size=80)) > 1).astype(int)
    X = pd.DataFrame({"b": b, "a": a, "a copy": a, "b copy": b})
    for n_jobs in (1, 2):
        result = solve_checklist_exact(
            ChecklistProblem(X, y), settings=ExactSearchSettings(n_jobs=n_jobs)
        )
        assert "a copy" not in result.solution.items
        assert "b copy" not in result.solution.items


# ---------------------------------------------------------------- threads and Dask
def _parallel_instances():
    for seed in range(20):
        yield random_problem(4000 + seed)
    for seed in range(10):
        yield _thresholds(300 + seed, n=500, features=7, cuts=3, max_items=6)


@pytest.mark.parametrize("index", range(30))
def test_threads_give_the_serial_answer(index):
    problem = list(_parallel_instances())[index]
    serial = solve_checklist_exact(problem, settings=ExactSearchSettings(n_jobs=1))
    trace = Trace()
    threads = solve_checklist_exact(
        problem, settings=ExactSearchSettings(n_jobs=3, slice_seconds=0.001), listeners=[trace]
    )
    _same_answer(problem, serial, threads)
    lower = [e.lower_bound for e in trace.events]
    assert lower == sorted(lower)
    if serial.status == "optimal":
        assert max(lower) <= serial.upper_bound


def test_threads_rise_the_bound_and_certify_a_larger_search():
    problem = _thresholds(7, n=3000, features=9, cuts=5, max_items=6)
    trace = Trace()
    result = solve_checklist_exact(
        problem,
        listeners=[trace],
        settings=ExactSearchSettings(
            n_jobs=2, progress_interval=0.0, slice_seconds=0.005, frontier_size=1000
        ),
    )
    serial = solve_checklist_exact(problem, settings=ExactSearchSettings(n_jobs=1))
    _same_answer(problem, serial, result)
    assert result.status == "optimal"
    lower = [e.lower_bound for e in trace.events if e.kind == "progress"]
    assert lower == sorted(lower)
    assert len({b for b in lower if 0 < b < result.upper_bound}) >= 3
    assert result.stats["deferred_nodes"] > 0  # workers put nodes back with the frontier


def test_threads_stop_and_time_limit_keep_a_valid_bound():
    rng = np.random.default_rng(5)
    X = (rng.random((3000, 60)) < 0.4).astype(int)
    y = ((X @ rng.normal(0.2, 1.0, 60) + rng.normal(scale=2.0, size=3000)) > 0).astype(int)
    problem = ChecklistProblem(X, y, max_items=12)
    settings = ExactSearchSettings(n_jobs=2)
    result = solve_checklist_exact(problem, limits=Limits(time_limit=1.0), settings=settings)
    assert result.status == "time_limit"
    assert result.time < 2.0
    assert result.has_model and problem.violations(*result.solution) == []
    assert 0 <= result.lower_bound <= result.upper_bound
    stop = threading.Event()
    timer = threading.Timer(0.8, stop.set)
    timer.start()
    result = solve_checklist_exact(
        problem, limits=Limits(time_limit=60.0, stop=stop), settings=settings
    )
    assert result.status == "stopped"
    assert result.time < 2.0
    assert result.lower_bound <= result.upper_bound


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def test_a_dask_cluster_gives_the_serial_answer(dask_client, monkeypatch):
    problems = [random_problem(5000 + s) for s in range(6)]
    problems += [_thresholds(400 + s, n=800, features=7, cuts=3, max_items=5) for s in range(3)]
    for problem in problems:
        serial = solve_checklist_exact(problem, settings=ExactSearchSettings(n_jobs=1))
        trace = Trace()
        on_dask = solve_checklist_exact(
            problem, settings=ExactSearchSettings(client=dask_client), listeners=[trace]
        )
        _same_answer(problem, serial, on_dask)
        lower = [e.lower_bound for e in trace.events]
        assert lower == sorted(lower)
    # a shallow frontier: the tasks defer nodes, which come back to the driver's frontier
    problem = _thresholds(7, n=3000, features=9, cuts=5, max_items=6)
    settings = ExactSearchSettings(client=dask_client, frontier_size=1000)
    sent, scatter = [], dask_client.scatter
    monkeypatch.setattr(
        dask_client, "scatter", lambda obj, **kw: sent.append(obj) or scatter(obj, **kw)
    )
    on_dask = solve_checklist_exact(problem, settings=settings)
    assert on_dask.stats["deferred_nodes"] > 0
    # sent once to every worker: the search's arrays and the problem without its rows
    light = [obj for obj in sent if isinstance(obj, ChecklistProblem)]
    assert len(light) == 1 and light[0].X is None and light[0].pattern_of_row is None
    assert np.array_equal(light[0].patterns, problem.patterns) and problem.X is not None
    serial = solve_checklist_exact(problem, settings=ExactSearchSettings(n_jobs=1))
    _same_answer(problem, serial, on_dask)


def test_a_dask_time_limit_keeps_a_valid_bound(dask_client):
    rng = np.random.default_rng(6)
    X = (rng.random((2000, 40)) < 0.4).astype(int)
    y = ((X @ rng.normal(0.2, 1.0, 40) + rng.normal(scale=2.0, size=2000)) > 0).astype(int)
    problem = ChecklistProblem(X, y, max_items=10)
    result = solve_checklist_exact(
        problem, limits=Limits(time_limit=3.0), settings=ExactSearchSettings(client=dask_client)
    )
    assert result.status == "time_limit"
    assert result.has_model
    assert 0 <= result.lower_bound <= result.upper_bound
    assert result.time < 8.0


# ------------------------------------------------------------------------- settings
def test_n_jobs_is_read_as_scikit_learn_does():
    cores = available_cores()
    assert resolve_n_jobs(None) == cores
    assert resolve_n_jobs(-1) == cores
    assert resolve_n_jobs(3) == 3
    assert ExactSearchSettings().n_jobs == cores


@pytest.mark.parametrize("bad", [0, 1.5, "2", True, -1000])
def test_bad_n_jobs_is_refused_with_a_clear_error(bad):
    with pytest.raises(InputError, match="n_jobs"):
        ExactSearchSettings(n_jobs=bad)


def test_a_client_that_is_not_a_dask_client_is_refused():
    with pytest.raises(InputError, match="dask.distributed.Client"):
        ExactSearchSettings(client="tcp://127.0.0.1:8786")


def test_optimum_is_never_below_the_certificate_on_random_instances():
    for seed in range(40):
        problem = random_problem(6000 + seed)
        optimum, _, _ = brute_force(problem)
        result = solve_checklist_exact(problem, settings=ExactSearchSettings(n_jobs=2))
        if math.isfinite(optimum):
            assert result.lower_bound <= optimum * (1 + TOL) + 1e-12


# ------------------------------------------------------------ fit, estimator and CLI
@pytest.fixture(scope="module")
def heart():
    from riskexplore.datasets import load_dataset

    return load_dataset("heart")


def test_fit_checklist_takes_n_jobs_and_records_it(heart):
    from riskexplore import fit_checklist

    one = fit_checklist(heart.X, heart.y, max_items=4, n_jobs=1)
    two = fit_checklist(heart.X, heart.y, max_items=4, n_jobs=2)
    assert one.items == two.items and one.M == two.M
    assert one.certificate.status == two.certificate.status == "optimal"
    assert one.stats["settings"]["n_jobs"] == 1 and two.stats["settings"]["n_jobs"] == 2


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_jobs": 0}, "n_jobs=0"),
        ({"n_jobs": 2.5}, "n_jobs must be a whole number"),
        ({"client": object()}, "dask.distributed.Client"),
        ({"client": object(), "method": "mip"}, "method='exact'"),
        ({"settings": "fast"}, "ExactSearchSettings"),
    ],
)
def test_fit_checklist_refuses_bad_parallel_settings_before_binarizing(heart, kwargs, match):
    from riskexplore import fit_checklist

    with pytest.raises(InputError, match=match):
        fit_checklist(heart.X.iloc[:, :0], heart.y, max_items=4, **kwargs)


def test_the_estimator_passes_n_jobs(heart):
    from sklearn.base import clone

    from riskexplore.checklist.estimator import ChecklistClassifier

    model = ChecklistClassifier(max_items=3, n_jobs=1, time_limit=30)
    assert clone(model).get_params()["n_jobs"] == 1
    model.fit(heart.X, heart.y)
    assert model.model_.stats["settings"]["n_jobs"] == 1


def test_the_cli_takes_n_jobs(capsys):
    import json

    from riskexplore.cli import main

    code = main(["checklist", "heart", "--max-items", "3", "--n-jobs", "2", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["status"] == "optimal" and report["gap"] == 0
    with pytest.raises(SystemExit) as exit_info:
        main(["checklist", "heart", "--n-jobs", "0"])
    assert exit_info.value.code == 2
    assert "--n-jobs" in capsys.readouterr().err
