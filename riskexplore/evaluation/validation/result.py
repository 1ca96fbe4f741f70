"""The result of a validation: every figure with its interval, the tables, and notes.

:class:`Validation` is what :func:`~riskexplore.evaluation.validation.validate` returns.
Its :meth:`~Validation.to_dict` is the JSON document a report or the command line reads
(missing values as None), :meth:`~Validation.table` the headline figures as a table.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pandas as pd

from riskexplore.core.plain_numbers import plain_number
from riskexplore.evaluation.validation.estimate import Estimate, json_number

__all__ = [
    "HEADLINE",
    "HeadlineWords",
    "Validation",
    "estimate_lines",
    "headline_table",
    "records",
    "validation_html",
]

#: The headline figures, in the order of :meth:`Validation.table`, with their names.
HEADLINE = {
    "auc": "AUC (discrimination)",
    "calibration_intercept": "calibration intercept (ideal 0)",
    "calibration_slope": "calibration slope (ideal 1)",
    "observed_expected": "observed / expected events (ideal 1)",
    "brier": "Brier score",
}


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """A table's rows as JSON-ready dicts (``nan`` as None, text kept).

    Parameters
    ----------
    frame : DataFrame
        The table.

    Returns
    -------
    list of dict
        One dict per row.
    """
    return [
        {k: v if isinstance(v, str) else json_number(v) for k, v in row.items()}
        for row in frame.to_dict("records")
    ]


def headline_table(result: Any, names) -> pd.DataFrame:
    """A result's headline figures: one row each, with ``metric, estimate, lower, upper``.

    Parameters
    ----------
    result : object
        A validation result with an :class:`Estimate` attribute per name.
    names : iterable of str
        The figures, in order.

    Returns
    -------
    DataFrame
        The table (``nan`` where a figure or its interval does not exist).
    """
    columns = ("estimate", "lower", "upper")
    rows = [
        {"metric": name, **{k: getattr(getattr(result, name), k) for k in columns}}
        for name in names
    ]
    return pd.DataFrame(rows, columns=["metric", *columns])


def estimate_lines(pairs, confidence: float) -> list[tuple[str, str]]:
    """Figures in words: ``0.712 (95% interval 0.650 to 0.770)``, or ``not available``.

    Parameters
    ----------
    pairs : iterable of (str, Estimate)
        Each figure's name and value.
    confidence : float
        The level of the intervals.

    Returns
    -------
    list of tuple
        ``(name, text)`` per figure.
    """
    level = f"{plain_number(100 * confidence)}%"
    out = []
    for label, value in pairs:
        if not math.isfinite(value.estimate):
            out.append((label, "not available"))
            continue
        text = f"{value.estimate:.3f}"
        if math.isfinite(value.lower) and math.isfinite(value.upper):
            text += f" ({level} interval {value.lower:.3f} to {value.upper:.3f})"
        out.append((label, text))
    return out


class HeadlineWords:
    """What every validation result says the same way: its headline figures as a table, in
    plain lines and as a notebook shows them (a base of the result dataclasses).

    A subclass sets :attr:`HEADLINE_FIGURES` and writes its first line in
    :meth:`_first_line`; it has the fields ``confidence`` and ``notes``.
    """

    #: The headline figures (attribute name -> name in words), in order.
    HEADLINE_FIGURES: ClassVar[dict[str, str]] = {}
    confidence: float
    notes: list[str]

    def table(self) -> pd.DataFrame:
        """The headline figures: one row each, with ``metric, estimate, lower, upper``.

        Returns
        -------
        DataFrame
            The table (``nan`` where a figure or its interval does not exist).
        """
        return headline_table(self, self.HEADLINE_FIGURES)

    def _headline_dicts(self) -> dict[str, dict[str, Any]]:
        """Each headline figure's JSON-ready dict, by its attribute name."""
        return {name: getattr(self, name).to_dict() for name in self.HEADLINE_FIGURES}

    def _first_line(self) -> str:
        """The rows and events in words."""
        raise NotImplementedError

    def _lines(self) -> list[tuple[str, str]]:
        """Each headline figure in words: (name, value with its interval)."""
        pairs = [(label, getattr(self, name)) for name, label in self.HEADLINE_FIGURES.items()]
        return estimate_lines(pairs, self.confidence)

    def to_text(self) -> str:
        """A few plain lines: the rows, then each headline figure, then the notes.

        Returns
        -------
        str
            The text.
        """
        lines = [self._first_line()]
        lines += [f"{label}: {text}" for label, text in self._lines()]
        lines += [f"note: {note}" for note in self.notes]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def _repr_html_(self) -> str:
        return validation_html(self._first_line(), self._lines(), self.notes)


