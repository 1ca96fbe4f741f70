"""A small raw patient table for the tests of the Explorer's binarization (plain state,
widget and dashboard): numbers, categories, yes/no strings, missing values."""

from __future__ import annotations

import numpy as np
import pandas as pd


def raw_csv(n: int = 160, seed: int = 0) -> bytes:
    """A patient table as CSV bytes: ``age`` (matters from 65 on), ``sex`` (F/M),
    ``grade`` (I/II/III), ``creatinine`` (15% missing), ``site`` (one value) and the
    outcome ``sick`` (yes/no)."""
    rng = np.random.default_rng(seed)
    age = rng.integers(30, 90, n)
    creatinine = np.round(rng.normal(1.0, 0.3, n), 2)
    creatinine[rng.random(n) < 0.15] = np.nan
    grade = rng.choice(["I", "II", "III"], n)
    logit = -2.0 + 3.0 * (age >= 65) + 1.0 * (grade == "III")
    sick = rng.random(n) < 1 / (1 + np.exp(-logit))
    frame = pd.DataFrame(
        {
            "age": age,
            "sex": rng.choice(["F", "M"], n),
            "grade": grade,
            "creatinine": creatinine,
            "site": "A",
            "sick": np.where(sick, "yes", "no"),
        }
    )
    return frame.to_csv(index=False).encode()
