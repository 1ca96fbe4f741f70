"""The model-family registry: the built-in families, and a third family added by registering
it (the Explorer's state, the runner, the size path and the figures then work with it)."""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pytest

from riskexplore.checklist.model import Checklist
from riskexplore.core import registry
from riskexplore.core.certificate import Certificate
from riskexplore.core.registry import (
    ModelFamily,
    PathPlot,
    families,
    family_of,
    family_of_incumbent,
    get_family,
    register_family,
)
from riskexplore.errors import InfeasibleError, InputError
from riskexplore.risk_score.model import RiskScore


def test_builtin_families():
    names = [f.name for f in families()]
    assert names[:2] == ["risk_score", "checklist"]
    risk, checklist = get_family("risk_score"), get_family("checklist")
    assert get_family("riskslim") is risk and get_family(risk) is risk
    assert (risk.size_parameter, checklist.size_parameter) == ("max_size", "max_items")
    assert risk.model_type is RiskScore and checklist.model_type is Checklist
    assert family_of_incumbent({"intercept": 1, "points": {"a": 1}}) is risk
    assert family_of_incumbent({"items": ["a"], "M": 1}) is checklist
    assert family_of_incumbent({"something": 1}) is None
    with pytest.raises(InputError, match="unknown model family 'trees'"):
        get_family("trees")
    with pytest.raises(InputError, match="not a model of a registered family"):
        family_of(object())


def test_families_describe_their_models():
    risk, checklist = get_family("risk_score"), get_family("checklist")
    score = RiskScore(["a", "b"], {"a": 2, "b": -1}, -3, Certificate.from_bounds("optimal", 1, 1))
    assert family_of(score) is risk
    assert risk.card_table(score) == (
        ["feature", "points"],
        [["(intercept)", "a", "b"], ["-3", "+2", "-1"]],
    )
    assert risk.describe_incumbent({"intercept": -3, "points": {"a": 2}}) == "intercept -3; a +2"
    rule = Checklist(["cough", "fever"], 1)
    assert family_of(rule) is checklist
    assert checklist.card_table(rule)[1][1][-1] == "positive if at least 1 of 2 checked"
    other = Checklist(["fever", "age"], 2)
    table = checklist.compare_table(rule, other, ("a", "b"))
    assert table["item"].tolist() == ["cough", "fever", "age"]
    assert table["changed"].tolist() == [True, False, True]
    live = checklist.from_incumbent(
        {"items": ["fever"], "M": 1}, Certificate.from_bounds("solving", 3, 1), {}, rule
    )
    assert isinstance(live, Checklist) and live.items == ["fever"]


# --- a third family ----------------------------------------------------------------------
@dataclass
class BaseRate:
    """Predicts the training rate of positives for everyone (a toy family)."""

    rate: float
    size: int = 0
    certificate: Certificate | None = None
    stats: dict = field(default_factory=dict)

    @property
    def objective(self) -> float:
        return self.certificate.upper_bound

    def predict_risk(self, X) -> np.ndarray:
        return np.full(len(X), self.rate)

    def decision_function(self, X) -> np.ndarray:
        return np.full(len(X), math.log(self.rate / (1 - self.rate)))

    def predict(self, X) -> np.ndarray:
        return (self.predict_risk(X) >= 0.5).astype(int)

    def certificate_line(self) -> str:
        return self.certificate.describe()


def fit_base_rate(X, y, *, callbacks=(), stop=None, time_limit=math.inf, constraints=(), **kw):
    if constraints:
        raise InfeasibleError("a base rate takes no constraints")
    y = np.asarray(y, dtype=float)
    rate = float(np.clip(y.mean(), 1e-6, 1 - 1e-6))
    loss = float(-np.mean(y * np.log(rate) + (1 - y) * np.log(1 - rate)))
    return BaseRate(rate, certificate=Certificate.from_bounds("optimal", loss, loss), stats={})


