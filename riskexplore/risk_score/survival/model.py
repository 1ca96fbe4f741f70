"""A fitted survival score: points per item, no intercept, the Breslow baseline, a certificate.

Add the points of the items that apply to get the total score ``s``; the risk of the event
by a horizon ``h`` is ``1 - exp(-H0(h) exp(s))`` with Breslow's baseline cumulative hazard
``H0`` of the training rows (:mod:`riskexplore.risk_score.survival.baseline`). It lies in
[0, 1] and rises with the score. The score -> risk table reads like a card: "total 4: 23%
at 1 year, 41% at 5 years".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from riskexplore.core.certificate import Certificate, read_solve_fields, solve_fields
from riskexplore.core.distance import Distance
from riskexplore.core.jsonio import JsonDocument
from riskexplore.core.jsonio import plain as _plain
from riskexplore.core.plain_numbers import plain_number
from riskexplore.data.binarize import Binarizer
from riskexplore.errors import InputError
from riskexplore.risk_score.model import feature_matrix
from riskexplore.risk_score.survival import edits as _edits
from riskexplore.risk_score.survival.baseline import BreslowBaseline
from riskexplore.risk_score.survival.card_html import survival_card_html

__all__ = ["SurvivalScore", "check_horizons"]

#: Identifies the JSON documents of :meth:`SurvivalScore.to_dict`.
FORMAT = "riskexplore.SurvivalScore"
FORMAT_VERSION = 1


def check_horizons(horizon) -> tuple[float, ...]:
    """Horizons as a tuple of finite times ``> 0``.

    Parameters
    ----------
    horizon : float, sequence of float or None
        One horizon, several, or None (none).

    Returns
    -------
    tuple of float
        The horizons (empty for None).

    Raises
    ------
    InputError
        For a horizon that is not a finite time ``> 0``.
    """
    if horizon is None:
        return ()
    values = np.atleast_1d(np.asarray(horizon, dtype=float))
    if values.ndim != 1 or not np.isfinite(values).all() or (values <= 0).any():
        raise InputError(
            f"a horizon must be a finite time > 0 (or a list of them), got {horizon!r}"
        )
    return tuple(float(v) for v in values)


class SurvivalScore(JsonDocument):
    """A survival score model.

    Parameters
    ----------
    feature_names : sequence of str
        Every item the model was fitted on, in order.
    points : mapping name -> int, or sequence of int
        Points of each item (missing ones 0).
    baseline : BreslowBaseline or None
        Breslow's baseline cumulative hazard of the training rows' total points; None for
        a solver's incumbent shown live (points only: it predicts no risk).
    horizons : float or sequence of float, optional
        The horizons of :meth:`predict_risk` (the first is the default) and of
        :meth:`risk_table`.
    certificate : Certificate, optional
        How close to optimal the points are proven to be.
    stats : dict, optional
        Solve statistics and settings (``loss``, ``objective``, ``nodes``, ...).
    observed_score_range : (int, int), optional
        Smallest and largest total points in the training data (the risk table's rows).
    binarizer : Binarizer or dict, optional
        The binarizer of a model fitted on a raw table (predictions then read raw rows).
    """

    json_kind = "survival score"

    #: What ``stats["loss"]`` is, in words (cards name it).
    loss_name = "Cox loss (partial likelihood)"

    def __init__(
        self,
        feature_names: Sequence[str],
        points: Mapping[str, int] | Sequence[int],
        baseline: BreslowBaseline | None,
        horizons=None,
        certificate: Certificate | None = None,
        stats: Mapping[str, Any] | None = None,
        observed_score_range: Sequence[float] | None = None,
        binarizer: Binarizer | Mapping[str, Any] | None = None,
    ) -> None:
        self.feature_names = [str(n) for n in feature_names]
        if isinstance(points, Mapping):
            unknown = [str(k) for k in points if str(k) not in self.feature_names]
            if unknown:
                raise InputError(f"points given for unknown items: {', '.join(unknown)}")
            values = [points.get(n, 0) for n in self.feature_names]
        else:
            values = list(points)
        if len(values) != len(self.feature_names):
            raise InputError(f"got {len(values)} points for {len(self.feature_names)} items")
        self._points = {n: int(v) for n, v in zip(self.feature_names, values, strict=True)}
        self.baseline = baseline
        self.horizons = check_horizons(horizons)
        self.certificate = certificate
        self.stats = _plain(dict(stats or {}))
        self.observed_score_range = (
            None if observed_score_range is None else tuple(int(v) for v in observed_score_range)
        )
        if isinstance(binarizer, Mapping):
            binarizer = Binarizer.from_dict(dict(binarizer))
        self.binarizer = binarizer

    # --- the model -----------------------------------------------------------------------
    @property
    def points(self) -> dict[str, int]:
        """Non-zero points by item name, in item order."""
        return {n: v for n, v in self._points.items() if v != 0}

    @property
    def all_points(self) -> dict[str, int]:
        """Points of every item, zeros included (what a points editor lists)."""
        return dict(self._points)

    @property
    def size(self) -> int:
        """Number of items with non-zero points."""
        return len(self.points)

    @property
    def distance(self) -> Distance | None:
        """The certified distance to the best model of the same settings (objective minus
        the proven lower bound), with the constraints an edit breaks; None without a
        certificate."""
        return Distance.of_model(self)

    def with_points(self, points: Mapping[str, int], *, X=None, y=None) -> SurvivalScore:
        """A new model with other points for some items, and its certified distance to
        the best model of the same settings (see
        :func:`~riskexplore.risk_score.survival.edits.with_points`): the Cox loss,
        objective and baseline hazard are recomputed on the training rows.

        Parameters
        ----------
        points : mapping item -> int
            New points; 0 leaves an item out. Other items keep theirs.
        X, y : optional
            The training rows and their survival outcome (a model read from JSON).

        Returns
        -------
        SurvivalScore
            The edited model (this one is unchanged).
        """
        return _edits.with_points(self, points, X=X, y=y)

    @property
    def time_unit(self) -> str | None:
        """The unit of the times in words (``"days"``), when the fit was told it."""
        return self.stats.get("time_unit")

    def horizon_words(self, horizon: float) -> str:
        """A horizon with its unit: ``"365 days"`` (``"365"`` without a unit).

        Parameters
        ----------
        horizon : float
            The time.

        Returns
        -------
        str
            The words.
        """
        value = plain_number(float(horizon), 6)
        return f"{value} {self.time_unit}" if self.time_unit else value

    @property
    def loss(self) -> float | None:
        """The mean Breslow negative partial log-likelihood on the training rows."""
        return self.stats.get("loss")

    @property
    def objective(self) -> float | None:
        """The loss plus ``c0`` per item used (what the certificate bounds)."""
        return self.stats.get("objective")

    def total_points(self, X) -> np.ndarray:
        """The total points of each row.

        Parameters
        ----------
        X : DataFrame or array (n, d)
            Items (a DataFrame's columns matched by name) or, with a :attr:`binarizer`,
            the raw table.

        Returns
        -------
        ndarray (n,)
            The scores.
        """
        M = feature_matrix(X, self.feature_names, self.points, self.binarizer)
        return M @ np.array([self._points[n] for n in self.feature_names], dtype=float)

    def _horizon(self, horizon) -> float | tuple[float, ...]:
        if horizon is not None:
            return check_horizons(horizon) if np.ndim(horizon) else check_horizons(horizon)[0]
        if not self.horizons:
            raise InputError("give a horizon (the model was fitted without one), e.g. horizon=365")
        return self.horizons[0]

    def risk_of_score(self, score, horizon=None) -> np.ndarray:
        """The risk of the event by ``horizon`` for total points ``score``.

        Parameters
        ----------
        score : float or array-like
            Total points.
        horizon : float or sequence of float, optional
            Default: the model's first horizon.

        Returns
        -------
        ndarray
            In [0, 1]; one column per horizon when several are given.
        """
        return self._baseline().risk(np.asarray(score, dtype=float), self._horizon(horizon))

    def _baseline(self) -> BreslowBaseline:
        if self.baseline is None:
            raise InputError(
                "this survival score has points but no baseline hazard (a solve's live "
                "incumbent), so no risk: use the model the fit returns"
            )
        return self.baseline

    def predict_risk(self, X, horizon=None) -> np.ndarray:
        """The risk of the event by ``horizon`` of each row of ``X``, in [0, 1].

        Parameters
        ----------
        X : DataFrame or array (n, d)
            As for :meth:`total_points`.
        horizon : float or sequence of float, optional
            Default: the model's first horizon.

        Returns
        -------
        ndarray
            Shape ``(n,)``, or ``(n, k)`` for ``k`` horizons.
        """
        return self.risk_of_score(self.total_points(X), horizon)

    def risk_table(self, horizons=None) -> pd.DataFrame:
        """Each total score seen in training with its risk (percent) at each horizon.

        Parameters
        ----------
        horizons : float or sequence of float, optional
            Default: the model's horizons.

        Returns
        -------
        DataFrame
            Column ``score``, then one column ``risk_percent_at_<h>`` per horizon.
        """
        hs = self.horizons if horizons is None else check_horizons(horizons)
        if not hs:
            raise InputError("give the horizons of the table, e.g. horizons=[365, 1825]")
        lo, hi = self.observed_score_range or (0, 0)
        scores = np.arange(lo, hi + 1, dtype=np.int64)
        risk = 100.0 * self._baseline().risk(scores.astype(float), np.asarray(hs))
        table = {"score": scores}
        for k, h in enumerate(hs):
            table[f"risk_percent_at_{h:g}"] = risk[:, k]
        return pd.DataFrame(table)

    def certificate_line(self) -> str:
        """One line about the certificate (``certified optimal (gap 0.0%)``).

        Returns
        -------
        str
            The line.
        """
        if self.certificate is None:
            return "no optimality certificate"
        return self.certificate.describe(self.stats.get("time"))

    def to_text(self, width: int = 12) -> str:
        """The card as plain text: the items with their points, then the risk of each total
        score at each horizon.

        Parameters
        ----------
        width : int
            Width of the table's columns.

        Returns
        -------
        str
            The card.
        """
        names = list(self.points) or ["(no item: everyone scores 0)"]
        left = max(len(n) for n in names) + 2
        lines = [f"{n:<{left}}{p:+d} points" for n, p in self.points.items()] or [names[0]]
        if self.baseline is not None and self.horizons:
            table = self.risk_table()
            heads = [f"risk by {self.horizon_words(h)}" for h in self.horizons]
            width = max(width, *(len(head) + 2 for head in heads))  # columns stay apart
            lines += ["", "TOTAL SCORE".ljust(left) + "".join(h.rjust(width) for h in heads)]
            for row in table.itertuples(index=False):
                risks = "".join(f"{r:.1f}%".rjust(width) for r in row[1:])
                lines.append(f"{int(row[0]):<{left}}{risks}")
        if self.recalibrated_line():
            lines += ["", self.recalibrated_line()]
        return "\n".join(lines)

    def to_html(self) -> str:
        """The card as self-contained HTML (see
        :func:`~riskexplore.risk_score.survival.card_html.survival_card_html`)."""
        return survival_card_html(self)

    def _repr_html_(self) -> str:
        return self.to_html()

    def summary(self) -> str:
        """The certificate, the Cox loss and the rows and events fitted, in one line.

        Returns
        -------
        str
            The summary.
        """
        parts = [self.certificate_line()]
        if self.loss is not None:
            parts.append(f"loss {self.loss:.6f}")
        if "n_samples" in self.stats:
            parts.append(f"{self.stats['n_samples']} rows, {self.stats.get('n_events')} events")
        parts.append(self.recalibrated_line())
        return "; ".join(p for p in parts if p)

    def recalibrated_line(self) -> str:
        """``"baseline hazard recalibrated on 400 patients (212 events)"``, or ""."""
        done = self.stats.get("recalibrated")
        if not done:
            return ""
        return f"baseline hazard recalibrated on {done['rows']} patients ({done['events']} events)"

    def __repr__(self) -> str:
        status = self.certificate.status if self.certificate else None
        return f"SurvivalScore(points={self.points}, horizons={self.horizons}, status={status!r})"

    # --- serialisation -------------------------------------------------------------------
    def to_dict(self, include_trace: bool = False) -> dict[str, Any]:
        """Plain JSON-ready dict (round trips are exact); ``include_trace`` is unused."""
        data: dict[str, Any] = {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "feature_names": list(self.feature_names),
            "points": dict(self._points),
            "baseline": None
            if self.baseline is None
            else {
                "times": [float(v) for v in self.baseline.times],
                "log_cumulative_hazard": [float(v) for v in self.baseline.log_cumulative_hazard],
            },
            "horizons": list(self.horizons),
            **solve_fields(self.certificate, self.stats),
            "observed_score_range": None
            if self.observed_score_range is None
            else list(self.observed_score_range),
        }
        if self.binarizer is not None:
            data["binarizer"] = self.binarizer.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SurvivalScore:
        """A survival score from a dict of :meth:`to_dict`.

        Parameters
        ----------
        data : mapping
            The document.

        Returns
        -------
        SurvivalScore
            The model.

        Raises
        ------
        InputError
            If the document is not a survival score or is newer than this version reads.
        """
        cls.check_document(data, FORMAT, FORMAT_VERSION, required=True)
        base = data["baseline"]
        baseline = None
        if base is not None:
            baseline = BreslowBaseline(
                np.asarray(base["times"], dtype=float),
                np.asarray(base["log_cumulative_hazard"], dtype=float),
            )
        return cls(
            data["feature_names"],
            data["points"],
            baseline,
            data.get("horizons") or None,
            *read_solve_fields(data),
            data.get("observed_score_range"),
            data.get("binarizer"),
        )
