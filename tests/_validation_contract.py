"""A validation dict shaped as the contract of ``Validation.to_dict()`` (built by hand from
simulated scores), for the figure and report tests that do not need the numbers to be a
real validation's."""

from __future__ import annotations

import math

import numpy as np


def _metric(estimate, lower=None, upper=None):
    return {"estimate": estimate, "lower": lower, "upper": upper}


def _wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def contract_dict(n: int = 400, seed: int = 0, kind: str = "risk score") -> dict:
    """A contract-shaped dict: scores 0..5, risk sigma(score - 3), outcomes drawn from it."""
    rng = np.random.default_rng(seed)
    score = rng.integers(0, 6, n)
    risk = 1 / (1 + np.exp(-(score - 3.0)))
    y = (rng.random(n) < risk).astype(int)
    reliability, table = [], []
    for s in range(6):
        on = score == s
        k, m = int(y[on].sum()), int(on.sum())
        low, high = _wilson(k, m)
        pos = score >= s
        tp, fp = int((pos & (y == 1)).sum()), int((pos & (y == 0)).sum())
        fn, tn = int((~pos & (y == 1)).sum()), int((~pos & (y == 0)).sum())
        reliability.append(
            {
                "score": s,
                "n": m,
                "predicted": float(risk[on][0]),
                "observed": k / m,
                "lower": low,
                "upper": high,
            }
        )
        table.append(
            {
                "score": s,
                "patients": m,
                "events": k,
                "observed_rate": k / m,
                "lower": low,
                "upper": high,
                "predicted_risk": float(risk[on][0]),
                "sensitivity": tp / max(tp + fn, 1),
                "specificity": tn / max(tn + fp, 1),
                "ppv": tp / (tp + fp) if tp + fp else None,
                "npv": tn / (tn + fn) if tn + fn else None,
            }
        )
    net = []
    for t in np.round(np.arange(1, 100) / 100, 2):
        treat = risk >= t
        tp, fp = int((treat & (y == 1)).sum()), int((treat & (y == 0)).sum())
        w = t / (1 - t)
        net.append(
            {
                "threshold": float(t),
                "model": tp / n - fp / n * w,
                "treat_all": y.mean() - (1 - y.mean()) * w,
                "treat_none": 0.0,
            }
        )
    return {
        "kind": kind,
        "n": n,
        "events": int(y.sum()),
        "outcome_rate": float(y.mean()),
        "confidence": 0.95,
        "auc": {**_metric(0.8123, 0.7712, 0.8534), "method": "DeLong"},
        "calibration_intercept": _metric(-0.0421, -0.2513, 0.1671),
        "calibration_slope": _metric(0.9345, 0.7801, 1.0889),
        "observed_expected": _metric(0.981, 0.9, 1.06),
        "brier": _metric(0.1734),
        "reliability": reliability,
        "score_table": table,
        "net_benefit": net,
        "notes": [],
    }


#: A calibration plot's rows crowded at low risks, as a large raw table gives (eleven total
#: scores, four of them below 2% predicted risk): (score, patients, predicted, observed,
#: lower, upper).
CROWDED = [
    (-2, 14, 0.0009, 0.0, 0.0, 0.2316),
    (-1, 102, 0.0025, 0.0, 0.0, 0.0355),
    (0, 1014, 0.0067, 0.001, 0.0, 0.0055),
    (1, 3070, 0.018, 0.0117, 0.0082, 0.0162),
    (2, 2871, 0.0474, 0.0505, 0.0428, 0.0592),
    (3, 2108, 0.1192, 0.1452, 0.1304, 0.1609),
    (4, 4272, 0.2689, 0.3446, 0.3303, 0.359),
    (5, 509, 0.5, 0.4951, 0.4508, 0.5394),
    (6, 1924, 0.7311, 0.7079, 0.687, 0.7281),
    (7, 46, 0.8808, 0.8261, 0.6858, 0.9218),
    (8, 351, 0.9526, 0.943, 0.9134, 0.9649),
]


def crowded_dict() -> dict:
    """A contract-shaped dict whose calibration plot has the :data:`CROWDED` rows."""
    keys = ("score", "n", "predicted", "observed", "lower", "upper")
    v = contract_dict()
    v["reliability"] = [dict(zip(keys, row, strict=True)) for row in CROWDED]
    v["n"] = sum(row[1] for row in CROWDED)
    return v
