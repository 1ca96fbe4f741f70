"""A fitted predictive checklist: an M-of-N rule over binary items, with a certificate.

The checklist predicts the outcome when at least ``M`` of its ``N`` items are checked
(the printed sheet of Figure 1 of the predictive-checklist paper). Items are binary
columns, usually built from raw data by a :class:`~riskexplore.data.binarize.Binarizer`;
a checklist that keeps its binarizer can score raw tables directly.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from riskexplore.checklist import edits as _edits
from riskexplore.checklist.count_risk import checked_count_risk, count_risks
from riskexplore.core.certificate import Certificate, read_solve_fields, solve_fields
from riskexplore.core.distance import Distance
from riskexplore.core.events import Trace
from riskexplore.core.jsonio import JsonDocument
from riskexplore.core.jsonio import decode as _decode
from riskexplore.core.jsonio import encode as _encode
from riskexplore.core.jsonio import plain as _plain
from riskexplore.core.rates import error_rates, group_rates, worst_gap
from riskexplore.core.recalibration import recalibration_note
from riskexplore.data.binarize import Binarizer
from riskexplore.errors import InfeasibleError, InputError

#: Identifies the JSON documents written by :meth:`Checklist.to_json`.
FORMAT = "riskexplore.Checklist"
FORMAT_VERSION = 1

BOX = "\u2610"  # ☐
ASCII_BOX = "[ ]"
_ASCII = {"\u2265": ">=", "\u2264": "<=", "\u2260": "!=", "\u2212": "-", "\u00d7": "x"}


class Checklist(JsonDocument):
    """A predictive checklist: predict positive when at least ``M`` of ``items`` are checked.

    Parameters
    ----------
    items : sequence of str
        The ``N`` items of the checklist, in the order they are printed.
    M : int
        Items that must be checked for a positive prediction (``0 <= M <= N + 1``;
        ``M = 0`` always predicts positive and ``M = N + 1`` never does).
    item_names : sequence of str, optional
        Every candidate item the checklist was chosen from, in training order (sets the
        columns expected from an item array). Defaults to ``items``.
    item_groups : mapping item -> source column, optional
        The raw column each item was built from (from the binarizer).
    binarizer : dict, optional
        ``Binarizer.to_dict()`` of the binarizer that made the items; lets
        :meth:`predict` score raw tables.
    outcome : str, optional
        What a positive prediction means, for the title ("Predict <outcome> if ...").
    certificate : Certificate, optional
        How close to optimal the checklist is proven to be.
    stats : dict, optional
        Training errors, rates, solve statistics and settings.
    trace : Trace, optional
        Solve progress events (not part of equality; saved only on request).
    count_risk : mapping count -> float, optional
        The risk of a patient with ``k`` items checked, for every ``k`` from 0 to ``N``:
        the (monotone) outcome rate per count on the development rows, stored by the fit
        (see :mod:`riskexplore.checklist.count_risk`) and refitted by
        :func:`~riskexplore.evaluation.validation.recalibrate`. None for a checklist
        saved before riskexplore kept it.
    """

    json_kind = "checklist"

    def __init__(
        self,
        items: Sequence[str],
        M: int,
        *,
        item_names: Sequence[str] | None = None,
        item_groups: Mapping[str, str] | None = None,
        binarizer: Mapping[str, Any] | None = None,
        outcome: str | None = None,
        certificate: Certificate | None = None,
        stats: Mapping[str, Any] | None = None,
        trace: Trace | None = None,
        count_risk: Mapping[int, float] | None = None,
    ) -> None:
        if isinstance(items, str):
            raise InputError("items must be a list of item names, not a single string")
        self.items = [str(i) for i in items]
        if len(set(self.items)) != len(self.items):
            raise InputError("checklist items must be unique")
        self.M = _as_count(M, "M")
        if self.M > len(self.items) + 1:
            raise InputError(
                f"M = {self.M} exceeds the number of items + 1 ({len(self.items)} + 1)"
            )
        names = self.items if item_names is None else [str(n) for n in item_names]
        if len(set(names)) != len(names):
            raise InputError("item names must be unique")
        unknown = [i for i in self.items if i not in names]
        if unknown:
            raise InputError(f"checklist items not among the item names: {', '.join(unknown)}")
        self.item_names = list(names)
        self.item_groups = (
            None if item_groups is None else {str(k): str(v) for k, v in item_groups.items()}
        )
        self.binarizer = None if binarizer is None else _plain(dict(binarizer))
        self.outcome = None if outcome is None else str(outcome)
        self.certificate = certificate
        self.stats = _plain(dict(stats or {}))
        self.trace = trace
        self.count_risk = checked_count_risk(count_risk, len(self.items))
        self._binarizer_obj = None

    # --- construction from a solve ---------------------------------------------------
    @classmethod
    def from_result(
        cls,
        problem,
        result,
        binarizer: Binarizer | Mapping[str, Any] | None = None,
        outcome_name: str | None = None,
        settings: Mapping[str, Any] | None = None,
    ) -> Checklist:
        """The checklist, certificate and statistics of ``result``, a solve of ``problem``.

        ``problem`` is a :class:`~riskexplore.checklist.problem.ChecklistProblem`
        and ``result`` its :class:`~riskexplore.core.result.SolveResult`.
        Raises :class:`InfeasibleError` if the solve found no feasible checklist.
        """
        items, M = result.solution if result.solution is not None else (None, None)
        upper = float(getattr(result, "upper_bound", math.inf))
        if items is None or M is None or not math.isfinite(upper):
            raise InfeasibleError(
                "no checklist satisfies the size limits and constraints "
                f"(status {getattr(result, 'status', 'unknown')})"
            )
        data = problem_data(problem)
        names = data["item_names"]
        chosen = _item_list(items, names)
        mask = np.zeros(len(names), dtype=bool)
        mask[[names.index(i) for i in chosen]] = True
        counts = data["X"][:, mask].sum(axis=1) if len(chosen) else np.zeros(len(data["y"]))
        y_pred = (counts >= int(M)).astype(int)
        stats: dict[str, Any] = {
            "objective": upper,
            "N": len(chosen),
            "M": int(M),
            "n_samples": int(len(data["y"])),
            "n_items": len(names),
        }
        train = rates(data["y"], y_pred, sample_weight=data["sample_weight"], groups=data["groups"])
        stats["train_errors"] = train.pop("errors")
        stats["train_error"] = train.pop("error")
        stats.update(train)
        solver_stats = dict(getattr(result, "stats", None) or {})
        for key in ("nodes", "time"):
            value = getattr(result, key, None)
            if value is None:
                value = solver_stats.get(key)
            if value is not None:
                stats[key] = int(value) if key == "nodes" else float(value)
        if settings:
            stats["settings"] = dict(settings)
        solver_stats = {k: v for k, v in solver_stats.items() if k not in ("nodes", "time")}
        if solver_stats:
            stats["solver"] = _plain(solver_stats)
        status = str(getattr(result, "status", "unknown"))
        lower = float(getattr(result, "lower_bound", -math.inf))
        certificate = Certificate.from_bounds(status, upper, lower)
        trace = getattr(result, "trace", None)
        trace = trace if trace is not None and len(trace) else None
        bin_dict = None
        if binarizer is not None:
            bin_dict = binarizer if isinstance(binarizer, Mapping) else binarizer.to_dict()
        model = cls(
            chosen,
            int(M),
            item_names=names,
            item_groups=data["item_groups"],
            binarizer=bin_dict,
            outcome=outcome_name,
            certificate=certificate,
            stats=stats,
            trace=trace,
            count_risk=count_risks(counts, data["y"], len(chosen), data["sample_weight"]),
        )
        model._problem = problem  # for hand edits (never serialised)
        return model

    # --- the model -------------------------------------------------------------------
    @property
    def N(self) -> int:
        """Number of items on the checklist."""
        return len(self.items)

    @property
    def size(self) -> int:
        """The number of items (``N``)."""
        return self.N

    @property
    def objective(self) -> float | None:
        """The objective of the solve that found the checklist (None when not known)."""
        return self.stats.get("objective")

    @property
    def items_mask(self) -> np.ndarray:
        """Boolean vector over :attr:`item_names`: True for the checklist's items."""
        chosen = set(self.items)
        return np.array([n in chosen for n in self.item_names], dtype=bool)

    # --- prediction ------------------------------------------------------------------
    def item_matrix(self, X) -> np.ndarray:
        """The 0/1 values of the checklist's items for each row of ``X``, shape ``(n, N)``.

        ``X`` may be a raw DataFrame (binarized with the stored binarizer whenever it has
        every raw column, so a binary column keeps the binarizer's handling of missing
        values), a DataFrame of items (columns named like the items), or an array whose
        columns are all item names in training order, or just the checklist's items in
        order.
        """
        if isinstance(X, pd.DataFrame):
            columns = {str(c): c for c in X.columns}
            missing = [i for i in self.items if i not in columns]
            raw = self.binarizer is not None and all(c in columns for c in self._raw_columns())
            if (missing or raw) and self.binarizer is not None:
                X = self._binarize(X)
                columns = {str(c): c for c in X.columns}
                missing = [i for i in self.items if i not in columns]
            if missing:
                hint = "" if self.binarizer is not None else " (and no binarizer is stored)"
                raise InputError(
                    f"X lacks the checklist's item column(s): {', '.join(missing)}{hint}"
                )
            out = np.zeros((len(X), self.N))
            for j, item in enumerate(self.items):
                out[:, j] = _binary_column(X[columns[item]], item)
            return out
        A = np.asarray(X)
        if A.ndim == 1:
            A = A.reshape(1, -1)
        if A.ndim != 2:
            raise InputError(f"X must be 2-dimensional, got shape {A.shape}")
        if A.shape[1] == len(self.item_names):
            idx = [self.item_names.index(i) for i in self.items]
        elif A.shape[1] == self.N:
            idx = list(range(self.N))
        elif self.binarizer is not None and A.shape[1] == len(self._raw_columns()):
            return self.item_matrix(pd.DataFrame(A, columns=self._raw_columns()))
        else:
            raise InputError(
                f"X must have {len(self.item_names)} columns (one per item) or {self.N} "
                f"(the checklist's items), got {A.shape[1]}"
            )
        return (
            np.column_stack(
                [_binary_column(pd.Series(A[:, j]), self.items[k]) for k, j in enumerate(idx)]
            )
            if idx
            else np.zeros((A.shape[0], 0))
        )

    def count_checked(self, X) -> np.ndarray:
        """Number of the checklist's items checked in each row."""
        return self.item_matrix(X).sum(axis=1).astype(np.int64)

    def decision_function(self, X) -> np.ndarray:
        """``count_checked - M + 0.5``: positive exactly when the checklist predicts 1."""
        return self.count_checked(X) - self.M + 0.5

    def predict(self, X) -> np.ndarray:
        """1 where at least ``M`` items are checked, else 0."""
        return (self.count_checked(X) >= self.M).astype(int)

    def metrics(self, X, y, groups=None, sample_weight=None) -> dict[str, Any]:
        """Error, FNR and FPR of the checklist on ``(X, y)``; per group when given.

        Returns ``errors`` (count), ``error``, ``fp``, ``fn``, ``fnr``, ``fpr``, ``n``,
        ``n_pos``, ``n_neg`` and, with ``groups``, ``groups`` (rates per group),
        ``worst_group_fnr``, ``worst_group_fpr``, ``max_fnr_gap`` and ``max_fpr_gap``.
        Rates with an empty denominator are ``nan`` (as in
        :func:`~riskexplore.evaluation.metrics.classification_rates`).
        """
        y = _binary_outcome(y)
        pred = self.predict(X)
        if len(pred) != len(y):
            raise InputError(f"X has {len(pred)} rows but y has {len(y)}")
        return rates(y, pred, sample_weight=sample_weight, groups=groups)

    def score(self, X, y) -> float:
        """Accuracy on ``(X, y)``."""
        return 1.0 - float(self.metrics(X, y)["error"])

    def _raw_columns(self) -> list[str]:
        b = self._get_binarizer()
        for attr in ("feature_names_in_", "columns_", "feature_names"):
            names = getattr(b, attr, None)
            if names is not None:
                return [str(n) for n in names]
        names = (self.binarizer or {}).get("feature_names_in") or (self.binarizer or {}).get(
            "columns"
        )
        if names is None:
            raise InputError("the stored binarizer does not record its input columns")
        return [str(n) for n in names]

    def _get_binarizer(self):
        if self._binarizer_obj is None:
            self._binarizer_obj = Binarizer.from_dict(self.binarizer)
        return self._binarizer_obj

    def _binarize(self, X: pd.DataFrame) -> pd.DataFrame:
        return self._get_binarizer().transform(X)

    # --- rendering -------------------------------------------------------------------
    def title(self, ascii: bool = False) -> str:
        """``Predict <outcome> if <M>+ items are checked``."""
        outcome = self.outcome or "positive outcome"
        text = f"Predict {outcome} if {self.M}+ items are checked"
        return _to_ascii(text) if ascii else text

    def certificate_line(self) -> str:
        """One line about the certificate (``certified optimal (gap 0.0%)``) and, for a
        recalibrated checklist, the rows of its recalibration."""
        if self.certificate is None:
            return "no optimality certificate" + recalibration_note(self.stats)
        return self.certificate.describe(self.stats.get("time")) + recalibration_note(self.stats)

    def to_text(self, ascii: bool = False) -> str:
        """A printable checklist: the title, one ``☐ item`` line per item, the certificate.

        With ``ascii=True`` boxes print as ``[ ]`` and ``≥ ≤ ≠`` as ``>= <= !=``.
        """
        box = ASCII_BOX if ascii else BOX
        lines = [self.title(ascii)]
        if not self.items:
            lines.append("(no items)")
        for item in self.items:
            lines.append(f"{box} {_to_ascii(item) if ascii else item}")
        lines.append("")
        lines.append(f"{self.M} of {self.N} items needed for a positive prediction")
        if self.stats.get("train_error") is not None:
            lines.append(_train_line(self.stats))
        lines.append(self.certificate_line())
        return "\n".join(lines)

    def summary(self) -> str:
        """One line: certificate, training error, size, nodes, time."""
        parts = [self.certificate_line()]
        if self.stats.get("train_error") is not None:
            parts.append(f"train error {100 * self.stats['train_error']:.1f}%")
        parts.append(f"M = {self.M} of N = {self.N} item{'s' if self.N != 1 else ''}")
        if "nodes" in self.stats:
            parts.append(f"{self.stats['nodes']} nodes")
        if "time" in self.stats:
            parts.append(f"{self.stats['time']:.2f} s")
        return "; ".join(parts)

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        status = self.certificate.status if self.certificate else None
        return f"Checklist(M={self.M}, items={self.items!r}, status={status!r})"

    def to_html(self) -> str:
        """A self-contained HTML checklist (inline CSS, checkboxes, no scripts)."""
        esc = html.escape
        out = [
            '<div class="rx-checklist" style="font-family:system-ui,sans-serif;'
            'display:inline-block;border:1px solid #bbb;border-radius:6px;padding:10px 14px">',
            f'<div style="font-weight:bold;margin-bottom:6px">{esc(self.title())}</div>',
            '<ul class="rx-items" style="list-style:none;margin:0;padding:0">',
        ]
        for item in self.items:
            out.append(
                '<li style="padding:3px 0;border-bottom:1px solid #eee"><label>'
                f'<input type="checkbox" aria-label="{esc(item)}"> {esc(item)}</label></li>'
            )
        out.append("</ul>")
        notes = [f"{self.M} of {self.N} items needed"]
        if self.stats.get("train_error") is not None:
            notes.append(_train_line(self.stats))
        notes.append(self.certificate_line())
        out.append(
            '<div style="margin-top:6px;color:#555;font-size:90%">'
            + "; ".join(esc(n) for n in notes)
            + "</div>"
        )
        out.append("</div>")
        return "\n".join(out)

    def _repr_html_(self) -> str:
        return self.to_html()

    # --- hand edits --------------------------------------------------------------------
    def with_items(self, *, add=(), remove=(), M: int | None = None, X=None, y=None) -> Checklist:
        """A new checklist with items added, removed or swapped (and perhaps another
        threshold), and its certified distance to the best checklist of the same settings.

        Mistakes, rates and the objective are recomputed on the training data; the
        certificate (status ``"edited"``) keeps the lower bound of the original search,
        which holds for every checklist of its settings, so :attr:`distance` bounds how
        many more weighted mistakes than the best checklist the edit makes. An edit that
        breaks a bound or constraint of the original search names it in
        ``distance.breaks``.

        Parameters
        ----------
        add, remove : iterable of str
            Items to add (printed last) and to remove; both at once swap items.
        M : int, optional
            The threshold; by default this checklist's, lowered to the number of items
            when fewer remain.
        X, y : optional
            The training data (raw columns or items). A fitted checklist keeps a
            reference to them (never serialised); one read from JSON needs them again.

        Returns
        -------
        Checklist
            The edited checklist (this one is unchanged).

        Raises
        ------
        InputError
            For an unknown item, adding an item already on the checklist, removing one
            that is not, removing every item, a bad ``M``, or no training data.
        """
        return _edits.with_items(self, add=add, remove=remove, M=M, X=X, y=y)

    def with_threshold(self, M: int, *, X=None, y=None) -> Checklist:
        """A new checklist with threshold ``M`` and its certified distance to the best one
        (see :meth:`with_items`).

        Parameters
        ----------
        M : int
            Items that must be checked for a positive prediction (0 to N + 1).
        X, y : optional
            The training data, for a checklist read from JSON.

        Returns
        -------
        Checklist
            The edited checklist.
        """
        return _edits.with_threshold(self, M, X=X, y=y)

    @property
    def distance(self) -> Distance | None:
        """The certified distance to the best checklist of the same settings, with the
        constraints an edit breaks: in weighted mistakes when the checklist knows its
        training data (fits, near-optimal alternatives, edits), else objective minus the
        proven lower bound; None without a certificate."""
        problem = self._problem
        if "distance" in self.stats or problem is None or self.certificate is None:
            return Distance.of_model(self)
        return Distance(
            float(problem.loss(self.items, self.M)),
            _edits.mistakes_lower_bound(problem, float(self.certificate.lower_bound)),
            "mistakes",
        )

    # --- serialisation ---------------------------------------------------------------
    def to_dict(self, include_trace: bool = False) -> dict[str, Any]:
        """Plain JSON-ready dict; floats are kept exactly, non-finite ones as strings."""
        data: dict[str, Any] = {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "items": list(self.items),
            "M": self.M,
            "item_names": list(self.item_names),
            "item_groups": None if self.item_groups is None else dict(self.item_groups),
            "binarizer": None if self.binarizer is None else _encode(self.binarizer),
            "outcome": self.outcome,
            **solve_fields(self.certificate, self.stats),
        }
        if self.count_risk is not None:  # absent otherwise: documents stay as before
            data["count_risk"] = {str(k): v for k, v in self.count_risk.items()}
        if include_trace and self.trace is not None:
            data["trace"] = self.trace.to_records()
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Checklist:
        """A checklist from a dict of :meth:`to_dict` (JSON round trips are exact).

        Parameters
        ----------
        data : mapping
            The document.

        Returns
        -------
        Checklist
            The checklist.

        Raises
        ------
        InputError
            If the document is not a checklist or lacks a field.
        """
        if not isinstance(data, Mapping):
            raise InputError(f"expected a checklist document (a dict), got {type(data).__name__}")
        cls.check_document(data, FORMAT)
        missing = [k for k in ("items", "M") if k not in data]
        if missing:
            raise InputError(f"checklist document lacks {', '.join(missing)}")
        records = data.get("trace")
        trace = None if records is None else Trace.from_records(records)
        certificate, stats = read_solve_fields(data)
        binarizer = data.get("binarizer")
        return cls(
            data["items"],
            data["M"],
            item_names=data.get("item_names"),
            item_groups=data.get("item_groups"),
            binarizer=None if binarizer is None else _decode(binarizer),
            outcome=data.get("outcome"),
            certificate=certificate,
            stats=stats,
            trace=trace,
            count_risk=data.get("count_risk"),
        )


