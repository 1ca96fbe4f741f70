"""Where the learned-scale search's models come from (points with a multiplier).

:class:`ScaledIncumbents` is :class:`~riskexplore.risk_score.lcpa.incumbents.Incumbents`
for :mod:`riskexplore.risk_score.scaled.search`: a warm start may carry its multiplier;
the root's beam search fits supports whose solutions are scaled by several multipliers,
rounded and improved (:func:`~riskexplore.risk_score.scaled.heuristics.round_ray`, also
used for the best supports of each node's screen); the root's cutting planes run only
when the root is too large for the support screen; and an LP point ``[w, alpha, t]`` is
rounded at its own ``t``. Models are offered to the search with their multiplier
(``_offer``).
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from riskexplore.errors import InputError
from riskexplore.risk_score.lcpa.heuristics import sequential_rounding
from riskexplore.risk_score.lcpa.incumbents import Incumbents
from riskexplore.risk_score.scaled.heuristics import round_ray
from riskexplore.risk_score.support.screen import ScreenResult, beam_supports

__all__ = ["ScaledIncumbents"]


class ScaledIncumbents(Incumbents):
    """The heuristics of one learned-scale search.

    Parameters
    ----------
    search : _ScaledLCPA
        The search they serve.
    """

    search: Any

    def start(self) -> None:
        """Offer the starting models (the warm start with its multiplier, or its best).

        Raises
        ------
        InputError
            For a warm start that is not a model of the class.
        """
        s = self.search
        structural = s.sclass.structural_view()
        if s.warm_start is not None:
            lam, t = self._warm_model(s.warm_start)
            s._offer(lam, t, polish_it=False)
        zero = np.zeros(s.d + 1, dtype=np.int64)
        lo, hi = s.problem.lam_bounds()
        zero[0] = int(np.clip(0, lo[0], hi[0]))
        if not structural.violations(zero):
            s._consider(zero, polish_it=True, only_nonzero=True)
        start = getattr(s, "_feasible_start", None)
        if start is not None:
            s._consider(np.asarray(start, dtype=np.int64), polish_it=True)
        if s.pool is not None:
            for lam in s.pool.models():
                if lam.shape == (s.d + 1,) and not structural.violations(lam):
                    s._consider(lam, polish_it=False)

    def _warm_model(self, warm) -> tuple[np.ndarray, float]:
        """The warm start's points and ``t``; raise InputError when it is not a model."""
        s = self.search
        sclass = s.sclass
        multiplier = None
        if isinstance(warm, tuple) and len(warm) == 2:
            warm, multiplier = warm
            if isinstance(multiplier, bool) or not isinstance(multiplier, numbers.Real):
                raise InputError(f"warm start multiplier must be a number, got {multiplier!r}")
        lam = np.rint(np.asarray(warm, dtype=float)).astype(np.int64)
        if lam.shape != (s.d + 1,):
            raise InputError(
                f"warm start must have {s.d + 1} entries "
                f"(intercept then one per feature), got {lam.shape}"
            )
        if multiplier is None:
            t, objective = sclass.best_t(lam)
            bad = sclass.structural_view().violations(lam)
            if not math.isfinite(objective):
                bad = bad + ["the predicted-risk constraints (for every multiplier in range)"]
        else:
            m_lo, m_hi = sclass.multiplier_min, sclass.multiplier_max
            if not m_lo <= multiplier <= m_hi:
                raise InputError(
                    f"warm start multiplier {multiplier:g} outside [{m_lo:g}, {m_hi:g}]"
                )
            t = 1.0 / float(multiplier)
            bad = sclass.violations(lam, float(multiplier))
        bad = bad + [r.name for r in s.problem.rules if not r.meets(lam) and r.name not in bad]
        if bad:
            raise InputError("warm start breaks: " + "; ".join(bad[:3]))
        return lam, t

    def initialize(self, lo: np.ndarray, hi: np.ndarray) -> None:
        """A beam search over supports, then the LP relaxation's cutting planes when the
        root is too large for the support screen.

        Parameters
        ----------
        lo, hi : array
            The root's column bounds.
        """
        s = self.search
        if s.settings.beam_width > 0 and s.d > 0:
            self.beam(lo, hi)
        if not s.settings.support_screen or s._screenable(lo, hi) is None:
            self._root_cutting_planes()

    def beam(self, lo: np.ndarray, hi: np.ndarray) -> None:
        """Scale, round and improve the fits of the best supports of a beam search.

        Parameters
        ----------
        lo, hi : array
            The root's column bounds.
        """
        s = self.search
        t0 = s.clock.elapsed()
        d = s.d
        forced = np.flatnonzero(lo[d + 1 :] > 0)
        allowed = np.flatnonzero(hi[d + 1 :] > 0)
        k_max = s._size_range(lo, hi)[1]
        if forced.size > k_max:  # more features forced in than any model may have: none
            return
        w_lo, w_hi = s.lp._w_range(lo[: d + 1], hi[: d + 1])
        found = beam_supports(
            s._support_data(),
            allowed=allowed,
            forced=forced,
            k_max=k_max,
            width=s.settings.beam_width,
            w_lower=w_lo,
            w_upper=w_hi,
            c0=s.problem.c0,
        )
        s.heuristic_time += s.clock.elapsed() - t0
        self.round_supports(found, s.settings.beam_roundings)

    def _root_cutting_planes(self) -> None:
        """Loss cuts at the root's LP points until the LP is exact there (or the
        initialization's time is spent); they raise the root bound."""
        s = self.search
        budget = s.settings.init_time_fraction * min(s.limits.time_limit, 3600.0)
        for _ in range(s.settings.init_max_iterations):
            if s._should_stop() or s.clock.elapsed() > budget:
                break
            sol = s._solve_lp()
            if sol.status != "optimal":
                break
            s.root_bound = max(s.root_bound, s._safe(sol.objective))
            w = sol.x[: s.d + 1]
            loss, grad = s._loss_grad(w)
            s._add_cut(loss, grad, w)
            s._update_bounds()
            s.report.emit_if_due()
            if loss - sol.loss_estimate <= 1e-6 * max(1.0, loss):
                break

    def round_supports(self, found: ScreenResult, count: int) -> None:
        """Scale, round and improve the continuous fits of the best supports (of those
        whose bound still leaves room below the incumbent).

        Parameters
        ----------
        found : ScreenResult
            Supports with their fits and bounds (a beam search's or a screen's).
        count : int
            How many of the best fits to round.
        """
        s = self.search
        promising = np.flatnonzero(found.bounds < s.ub)
        order = promising[np.argsort(found.fits[promising], kind="stable")[:count]]
        for i in order:
            if s._should_stop():
                return
            t0 = s.clock.elapsed()
            theta = found.thetas[i, : found.sizes[i] + 1]
            with s._released():
                lam, t, _ = round_ray(
                    s.sclass,
                    theta,
                    found.support(i),
                    count=s.settings.rays,
                    should_stop=s._should_stop,
                )
            s.heuristic_time += s.clock.elapsed() - t0
            if lam is not None:
                s._offer(lam, t, polish_it=True)

    def at_lp_point(self, x: np.ndarray) -> None:
        """Round an LP point ``[w, alpha, t]`` at its ``t`` (as the fixed scale does).

        Parameters
        ----------
        x : array
            The LP point.
        """
        s = self.search
        s._lp_t = float(x[s.t_col])
        super().at_lp_point(x)

    def round(self, w_real: np.ndarray) -> None:
        """Round an LP point ``w`` at its ``t`` (set by :meth:`at_lp_point`).

        Parameters
        ----------
        w_real : array
            ``w = t lambda``, real.
        """
        s = self.search
        t = s._lp_t
        view = s.sclass.fixed_scale(t)
        t0 = s.clock.elapsed()
        with s._released():
            lam = sequential_rounding(view, w_real / t, should_stop=s._should_stop)
        s.heuristic_time += s.clock.elapsed() - t0
        if lam is not None:
            s._consider(view.embed(lam), polish_it=True)
