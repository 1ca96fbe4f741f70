"""Metadata of the bundled datasets: file names, outcome, provenance, expected counts.

The counts here are checked against the files by ``tests/data/test_datasets.py`` and by the
build script, so the catalog and the data cannot silently drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field

LICENSE = "CC BY 4.0 (UCI Machine Learning Repository); redistributed with attribution"

_UCI = "UCI Machine Learning Repository"

SIMULATED_LICENSE = "BSD-3-Clause (simulated by riskexplore, as the package)"


@dataclass(frozen=True)
class SplitInfo:
    file: str
    n_rows: int
    n_positive: int


@dataclass(frozen=True)
class DatasetInfo:
    name: str
    outcome_column: str
    outcome: str
    n_features: int
    splits: dict[str, SplitInfo]
    source: str
    description: str
    default_split: str = "all"
    categorical: tuple[str, ...] = field(default=())
    #: Follow-up time column of a survival table (``outcome_column`` is then the event).
    time_column: str | None = None
    license: str = LICENSE

    @property
    def has_splits(self) -> bool:
        return set(self.splits) != {"all"}


CATALOG: dict[str, DatasetInfo] = {
    "mammo": DatasetInfo(
        name="mammo",
        outcome_column="Malignant",
        outcome="the mammographic mass is malignant (biopsy result)",
        n_features=14,
        splits={"all": SplitInfo("mammo.csv.gz", 961, 445)},
        source=(
            f"Mammographic Mass, {_UCI}, https://archive.ics.uci.edu/dataset/161. "
            "Original authors: M. Elter, R. Schulz-Wendtland, T. Wittenberg (2007), "
            "Medical Physics 34(11). Binarized as in Ustun & Rudin (2019), 'Learning "
            f"Optimized Risk Scores', JMLR 20(150). License: {LICENSE}."
        ),
        description=(
            "961 screened mammographic masses; 14 features: shape and margin indicators, "
            "ordinal Density (1-4) and age indicators; no missing values. Binarized as in "
            "the paper except Density, which fit_risk_score turns into threshold items "
            "(binarize=False keeps it as points per unit)."
        ),
    ),
    "breastcancer": DatasetInfo(
        name="breastcancer",
        outcome_column="Malignant",
        outcome="the breast tumour is malignant",
        n_features=9,
        splits={"all": SplitInfo("breastcancer.csv.gz", 683, 239)},
        source=(
            f"Breast Cancer Wisconsin (Original), {_UCI}, "
            "https://archive.ics.uci.edu/dataset/15. Original author: W. H. Wolberg, "
            "University of Wisconsin Hospitals (Wolberg & Mangasarian 1990, PNAS 87(23)). "
            f"Processed as in Ustun & Rudin (2019), JMLR 20(150). License: {LICENSE}."
        ),
        description=(
            "683 fine-needle aspirates (rows with missing values dropped); 9 cytology "
            "features scored 1-10 (threshold items by fit_risk_score's default; "
            "binarize=False for points per unit, as in the paper). The source header calls "
            "the outcome 'Benign' but the 239 ones are the malignant cases, so the column "
            "is renamed 'Malignant'."
        ),
    ),
    "income": DatasetInfo(
        name="income",
        outcome_column="Over50K",
        outcome="the person earns over $50,000 a year (1994 US census)",
        n_features=36,
        splits={"all": SplitInfo("income.csv.gz", 32561, 7841)},
        source=(
            f"Adult, {_UCI}, https://archive.ics.uci.edu/dataset/2. Original authors: "
            "B. Becker and R. Kohavi (1996); Kohavi (1996), KDD. Binarized as in Ustun & "
            f"Rudin (2019), JMLR 20(150) ('income'). License: {LICENSE}."
        ),
        description=(
            "The Adult training split (32,561 people) with 36 binary features on age, "
            "sector, education, occupation, marital status, hours, sex, race, origin and "
            "capital gains/losses."
        ),
    ),
    "heart": DatasetInfo(
        name="heart",
        outcome_column="target",
        outcome="heart disease (target = 1 as labelled in the distributed file; see README)",
        n_features=13,
        splits={"all": SplitInfo("heart.csv.gz", 303, 165)},
        source=(
            f"Heart Disease (Cleveland), {_UCI}, https://archive.ics.uci.edu/dataset/45. "
            "Original authors: A. Janosi, W. Steinbrunn, M. Pfisterer, R. Detrano (1988); "
            "Detrano et al. (1989), American Journal of Cardiology 64(5). "
            f"License: {LICENSE}."
        ),
        description=(
            "303 Cleveland patients, raw (not binarized): 13 columns, of which cp, thal, "
            "ca, slope and restecg are categorical codes (integers: fit_risk_score gives "
            "them threshold items unless a Binarizer lists them as categorical) and the "
            "rest numeric."
        ),
        categorical=("cp", "restecg", "slope", "ca", "thal"),
    ),
    "adult_raw": DatasetInfo(
        name="adult_raw",
        outcome_column="income_over_50k",
        outcome="the person earns over $50,000 a year (1994 US census)",
        n_features=13,
        splits={
            "train": SplitInfo("adult_raw_train.csv.gz", 32561, 7841),
            "test": SplitInfo("adult_raw_test.csv.gz", 16281, 3846),
        },
        default_split="train",
        source=(
            f"Adult, {_UCI}, https://archive.ics.uci.edu/dataset/2. Original authors: "
            "B. Becker and R. Kohavi (1996); Kohavi (1996), KDD. "
            f"License: {LICENSE}."
        ),
        description=(
            "UCI Adult, raw train/test split: 5 numeric and 8 categorical (text) columns; "
            "missing values ('?') in workclass, occupation and native_country are NaN. "
            "fit_risk_score binarizes it by default (one item per category, a missing-value "
            "item per column with missing values)."
        ),
        categorical=(
            "workclass",
            "education",
            "marital_status",
            "occupation",
            "relationship",
            "race",
            "sex",
            "native_country",
        ),
    ),
    "heart_followup": DatasetInfo(
        name="heart_followup",
        outcome_column="died",
        outcome="death during follow-up (SIMULATED patients; time in 'days')",
        n_features=8,
        splits={"all": SplitInfo("heart_followup.csv.gz", 800, 262)},
        source=(
            "SIMULATED by riskexplore (riskexplore/datasets/_simulate.py, seed 20261206): "
            "no real patients. Weibull survival after a heart attack with a hazard that "
            "rises in steps of the columns; censoring by loss to follow-up and at 5 years. "
            f"License: {SIMULATED_LICENSE}."
        ),
        description=(
            "800 simulated patients after a heart attack, raw columns: age (years), sex, "
            "diabetes, smoker (never/former/current), heart_rate, systolic_bp, "
            "ejection_fraction (%, 54 missing) and kidney_function "
            "(normal/mild/moderate/severe); follow-up 'days' (at most 1,826: 5 years) and "
            "'died' (262 deaths). For survival scores: fit_survival_score(data.X, "
            "data.time, data.y)."
        ),
        categorical=("sex", "diabetes", "smoker", "kidney_function"),
        time_column="days",
        license=SIMULATED_LICENSE,
    ),
}
