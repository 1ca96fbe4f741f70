"""A fitted risk score: points per feature, an intercept, a certificate and statistics.

The card reads like the CHADS2 score of Figure 1 in Ustun & Rudin [1]_: add the points of
the features that apply to get a ``SCORE``, then read the predicted risk off the
``SCORE``/``RISK`` table. The intercept is not a row of the card: it is folded into the
risk of every score, so ``risk(score) = 1 / (1 + exp(-(intercept + score) / m))``, where
the multiplier ``m`` is 1 for the fixed scale (the logistic link of [1]_, Section 2) and
learned with the points for the learned scale
(:mod:`riskexplore.risk_score.scaled.model_class`).

References
----------
.. [1] B. Ustun and C. Rudin, "Learning Optimized Risk Scores", Journal of Machine
   Learning Research 20(150):1-75, 2019.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from riskexplore.core.certificate import Certificate, read_solve_fields, solve_fields
from riskexplore.core.distance import Distance
from riskexplore.core.events import Trace
from riskexplore.core.jsonio import JsonDocument
from riskexplore.core.jsonio import plain as _plain
from riskexplore.core.recalibration import recalibration_note
from riskexplore.data.binarize import Binarizer
from riskexplore.errors import InfeasibleError, InputError
from riskexplore.risk_score import edits as _edits
from riskexplore.risk_score.bands import band_rows
from riskexplore.risk_score.card_rows import CardRow, card_rows, points_table_html
from riskexplore.risk_score.raw_table import item_frame, missing_features, reads_raw

if TYPE_CHECKING:  # pragma: no cover
    from riskexplore.core.result import SolveResult
    from riskexplore.risk_score.problem import RiskScoreProblem

#: Identifies the JSON documents written by :meth:`RiskScore.to_json`.
FORMAT = "riskexplore.RiskScore"
#: Version 2 added ``"multiplier"`` (a version-1 document has ``m = 1``); version 3 a real
#: intercept (a recalibrated model). A model with a whole intercept is written as version 2,
#: which older riskexplore reads.
FORMAT_VERSION = 3

#: Longest score table built from the attainable range before falling back to the
#: range of scores observed in the training data.
MAX_TABLE_ROWS = 61
#: Scores per block of the SCORE/RISK table of the HTML card (a wide range wraps into blocks).
HTML_SCORES_PER_ROW = 7


def _sigmoid(s) -> np.ndarray:
    """Numerically stable logistic function."""
    s = np.asarray(s, dtype=float)
    e = np.exp(-np.abs(s))
    return np.where(s >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


class PointsScore(JsonDocument):
    """What every score of integer points per feature (item) offers: its points, size,
    loss, objective and certified distance (risk scores, survival scores).

    A subclass sets ``_points`` (every feature's points, in order) and ``stats`` (the
    solve's statistics and settings).
    """

    _points: dict[str, int]
    stats: dict[str, Any]

    @property
    def points(self) -> dict[str, int]:
        """Non-zero points by feature name, in feature order."""
        return {n: v for n, v in self._points.items() if v != 0}

    @property
    def all_points(self) -> dict[str, int]:
        """Points of every feature, zeros included (what a points editor lists)."""
        return dict(self._points)

    @property
    def size(self) -> int:
        """Number of features with non-zero points."""
        return len(self.points)

    @property
    def loss(self) -> float | None:
        """The training loss of the solve that found the model (a risk score's logistic
        loss, a survival score's Cox loss; None when not known)."""
        return self.stats.get("loss")

    @property
    def objective(self) -> float | None:
        """The objective (loss plus penalties) of the solve that found the model."""
        return self.stats.get("objective")

    @property
    def distance(self) -> Distance | None:
        """The certified distance to the best model of the same settings (objective
        minus the proven lower bound), with the constraints an edit breaks; None without a
        certificate."""
        return Distance.of_model(self)


class RiskScore(PointsScore):
    """A risk score model.

    Parameters
    ----------
    feature_names : sequence of str
        Every feature the model was fitted on, in order.
    points : mapping name -> int, or sequence of int of length ``d``
        Points of each feature; features missing from a mapping get 0 points.
    intercept : int or float
        Added to the score before the logistic link: a whole number for a fitted model, a
        real number after :func:`~riskexplore.evaluation.validation.recalibrate` (kept as
        an ``int`` when whole).
    certificate : Certificate, optional
        How close to optimal the model is proven to be.
    stats : dict, optional
        Solve statistics and settings (nodes, cuts, time, loss, c0, bounds, ...).
    feature_info : mapping name -> {"min", "max", "integer"}, optional
        Range of each feature in the training data; sets the attainable scores.
    observed_score_range : (int or float, int or float), optional
        Smallest and largest score (sum of points) in the training data.
    trace : Trace, optional
        Solve progress events (not part of equality; saved only on request).
    multiplier : float
        The score-to-risk multiplier ``m``: risk = ``sigma((intercept + score) / m)``
        (1.0, the default, for the fixed scale).
    binarizer : Binarizer or dict, optional
        The fitted :class:`~riskexplore.data.binarize.Binarizer` (or its ``to_dict()``)
        that made the items of a model fitted on a raw table (``binarize=`` of
        :func:`~riskexplore.risk_score.fit.fit_risk_score`); the prediction methods then
        also take raw rows (see :mod:`riskexplore.risk_score.raw_table`). None otherwise.
    """

    json_kind = "risk score"

    def __init__(
        self,
        feature_names: Sequence[str],
        points: Mapping[str, int] | Sequence[int],
        intercept: int | float,
        certificate: Certificate | None = None,
        stats: Mapping[str, Any] | None = None,
        feature_info: Mapping[str, Mapping[str, Any]] | None = None,
        observed_score_range: Sequence[float] | None = None,
        trace: Trace | None = None,
        multiplier: float = 1.0,
        binarizer: Binarizer | Mapping[str, Any] | None = None,
    ) -> None:
        self.feature_names = [str(n) for n in feature_names]
        if len(set(self.feature_names)) != len(self.feature_names):
            raise InputError("feature names must be unique")
        if isinstance(points, Mapping):
            unknown = [str(k) for k in points if str(k) not in self.feature_names]
            if unknown:
                raise InputError(f"points given for unknown features: {', '.join(unknown)}")
            values = [points.get(n, 0) for n in self.feature_names]
        else:
            values = list(points)
            if len(values) != len(self.feature_names):
                raise InputError(f"got {len(values)} points for {len(self.feature_names)} features")
        self._points = {n: _as_int(v, n) for n, v in zip(self.feature_names, values, strict=True)}
        self.intercept = _as_intercept(intercept)
        self.multiplier = _as_multiplier(multiplier)
        self.certificate = certificate
        self.stats = _plain(dict(stats or {}))
        self.feature_info = (
            None
            if feature_info is None
            else {
                str(k): {
                    "min": float(v["min"]),
                    "max": float(v["max"]),
                    "integer": bool(v.get("integer", True)),
                }
                for k, v in feature_info.items()
            }
        )
        self.observed_score_range = (
            None
            if observed_score_range is None
            else tuple(_plain_number(v) for v in observed_score_range)
        )
        self.trace = trace
        if isinstance(binarizer, Mapping):
            binarizer = Binarizer.from_dict(dict(binarizer))
        self.binarizer = binarizer

    # --- construction from a solve ---------------------------------------------------
    @classmethod
    def from_result(cls, problem: RiskScoreProblem, result: SolveResult) -> RiskScore:
        """The model, certificate and statistics of ``result``, a solve of ``problem``.

        Raises :class:`InfeasibleError` if the solve found no feasible model.
        """
        if not result.has_model:
            raise InfeasibleError(
                f"no risk score satisfies the bounds and constraints (status {result.status})"
            )
        lam = np.rint(np.asarray(result.solution, dtype=float)).astype(np.int64)
        names = list(problem.feature_names)
        X = np.asarray(problem.X, dtype=float)
        info = {}
        for j, name in enumerate(names):
            col = X[:, j]
            info[name] = {
                "min": float(col.min()) if len(col) else 0.0,
                "max": float(col.max()) if len(col) else 0.0,
                "integer": bool(np.all(col == np.round(col))),
            }
        scores = X @ lam[1:].astype(float)
        observed = (scores.min(), scores.max()) if len(scores) else None
        cset = problem.coefficient_set
        c0 = np.asarray(cset.c0, dtype=float)
        lower, upper = np.asarray(cset.lower), np.asarray(cset.upper)
        if problem.scale == "fixed":
            multiplier, loss = 1.0, float(problem.loss_of(lam))
        else:
            multiplier = float((result.stats or {})["multiplier"])
            loss = float(problem.loss.value(lam.astype(float) / multiplier))
        stats: dict[str, Any] = {
            "objective": float(result.upper_bound),
            "loss": loss,
            "nodes": int(result.nodes),
            "cuts": int(result.cuts),
            "time": float(result.time),
            "size": int(np.count_nonzero(lam[1:])),
            "n_samples": int(X.shape[0]),
            "n_features": len(names),
            "c0": float(c0[0])
            if len(c0) and np.all(c0 == c0[0])
            else {n: float(v) for n, v in zip(names, c0, strict=True)},
            "coef_min": int(lower.min()) if len(lower) else 0,
            "coef_max": int(upper.max()) if len(upper) else 0,
            "coef_bounds": {
                n: [int(lo), int(hi)] for n, lo, hi in zip(names, lower, upper, strict=True)
            },
            "intercept_min": int(cset.intercept_lower),
            "intercept_max": int(cset.intercept_upper),
            "min_size": int(problem.min_size),
            "max_size": int(problem.max_size),
            "n_constraints": len(problem.rows),
            "scale": problem.scale,
        }
        if problem.scale != "fixed":
            stats["multiplier_min"], stats["multiplier_max"] = problem.multiplier_range
        if problem.rules:  # operating-point rules (they compile to no row)
            stats["operating_points"] = [rule.name for rule in problem.rules]
        solver_stats = _plain(dict(result.stats or {}))
        if solver_stats:
            stats["solver"] = solver_stats
        certificate = Certificate.from_bounds(result.status, result.upper_bound, result.lower_bound)
        trace = result.trace if result.trace is not None and len(result.trace) else None
        model = cls(
            names,
            lam[1:].tolist(),
            int(lam[0]),
            certificate,
            stats,
            info,
            observed,
            trace,
            multiplier=multiplier,
            binarizer=getattr(problem, "binarizer", None),  # the items' binarizer, if any
        )
        if getattr(problem, "bands", None):
            model.stats["bands"] = problem.bands
        model._problem = problem  # for hand edits (never serialised)
        return model

    # --- the model -------------------------------------------------------------------
    @property
    def coefficients(self) -> np.ndarray:
        """Integer vector ``[intercept, points_1..points_d]`` (a solver warm start; a
        recalibrated intercept rounded)."""
        return np.array([round(self.intercept), *self._points.values()], dtype=np.int64)

    @property
    def scale(self) -> str:
        """``"learned"`` when the model's multiplier was learned (or is not 1), else
        ``"fixed"``."""
        learned = self.stats.get("scale") == "learned" or self.multiplier != 1.0
        return "learned" if learned else "fixed"

    # --- prediction ------------------------------------------------------------------
    def total_points(self, X) -> np.ndarray:
        """The card's ``SCORE`` of each row: the sum of points, without the intercept."""
        M = feature_matrix(X, self.feature_names, self.points, self.binarizer)
        used = [j for j, n in enumerate(self.feature_names) if self._points[n]]
        pts = np.array([self._points[self.feature_names[j]] for j in used], dtype=float)
        scores = M[:, used] @ pts if used else np.zeros(M.shape[0])
        return _maybe_int(scores)

    def decision_function(self, X) -> np.ndarray:
        """The log-odds ``(intercept + points . x) / m`` of each row (with ``m = 1``,
        integers when the features are).

        Parameters
        ----------
        X : DataFrame or array (n, d)
            Features (a DataFrame's columns are matched by name); with a
            :attr:`binarizer`, also the raw table (binarized first).

        Returns
        -------
        ndarray (n,)
            The log-odds; ``predict_risk`` is their logistic function.
        """
        if self.multiplier == 1.0:
            return _maybe_int(self.total_points(X) + self.intercept)
        score = np.asarray(self.total_points(X), dtype=float) + self.intercept
        return score / self.multiplier

    def predict_risk(self, X) -> np.ndarray:
        """Predicted probability of the positive class, shape ``(n,)``."""
        return _sigmoid(np.asarray(self.decision_function(X), dtype=float))

    def predict_proba(self, X) -> np.ndarray:
        """Probabilities of ``[negative, positive]`` class, shape ``(n, 2)``, as in sklearn."""
        p = self.predict_risk(X)
        return np.column_stack([1.0 - p, p])

    def predict(self, X, threshold: float = 0.5) -> np.ndarray:
        """1 where the predicted risk is at least ``threshold``, else 0."""
        return (self.predict_risk(X) >= threshold).astype(int)

    def risk_of_score(self, score) -> np.ndarray | float:
        """Predicted risk for a card ``SCORE`` (sum of points)."""
        out = _sigmoid((np.asarray(score, dtype=float) + self.intercept) / self.multiplier)
        return float(out) if out.ndim == 0 else out

    # --- score table -----------------------------------------------------------------
    def attainable_score_range(self) -> tuple[float, float]:
        """Smallest and largest ``SCORE`` given each used feature's training range.

        Without training ranges, features are taken as binary.
        """
        lo = hi = 0.0
        for name, p in self.points.items():
            info = (self.feature_info or {}).get(name, {"min": 0.0, "max": 1.0})
            a, b = p * info["min"], p * info["max"]
            lo += min(a, b)
            hi += max(a, b)
        return lo, hi

    def _table_scores(self) -> np.ndarray:
        lo, hi = self.attainable_score_range()
        integral = all(
            (self.feature_info or {}).get(n, {"integer": True})["integer"] for n in self.points
        )
        if (not integral or hi - lo + 1 > MAX_TABLE_ROWS) and self.observed_score_range:
            lo, hi = (float(v) for v in self.observed_score_range)
        return np.arange(math.floor(lo), math.ceil(hi) + 1, dtype=np.int64)

    def score_table(self) -> pd.DataFrame:
        """Every attainable ``SCORE`` with its predicted risk in percent (Figure 1).

        Scores run from the smallest to the largest total points attainable given the
        training range of each feature (all of them, for binary features); if that range
        is very long or the features are not integer-valued, the range of scores seen
        in the training data is used.
        """
        scores = self._table_scores()
        risk = 100.0 * _sigmoid((scores.astype(float) + self.intercept) / self.multiplier)
        return pd.DataFrame({"score": scores, "risk_percent": risk})

    # --- rendering -------------------------------------------------------------------
    def card_rows(self) -> list[CardRow]:
        """The rows of the card: the features with points, the items of one source
        variable together (see :mod:`riskexplore.risk_score.card_rows`), a band column's
        thresholds as bands (:mod:`riskexplore.risk_score.bands`)."""
        rows = card_rows(self.points, self.feature_info, self.binarizer)
        return band_rows(rows, self.points, self.binarizer, self.stats.get("bands"))

    def _feature_rows(self) -> list[tuple[str, str]]:
        return [(row.name, row.points_text) for row in self.card_rows()]

    def title(self) -> str:
        """The card's heading: ``Risk score (intercept -3)``, a recalibrated (real)
        intercept with four significant digits (``-3.272``), as on the text card."""
        return f"Risk score (intercept {format_intercept(self.intercept)})"

    def certificate_line(self) -> str:
        """One line about the certificate (``certified optimal (gap 0.0%)``) and, for a
        recalibrated model, the rows of its recalibration."""
        if self.certificate is None:
            return "no optimality certificate" + recalibration_note(self.stats)
        return self.certificate.describe(self.stats.get("time")) + recalibration_note(self.stats)

    def to_text(self, width: int = 12) -> str:
        """A printable score card; ``width`` is the number of scores per table row."""
        rows = self._feature_rows()
        lines = []
        if rows:
            name_w = max(len(n) for n, _ in rows) + 4
            pts_w = max(len(p) for _, p in rows)
            for i, (name, pts) in enumerate(rows, start=1):
                label = f"{i}. {name}"
                plus = "  " if i == 1 else "+ "
                lines.append(f"{label:<{name_w + 3}} {pts:>{pts_w}}  {plus}...")
            lines.append(f"{'':<{name_w + 3}} {'SCORE':>{pts_w}}  = ...")
        else:
            lines.append("(no features: every example has SCORE 0)")
        lines.append(self._intercept_line())
        lines.append("")
        table = self.score_table()
        for start in range(0, len(table), width):
            chunk = table.iloc[start : start + width]
            cells_s = [str(int(s)) for s in chunk["score"]]
            cells_r = [_format_risk(r) for r in chunk["risk_percent"]]
            w = max(max(len(c) for c in cells_s + cells_r), 5)
            lines.append("SCORE " + " ".join(f"{c:>{w}}" for c in cells_s))
            lines.append("RISK  " + " ".join(f"{c:>{w}}" for c in cells_r))
        lines.append("")
        lines.append(self.certificate_line())
        return "\n".join(lines)

    def _intercept_line(self) -> str:
        """How the intercept (and a learned multiplier) enter the card's risks."""
        if self.scale == "fixed":
            return f"intercept {format_intercept(self.intercept)} is included in every RISK below"
        m = format_multiplier(self.multiplier)
        return (
            f"intercept {format_intercept(self.intercept)} and multiplier m = {m} are included "
            f"in every RISK below:\nRISK = 1 / (1 + exp(-({self._score_plus_intercept()}) / {m}))"
        )

    def _score_plus_intercept(self) -> str:
        sign = "-" if self.intercept < 0 else "+"
        return f"SCORE {sign} {format_intercept(abs(self.intercept))}"

    def summary(self) -> str:
        """One line: status, gap, loss, size, multiplier (learned scale), nodes, time."""
        parts = [self.certificate_line()]
        if self.loss is not None:
            parts.append(f"loss {self.loss:.6g}")
        if self.scale == "learned":
            parts.append(f"multiplier m = {format_multiplier(self.multiplier)}")
        parts.append(f"{self.size} feature{'s' if self.size != 1 else ''}")
        if "nodes" in self.stats:
            parts.append(f"{self.stats['nodes']} nodes")
        if "cuts" in self.stats:
            parts.append(f"{self.stats['cuts']} cuts")
        if "time" in self.stats:
            parts.append(f"{self.stats['time']:.2f} s")
        return "; ".join(parts)

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        pts = ", ".join(f"{n!r}: {v}" for n, v in self.points.items())
        status = self.certificate.status if self.certificate else None
        m = "" if self.multiplier == 1.0 else f", multiplier={self.multiplier!r}"
        return f"RiskScore(intercept={self.intercept}, points={{{pts}}}{m}, status={status!r})"

    def to_html(self, width: int = HTML_SCORES_PER_ROW) -> str:
        """A self-contained HTML score card (inline CSS, no scripts).

        Parameters
        ----------
        width : int
            Scores per block of the SCORE/RISK table: a wide score range is printed as
            blocks of SCORE and RISK rows, one under the other, so the card stays narrow
            enough for a page or a printed sheet.

        Returns
        -------
        str
            HTML.
        """
        esc = html.escape
        out = [
            '<div class="rx-card" style="font-family:system-ui,sans-serif;'
            'display:inline-block;border:1px solid #bbb;border-radius:6px;padding:10px 14px">',
        ]
        out.append(points_table_html(self.card_rows(), by_variable=self.binarizer is not None))
        out.append(self._risk_table_html(width))
        if self.scale == "fixed":
            folded = f"intercept {format_intercept(self.intercept)} included in RISK; "
        else:
            m = format_multiplier(self.multiplier)
            folded = (
                f'<span class="rx-multiplier">intercept {format_intercept(self.intercept)} and '
                f"multiplier m = {m} included in RISK = 1 / (1 + exp(&minus;("
                f"{self._score_plus_intercept()}) / {m}))</span>; "
            )
        out.append(
            f'<div style="margin-top:6px;color:#555;font-size:90%">'
            f"{folded}{esc(self.certificate_line())}</div>"
        )
        out.append("</div>")
        return "\n".join(out)

    def _repr_html_(self) -> str:
        return self.to_html()

    def _risk_table_html(self, width: int = HTML_SCORES_PER_ROW) -> str:
        """The SCORE/RISK table in blocks of at most ``width`` scores, of even lengths."""
        if int(width) < 1:
            raise InputError(f"width must be a positive whole number, got {width!r}")
        table = self.score_table()
        # as many blocks as needed, of even lengths (8 scores: 4 + 4, not 7 + 1)
        blocks = max(1, math.ceil(len(table) / int(width)))
        size = max(1, math.ceil(len(table) / blocks))
        cell = 'style="padding:2px 6px;border:1px solid #ddd;text-align:right"'
        gap = 'style="height:6px;border:none;padding:0"'
        rows = []
        for start in range(0, len(table), size):
            chunk = table.iloc[start : start + size]
            if start:
                rows.append(f'<tr class="rx-risk-gap"><td {gap}></td></tr>')
            rows.append(
                f"<tr><th {cell}>SCORE</th>"
                + "".join(f"<td {cell}>{int(s)}</td>" for s in chunk["score"])
                + "</tr>"
            )
            rows.append(
                f"<tr><th {cell}>RISK</th>"
                + "".join(
                    f"<td {cell}>{html.escape(_format_risk(r))}</td>" for r in chunk["risk_percent"]
                )
                + "</tr>"
            )
        return (
            '<table class="rx-risk" style="border-collapse:collapse;margin-top:10px">'
            + "".join(rows)
            + "</table>"
        )

    # --- hand edits --------------------------------------------------------------------
    def with_points(
        self, points: Mapping[str, int], *, intercept: int | None = None, X=None, y=None
    ) -> RiskScore:
        """A new model with other points for some features, and its certified distance
        to the best model of the same settings.

        The loss, objective, card and risk table are recomputed on the training data; the
        certificate (status ``"edited"``) keeps the lower bound of the original solve,
        which holds for every model of its settings, so :attr:`distance` bounds how much
        worse than the best score the edit is. An edit that breaks a bound or constraint
        of the original search names it in ``distance.breaks``.

        Parameters
        ----------
        points : mapping feature -> int
            New points, e.g. ``{"Age_geq_60": 2}``; 0 leaves a feature out. Other
            features keep their points.
        intercept : int, optional
            The intercept (folded into every risk). By default the whole number with the
            least training loss for the new points.
        X, y : optional
            The training data. A fitted model keeps a reference to them (never
            serialised); a model read from JSON needs them again.

        Returns
        -------
        RiskScore
            The edited model (this one is unchanged).

        Raises
        ------
        InputError
            For an unknown feature, points that are not whole numbers, or a model without
            training data and no ``X``, ``y``.

        Examples
        --------
        >>> edited = model.with_points({"Age_geq_60": 2})  # doctest: +SKIP
        >>> edited.distance.describe()  # doctest: +SKIP
        'at most 0.00193 (0.41%) above the best possible objective'
        """
        return _edits.with_points(self, points, intercept=intercept, X=X, y=y)

    # --- serialisation ---------------------------------------------------------------
    def to_dict(self, include_trace: bool = False) -> dict[str, Any]:
        """Plain JSON-ready dict; floats are kept exactly, non-finite ones as strings."""
        data: dict[str, Any] = {
            "format": FORMAT,
            "version": 2 if isinstance(self.intercept, int) else FORMAT_VERSION,
            "feature_names": list(self.feature_names),
            "points": dict(self._points),
            "intercept": self.intercept,
            "multiplier": self.multiplier,
            **solve_fields(self.certificate, self.stats),
            "feature_info": None
            if self.feature_info is None
            else {k: dict(v) for k, v in self.feature_info.items()},
            "observed_score_range": None
            if self.observed_score_range is None
            else list(self.observed_score_range),
        }
        if self.binarizer is not None:  # absent otherwise: documents stay as before
            data["binarizer"] = self.binarizer.to_dict()  # JSON-ready, finite values only
        if include_trace and self.trace is not None:
            data["trace"] = self.trace.to_records()
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RiskScore:
        """A risk score from a dict of :meth:`to_dict` (JSON round trips are exact).

        Parameters
        ----------
        data : mapping
            The document.

        Returns
        -------
        RiskScore
            The model.

        Raises
        ------
        InputError
            If the document is not a risk score or lacks a field.
        """
        cls.check_document(data, FORMAT, FORMAT_VERSION)
        records = data.get("trace")
        trace = None if records is None else Trace.from_records(records)
        return cls(
            data["feature_names"],
            data["points"],
            data["intercept"],
            *read_solve_fields(data),
            data.get("feature_info"),
            data.get("observed_score_range"),
            trace,
            multiplier=data.get("multiplier", 1.0),
            binarizer=data.get("binarizer"),
        )


# --- helpers ---------------------------------------------------------------------------
def feature_matrix(
    X, feature_names: Sequence[str], used: Mapping[str, int], binarizer: Binarizer | None
) -> np.ndarray:
    """The ``(n, d)`` float matrix of the model's features in the rows ``X``.

    Parameters
    ----------
    X : DataFrame or array (n, d)
        Features: a DataFrame's columns are matched by name (the columns of unused
        features may be absent) and, with a ``binarizer``, a raw table is binarized first;
        an array must have one column per feature, in order.
    feature_names : sequence of str
        The model's features.
    used : mapping name -> points
        The features the model uses (they must be present).
    binarizer : Binarizer or None
        The binarizer of a model fitted on a raw table.

    Returns
    -------
    ndarray (n, d)
        The features (0 in the columns of absent unused features).
    """
    d = len(feature_names)
    if reads_raw(binarizer, X):
        X = item_frame(binarizer, X)
    if isinstance(X, pd.DataFrame):
        columns = {str(c): c for c in X.columns}
        missing = [n for n in used if n not in columns]
        if missing:
            raise InputError(missing_features(binarizer, X, missing))
        M = np.zeros((len(X), d))
        for j, n in enumerate(feature_names):
            if n in columns:
                M[:, j] = _numeric_column(X[columns[n]], n)
        return M
    M = np.asarray(X)
    if M.ndim == 1 and M.shape[0] == d:
        M = M.reshape(1, -1)
    if M.ndim != 2 or M.shape[1] != d:
        raise InputError(f"X must have {d} columns (one per feature), got shape {M.shape}")
    try:
        M = M.astype(float)
    except (TypeError, ValueError) as exc:
        raise InputError(f"X must be numeric: {exc}") from None
    if not np.all(np.isfinite(M)):
        raise InputError("X contains missing or infinite values")
    return M


def _as_int(value, what: str) -> int:
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise InputError(f"points of {what} must be an integer, got {value!r}") from None
    if not math.isfinite(f) or f != round(f):
        raise InputError(f"points of {what} must be an integer, got {value!r}")
    return int(round(f))


def _as_intercept(value) -> int | float:
    """A finite intercept, an ``int`` when whole (a recalibrated one may be real)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise InputError(f"the intercept must be a number, got {value!r}")
    f = float(value)
    if not math.isfinite(f):
        raise InputError(f"the intercept must be a finite number, got {value!r}")
    return int(round(f)) if f == round(f) else f


def format_intercept(b: float) -> str:
    """The intercept as shown on cards: a whole number as it is, a recalibrated one with
    four significant digits (``"-3.272"``).

    Parameters
    ----------
    b : int or float
        The intercept.

    Returns
    -------
    str
        The text.
    """
    return str(b) if isinstance(b, int) else f"{b:.4g}"


def _as_multiplier(value) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise InputError(f"the multiplier must be a positive number, got {value!r}")
    m = float(value)
    if not (math.isfinite(m) and m > 0):
        raise InputError(f"the multiplier must be a positive number, got {value!r}")
    return m


def format_multiplier(m: float) -> str:
    """The multiplier as shown on cards (four significant digits: ``"3.107"``).

    Parameters
    ----------
    m : float
        The multiplier.

    Returns
    -------
    str
        The text.
    """
    return f"{m:.4g}"


def _numeric_column(col: pd.Series, name: str) -> np.ndarray:
    try:
        values = pd.to_numeric(col, errors="raise").to_numpy(dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"column {name!r} must be numeric") from None
    if not np.all(np.isfinite(values)):
        raise InputError(f"column {name!r} contains missing or infinite values")
    return values


def _maybe_int(values: np.ndarray) -> np.ndarray:
    values = np.asarray(values, dtype=float)
    if values.size and np.all(values == np.round(values)) and np.all(np.abs(values) < 2**53):
        return values.astype(np.int64)
    return values if values.size else values.astype(np.int64)


def _format_risk(percent: float) -> str:
    if percent < 0.1:
        return "<0.1%"
    if percent > 99.9:
        return ">99.9%"
    return f"{percent:.1f}%"


def _plain_number(v):
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    return float(v)