class BaseRatePath:
    default_max = 2
    train_metrics = ("auc", "loss")
    test_metrics = ("auc",)

    def __init__(self, X, y, *, groups=None, test_groups=None, cut_pool=None, **kw):
        self.X, self.y = X, y

    def solve(self, size, time_limit, stop):
        return fit_base_rate(self.X, self.y)

    def columns(self, model, size):
        return {"model_size": 0, "objective": model.objective, "rate": model.rate}

    def work(self, model):
        return {}

    def tighten(self, rows):
        pass


BASE_RATE = ModelFamily(
    name="base_rate",
    label="Base rate",
    model_type=BaseRate,
    fit=fit_base_rate,
    size_parameter="max_terms",
    size_noun="terms",
    incumbent_key="rate",
    from_incumbent=lambda inc, cert, stats, template=None: BaseRate(inc["rate"], 0, cert),
    describe_incumbent=lambda inc: f"rate {inc['rate']:.2f}",
    card_table=lambda m: (["", "risk"], [["everyone"], [f"{100 * m.rate:.1f}%"]]),
    compare_table=lambda a, b, names: pd.DataFrame(),
    settings={"max_terms": 1},
    check_settings=lambda s: None,
    fit_arguments=lambda s, categorical=(), groups=None: {},
    check_data=lambda X, y, s: None,
    comparable=("max_terms",),
    path_session=BaseRatePath,
    path_metric="objective",
    describe_path_row=lambda row: f"rate {row['rate']:.3f}",
    path_plot=PathPlot(
        traces=(("objective", "objective", 1, None), ("train AUC", "train_auc", 2, None)),
        titles=("Objective", "AUC", ""),
        objective_label="loss",
        middle_percent=False,
    ),
)


@pytest.fixture
def third_family():
    register_family(BASE_RATE)
    yield BASE_RATE
    with registry._lock:
        registry._registry.pop("base_rate", None)


def test_a_third_family_needs_only_a_registration(third_family):
    from riskexplore.evaluation.metrics import model_metrics
    from riskexplore.evaluation.paths import size_path
    from riskexplore.exploration.explorer import ExplorerState, default_settings
    from riskexplore.exploration.runner import SolveRunner

    assert get_family("base_rate") is third_family
    assert default_settings()["max_terms"] == 1
    # the Explorer's plain-Python state: choose the family, load data, solve
    state = ExplorerState()
    state.load_dataset("breastcancer")
    state.set_family("base_rate")
    state.update_settings(max_terms=1, test_fraction=0.0)
    runner = SolveRunner(state.solve_function())
    runner.start()
    assert runner.join(60) and runner.error is None, runner.error
    model = runner.result
    assert isinstance(model, BaseRate) and family_of(model) is third_family
    assert model.rate == pytest.approx(float(state.y.mean()))
    # the evaluation: metrics and a size path, with the family's own row and text
    metrics = model_metrics(model, state.X, state.y)
    assert metrics["auc"] == pytest.approx(0.5)
    path = size_path(state.X, state.y, family="base_rate", sizes=2, time_limit_per_size=1)
    assert [r["size"] for r in path.rows] == [1, 2]
    assert path.rows[0]["train_auc"] == pytest.approx(0.5)
    assert "rate 0.3" in path.summary()
    # the figures: the live card and the size path
    from riskexplore.figures.paths import pareto_figure
    from riskexplore.figures.progress import incumbent_text

    assert incumbent_text({"rate": 0.35}) == "rate 0.35"
    assert [t.name for t in pareto_figure(path).data][:2] == ["objective", "train AUC"]


def test_registering_replaces_a_family_of_the_same_name(third_family):
    import dataclasses

    renamed = dataclasses.replace(third_family, label="Prior")
    register_family(renamed)
    assert get_family("base_rate").label == "Prior"
    assert sum(f.name == "base_rate" for f in families()) == 1


def test_registry_is_safe_to_read_from_threads():
    seen = []
    threads = [threading.Thread(target=lambda: seen.append(len(families()))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(seen)) == 1 and seen[0] >= 2
