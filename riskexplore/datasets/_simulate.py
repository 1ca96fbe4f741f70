"""The simulated ``heart_followup`` table: survival after a heart attack (not real patients).

No public survival table is clearly licensed for bundling (see the datasets README), so the
survival examples use this **simulated** cohort. Every number comes from a seeded
generator; ``python -m riskexplore.datasets._build`` rewrites the file byte for byte.

The model, in plain words:

* 800 patients after a heart attack with the raw columns a clinic has: ``age`` (years),
  ``sex`` (female/male), ``diabetes`` (yes/no), ``smoker`` (never/former/current),
  ``heart_rate`` (beats per minute), ``systolic_bp`` (mmHg), ``ejection_fraction`` (%,
  missing for about 1 in 12 patients, completely at random) and ``kidney_function``
  (normal/mild/moderate/severe).
* Time to death is Weibull with shape 0.8 (the hazard is highest soon after the heart
  attack) and a hazard multiplied in **steps** (thresholds) of the columns
  (:data:`HAZARD_STEPS`), so an integer points score can describe it well. ``sex`` and
  ``smoker`` have no effect beyond current smoking's small one.
* Censoring: loss to follow-up (exponential, about 1 in 10 within 5 years) and the end of
  the study at 5 years (1,826 days). ``days`` is the follow-up in whole days (at least 1),
  ``died`` is 1 when the death was observed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

SEED = 20261206
N_PATIENTS = 800
FIVE_YEARS = 1826
WEIBULL_SHAPE = 0.8
#: Weibull scale (days) of a patient with none of the steps below.
WEIBULL_SCALE = 100_000.0
#: Yearly rate of loss to follow-up.
LOSS_RATE = 0.02

#: ``(description, log hazard ratio)``: each step adds its log hazard ratio.
HAZARD_STEPS = (
    ("age >= 65", 1.0),
    ("age >= 80", 0.7),
    ("ejection_fraction < 40", 1.0),
    ("ejection_fraction < 30", 0.5),
    ("heart_rate >= 100", 1.0),
    ("systolic_bp < 100", 1.0),
    ("kidney_function mild", 0.3),
    ("kidney_function moderate", 0.9),
    ("kidney_function severe", 1.6),
    ("diabetes yes", 0.7),
    ("smoker current", 0.3),
)


def _patients(rng: np.random.Generator) -> pd.DataFrame:
    n = N_PATIENTS
    age = np.clip(np.rint(rng.normal(67, 12, n)), 30, 95).astype("int64")
    return pd.DataFrame(
        {
            "age": age,
            "sex": np.where(rng.random(n) < 0.35, "female", "male"),
            "diabetes": np.where(rng.random(n) < 0.2 + 0.1 * (age >= 65), "yes", "no"),
            "smoker": rng.choice(["never", "former", "current"], n, p=[0.4, 0.3, 0.3]),
            "heart_rate": np.clip(np.rint(rng.normal(84, 18, n)), 40, 160).astype("int64"),
            "systolic_bp": np.clip(np.rint(rng.normal(126, 24, n)), 75, 220).astype("int64"),
            "ejection_fraction": np.clip(np.rint(rng.normal(48, 11, n)), 10, 75),
            "kidney_function": rng.choice(
                ["normal", "mild", "moderate", "severe"], n, p=[0.5, 0.25, 0.17, 0.08]
            ),
        }
    )


def _log_hazard(frame: pd.DataFrame) -> np.ndarray:
    steps = {
        "age >= 65": frame["age"] >= 65,
        "age >= 80": frame["age"] >= 80,
        "ejection_fraction < 40": frame["ejection_fraction"] < 40,
        "ejection_fraction < 30": frame["ejection_fraction"] < 30,
        "heart_rate >= 100": frame["heart_rate"] >= 100,
        "systolic_bp < 100": frame["systolic_bp"] < 100,
        "kidney_function mild": frame["kidney_function"] == "mild",
        "kidney_function moderate": frame["kidney_function"] == "moderate",
        "kidney_function severe": frame["kidney_function"] == "severe",
        "diabetes yes": frame["diabetes"] == "yes",
        "smoker current": frame["smoker"] == "current",
    }
    return sum(beta * steps[name].to_numpy(float) for name, beta in HAZARD_STEPS)


def simulate_heart_followup(seed: int = SEED) -> pd.DataFrame:
    """The simulated cohort: ``days``, ``died`` then the eight raw columns.

    Parameters
    ----------
    seed : int
        The generator's seed (the bundled file uses :data:`SEED`).

    Returns
    -------
    DataFrame
        One row per patient; ``ejection_fraction`` has missing values.
    """
    rng = np.random.default_rng(seed)
    frame = _patients(rng)
    hazard = np.exp(_log_hazard(frame))
    # Inverse transform: S(t) = exp(-(t/scale)^shape * hazard).
    death = WEIBULL_SCALE * (-np.log(rng.random(N_PATIENTS)) / hazard) ** (1 / WEIBULL_SHAPE)
    lost = rng.exponential(365.25 / LOSS_RATE, N_PATIENTS)
    censor = np.minimum(lost, FIVE_YEARS)
    died = (death <= censor).astype("int64")
    days = np.maximum(1, np.ceil(np.minimum(death, censor))).astype("int64")
    # Missing completely at random, after the outcome used the true value.
    missing = rng.random(N_PATIENTS) < 1 / 12
    frame["ejection_fraction"] = frame["ejection_fraction"].mask(missing).astype("Int64")
    frame.insert(0, "died", died)
    frame.insert(0, "days", days)
    return frame
