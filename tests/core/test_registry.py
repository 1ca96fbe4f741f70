"""The model-family registry: the built-in families, and a third family added by registering
it (the Explorer's state, the runner, the size path, the figures, cross-validation, the
comparison, the audit and its rules, the Explorer's settings and builder, the command line
and the dashboard's warm-up then work with it; its plug-ins live in this module)."""

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
    AuditSpec,
    Command,
    ModelFamily,
    PathPlot,
    PlugIns,
    families,
    family_of,
    family_of_incumbent,
    get_family,
    register_family,
)
from riskexplore.errors import InfeasibleError, InputError
from riskexplore.risk_score.model import RiskScore


def test_builtin_families_name_their_plugins_and_commands():
    risk, checklist = get_family("risk_score"), get_family("checklist")
    assert risk.plugins.command is registry.BUILTIN_COMMANDS["risk_score"]
    assert [c.name for c in registry.family_commands().values()][:2] == ["fit", "checklist"]
    for family in (risk, checklist):
        for path in (family.plugins.explorer_builder, family.plugins.command.plugin):
            assert registry.load_plugin(path) is not None
    assert registry.load_plugin("riskexplore.cli.fit").DESCRIPTION.startswith("Fit")
    assert (risk.noun, checklist.noun) == ("score", "checklist")
    assert "calibration" in risk.audit.metrics and "calibration" not in checklist.audit.metrics
    assert registry.find_family("model") is None and registry.find_family("risk") is risk


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


@dataclass(frozen=True)
class RateNear:
    """The toy family's rule for a calibration finding (its ``calibration_rule``)."""

    where: dict
    max_gap: float
    limit: str = "both"
    label: str | None = None
    target: float | None = None

    def describe(self) -> str:
        return f"the rate of {self.label} within {self.max_gap} log-odds"


class BaseRateCommand:
    """The toy family's command (``riskexplore base-rate DATA``), a plug-in of this module."""

    DESCRIPTION = "Fit a base rate."

    @staticmethod
    def add_arguments(parser) -> None:
        parser.add_argument("data")

    @staticmethod
    def run(args) -> int:
        from riskexplore.datasets import load_dataset

        data = load_dataset(args.data)
        print(f"base rate {fit_base_rate(data.X, data.y).rate:.3f}")
        return 0


class BaseRateSettings:
    """The toy family's settings in the Explorer (its ``explorer_settings``)."""

    def __init__(self, settings, style, layout) -> None:
        import ipywidgets as w

        self.max_terms = w.BoundedIntText(value=settings["max_terms"], min=1, max=3)
        self.controls = {"max_terms": self.max_terms}
        self.box = w.VBox([self.max_terms])

    def show(self, settings) -> None:
        self.max_terms.value = settings["max_terms"]

    def read(self) -> dict:
        return {"max_terms": int(self.max_terms.value)}


WARMED: list[str] = []


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
    noun="base rate",
    shared={"tally": list},
    audit=AuditSpec(metrics=("calibration", "auc"), calibration_rule=RateNear),
    warm_up=lambda: WARMED.append("base_rate"),
    plugins=PlugIns(
        explorer_settings=f"{__name__}:BaseRateSettings",
        command=Command("base-rate", f"{__name__}:BaseRateCommand", "fit a base rate"),
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


def test_a_third_family_is_cross_validated_and_compared(third_family):
    from riskexplore.datasets import load_dataset
    from riskexplore.evaluation.compare import compare_models
    from riskexplore.evaluation.cv import cross_validate_recipe

    data = load_dataset("breastcancer")
    tallies = []

    def recipe(X, y, tally):  # gets the family's shared argument, one per training fold
        tallies.append(tally)
        tally.append(len(y))
        return fit_base_rate(X, y)

    folds = cross_validate_recipe(recipe, data.X, data.y, n_splits=3)
    assert len(folds) == 3 and [len(t) for t in tallies] == [1, 1, 1]
    assert folds["test_auc"].tolist() == pytest.approx([0.5] * 3)
    both = compare_models(data.X, data.y, constraints=["a rule"], family="base_rate")
    assert isinstance(both.models[0], BaseRate) and both.models[1] is None
    assert both.price_of_constraints == (0.0, math.inf)


def test_a_third_family_is_audited_with_its_rules(third_family):
    from riskexplore.datasets import load_dataset
    from riskexplore.evaluation.audit.findings import Finding
    from riskexplore.evaluation.audit.rules import plain_rule, rule_available
    from riskexplore.evaluation.audit.run import audit
    from riskexplore.exploration.audit import AuditState

    data = load_dataset("breastcancer")
    model = fit_base_rate(data.X, data.y)
    result = audit(model, data.X, data.y, "ClumpThickness", bins=[5])
    assert result.kind == "base_rate" and "predicted" in result.to_text()
    over = [f for f in result.findings if f.metric == "calibration" and f.value < f.rest_value]
    assert over and "the base rate overestimates risk" in over[0].sentence
    state = AuditState(by=("ClumpThickness",))
    state.result = result
    assert [m for _words, m in state.metric_options()] == ["calibration", "auc"]
    (first, *_rest) = [r for r in state.findings() if r.finding.metric == "calibration"]
    rule = first.rule.constraint
    assert isinstance(rule, RateNear) and rule.label == first.finding.group
    assert rule.limit in ("under", "over") and rule.target is not None
    assert first.rule.sentence.startswith("The base rate ")
    assert plain_rule(rule) == rule.describe()
    fnr = Finding(over[0].group, "fnr", 1.0, 0.5, 0.5, 0.1, 0.9, "")
    assert rule_available(fnr, result) == (
        "the rules of a base rate can bring a group's predicted risk closer to what "
        "happened, not its missed cases (FNR)"
    )
    assert "risk scores, checklists and base rates only" in rule_available(fnr, "model")


def test_a_third_family_has_a_command_and_a_warm_up(third_family, capsys, monkeypatch):
    from riskexplore.cli import build_parser, main
    from riskexplore.cli.dashboard import warm_up

    assert "base-rate" in build_parser().format_help()
    assert main(["base-rate", "breastcancer"]) == 0
    assert capsys.readouterr().out == "base rate 0.350\n"
    monkeypatch.setattr(warm_up, "families", lambda: [third_family])
    WARMED.clear()
    assert list(warm_up.warm_up_here()) == ["base_rate"] and WARMED == ["base_rate"]


def test_a_third_family_in_the_explorer(third_family):
    pytest.importorskip("ipywidgets")
    pytest.importorskip("plotly")
    from riskexplore.widgets.explorer.widget import Explorer

    ex = Explorer("breastcancer", family="base_rate", auto_refresh=False)
    controls = ex.settings_controls
    assert controls.max_terms is controls.family_controls["base_rate"].max_terms
    assert controls.family_boxes["base_rate"].layout.display is None
    assert controls.family_boxes["risk_score"].layout.display == "none"
    assert controls.read()["max_terms"] == 1
    assert "Rules cannot be set on this page for a base rate" in (
        ex.constraints_box.children[0].value
    )


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