# --- metrics ---------------------------------------------------------------------------
def rates(y_true, y_pred, *, sample_weight=None, groups=None) -> dict[str, Any]:
    """Mistakes and error rates of 0/1 predictions, overall and per group.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        0/1 outcome and predictions.
    sample_weight : array-like of shape (n,), optional
        Weights; mistakes are then weighted sums.
    groups : Series, array-like or DataFrame, optional
        Groups (see :func:`riskexplore.core.rates.group_labels`).

    Returns
    -------
    dict
        The rates of :func:`riskexplore.core.rates.error_rates` (``nan`` for a rate whose
        denominator is zero) and, with groups, ``groups`` (label -> rates),
        ``worst_group_fnr``, ``worst_group_fpr``, ``max_fnr_gap`` and ``max_fpr_gap``.
    """
    out = error_rates(y_true, y_pred, sample_weight)
    if groups is not None:
        per = group_rates(y_true, y_pred, groups, sample_weight)
        out["groups"] = per
        for key in ("fnr", "fpr"):
            worst, gap, _ = worst_gap(per, key)
            out[f"worst_group_{key}"] = worst
            out[f"max_{key}_gap"] = gap
    return out


# --- reading a problem -----------------------------------------------------------------
def problem_data(problem) -> dict[str, Any]:
    """Item matrix, item names, outcome, weights, item groups and groups of a problem.

    Parameters
    ----------
    problem : ChecklistProblem or object
        A problem (anything with an item matrix ``X``, ``y`` and item names).

    Returns
    -------
    dict
        ``X``, ``item_names``, ``y`` (0/1), ``sample_weight`` (None for unit weights),
        ``item_groups`` and ``groups``.
    """
    X = None
    for attr in ("X_items", "X", "items_matrix"):
        X = getattr(problem, attr, None)
        if X is not None:
            break
    if X is None:
        raise InputError("the problem does not expose its item matrix")
    names = getattr(problem, "item_names", None)
    if names is None and isinstance(X, pd.DataFrame):
        names = list(X.columns)
    X = np.asarray(X, dtype=float)
    if names is None:
        names = [f"x{j}" for j in range(X.shape[1])]
    y = np.asarray(problem.y).astype(int).ravel()
    if y.min(initial=0) < 0:  # a +-1 coded outcome
        y = (y > 0).astype(int)
    weights = getattr(problem, "sample_weight", None)
    if weights is None:
        weights = getattr(problem, "weights", None)
    if weights is not None:
        weights = np.asarray(weights, dtype=float)
        if np.all(weights == 1.0):
            weights = None
    item_groups = getattr(problem, "item_groups", None)
    if item_groups is not None and not isinstance(item_groups, Mapping):
        item_groups = dict(zip([str(n) for n in names], item_groups, strict=False))
    return {
        "X": X,
        "item_names": [str(n) for n in names],
        "y": y,
        "sample_weight": weights,
        "item_groups": None
        if item_groups is None
        else {str(k): str(v) for k, v in item_groups.items()},
        "groups": getattr(problem, "groups", None),
    }


