"""The public API against random input (``_fuzz.py``), and the defects the fuzzer found.

The fuzzer (hypothesis: random tables, settings and constraints of both families, the command
line, edited study files) runs in a subprocess whose address space is capped at 3 GB
(``resource.RLIMIT_AS``, set by ``benchmarks/fuzz.py``): every case must end in a model with
a consistent certificate or in a clear error; a case that tried to allocate gigabytes would
fail with a MemoryError there (a defect) instead of taking the machine down. The long run
(10,000 cases and more) is ``python benchmarks/fuzz.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from riskexplore import fit_checklist, fit_risk_score
from riskexplore.errors import InputError
from riskexplore.risk_score.coefficients import MAX_RANGE_VALUES, CoefficientSet
from riskexplore.risk_score.problem import MAX_FEATURE_MAGNITUDE

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.integers(0, 2, (60, 4)), columns=["age", "bmi", "smoker", "sex"])
    y = (X["age"] + X["smoker"] + rng.integers(0, 2, 60) >= 2).astype(int)
    return X, y


@pytest.mark.parametrize(
    ("settings", "names"),
    [
        ({"intercept_min": -(10**9), "intercept_max": 10**9}, "intercept"),
        ({"coef_min": -(10**9), "coef_max": 10**9}, "points of 'age'"),
        ({"coef_min": 0, "coef_max": MAX_RANGE_VALUES}, "points of 'age'"),
    ],
)
def test_a_range_too_wide_is_refused_before_any_search(small, settings, names):
    X, y = small
    with pytest.raises(InputError) as caught:
        fit_risk_score(X, y, max_size=2, time_limit=5, **settings)
    message = str(caught.value)
    assert names in message and f"at most {MAX_RANGE_VALUES:,}" in message
    assert "narrow" in message


def test_the_widest_range_allowed_is_solved(small):
    X, y = small
    half = (MAX_RANGE_VALUES - 1) // 2
    CoefficientSet.uniform(
        ["a"], coef_min=-half, coef_max=half, c0=0.0, intercept_min=-half, intercept_max=half
    )
    model = fit_risk_score(
        X, y, max_size=2, coef_min=-half, coef_max=half, intercept_min=-half, intercept_max=half,
        time_limit=10,
    )  # fmt: skip
    c = model.certificate
    assert c.lower_bound <= c.upper_bound and 0 <= c.gap <= 1


@pytest.mark.parametrize("value", [1e300, -1e18, 2 * MAX_FEATURE_MAGNITUDE])
def test_huge_feature_values_are_refused_naming_the_column(small, value):
    X, y = small
    X = X.astype(float)
    X.loc[7, "bmi"] = value
    with pytest.raises(InputError, match=r"feature 'bmi' has a value of .*row position 7"):
        fit_risk_score(X, y, max_size=2, time_limit=5, binarize=False)  # points per unit
    # a checklist, and a risk score by default, turn numbers into yes/no items: the same
    # table is solved
    model = fit_checklist(X, y, max_items=2, time_limit=10)
    assert model.certificate.lower_bound <= model.certificate.upper_bound
    score = fit_risk_score(X, y, max_size=2, time_limit=10)
    assert score.binarizer is not None
    assert score.certificate.lower_bound <= score.certificate.upper_bound + 1e-9


def test_values_up_to_the_limit_are_solved(small):
    X, y = small
    X = X.astype(float)
    X.loc[7, "bmi"] = MAX_FEATURE_MAGNITUDE
    c = fit_risk_score(X, y, max_size=2, time_limit=10, binarize=False).certificate
    assert c.lower_bound <= c.upper_bound + 1e-9 and 0 <= c.gap <= 1


def test_more_features_forced_in_than_a_learned_scale_model_holds(small):
    # every feature forced in (points of at least 1e9); the beam search of the learned scale
    # used to fail on it with "could not broadcast" (found by the fuzzer)
    X, y = small
    model = fit_risk_score(
        X, y, coef_min=10**9, coef_max=10**9, scale="learned", multiplier_max=3, time_limit=5
    )
    c = model.certificate
    assert c.lower_bound <= c.upper_bound and 0 <= c.gap <= 1


def test_the_fuzzer_under_a_memory_cap():
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "fuzz.py"),
            "--cases",
            "150",
            "--seed",
            "19",
            "--memory-gb",
            "3",
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    lines = done.stdout.strip().splitlines()
    summary = json.loads(lines[-1])
    defects = [json.loads(line) for line in lines[:-1] if '"defect"' in line]
    print(json.dumps(summary))
    assert done.returncode == 0 and not defects, (defects[:3], done.stderr[-2000:])
    outcomes = summary["outcomes"]
    assert summary["cases"] == 150
    for kind in ("risk_score", "checklist", "cli", "study"):  # each kind reached both ends
        assert outcomes.get(f"{kind}/error", 0) > 0, outcomes
    for kind in ("risk_score", "checklist", "cli"):
        assert outcomes.get(f"{kind}/model", 0) > 0, outcomes
