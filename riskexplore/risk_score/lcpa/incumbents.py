"""Where LCPA's models come from: the starting incumbents, the work at the root, and
the rounding of LP points during the search.

:class:`Incumbents` is a collaborator of the search (:mod:`riskexplore.risk_score.lcpa.search`):

* :meth:`~Incumbents.start`: the warm start, the model with no feature, the model of the
  feasibility check and the cut pool's models that meet the constraints;
* :meth:`~Incumbents.initialize`: a beam search over supports whose fits are rounded and
  polished, then (Appendix E of the RiskSLIM paper) cutting planes on the root's LP
  relaxation (loss cuts, a higher root bound) whose last points are rounded;
* :meth:`~Incumbents.at_lp_point`: sequential rounding of a fractional LP point, when the
  lower bound has risen since the last one and the heuristics have not had their share of
  the time.

Every model found is offered to the search (``_consider``: its loss cut, polishing, and
the incumbent if it is better). The learned scale's variant is
:class:`riskexplore.risk_score.scaled.incumbents.ScaledIncumbents`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from riskexplore.errors import InputError
from riskexplore.risk_score.lcpa.heuristics import sequential_rounding
from riskexplore.risk_score.support.screen import beam_supports

__all__ = ["Incumbents"]


class Incumbents:
    """The heuristics of one search, which offer it the models they find.

    Parameters
    ----------
    search : _LCPA
        The search they serve.
    """

    def __init__(self, search: Any) -> None:
        self.search = search
        self.last_rounding_lb = -math.inf

    def start(self) -> None:
        """Offer the starting models: the warm start (checked), the model with no feature,
        the feasibility check's model and the cut pool's models.

        Raises
        ------
        InputError
            For a warm start of the wrong length or one that breaks a constraint.
        """
        s = self.search
        p = s.problem
        if s.warm_start is not None:
            lam = np.rint(np.asarray(s.warm_start, dtype=float)).astype(np.int64)
            if lam.shape != (s.d + 1,):
                raise InputError(
                    f"warm start must have {s.d + 1} entries "
                    f"(intercept then one per feature), got {lam.shape}"
                )
            bad = p.violations(lam)
            if bad:
                raise InputError("warm start breaks: " + "; ".join(bad[:3]))
            s._consider(lam, polish_it=False)
        zero = np.zeros(s.d + 1, dtype=np.int64)
        lo, hi = p.lam_bounds()
        zero[0] = int(np.clip(0, lo[0], hi[0]))
        if not p.violations(zero):
            s._consider(zero, polish_it=True, only_nonzero=True)
        start = getattr(s, "_feasible_start", None)
        if start is not None and not p.violations(start):
            s._consider(np.asarray(start, dtype=np.int64), polish_it=True)
        if s.pool is not None:
            for lam in s.pool.models():
                if lam.shape == (s.d + 1,) and not p.violations(lam):
                    s._consider(lam, polish_it=False)

    def initialize(self, lo: np.ndarray, hi: np.ndarray) -> None:
        """The beam search, then cutting planes on the root's LP relaxation and the
        rounding of their last points.

        Parameters
        ----------
        lo, hi : array
            The root's column bounds.
        """
        s = self.search
        p = s.problem
        if s.settings.beam_width > 0 and s.d > 0 and p.loss.support_kernel is not None:
            self.beam(lo, hi)
        budget = s.settings.init_time_fraction * min(s.limits.time_limit, 3600.0)
        points = []
        for _ in range(s.settings.init_max_iterations):
            if s._should_stop() or s.clock.elapsed() > budget:
                break
            sol = s._solve_lp()
            if sol.status != "optimal":
                break  # infeasible relaxation: the search will show it
            s.root_bound = max(s.root_bound, s._safe(sol.objective))
            lam = sol.x[: s.d + 1]
            loss, grad = s._loss_grad(lam)
            s._add_cut(loss, grad, lam)
            points.append(lam.copy())
            relaxed_obj = loss + float(p.c0 @ sol.x[s.d + 1 :])
            s._update_bounds()
            s.report.emit_if_due()
            if relaxed_obj - sol.objective <= 1e-6 * max(1.0, abs(relaxed_obj)):
                break
        # round the last relaxation points (the best ones); on large data each rounding is
        # costly, so stop once twice the initialization budget is spent
        for lam in points[::-1][: s.settings.init_roundings]:
            if s._should_stop() or s.clock.elapsed() > 2 * budget:
                break
            self.round(lam)

    def beam(self, lo: np.ndarray, hi: np.ndarray) -> None:
        """Round and polish the continuous fits of the best supports of a beam search: on
        many features a good first model long before the LP's points give one.

        Parameters
        ----------
        lo, hi : array
            The root's column bounds.
        """
        s = self.search
        d = s.d
        forced = np.flatnonzero(lo[d + 1 :] > 0)
        k_max = s._size_range(lo, hi)[1]
        if forced.size > k_max:  # more features forced in than any model may have
            return
        t0 = s.clock.elapsed()
        w_lo, w_hi = s._fixing_box(lo, hi)
        found = beam_supports(
            s._support_data(),
            allowed=np.flatnonzero(hi[d + 1 :] > 0),
            forced=forced,
            k_max=k_max,
            width=s.settings.beam_width,
            w_lower=w_lo,
            w_upper=w_hi,
            c0=s.problem.c0,
        )
        s.heuristic_time += s.clock.elapsed() - t0
        for i in np.argsort(found.fits, kind="stable")[: s.settings.beam_roundings]:
            if s._should_stop():
                return
            lam_real = np.zeros(d + 1)
            theta = found.thetas[i, : found.sizes[i] + 1]
            lam_real[0] = theta[0]
            lam_real[found.support(i) + 1] = theta[1:]
            t0 = s.clock.elapsed()
            lam = sequential_rounding(s.problem, lam_real, should_stop=s._should_stop)
            s.heuristic_time += s.clock.elapsed() - t0
            if lam is not None:  # polished on its own features (cheap on many features)
                s._consider(lam, polish_it=True, only_nonzero=True)

    def at_lp_point(self, x: np.ndarray) -> None:
        """Round a node's fractional LP point ``x``, if the lower bound has risen since the
        last rounding and the heuristics are within their share of the time.

        Parameters
        ----------
        x : array
            The LP point.
        """
        s = self.search
        if not s.settings.sequential_rounding:
            return
        lb = s.lower_bound()
        if lb <= self.last_rounding_lb:
            return
        if s.heuristic_time > s.settings.heuristic_time_fraction * s.clock.elapsed():
            return
        self.last_rounding_lb = lb
        self.round(x[: s.d + 1].copy())

    def round(self, lam_real: np.ndarray) -> None:
        """Round a real point by sequential rounding and offer the model (polished).

        Parameters
        ----------
        lam_real : array
            ``[intercept, points...]``, real.
        """
        s = self.search
        t0 = s.clock.elapsed()
        with s._released():
            lam = sequential_rounding(s.problem, lam_real, should_stop=s._should_stop)
        s.heuristic_time += s.clock.elapsed() - t0
        if lam is not None:
            s._consider(lam, polish_it=True)