# --- helpers ---------------------------------------------------------------------------
def _item_list(items, names: list[str]) -> list[str]:
    """Item names from names, indices, or a boolean mask over ``names``."""
    arr = np.asarray(items)
    if arr.dtype == bool:
        if arr.shape != (len(names),):
            raise InputError(f"item mask has {arr.size} entries for {len(names)} items")
        return [n for n, keep in zip(names, arr.tolist(), strict=True) if keep]
    values = arr.tolist()
    if all(isinstance(i, str) for i in values):
        unknown = [i for i in values if i not in names]
        if unknown:
            raise InputError(f"result uses unknown items: {', '.join(unknown)}")
        return values
    out = []
    for i in values:
        k = int(i)
        if not 0 <= k < len(names):
            raise InputError(f"item index {k} out of range for {len(names)} items")
        out.append(names[k])
    return out


def _as_count(value, what: str) -> int:
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be a non-negative integer, got {value!r}") from None
    if not math.isfinite(f) or f != round(f) or f < 0:
        raise InputError(f"{what} must be a non-negative integer, got {value!r}")
    return int(round(f))


def _binary_column(col: pd.Series, name: str) -> np.ndarray:
    if col.dtype == bool:
        return col.to_numpy(dtype=float)
    try:
        values = pd.to_numeric(col, errors="raise").to_numpy(dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"item column {name!r} must be 0/1") from None
    if not np.all(np.isin(values, (0.0, 1.0))):
        bad = values[~np.isin(values, (0.0, 1.0))][0]
        raise InputError(f"item column {name!r} must be 0/1, found {bad!r}")
    return values


def _binary_outcome(y) -> np.ndarray:
    arr = np.asarray(y).ravel()
    try:
        values = arr.astype(float)
    except (TypeError, ValueError):
        raise InputError("y must be a 0/1 outcome") from None
    if not np.all(np.isin(values, (0.0, 1.0))):
        raise InputError("y must be a 0/1 outcome")
    return values.astype(int)


def _to_ascii(text: str) -> str:
    for k, v in _ASCII.items():
        text = text.replace(k, v)
    return text.encode("ascii", "replace").decode("ascii")


def _train_line(stats: Mapping[str, Any]) -> str:
    parts = [f"train error {100 * stats['train_error']:.1f}%"]
    for key in ("fnr", "fpr"):
        value = stats.get(key)
        if value is not None and math.isfinite(value):
            parts.append(f"{key.upper()} {100 * value:.1f}%")
    return ", ".join(parts)