@dataclass(frozen=True)
class Validation(HeadlineWords):
    """A model's figures on other rows (external validation; TRIPOD+AI items 12 and 23).

    Attributes
    ----------
    kind : str
        The model's family, in words (``"risk score"``, ``"checklist"``).
    n, events : int
        Rows, and rows with the outcome.
    confidence : float
        The level of every interval.
    auc : Estimate
        The AUC of the card's score with DeLong's interval.
    calibration_intercept, calibration_slope, observed_expected : Estimate
        Calibration (see :mod:`riskexplore.evaluation.validation.calibration`).
    brier : Estimate
        The Brier score (no interval).
    reliability : DataFrame
        The calibration plot's table (``score, n, predicted, observed, lower, upper``).
    score_table : DataFrame
        One row per card score (see :mod:`riskexplore.evaluation.validation.score_table`).
    net_benefit : DataFrame
        The decision curve (``threshold, model, treat_all, treat_none``).
    notes : list of str
        What could not be computed, and why.
    score_noun : str
        What the card's score is called (``"total score"``, ``"items checked"``).
    """

    kind: str
    n: int
    events: int
    confidence: float
    auc: Estimate
    calibration_intercept: Estimate
    calibration_slope: Estimate
    observed_expected: Estimate
    brier: Estimate
    reliability: pd.DataFrame
    score_table: pd.DataFrame
    net_benefit: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    score_noun: str = "score"

    HEADLINE_FIGURES: ClassVar[dict[str, str]] = HEADLINE

    @property
    def outcome_rate(self) -> float:
        """Events over rows."""
        return self.events / self.n if self.n else math.nan

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready document of the validation (missing values as None).

        Returns
        -------
        dict
            ``kind, n, events, outcome_rate, confidence``, the headline figures (each
            ``{"estimate", "lower", "upper"}``, the AUC with ``"method"``), and the lists
            ``reliability``, ``score_table``, ``net_benefit`` and ``notes``.
        """
        out: dict[str, Any] = {
            "kind": self.kind,
            "n": int(self.n),
            "events": int(self.events),
            "outcome_rate": json_number(self.outcome_rate),
            "confidence": float(self.confidence),
        }
        out.update(self._headline_dicts())
        out["reliability"] = records(self.reliability)
        out["score_table"] = records(self.score_table)
        out["net_benefit"] = records(self.net_benefit)
        out["notes"] = list(self.notes)
        return out

    def _first_line(self) -> str:
        return (
            f"Validation of a {self.kind} on {self.n} patients, {self.events} with the outcome "
            f"({100 * self.outcome_rate:.1f}%)"
        )


def validation_html(head: str, lines: list[tuple[str, str]], notes: list[str]) -> str:
    """A validation as a notebook shows it: its first line, a table of the figures, notes.

    Parameters
    ----------
    head : str
        The first line (rows, events).
    lines : list of (str, str)
        Each figure's name and its value in words.
    notes : list of str
        The notes.

    Returns
    -------
    str
        The HTML (escaped).
    """
    esc = html.escape
    rows = "".join(
        f"<tr><td style='padding:2px 8px'>{esc(label)}</td>"
        f"<td style='padding:2px 8px'>{esc(text)}</td></tr>"
        for label, text in lines
    )
    items = "".join(f"<li>{esc(note)}</li>" for note in notes)
    return (
        f"<div class='rx-validation'><div><b>{esc(head)}</b></div><table>{rows}</table>"
        + (f"<ul>{items}</ul>" if items else "")
        + "</div>"
    )
