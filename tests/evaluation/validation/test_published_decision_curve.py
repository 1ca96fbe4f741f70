"""Net benefit against a published worked example: the decision-curve tutorial of Memorial
Sloan Kettering and its R package dcurves (750 biopsied patients, 14% with cancer; the
data, its source and licence in ``tests/data/published/``)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from riskexplore.core.logistic_fit import logistic_fit
from riskexplore.evaluation.validation import net_benefit

DATA = Path(__file__).parents[2] / "data" / "published" / "dcurves_df_binary.csv"

#: The harm of measuring the marker: few clinicians would measure it in more than 30
#: patients to find one cancer.
MARKER_HARM = 0.0333

#: dcurves 0.5.0, article "Decision Curve Analysis", "Saving out Net Benefit Values": net
#: benefit per threshold, printed to 3 significant digits (joint and conditional with the
#: harm of the marker).
PUBLISHED = pd.DataFrame(
    {
        "threshold": [0.05, 0.1, 0.2, 0.25, 0.3, 0.35],
        "all": [0.0947, 0.0444, -0.075, -0.147, -0.229, -0.323],
        "high_risk": [0.0168, 0.0161, 0.0147, 0.0138, 0.0128, 0.0116],
        "joint": [0.0671, 0.0571, 0.0334, 0.0191, 0.00289, -0.0159],
        "conditional": [0.0740, 0.0662, 0.0475, 0.0362, 0.0234, 0.00861],
    }
)


@pytest.fixture(scope="module")
def patients() -> pd.DataFrame:
    return pd.read_csv(DATA)


def _strategies(df: pd.DataFrame) -> dict[str, tuple[np.ndarray, float]]:
    """The tutorial's three ways to biopsy, as 0/1 "risks", with their harms: the high-risk
    group; the joint test (high risk, or the marker model's risk above 15%, the marker
    measured in everyone); the conditional test (the marker measured only in the
    intermediate-risk group)."""
    high = df["risk_group"].eq("high")
    marked = df["cancerpredmarker"].gt(0.15)
    intermediate = df["risk_group"].eq("intermediate")
    return {
        "high_risk": (high, 0.0),
        "joint": (high | marked, MARKER_HARM),
        "conditional": (high | (intermediate & marked), intermediate.mean() * MARKER_HARM),
    }


def _half_last_digit(value: float) -> float:
    """Half a unit in the last of the 3 significant digits a published value shows."""
    return 0.5 * 10.0 ** (math.floor(math.log10(abs(value))) - 2)


def test_published_net_benefit_table(patients):
    t = PUBLISHED["threshold"].to_numpy()
    for name, (treat, harm) in _strategies(patients).items():
        curve = net_benefit(patients["cancer"], treat.astype(float), t, harm=harm)
        for ours, published in zip(curve["model"], PUBLISHED[name], strict=True):
            assert ours == pytest.approx(published, abs=_half_last_digit(published)), name
        for ours, published in zip(curve["treat_all"], PUBLISHED["all"], strict=True):
            assert ours == pytest.approx(published, abs=_half_last_digit(published))
        assert (curve["treat_none"] == 0).all()


def test_published_marker_model(patients):
    """A continuous risk: the marker turned into a risk by a logistic regression of cancer
    on the marker, as the tutorial does. Published: net benefit 0.03 at 20% ("3 cancers
    per hundred patients without any unnecessary biopsy"), and at 15% "about 33" fewer
    biopsies per 100 patients (net interventions avoided = the gain over treating all
    divided by the odds of the threshold)."""
    y = patients["cancer"].to_numpy()
    design = np.column_stack([np.ones(len(y)), patients["marker"]])
    fit = logistic_fit(design, y)
    assert fit.converged
    risk = 1 / (1 + np.exp(-design @ fit.coef))
    curve = net_benefit(y, risk, [0.15, 0.2]).set_index("threshold")
    assert round(curve.loc[0.2, "model"], 2) == 0.03
    gain = curve.loc[0.15, "model"] - curve.loc[0.15, "treat_all"]
    assert round(100 * gain / (0.15 / 0.85)) == 33
