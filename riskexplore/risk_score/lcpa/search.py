"""The lattice cutting plane algorithm (LCPA, Algorithm 2) as our own branch-and-bound.

HiGHS has no lazy-constraint callback, so the search tree lives here and HiGHS solves
the node LPs (warm-started dual simplex). A node is a pair of column-bound vectors
over ``[lambda, alpha]``. When a node's LP optimum is integral, the true loss and its
gradient there give a new cut, and the node is re-solved until its LP is exact at its
integer optimum (then the node is solved) or it becomes fractional (then it is split).

Correctness rests on three facts: every cut under-estimates the convex loss
everywhere, a child's region is a subset of its parent's, and a node leaves the tree
only when its LP bound reaches the incumbent, its region is empty, or its bound is
folded into ``floor`` (so the reported lower bound ``min(open bounds, floor,
incumbent)`` never exceeds the optimum).

The search (``_LCPA``) holds the tree, the LP, the incumbent and the bounds, and processes
the nodes; its collaborators are the nodes and their splits
(:mod:`~riskexplore.risk_score.lcpa.nodes`), the heuristics that find models
(:class:`~riskexplore.risk_score.lcpa.incumbents.Incumbents`), the events and the result
(:class:`~riskexplore.risk_score.lcpa.report.SearchReport`) and the threads
(:class:`~riskexplore.risk_score.lcpa.parallel.ParallelNodes`).
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from collections.abc import Callable, Sequence

import numpy as np
from threadpoolctl import threadpool_limits

from riskexplore.core.events import SolveEvent, relative_gap
from riskexplore.core.limits import Clock, Limits
from riskexplore.core.result import SolveResult
from riskexplore.errors import InfeasibleError
from riskexplore.risk_score.feasibility import check_feasible
from riskexplore.risk_score.lcpa.bounds import ObjectiveBounds, initial_bounds, intercept_bounds
from riskexplore.risk_score.lcpa.cut_pool import CutPool
from riskexplore.risk_score.lcpa.heuristics import MoveChecker, polish
from riskexplore.risk_score.lcpa.incumbents import Incumbents
from riskexplore.risk_score.lcpa.lp import SurrogateLP
from riskexplore.risk_score.lcpa.nodes import (
    INT_TOL,
    Node,
    split_around,
    split_fractional,
    split_nonzero,
)
from riskexplore.risk_score.lcpa.parallel import ParallelNodes
from riskexplore.risk_score.lcpa.pseudo_costs import PseudoCosts
from riskexplore.risk_score.lcpa.report import SearchReport
from riskexplore.risk_score.lcpa.settings import LCPASettings
from riskexplore.risk_score.problem import RiskScoreProblem
from riskexplore.risk_score.support.fixing import FeatureFixing, alpha_rows, root_feature_floors
from riskexplore.risk_score.support.screen import SupportData


def solve_lcpa(
    problem: RiskScoreProblem,
    *,
    limits: Limits | None = None,
    settings: LCPASettings | None = None,
    listeners: Sequence[Callable[[SolveEvent], None]] = (),
    warm_start: np.ndarray | None = None,
    cut_pool: CutPool | None = None,
) -> SolveResult:
    """Find a certifiably optimal risk score with LCPA.

    Parameters
    ----------
    problem : RiskScoreProblem
        A problem with the fixed scale (the learned one is solved by
        :func:`~riskexplore.risk_score.scaled.search.solve_scaled_lcpa`).
    limits : Limits, optional
        Time, node and gap limits and a stop request.
    settings : LCPASettings, optional
    listeners : sequence of callables
        Each receives every :class:`SolveEvent`.
    warm_start : int array (d+1,), optional
        A model ``[intercept, points...]`` to start from; it must satisfy every
        constraint.
    cut_pool : CutPool, optional
        Cuts and models from earlier solves on the same data: its cuts seed the LP, its
        models that meet this problem's constraints are starting incumbents, and this
        solve's cuts and incumbents are added to it.

    Returns
    -------
    SolveResult
        The best model, a valid lower bound and statistics. A stopped or timed-out solve
        returns its best model and valid bounds.

    Raises
    ------
    InputError
        For a problem with the learned scale.
    InfeasibleError
        When the search ends without a model that meets the problem's operating-point
        rules (``problem.rules``) and the other constraints together.
    """
    problem.require_fixed_scale("solve_lcpa")
    result = _LCPA(
        problem, limits or Limits(), settings or LCPASettings(), listeners, warm_start, cut_pool
    ).run()
    raise_if_rules_unmet(problem, result)
    return result


def raise_if_rules_unmet(problem: RiskScoreProblem, result: SolveResult) -> None:
    """Raise when a finished search found no model because of the operating-point rules.

    Parameters
    ----------
    problem : RiskScoreProblem
        The problem searched.
    result : SolveResult
        The search's result.

    Raises
    ------
    InfeasibleError
        When the problem has rules and the search saw every model without one that meets
        them (the rows alone admit models: the feasibility check passed).
    """
    if problem.rules and result.solution is None and result.status == "infeasible":
        raise InfeasibleError(
            f"no risk score meets {'; '.join(repr(r.name) for r in problem.rules)} together with "
            "the bounds and other constraints (the search saw every model); lower the "
            "threshold or the rate, or loosen the other constraints"
        )


class _LCPA(ParallelNodes):
    """One LCPA search: the tree, its LP, the incumbent and the bounds.

    Its hooks (``_make_lp``, ``_consider``, ``_solved``, ... and :attr:`incumbents_class`)
    let the learned scale (:mod:`riskexplore.risk_score.scaled.search`) search another
    model class, and the near-optimal enumeration
    (:mod:`riskexplore.risk_score.near_optimal`) record every model below a threshold.
    """

    #: The heuristics that find models (the learned scale has its own).
    incumbents_class: type[Incumbents] = Incumbents

    def __init__(self, problem, limits, settings, listeners, warm_start, cut_pool=None):
        self.problem = problem
        self.pool = cut_pool
        if cut_pool is not None:
            cut_pool.attach(problem.loss)
        self.limits = limits
        self.settings = settings
        self._init_threads(self._threads_wanted())
        self.report = SearchReport(self, listeners)
        self.incumbents = self.incumbents_class(self)
        self.warm_start = warm_start
        self.d = problem.n_features
        self.checker = MoveChecker(problem)
        self.pseudo = PseudoCosts(2 * self.d + 1)
        self.ub = math.inf
        self.best: np.ndarray | None = None
        self.floor = math.inf  # least bound of regions left unexplored or solved inexactly
        self.given_up = math.inf  # least bound of regions left because an LP failed
        self.heap: list = []
        self.counter = itertools.count()
        self.current: Node | None = None
        self.nodes = 0
        self.lp_solves = 0
        self.lp_time = 0.0
        self.cuts = 0
        self.phase = "setup"
        self.heuristic_time = 0.0
        self.root_bound = 0.0
        self.stop_reason: str | None = None
        self._dive: Node | None = None
        self._data: SupportData | None = None
        self.fixing: FeatureFixing | None = None
        self.fixing_time = 0.0

    # --- driver ------------------------------------------------------------------------
    def run(self) -> SolveResult:
        with threadpool_limits(limits=1):  # one BLAS thread: calls here are small
            return self._run()

    def _run(self) -> SolveResult:
        self.clock = Clock(self.limits)
        self._check_feasible()  # raises before any event: a failed start shows no points
        self.report.emit()  # at once, so a monitor shows the solve has started (lower bound 0)
        self.lp = self._make_lp()
        lo, hi = self.lp.root_lower.copy(), self.lp.root_upper.copy()
        icpt = self._root_intercept(lo[0], hi[0])
        lo[0], hi[0] = icpt
        self.bounds: ObjectiveBounds = self._initial_bounds(icpt)
        self.root_bound = self.bounds.V_min
        self._push_bounds_to_lp()
        self.lp.set_node_bounds(lo, hi)
        self._seed_pooled_cuts()
        self.incumbents.start()
        if self.settings.initialization and not self._should_stop():
            self.phase = "initialization"
            self.incumbents.initialize(lo, hi)
        if self.settings.root_fixing and self._root_fixing_wanted(lo, hi):
            self._fix_at_root(lo, hi)
        self._push(Node(lo, hi, self.root_bound, 0))
        self.phase = "search"
        self.report.emit()
        complete = self._search()
        return self._finish(complete)

    # --- hooks for LCPA over other model classes (see scaled/search.py) --------------------
    def _make_lp(self) -> SurrogateLP:
        return SurrogateLP(self.problem, max_cuts=self.settings.max_cuts_in_lp)

    def _root_intercept(self, lo: float, hi: float) -> tuple[float, float]:
        return intercept_bounds(self.problem) if self.settings.tighten_intercept else (lo, hi)

    def _initial_bounds(self, intercept: tuple[float, float]) -> ObjectiveBounds:
        return initial_bounds(self.problem, intercept)

    def _incumbent_dict(self) -> dict:
        return self.problem.as_dict(self.best)

    def _stats(self) -> dict:
        return {
            "lp_solves": self.lp_solves,
            "lp_time": self.lp_time,
            "open_nodes": len(self.heap),
            "heuristic_time": self.heuristic_time,
            "root_bound": self.root_bound,
            "cuts_in_lp": self.lp.n_cuts,
            "distinct_rows": self.problem.loss.n_rows,
            "fixed_features": 0 if self.fixing is None else self.fixing.count,
            "fixing_time": self.fixing_time,
            "n_jobs": self.settings.n_jobs,
            "dask": self.settings.client is not None,
        }

    def _fixing_box(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The box of ``w`` in which the screen fits the root's supports."""
        return lo[: self.d + 1], hi[: self.d + 1]

    def _root_fixing_wanted(self, lo: np.ndarray, hi: np.ndarray) -> bool:
        # the support kernel screens the logistic loss; another datafit may bring its own
        # floors (the Cox loss's ``feature_floors``)
        loss = self.problem.loss
        can_bound = loss.support_kernel is not None or hasattr(loss, "feature_floors")
        return can_bound and self.d > 0 and not self._should_stop()

    def _check_feasible(self) -> None:
        start = check_feasible(self.problem)  # raises InfeasibleError with the culprit
        self._feasible_start = start

    # --- incumbents and cuts ------------------------------------------------------------
    def _consider(self, lam: np.ndarray, *, polish_it: bool, only_nonzero: bool = False):
        """Offer a feasible integer model; add its cut; polish it if it is promising."""
        loss, grad = self._loss_grad(lam.astype(float), integral=True)
        self._add_cut(loss, grad, lam)
        objective = loss + float(self.problem.c0 @ (lam[1:] != 0))
        if polish_it and self.settings.polishing and objective < 1.1 * self.ub:
            t0 = self.clock.elapsed()
            with self._released():
                polished, pobj = polish(
                    self.problem,
                    lam,
                    only_nonzero=only_nonzero,
                    checker=self.checker,
                    should_stop=self._should_stop,
                )
            self.heuristic_time += self.clock.elapsed() - t0
            if pobj < objective - 1e-12:
                ploss, pgrad = self._loss_grad(polished.astype(float), True)
                self._add_cut(ploss, pgrad, polished)
                lam, objective = polished, ploss + float(self.problem.c0 @ (polished[1:] != 0))
        if objective < self.ub:
            self.ub, self.best = objective, lam.copy()
            if self.pool is not None:
                self.pool.add_model(lam)
            self._update_bounds()
            self.report.emit(incumbent=True)
        return objective

    def _add_cut(self, loss: float, grad: np.ndarray, lam: np.ndarray) -> None:
        if self.lp is not None:
            self.lp.add_cut(loss, grad, lam.astype(float))
            self._log_cut(loss, grad, lam.astype(float))
        if self.pool is not None:
            self.pool.add_cut(loss, grad, lam)
        self.cuts += 1

    def _seed_pooled_cuts(self) -> None:
        """Put the pool's most recent cuts in the LP (they are valid for any constraints)."""
        if self.pool is None:
            return
        for loss, grad, point in self.pool.cuts(limit=self.settings.max_cuts_in_lp // 2):
            self.lp.add_cut(loss, grad, point)

    # --- root fixing ----------------------------------------------------------------------
    def _support_data(self) -> SupportData:
        if self._data is None:
            self._data = SupportData(self.problem.loss)
        return self._data

    def _size_range(self, lo: np.ndarray | None = None, hi: np.ndarray | None = None):
        """Size range of an optimal model (the chained bound may lower ``max_size``)."""
        k_max = self.problem.max_size
        if hasattr(self, "bounds"):
            k_max = min(k_max, int(self.bounds.R_max))
        return self.problem.min_size, k_max

    def _fix_at_root(self, lo: np.ndarray, hi: np.ndarray) -> None:
        """Screen the root's supports once; fix the features whose floor reaches the
        incumbent (and later ones as it improves, see :meth:`_restrict`)."""
        t0 = self.clock.elapsed()
        k_min, k_max = self._size_range(lo, hi)
        if self.problem.loss.support_kernel is None:
            floors = self.problem.loss.feature_floors(
                lo,
                hi,
                c0=self.problem.c0,
                k_min=k_min,
                k_max=k_max,
                max_supports=self.settings.fixing_max_supports,
                max_work=self.settings.fixing_max_work,
                alpha_rows=alpha_rows(self.problem),
                should_stop=self._should_stop,
            )
            self._set_fixing(floors, t0)
            return
        w_lo, w_hi = self._fixing_box(lo, hi)
        floors = root_feature_floors(
            self._support_data(),
            lo,
            hi,
            w_lower=w_lo,
            w_upper=w_hi,
            c0=self.problem.c0,
            k_min=k_min,
            k_max=k_max,
            max_supports=self.settings.fixing_max_supports,
            max_work=self.settings.fixing_max_work,
            alpha_rows=alpha_rows(self.problem),
            cutoff=self.ub,
            should_stop=self._should_stop,
            n_jobs=self.settings.n_jobs,
            client=self.settings.client,
        )
        self._set_fixing(floors, t0)

    def _set_fixing(self, floors: np.ndarray | None, t0: float) -> None:
        self.fixing_time += self.clock.elapsed() - t0
        if floors is not None:
            self.fixing = FeatureFixing(floors)
            self.fixing.update(self.ub)

    def _restrict(self, node: Node) -> bool:
        """Fix the fixed-out features in a node; False if it needs one (then drop it:
        its every model has an objective at least the incumbent's) or if no model of its
        box can meet an operating-point rule (then it holds no model of the problem)."""
        if self.fixing is not None:
            self.fixing.update(self.ub)
            if not self.fixing.restrict(node.lower, node.upper):
                return False
        return self.problem.rules_possible(node.lower, node.upper)

    # --- branch and bound --------------------------------------------------------------
    def _search(self) -> bool:
        if self._threads_wanted():
            return self._search_threads()
        try:
            return self._search_loop()
        except KeyboardInterrupt:  # Ctrl-C: keep the best model and a valid bound
            self.stop_reason = "stopped"
            for node in (self.current, self._dive):
                if node is not None:
                    self.floor = min(self.floor, node.bound)
            self.current = None
            return False

    def _search_loop(self) -> bool:
        dive: Node | None = None
        while True:
            self._dive = dive
            if self._should_stop():
                if dive is not None:
                    self.floor = min(self.floor, dive.bound)
                return False
            if dive is not None:
                node, dive = dive, None
                self._dive = None
            else:
                node = self._pop()
                if node is None:
                    return True
            self.current = node
            if not self._restrict(node):
                self.current = None
                continue
            children = self._process(node)
            self.current = None
            if children:
                self._queue_children(children)
                if self.settings.diving:
                    dive = children[0]
            if self.nodes % 32 == 0:
                self._update_bounds()
            self.report.emit_if_due()

    def _queue_children(self, children: list[Node]) -> None:
        """Queue the children not dived into, with this thread's LP basis."""
        keep = children[1:] if self.settings.diving else children
        snap = self.lp.snapshot() if self.settings.restore_bases and keep else None
        for child in keep:
            child.basis, child.owner = snap, self._state()
            self._push(child)

    def _push(self, node: Node) -> None:
        heapq.heappush(self.heap, (node.bound, next(self.counter), node))

    def _pop(self) -> Node | None:
        while self.heap:
            bound, _, node = heapq.heappop(self.heap)
            if not self._prunable(bound):
                if node.basis is not None and node.owner is self._state():
                    self.lp.restore(node.basis)
                node.basis = None
                return node
        return None

    def _prunable(self, bound: float) -> bool:
        """A node whose bound cannot beat the incumbent (by more than the gap) is dropped."""
        if bound >= self.ub:
            return True
        tol = self.limits.gap_tolerance
        if tol > 0 and bound >= self.ub - tol * abs(self.ub):
            self.floor = min(self.floor, bound)
            return True
        return False

    def _process(self, node: Node) -> list[Node]:
        """Solve a node's LP, adding cuts at integer points; return its children."""
        self.nodes += 1
        parent_bound = node.bound
        self.lp.set_node_bounds(node.lower, node.upper)
        d = self.d
        rounds = 0
        tried: set[tuple[int, ...]] = set()  # integer LP points whose cut is in the LP
        while True:
            sol = self._solve_lp()
            if sol.status == "infeasible":
                return []
            if sol.status == "error":
                self._give_up(node.bound)
                return []
            if node.branch is not None:  # first LP of a child: learn the branching gain
                col, direction, distance = node.branch
                self.pseudo.record(col, direction, distance, sol.objective - parent_bound)
                node.branch = None
            node.bound = max(node.bound, self._safe(sol.objective))
            if self._prunable(node.bound):
                return []
            x = sol.x
            frac = np.abs(x - np.rint(x)) > INT_TOL
            if frac.any():
                if rounds < self.settings.fractional_cut_rounds and self._cut_fractional(sol):
                    rounds += 1
                    continue
                self.incumbents.at_lp_point(x)
                return self._branch(node, x, frac)
            lam = np.rint(x[: d + 1]).astype(np.int64)
            alpha = np.rint(x[d + 1 :])
            forced_empty = np.flatnonzero((alpha == 1) & (lam[1:] == 0))
            if forced_empty.size:  # alpha_j = 1 must mean lambda_j != 0
                return split_nonzero(node, int(forced_empty[0]) + 1, d)
            if self.problem.violations(lam, rules=False):  # LP tolerance let a row slip
                self._give_up(node.bound)
                return []
            key = tuple(lam.tolist())
            if key in tried:
                # its cut is in the LP and the LP still picks it: the LP is exact there up to
                # its tolerances (the point x lies within INT_TOL of lam, and the cut at lam
                # read at x can fall short by |grad| INT_TOL); another cut would change
                # nothing and the node would loop for ever
                return self._solved(node, lam)
            tried.add(key)
            loss, grad = self._loss_grad(lam.astype(float), integral=True)
            self._add_cut(loss, grad, lam)
            objective = loss + float(self.problem.c0 @ (lam[1:] != 0))
            if objective < self.ub and self.problem.meets_rules(lam):
                self._consider(lam, polish_it=True)
            if sol.loss_estimate >= loss - 1e-10 * (1.0 + loss):
                # the LP is exact at its integer optimum: nothing better in this region
                return self._solved(node, lam)
            if self._should_stop():
                self.floor = min(self.floor, node.bound)
                return []

    def _give_up(self, bound: float) -> None:
        """Leave a region whose LP could not be solved exactly; its bound stays in the
        certificate (and a finished search then reports ``"numerical"``, not optimal)."""
        self.floor = min(self.floor, bound)
        self.given_up = min(self.given_up, bound)

    def _solved(self, node: Node, lam: np.ndarray) -> list[Node]:
        """A node whose LP is exact at its integer optimum ``lam``: nothing in its region
        beats ``lam``, so it has no children (subclasses that enumerate continue here).
        When ``lam`` breaks an operating-point rule, the rest of the region is searched
        on (its boxes keep the node's bound)."""
        if not self.problem.meets_rules(lam):
            return split_around(node, lam, self.d)
        if node.bound < self.ub:
            self.floor = min(self.floor, node.bound)
        return []

    def _cut_fractional(self, sol) -> bool:
        """Add a cut at a fractional LP point if the LP underestimates the loss there.

        Cuts are valid anywhere (the loss is convex), so this only tightens node bounds.
        """
        lam = sol.x[: self.d + 1]
        loss, grad = self._loss_grad(lam)
        if loss - sol.loss_estimate <= self.settings.fractional_cut_threshold * max(loss, 1e-9):
            return False
        self._add_cut(loss, grad, lam)
        return True

    def _branch(self, node: Node, x: np.ndarray, frac: np.ndarray) -> list[Node]:
        """Split a node on its fractional LP point (pseudo-costs choose the column)."""
        return split_fractional(
            node, x, frac, self.d, self.pseudo if self.settings.pseudo_costs else None
        )

    # --- bounds ------------------------------------------------------------------------
    def lower_bound(self) -> float:
        lb = min(self.floor, self.ub)
        if self.heap:
            lb = min(lb, self.heap[0][0])
        for node in self._held_nodes():  # each thread's node in hand and dive child
            lb = min(lb, node.bound)
        if self.phase != "search":
            lb = min(lb, self.root_bound)
        return lb

    def _update_bounds(self) -> None:
        if not self.settings.chained_updates or not hasattr(self, "bounds"):
            return
        b = self.bounds
        b.V_max = min(b.V_max, self.ub)
        b.V_min = max(b.V_min, self.lower_bound() if self.phase == "search" else self.root_bound)
        if b.chain():
            self._push_bounds_to_lp()

    def _push_bounds_to_lp(self) -> None:
        if self.lp is None:
            return
        self._apply_bounds(self.lp)
        self._bounds_changed()

    def _apply_bounds(self, lp) -> None:
        b = self.bounds
        if self.settings.chained_updates:
            lp.set_loss_bounds(b.L_min, b.L_max)
        lp.set_size_bounds(b.R_min, b.R_max)

    @staticmethod
    def _safe(objective: float) -> float:
        """An LP value minus a margin for the LP's own tolerances."""
        return objective - 1e-9 * (1.0 + abs(objective))

    def _solve_lp(self):
        self.lp_solves += 1
        self._sync_lp()
        t0 = time.perf_counter()
        with self._released():
            sol = self.lp.solve()
        self.lp_time += time.perf_counter() - t0  # summed over threads
        return sol

    # --- limits and the result -----------------------------------------------------------
    def _should_stop(self) -> bool:
        if self.stop_reason is not None:
            return True
        reason = self.clock.limit_reached(self.nodes)
        if reason is not None:
            self.stop_reason = reason
            return True
        if (
            self.phase == "search"
            and not self._outside_lock()
            and math.isfinite(self.ub)
            and relative_gap(self.ub, self.lower_bound()) <= self.limits.gap_tolerance
        ):
            self.stop_reason = "gap"
        return self.stop_reason is not None

    def _finish(self, complete: bool) -> SolveResult:
        lb = min(self.floor, self.ub) if complete else self.lower_bound()
        numerical = math.isfinite(self.given_up) and self.given_up < self.ub
        if (
            complete
            and numerical
            and relative_gap(self.ub, self.given_up) > self.limits.gap_tolerance
        ):
            # the tree is exhausted, but regions whose LP could not be solved exactly were
            # given up with their bound: the certificate stops at that bound
            complete, self.stop_reason = False, "numerical"
        self.phase = "done"
        self.current = None
        if complete:
            self.heap = []
        return self.report.result(complete, lb)
