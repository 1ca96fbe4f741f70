"""Certifiably optimal risk scores with a learned score-to-risk multiplier (LCPA in (w, t)).

The class (:mod:`riskexplore.risk_score.scaled.model_class`): integer points and intercept as in
RiskSLIM, and a real multiplier ``m in [multiplier_min, multiplier_max]`` with risk
``sigma((lambda_0 + x.lambda) / m)`` (the class FasterRisk searches heuristically).

:func:`solve_scaled_lcpa` is LCPA (:mod:`riskexplore.risk_score.lcpa.search`) over ``(w, t)`` with
``t = 1/m`` and ``w = t lambda``: the loss is convex in ``w``, so loss cuts are valid for
every ``t``, a node's integer bounds on ``lambda`` are linear rows in ``(w, t)``
(:class:`~riskexplore.risk_score.scaled.lp.ScaledLP`), and branching on a fractional
``lambda_j = w_j / t`` splits the region exactly as before. A node whose LP point has integer
``lambda`` and ``alpha`` gets a cut at ``lambda t*`` (its best ``t``); the LP is then exact on
that ray, so the node is solved or the LP moves.

The support screen (:mod:`riskexplore.risk_score.support.screen`) bounds every support of a
node at once when there are few enough of them: the node is replaced by one child per
support whose bound can still beat the incumbent (its indicators fixed), with that bound.
At the root of mammo or income (at most five features) this leaves a handful of
supports. Supports the screen drops hold no model better than the incumbent, so the
certificate keeps its meaning: the lower bound is always the least bound of the regions
still open (or given up, in ``floor``).

Heuristics (:mod:`riskexplore.risk_score.scaled.incumbents`): a beam search over supports
with the same kernel, and for the best supports the continuous solution scaled by several
multipliers, rounded and improved by alternating polishing at fixed ``m`` with the best
``m`` for fixed points (:mod:`riskexplore.risk_score.scaled.heuristics`); LP points are
rounded at their ``t``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from riskexplore.core.events import SolveEvent
from riskexplore.core.limits import Limits
from riskexplore.core.result import SolveResult
from riskexplore.risk_score.feasibility import check_feasible
from riskexplore.risk_score.lcpa.cut_pool import CutPool
from riskexplore.risk_score.lcpa.nodes import (
    INT_TOL,
    Node,
    propagate,
    split_around,
    split_nonzero,
)
from riskexplore.risk_score.lcpa.search import _LCPA, LCPASettings, raise_if_rules_unmet
from riskexplore.risk_score.problem import RiskScoreProblem
from riskexplore.risk_score.scaled.heuristics import improve
from riskexplore.risk_score.scaled.incumbents import ScaledIncumbents
from riskexplore.risk_score.scaled.lp import ScaledLP
from riskexplore.risk_score.scaled.model_class import DEFAULT_MULTIPLIER_RANGE, ScaledClass
from riskexplore.risk_score.support.fixing import alpha_rows
from riskexplore.risk_score.support.lattice import lattice_fits, search_support
from riskexplore.risk_score.support.screen import ScreenResult, count_supports, screen_supports

__all__ = ["ScaledLCPASettings", "solve_scaled_lcpa"]

#: Cuts at integer LP points of one node before it is given up (its bound kept): each
#: cut moves the LP's multiplier along the ray, so a handful normally ends the node.
_MAX_INTEGRAL_ROUNDS = 200
#: Largest node the screen takes with several threads, or on a Dask cluster.
SCREEN_MAX_SUPPORTS = 2_000_000
#: ... and with one thread: a thread that screens alone meets the screen sooner when its
#: LP nodes split the regions further first (adult, fixed scale, three runs: 55.7-58.8 M
#: supports screened in 64-67 CPU-s, against 97.9-108 M in 89-99 CPU-s at two million).
SCREEN_MAX_SUPPORTS_ONE_THREAD = 500_000


@dataclass
class ScaledLCPASettings(LCPASettings):
    """:class:`LCPASettings` plus the knobs of the learned-scale search.

    Attributes
    ----------
    support_screen : bool
        Bound every support of a node at once when there are at most
        ``screen_max_supports`` of them, and keep only those that can beat the incumbent.
    screen_max_supports : int or None
        Largest node screened (supports); ``None``: :data:`SCREEN_MAX_SUPPORTS` (two
        million) with several threads or a Dask client,
        :data:`SCREEN_MAX_SUPPORTS_ONE_THREAD` (500 thousand) with one.
    screen_roundings : int
        Supports (those with the best continuous fit) whose solutions are scaled, rounded
        and improved at each screen.
    beam_width : int
        Supports kept per size in the initial beam search (0: no beam search).
    beam_roundings : int
        Best supports of the beam search that are rounded.
    rays : int
        Multipliers tried per continuous solution.
    lattice_search : bool
        With the multiplier fixed at 1 and no row on the points, search a node whose
        indicators are all fixed (one support) by the kernel's bound alone, without LPs
        (:mod:`riskexplore.risk_score.support.lattice`).
    lattice_max_nodes : int
        Boxes the lattice search bounds per node before it returns the rest to the queue
        (between them the search polls its limits).
    """

    support_screen: bool = True
    screen_max_supports: int | None = None
    screen_roundings: int = 10
    beam_width: int = 10
    beam_roundings: int = 10
    rays: int = 12
    lattice_search: bool = True
    lattice_max_nodes: int = 500

    def screen_limit(self) -> int:
        """The largest node screened: ``screen_max_supports``, or its default for the
        workers (read when used, so that settings replaced with other workers follow).

        Returns
        -------
        int
            Supports.
        """
        if self.screen_max_supports is not None:
            return self.screen_max_supports
        alone = self.n_jobs == 1 and self.client is None
        return SCREEN_MAX_SUPPORTS_ONE_THREAD if alone else SCREEN_MAX_SUPPORTS


def solve_scaled_lcpa(
    problem: RiskScoreProblem,
    multiplier_range: tuple[float, float] = DEFAULT_MULTIPLIER_RANGE,
    *,
    limits: Limits | None = None,
    settings: ScaledLCPASettings | None = None,
    listeners: Sequence[Callable[[SolveEvent], None]] = (),
    warm_start=None,
    cut_pool: CutPool | None = None,
) -> SolveResult:
    """Find a certifiably optimal risk score whose multiplier ``m`` is learned too.

    Parameters
    ----------
    problem : RiskScoreProblem
        Data, coefficient bounds, size bounds, penalties and constraints. Rows on points
        and indicators keep their meaning; predicted-risk rows bound ``score / m``.
    multiplier_range : (float, float)
        ``[multiplier_min, multiplier_max]`` (default ``[0.25, 10]``; ``(1, 1)`` is the
        paper's class).
    limits : Limits, optional
        Time, node and gap limits and a stop request.
    settings : ScaledLCPASettings, optional
    listeners : sequence of callables
        Each receives every :class:`SolveEvent`; incumbents carry ``"multiplier"``.
    warm_start : int array (d+1,) or (array, float), optional
        A model ``[intercept, points...]`` (its best multiplier is used), or such a model
        with a multiplier; it must satisfy every constraint.
    cut_pool : CutPool, optional
        Cuts and models from earlier solves on the same data, in either class (loss cuts
        hold for every multiplier); this solve's cuts and models are added to it.

    Returns
    -------
    SolveResult
        ``coefficients`` are the points ``[intercept, points...]``; ``stats["multiplier"]``
        is ``m`` (risk ``sigma(score / m)``, see
        :func:`~riskexplore.risk_score.scaled.model_class.scaled_risk`) and ``stats["model"]`` is
        ``{"intercept", "points", "multiplier"}``; ``loss`` and the bounds are those of
        the learned-scale class. A stopped or timed-out solve returns its best model and
        valid bounds.

    Raises
    ------
    InputError
        On a bad multiplier range or warm start.
    InfeasibleError
        When the constraints other than predicted-risk rows admit no model, or the search
        ends without a model that meets the operating-point rules (``problem.rules``).
    """
    sclass = ScaledClass(problem, multiplier_range)
    result = _ScaledLCPA(
        sclass,
        limits or Limits(),
        settings or ScaledLCPASettings(),
        listeners,
        warm_start,
        cut_pool,
    ).run()
    raise_if_rules_unmet(problem, result)
    return result


class _ScaledLCPA(_LCPA):
    """LCPA over ``(w, alpha, t)``; nodes are integer bounds on ``[lambda, alpha]``."""

    incumbents_class = ScaledIncumbents

    def __init__(self, sclass: ScaledClass, limits, settings, listeners, warm_start, cut_pool):
        if not isinstance(settings, ScaledLCPASettings):
            settings = ScaledLCPASettings(**vars(settings))
        super().__init__(sclass.problem, limits, settings, listeners, warm_start, cut_pool)
        self.sclass = sclass
        self.best_t = math.nan
        self.t_col = 2 * self.d + 1
        self._lp_t = 1.0
        self.screened = 0
        self.screen_survivors = 0
        self.screen_time = 0.0
        self.lattice_nodes = 0
        self.lattice_time = 0.0
        self._alpha_rows = alpha_rows(sclass.problem)
        self._lattice_ok = (
            self.settings.lattice_search
            and sclass.t_lo == sclass.t_hi == 1.0
            and lattice_fits(sclass.problem)
            and not sclass.problem.rules  # its supports' optima ignore the rules
        )

    # --- hooks of _LCPA ------------------------------------------------------------------
    def _make_lp(self) -> ScaledLP:
        return ScaledLP(self.sclass, max_cuts=self.settings.max_cuts_in_lp)

    def _root_intercept(self, lo: float, hi: float) -> tuple[float, float]:
        return self.sclass.intercept_bounds() if self.settings.tighten_intercept else (lo, hi)

    def _initial_bounds(self, intercept):
        return self.sclass.objective_bounds(intercept)

    def _fixing_box(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.lp._w_range(lo[: self.d + 1], hi[: self.d + 1])

    def _root_fixing_wanted(self, lo: np.ndarray, hi: np.ndarray) -> bool:
        """Not when the root itself is screened (its children fix every indicator)."""
        if self.settings.support_screen and self._screenable(lo, hi) is not None:
            return False
        return super()._root_fixing_wanted(lo, hi)

    def _incumbent_dict(self) -> dict:
        if self.problem.scale == "fixed" and self.sclass.t_lo == self.sclass.t_hi == 1.0:
            return self.problem.as_dict(self.best)  # the fixed scale: no multiplier shown
        return self.sclass.as_dict(self.best, 1.0 / self.best_t)

    def _stats(self) -> dict:
        stats = super()._stats()
        stats.update(
            loss=self.sclass.loss(self.best, 1.0 / self.best_t)
            if self.best is not None
            else math.nan,
            multiplier=1.0 / self.best_t if self.best is not None else math.nan,
            model=self._incumbent_dict() if self.best is not None else None,
            multiplier_range=(self.sclass.multiplier_min, self.sclass.multiplier_max),
            supports_screened=self.screened,
            screen_survivors=self.screen_survivors,
            screen_time=self.screen_time,
            lattice_nodes=self.lattice_nodes,
            lattice_time=self.lattice_time,
        )
        return stats

    def _check_feasible(self) -> None:
        """Raise when the rows other than predicted-risk ones admit no model (then no
        multiplier helps); a start that also meets the risk rows is kept."""
        start = check_feasible(self.sclass.structural_view())
        for rule in self.problem.rules:  # a rule alone that the point bounds cannot meet
            rule.check_box(*self.problem.lam_bounds())
        if start is not None and self.sclass.t_interval(start) is None:
            start = None
        self._feasible_start = start

    # --- incumbents ----------------------------------------------------------------------
    def _consider(self, lam: np.ndarray, *, polish_it: bool, only_nonzero: bool = False):
        """Offer feasible points with their best multiplier (polishing here always keeps
        to the model's features, so ``only_nonzero`` is implied)."""
        t, objective = self.sclass.best_t(lam)
        if not math.isfinite(objective):
            return math.inf
        return self._offer(lam, t, polish_it=polish_it)

    def _offer(self, lam, t, *, polish_it: bool) -> float:
        """Offer a feasible model ``(lam, 1/t)``; add its cut; improve it if promising.

        A model that breaks an operating-point rule gives its cut only (the heuristics'
        moves do not know the rules: an improved model that breaks one is dropped)."""
        lam = np.asarray(lam, dtype=np.int64)
        objective = self._cut_at(lam, t)
        if not self.problem.meets_rules(lam):
            return math.inf
        if polish_it and self.settings.polishing and objective < 1.1 * self.ub:
            # polish on the model's own features (merged rows: fast on large data); other
            # supports come from the beam search, the screen and LP points
            support = np.flatnonzero(lam[1:])
            t0 = self.clock.elapsed()
            new, new_t, new_objective = improve(
                self.sclass, lam, t, support=support, should_stop=self._should_stop
            )
            self.heuristic_time += self.clock.elapsed() - t0
            if new_objective < objective - 1e-12 and self.problem.meets_rules(new):
                lam, t, objective = new, new_t, self._cut_at(new, new_t)
        if objective < self.ub:
            self.ub, self.best, self.best_t = objective, lam.copy(), t
            if self.pool is not None:
                self.pool.add_model(lam)
            self._update_bounds()
            self.report.emit(incumbent=True)
        return objective

    def _cut_at(self, lam: np.ndarray, t: float) -> float:
        """Add the loss cut at the model ``(lam, 1/t)``; return its objective."""
        w = lam.astype(float) * t
        loss, grad = self._loss_grad(w)
        self._add_cut(loss, grad, w)
        return loss + self.sclass.penalty(lam)

    # --- nodes ---------------------------------------------------------------------------
    def _process(self, node: Node) -> list[Node]:
        """Screen the node's supports when they are few; else solve its LP (first
        bounding a one-support node by the kernel on its box: the least continuous loss
        there, often above the LP's bound, at a fraction of its cost)."""
        if self.settings.support_screen:
            screen = self._screenable(node.lower, node.upper)
            if screen is not None:
                self.nodes += 1
                return self._screen(node, *screen)
            support = self._lattice_support(node)
            if support is not None:
                return self._lattice(node, support)
            if self._kernel_prunes(node):
                self.nodes += 1
                return []
        return self._process_lp(node)

    def _lattice_support(self, node: Node) -> np.ndarray | None:
        """The support of a node the lattice search can take (indicators all fixed, the
        multiplier 1, no row on the points, an incumbent to beat), else None."""
        d = self.d
        lo, hi = node.lower, node.upper
        if not self._lattice_ok or not math.isfinite(self.ub):
            return None
        if np.any(lo[d + 1 :] != hi[d + 1 :]):
            return None
        return np.flatnonzero(lo[d + 1 :] > 0)

    def _lattice(self, node: Node, support: np.ndarray) -> list[Node]:
        """Search the node's integer models by the kernel's bound (no LP); the boxes left
        open when its budget runs out go back to the queue as children."""
        d = self.d
        alpha = np.zeros(d)
        alpha[support] = 1.0
        fits = self.problem.min_size <= support.size <= self.problem.max_size
        if fits and self._alpha_rows is not None:
            activity = self._alpha_rows.A[:, d + 1 :] @ alpha
            fits = bool(
                np.all(activity <= self._alpha_rows.upper + 1e-9)
                and np.all(activity >= self._alpha_rows.lower - 1e-9)
            )
        if not fits:  # no model: the support breaks a size bound or a row on indicators
            self.nodes += 1
            return []
        budget = self.settings.lattice_max_nodes
        if self.limits.node_limit is not None:
            budget = max(1, min(budget, self.limits.node_limit - self.nodes))
        t0 = self.clock.elapsed()
        data, cutoff = self._support_data(), self.ub
        with self._released():
            result = search_support(
                data, support, node.lower[: d + 1], node.upper[: d + 1],
                penalty=float(self.problem.c0[support].sum()), cutoff=cutoff,
                gap=self.limits.gap_tolerance, max_nodes=budget,
            )  # fmt: skip
        self.lattice_time += self.clock.elapsed() - t0
        self.lattice_nodes += result.nodes
        self.nodes += max(result.nodes, 1)
        self.floor = min(self.floor, result.floor)
        if result.point is not None:
            self._offer(np.rint(result.point).astype(np.int64), 1.0, polish_it=True)
        children = []
        for lower, upper, bound in zip(
            result.open_lower, result.open_upper, result.open_bounds, strict=True
        ):
            bound = max(node.bound, float(bound))
            if self._prunable(bound):
                continue
            lo, hi = node.lower.copy(), node.upper.copy()
            lo[: d + 1], hi[: d + 1] = lower, upper
            children.append(Node(lo, hi, bound, node.depth + 1))
        return children

    def _kernel_prunes(self, node: Node) -> bool:
        """Raise a one-support node's bound to the least loss over its box on that
        support (every model of the node lies there); True if it cannot beat the
        incumbent."""
        d = self.d
        lo, hi = node.lower, node.upper
        if not math.isfinite(self.ub) or np.any(lo[d + 1 :] != hi[d + 1 :]):
            return False
        support = np.flatnonzero(lo[d + 1 :] > 0)
        data = self._support_data()
        # Newton on every row costs about as much as the LP. (Bounding on rows grouped by
        # bins first did not pay on a real-valued set: a 0.82% gap after 300 s against
        # 0.75%, as the supports the grouped bound leaves still need every row.)
        if not data.merges(support):
            return False
        t0 = self.clock.elapsed()
        w_lo, w_hi = self.lp._w_range(lo[: d + 1], hi[: d + 1])
        cutoff = self.ub
        with self._released():
            result = screen_supports(
                data, forced=support, free=(), k_min=support.size,
                k_max=support.size, w_lower=w_lo, w_upper=w_hi, c0=self.problem.c0,
                cutoff=cutoff,
            )  # fmt: skip
        self.screen_time += self.clock.elapsed() - t0
        if len(result) == 0:
            return False
        bound = float(result.bounds[0])
        node.bound = max(node.bound, bound - 1e-9 * (1 + abs(bound)))
        return self._prunable(node.bound)

    def _process_lp(self, node: Node) -> list[Node]:
        self.nodes += 1
        parent_bound = node.bound
        self.lp.set_node_bounds(node.lower, node.upper)
        rounds = integral_rounds = 0
        while True:
            sol = self._solve_lp()
            if sol.status == "infeasible":
                return []
            if sol.status == "error":
                self._give_up(node.bound)
                return []
            if node.branch is not None:
                col, direction, distance = node.branch
                self.pseudo.record(col, direction, distance, sol.objective - parent_bound)
                node.branch = None
            node.bound = max(node.bound, self._safe(sol.objective))
            if self._prunable(node.bound):
                return []
            x = self._lambda_point(sol.x)
            frac = np.abs(x - np.rint(x)) > INT_TOL
            if frac.any():
                if rounds < self.settings.fractional_cut_rounds and self._cut_fractional(sol):
                    rounds += 1
                    continue
                self.incumbents.at_lp_point(sol.x)
                return self._branch(node, x, frac)
            integral_rounds += 1
            if integral_rounds > _MAX_INTEGRAL_ROUNDS:  # no progress: never loop for ever
                self._give_up(node.bound)  # its bound stays in the certificate
                return []
            done = self._integral_point(node, sol, x)
            if done is not None:
                return done

    def _lambda_point(self, x: np.ndarray) -> np.ndarray:
        """``[lambda, alpha] = [w / t, alpha]`` of an LP point ``[w, alpha, t]``."""
        d = self.d
        return np.concatenate([x[: d + 1] / x[self.t_col], x[d + 1 : 2 * d + 1]])

    def _integral_point(self, node: Node, sol, x: np.ndarray) -> list[Node] | None:
        """An LP point with integer ``lambda`` and ``alpha``: the node's children, or
        ``None`` to solve the LP again (after a cut)."""
        d = self.d
        lam = np.rint(x[: d + 1]).astype(np.int64)
        alpha = np.rint(x[d + 1 :])
        forced_empty = np.flatnonzero((alpha == 1) & (lam[1:] == 0))
        if forced_empty.size:
            return split_nonzero(node, int(forced_empty[0]) + 1, d)
        t, objective = self.sclass.best_t(lam)
        slipped = self.sclass.structural_view().violations(lam, rules=False)
        if slipped or not math.isfinite(objective):
            self._give_up(node.bound)  # an LP tolerance let a row slip
            return []
        w = lam.astype(float) * t
        loss, grad = self._loss_grad(w)
        self._add_cut(loss, grad, w)
        if loss + self.sclass.penalty(lam) < self.ub:
            self._offer(lam, t, polish_it=True)
        if sol.loss_estimate >= loss - 1e-10 * (1.0 + loss):
            # exact on the ray t * lam: nothing in this region beats (lam, 1/t); when lam
            # breaks an operating-point rule, the region minus lam is searched on
            if not self.problem.meets_rules(lam):
                return split_around(node, lam, d)
            if node.bound < self.ub:
                self.floor = min(self.floor, node.bound)
            return []
        if self._should_stop():
            self.floor = min(self.floor, node.bound)
            return []
        return None

    # --- the support screen --------------------------------------------------------------
    def _screenable(self, lo: np.ndarray, hi: np.ndarray):
        """``(forced, free, k_min, k_max)`` when the node's supports are few enough to
        screen (and its indicators are not all fixed), else ``None``."""
        d = self.d
        forced = np.flatnonzero(lo[d + 1 :] > 0)
        free = np.flatnonzero((lo[d + 1 :] == 0) & (hi[d + 1 :] > 0))
        if free.size == 0:
            return None
        k_min, k_max = self._size_range(lo, hi)
        count = count_supports(forced.size, free.size, k_min, k_max)
        if count > self.settings.screen_limit():
            return None
        return forced, free, k_min, k_max

    def _screen(self, node: Node, forced, free, k_min: int, k_max: int) -> list[Node]:
        """Replace the node by one child per support that can still beat the incumbent."""
        d = self.d
        t0 = self.clock.elapsed()
        w_lo, w_hi = self.lp._w_range(node.lower[: d + 1], node.upper[: d + 1])
        data, cutoff = self._support_data(), self.ub
        with self._released(), self._screen_turn:
            result = self._screen_supports(data, forced, free, k_min, k_max, w_lo, w_hi, cutoff)
        self.screen_time += self.clock.elapsed() - t0
        self.screened += result.screened
        if not result.complete:
            self.floor = min(self.floor, node.bound)
            return []
        self.incumbents.round_supports(result, self.settings.screen_roundings)
        return self._support_children(node, result)

    def _screen_supports(self, data, forced, free, k_min, k_max, w_lo, w_hi, cutoff):
        """The screen of one node's supports (by the settings' workers)."""
        return screen_supports(
            data,
            forced=forced,
            free=free,
            k_min=k_min,
            k_max=k_max,
            w_lower=w_lo,
            w_upper=w_hi,
            c0=self.problem.c0,
            alpha_rows=self._alpha_rows,
            cutoff=cutoff,
            should_stop=self._should_stop,
            n_jobs=self.settings.n_jobs,
            client=self.settings.client,
            keep_below=cutoff,  # the others hold no model better than the incumbent
        )

    def _support_children(self, node: Node, result: ScreenResult) -> list[Node]:
        children = []
        raw = result.bounds
        bounds = np.maximum(node.bound, raw - 1e-9 * (1 + np.abs(raw)))
        kept = self._unpruned(bounds)
        for s in kept[np.argsort(bounds[kept], kind="stable")]:
            bound = float(bounds[s])
            child = self._support_child(node, result.support(s), bound)
            if child is not None:
                children.append((child, result.point(s, self.d)))
        self.screen_survivors += len(children)
        if len(children) <= self.settings.max_cuts_in_lp // 4:
            for _, w in children:  # the support's fit: a tangent cut that holds everywhere
                loss, grad = self._loss_grad(w)
                self._add_cut(loss, grad, w)
        return [child for child, _ in children]

    def _unpruned(self, bounds: np.ndarray) -> np.ndarray:
        """Indices of the bounds :meth:`_prunable` keeps (the floor takes those dropped
        within the gap tolerance), in order."""
        keep = bounds < self.ub
        tol = self.limits.gap_tolerance
        if tol > 0:
            near = keep & (bounds >= self.ub - tol * abs(self.ub))
            if near.any():
                self.floor = min(self.floor, float(bounds[near].min()))
            keep &= ~near
        return np.flatnonzero(keep)

    def _support_child(self, node: Node, support: np.ndarray, bound: float) -> Node | None:
        d = self.d
        lo, hi = node.lower.copy(), node.upper.copy()
        inside = np.zeros(d, dtype=bool)
        inside[support] = True
        for j in range(d):
            col = d + 1 + j
            if inside[j]:
                lo[col] = max(lo[col], 1.0)
            else:
                hi[col] = min(hi[col], 0.0)
            if not propagate(lo, hi, d, col):
                return None
        return Node(lo, hi, bound, node.depth + 1)
