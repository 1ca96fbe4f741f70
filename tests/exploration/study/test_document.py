"""Study files (``riskexplore.exploration.study``): an exploration saved as JSON data and opened
again, exactly; refused when malformed or edited; a warning when the data differ.

Plain Python (no kernel): :class:`ExplorerState` is driven directly, the Explorer only in
the last tests.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import json
import math
import warnings
from pathlib import Path

import pandas as pd
import pytest

import riskexplore.checklist.constraints as K
import riskexplore.exploration.study.document as study_module
import riskexplore.risk_score.constraints as C
from riskexplore.core.constraints import ReadableConstraint
from riskexplore.core.registry import get_family
from riskexplore.datasets import load_dataset
from riskexplore.errors import InputError
from riskexplore.evaluation.paths import size_path
from riskexplore.exploration.explorer import ExplorerState
from riskexplore.exploration.study.document import (
    VERSION,
    Study,
    StudyWarning,
    checksum,
    decode_constraint,
    encode_constraint,
    table_digest,
)
from riskexplore.risk_score import group_calibration, operating_point
from riskexplore.risk_score.group_calibration import GroupCalibration
from riskexplore.risk_score.operating_point import OperatingPoint

RISK_RULES = [
    C.Exclude("IrregularShape"),
    C.LinearConstraint(points={"Age_geq_60": 1, "(Intercept)": -1}, upper=3),
]
CHECKLIST_RULES = [K.FNRLimit(0.4), K.MRange(1, 3)]


def _solved_state(family: str) -> tuple[ExplorerState, list, object]:
    """A state with both runs and a size path of two sizes (small, certified quickly)."""
    state = ExplorerState()
    if family == "risk_score":
        state.load_dataset("mammo")
        state.update_settings(max_size=2, time_limit=10)
        rules = RISK_RULES
    else:
        state.load_dataset("heart")
        state.set_family("checklist")
        state.update_settings(max_items=2, time_limit=10, group_columns=("sex",))
        rules = CHECKLIST_RULES
    for run, constraints in (("unconstrained", []), ("constrained", rules)):
        model = state.solve_function(constraints)(callbacks=[], stop=None)
        state.record(run, model, family, state.settings, constraints, state.data_version)
    fit = state.fit_kwargs()
    fit.pop("time_limit")
    fit.pop(state.model_family.size_parameter)
    path = size_path(state.X, state.y, family=family, sizes=2, time_limit_per_size=5, **fit)
    return state, rules, path


@pytest.fixture(scope="module", params=["risk_score", "checklist"])
def solved(request):
    return _solved_state(request.param)


@pytest.fixture(scope="module")
def risk():
    return _solved_state("risk_score")


def _rehash(doc: dict) -> dict:
    """``doc`` with a checksum that matches its (edited) content: what a careful forger
    would write. The content checks must still refuse it."""
    doc = dict(doc)
    doc.pop("checksum", None)
    doc["checksum"] = checksum(doc)
    return doc


# --- round trips ---------------------------------------------------------------------------
def test_a_study_round_trips_exactly(solved, tmp_path):
    state, rules, path = solved
    study = state.to_study(rules, size_path=path, selected=2)
    file = tmp_path / "study.json"
    text = study.to_json(file)
    assert file.read_text() == text + "\n"
    again = Study.read(file)
    assert again == study and again.to_json() == text
    assert again.constraints == rules
    # the state opened from it writes the very same file
    opened = ExplorerState.from_study(file)
    assert (
        opened.to_study(again.constraints, size_path=again.size_path, selected=2).to_json() == text
    )
    assert opened.settings == state.settings and opened.family == state.family
    assert opened.dataset == state.dataset and opened.outcome == state.outcome
    assert opened.X.equals(state.X) and opened.y_test.equals(state.y_test)  # same split
    for run, record in state.runs.items():
        restored = opened.runs[run]
        assert restored.model.to_dict(include_trace=True) == record.model.to_dict(
            include_trace=True
        )
        assert len(restored.model.trace) == len(record.model.trace) > 0
        assert restored.model.certificate.to_dict() == record.model.certificate.to_dict()
        assert restored.constraints == record.constraints
        assert restored.settings == record.settings
        assert restored.data_version == opened.data_version
    assert [r["size"] for r in again.size_path.rows] == [1, 2]
    assert again.size_path.rows == [
        {k: v for k, v in row.items() if k != "model"} for row in path.rows
    ]
    assert again.size_path.models == path.models
    # identity without the rows: the table's hash and shape, no value of a patient
    doc = json.loads(text)
    assert doc["data"]["table"] is None and doc["data"]["sha256"] == table_digest(state.frame)
    assert doc["data"]["rows"] == len(state.frame)
    assert doc["checksum"] == checksum({k: v for k, v in doc.items() if k != "checksum"})


def test_a_study_keeps_the_learned_scale_each_models_multiplier_and_the_scale_price():
    state = ExplorerState()
    state.load_dataset("mammo")
    state.update_settings(
        max_size=2, time_limit=10, scale="learned", multiplier_min=0.5, multiplier_max=4.0
    )
    model = state.solve_function([])(callbacks=[], stop=None)
    state.record("unconstrained", model, "risk_score", state.settings, [], state.data_version)
    job = state.scale_price_function()
    state.record_scale_price(job.run, job(callbacks=[], stop=None))
    price = state.current_scale_price()
    assert price.learned is model and price.fixed is not None
    text = state.to_study([]).to_json()
    doc = json.loads(text)
    assert {k: doc["settings"][k] for k in ("scale", "multiplier_min", "multiplier_max")} == {
        "scale": "learned",
        "multiplier_min": 0.5,
        "multiplier_max": 4.0,
    }
    assert doc["runs"]["unconstrained"]["settings"]["scale"] == "learned"
    saved_m = doc["runs"]["unconstrained"]["model"]["multiplier"]
    assert saved_m == model.multiplier and 0.5 <= saved_m <= 4.0
    assert doc["scale_price"]["interval"] == list(price.interval)
    assert doc["scale_price"]["fixed"]["multiplier"] == 1.0
    opened = ExplorerState.from_study(text.encode())
    assert opened.to_study([]).to_json() == text  # exactly, the price included
    assert opened.settings == state.settings and opened.settings["scale"] == "learned"
    again = opened.runs["unconstrained"].model
    assert again.multiplier == model.multiplier
    assert (again.predict_proba(state.X) == model.predict_proba(state.X)).all()
    reopened = opened.current_scale_price()  # drawn from the file: nothing to solve again
    assert reopened is not None and opened.scale_price_function() is not None
    assert reopened.interval == price.interval and reopened.learned == again
    assert reopened.describe() == price.describe()
    # a price of another model, or a scale this version does not know, is refused
    other = json.loads(text)
    other["scale_price"]["learned"] = other["scale_price"]["fixed"]
    with pytest.raises(InputError, match="scale_price does not price the unconstrained run"):
        Study.from_dict(_rehash(other))
    other = json.loads(text)
    other["scale_price"]["interval"] = [0.1, "a lot"]
    with pytest.raises(InputError, match=r"scale_price.interval must be two numbers"):
        Study.from_dict(_rehash(other))
    doc["settings"]["scale"] = "cubic"
    with pytest.raises(InputError, match="settings cannot be used: .*scale"):
        ExplorerState.from_study(_rehash(doc))


def test_only_runs_on_the_current_data_are_saved(risk):
    state, rules, _path = risk
    state = dataclasses.replace(state, runs=dict(state.runs))
    stale = state.runs["constrained"]
    state.runs["constrained"] = dataclasses.replace(stale, data_version=stale.data_version - 1)
    assert list(state.to_study(rules).runs) == ["unconstrained"]


def _examples():
    """One instance of every readable constraint class of both families."""
    inf = math.inf
    return {
        "risk_score": [
            C.MaxFeatures(3),
            C.MinFeatures(1),
            C.AtMostKOf(["a", "b"], k=1),
            C.AtLeastKOf(["a", "b"], k=1),
            C.Implies("a", then_any=["b", "c"]),
            C.NotTogether("a", "b"),
            C.PredictedRisk(when={"a": 1, "b": 2.5}, at_least=0.1, at_most=0.9, others=0.5),
            C.Sign("a", -1),
            C.Include("a"),
            C.Exclude("inf"),  # a feature called "inf" stays a name
            C.PointsBetween("a", lo=-2, hi=None),
            GroupCalibration({"age": (60, None), "sex": 1}, max_gap=0.2, limit="under"),
            GroupCalibration({"site": "B"}, label="site B"),
            OperatingPoint(at_score=3, min_sensitivity=0.9),
            OperatingPoint(-1, min_specificity=0.5, max_false_positive_rate=0.25),
            C.LinearConstraint(points={"a": 1.5}, included={"b": -1}, lower=-inf, upper=2.0),
            C.LinearConstraint(points={"a": 1}, lower=0, upper=inf, name="a at least 0"),
        ],
        "checklist": [
            K.MaxItems(4),
            K.MinItems(1),
            K.MRange(1, None),
            K.AtMostKItems(["x", "y"], k=1),
            K.OneItemPerGroup(),
            K.OneItemPerGroup(["g1", "g2"]),
            K.Implies("x", then_any=["y"]),
            K.IncludeItem("x"),
            K.ExcludeItem("nan"),
            K.PredictPositiveWhen(["x", "y"]),
            K.PredictNegativeWhen(["x"]),
            K.FNRLimit(0.2),
            K.FPRLimit(0.3),
            K.GroupRateGap("fnr", 0.1, by=["sex"]),
            K.WorstGroupRate("fpr", 0.4),
        ],
    }


@pytest.mark.parametrize("family", ["risk_score", "checklist"])
def test_every_constraint_class_round_trips(family):
    examples = _examples()[family]
    assert {type(c) for c in examples} == set(get_family(family).constraint_types)
    for constraint in examples:
        record = encode_constraint(constraint, family)
        text = json.dumps(record, allow_nan=False)  # strict JSON
        again = decode_constraint(json.loads(text), family)
        assert again == constraint and type(again) is type(constraint)
        assert again.describe() == constraint.describe()


@pytest.mark.parametrize(
    ("family", "modules"),
    [("risk_score", (C, group_calibration, operating_point)), ("checklist", (K,))],
)
def test_the_whitelist_names_every_readable_constraint_of_the_family(family, modules):
    public = {
        obj
        for module in modules
        for name in module.__all__
        if inspect.isclass(obj := getattr(module, name))
        and issubclass(obj, ReadableConstraint)
        and dataclasses.is_dataclass(obj)
    }
    assert public == set(get_family(family).constraint_types)


def test_constraints_a_study_cannot_hold_are_refused_clearly():
    from pyomo.environ import Constraint

    from riskexplore.risk_score.pyomo import risk_score_model

    model = risk_score_model(["a", "b"])
    model.c = Constraint(expr=model.included["a"] <= model.included["b"])
    with pytest.raises(InputError, match="Pyomo models cannot be saved in a study"):
        encode_constraint(model, "risk_score")
    with pytest.raises(InputError, match="FNRLimit is not a readable risk score constraint"):
        encode_constraint(K.FNRLimit(0.2), "risk_score")
    with pytest.raises(InputError, match="not a readable checklist constraint"):
        encode_constraint(("a", 1), "checklist")


def test_a_pyomo_constraint_stops_the_save_before_anything_is_written(risk, tmp_path):
    from riskexplore.risk_score.pyomo import risk_score_model

    state, _rules, _path = risk
    with pytest.raises(InputError, match="Pyomo"):
        state.to_study([risk_score_model(["Age_geq_60"])])


# --- refused files ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def document(risk):
    state, rules, path = risk
    return state.to_study(rules, size_path=path, selected=1).to_dict()


def _refused(doc_or_text, match: str, rehash: bool = True) -> str:
    if isinstance(doc_or_text, dict) and rehash:
        doc_or_text = _rehash(doc_or_text)
    source = doc_or_text if not isinstance(doc_or_text, dict) else json.dumps(doc_or_text)
    with pytest.raises(InputError, match=match) as info:
        Study.read(source, name="shared.json")
    message = str(info.value)
    assert "\n" not in message and message.startswith("shared.json")
    return message


def test_an_edited_file_fails_its_checksum(document):
    doc = json.loads(json.dumps(document))
    doc["runs"]["unconstrained"]["model"]["intercept"] += 1
    _refused(doc, "was changed after it was saved", rehash=False)
    doc = json.loads(json.dumps(document))
    doc["settings"]["time_limit"] = 3600.0
    _refused(doc, "was changed after it was saved", rehash=False)
    doc = json.loads(json.dumps(document))
    doc["checksum"] = "md5:abc"
    _refused(doc, "no valid checksum", rehash=False)
    doc.pop("checksum")
    _refused(doc, "no valid checksum", rehash=False)


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (
            lambda d: d["constraints"].append({"type": "os.system", "fields": {}}),
            r"constraints\[2\]: 'os.system' is not a risk score constraint",
        ),
        (
            lambda d: d["constraints"].append({"type": "FNRLimit", "fields": {"gamma": 0.1}}),
            "'FNRLimit' is not a risk score constraint",
        ),
        (
            lambda d: d["constraints"][0]["fields"].update(__class__="x"),
            "unknown field '__class__'",
        ),
        (lambda d: d["constraints"][0].update(code="print(1)"), r"constraints\[0\] must be"),
        (
            lambda d: d["constraints"][0]["fields"].update(feature=["a", "b"]),
            r"constraints\[0\] \(Exclude\).feature must be str, got \[\"a\", \"b\"\]",
        ),
        (
            lambda d: d["constraints"][1]["fields"].update(upper={"$float": "1e999"}),
            "unexpected value",
        ),
        (
            lambda d: d["runs"]["unconstrained"]["model"].update(extra=1),
            r"runs.unconstrained.model is not a risk score as riskexplore writes it",
        ),
        (
            lambda d: d["runs"]["unconstrained"]["model"].pop("points"),
            r"runs.unconstrained.model is not a valid risk score",
        ),
        (lambda d: d["runs"].update(third=d["runs"]["unconstrained"]), "runs.third is not a run"),
        (
            lambda d: d["runs"]["constrained"].update(family="forest"),
            "runs.constrained.family names unknown model family 'forest'",
        ),
        (lambda d: d["settings"].update(time_limit={"seconds": 5}), "settings.time_limit must be"),
        (lambda d: d["data"].update(sha256="abc"), "data.sha256 must be 64"),
        (lambda d: d["data"].update(source="http"), "data.source must be"),
        (lambda d: d["data"].update(outcome="Nope"), "data.outcome 'Nope' is not one of"),
        (lambda d: d["data"].pop("rows"), "data.rows is missing"),
        (lambda d: d["data"].update(rows=True), "data.rows must be a whole number"),
        (lambda d: d.update(pickle="gASV"), "'pickle' is not a field of a study"),
        (lambda d: d["size_path"]["rows"].pop(), "has 1 rows but 2 models"),
        (lambda d: d["size_path"].update(selected=7), "7 is not a size of the path"),
        (lambda d: d.update(version=VERSION + 1), "saved by a newer riskexplore"),
        (lambda d: d.update(version="1"), "format version must be a whole number"),
        (lambda d: d.update(format="something-else"), "is not a riskexplore study"),
    ],
)
def test_a_malformed_file_is_refused_even_with_a_matching_checksum(document, edit, match):
    doc = json.loads(json.dumps(document))
    edit(doc)
    _refused(doc, match)


def test_what_is_not_a_study_is_refused(document, tmp_path, monkeypatch):
    _refused('{"a": 1', "not valid JSON")
    _refused("[1, 2]", "not valid JSON|not a riskexplore study")
    _refused('{"x": NaN}', "not strict JSON")
    with pytest.raises(InputError, match="not UTF-8"):
        Study.read(b"\xff\xfe{", name="shared.json")
    with pytest.raises(InputError, match="is not a riskexplore study"):
        Study.read(b'{"format": "riskexplore-risk-score"}')
    with pytest.raises(InputError, match="no study file at"):
        Study.read(tmp_path / "missing.json")
    big = tmp_path / "big.json"
    big.write_text(json.dumps(document))
    monkeypatch.setattr(study_module, "MAX_STUDY_BYTES", 100)
    with pytest.raises(InputError, match="big.json is larger than"):
        Study.read(big)


def test_the_study_module_reads_data_never_code():
    """No pickle, eval, exec or dynamic import: constraint classes come from the
    families' whitelist, models from their own ``from_dict``."""
    tree = ast.parse(Path(study_module.__file__).read_text())
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    attrs = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    imported = {
        alias.name.split(".")[0]
        for n in ast.walk(tree)
        if isinstance(n, (ast.Import, ast.ImportFrom))
        for alias in n.names
    } | {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not {"eval", "exec", "compile", "__import__", "setattr"} & names
    assert "import_module" not in attrs
    assert not {"pickle", "marshal", "shelve", "importlib", "dill"} & imported


# --- the data ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def upload():
    """A study of an uploaded CSV file (mammo's rows), saved without and with its rows."""
    frame = load_dataset("mammo").frame
    content = frame.to_csv(index=False).encode()
    state = ExplorerState()
    state.load_csv(content, "patients.csv")
    state.set_outcome("Malignant")
    state.update_settings(max_size=2, time_limit=10)
    model = state.solve_function()(callbacks=[], stop=None)
    state.record("unconstrained", model, "risk_score", state.settings, [], state.data_version)
    return {
        "content": content,
        "bare": state.to_study().to_json(),
        "full": state.to_study(include_data=True).to_json(),
        "state": state,
    }


def test_a_study_of_an_upload_keeps_no_rows_unless_asked(upload):
    bare, full = json.loads(upload["bare"]), json.loads(upload["full"])
    assert bare["data"]["table"] is None and bare["data"]["name"] == "patients.csv"
    first_row = upload["content"].decode().splitlines()[1]
    assert first_row not in upload["bare"]
    assert full["data"]["table"].splitlines()[1] == first_row
    # with the rows: opens anywhere, without a warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opened = ExplorerState.from_study(upload["full"])
    assert opened.frame.equals(upload["state"].frame) and opened.source == "upload"


def test_a_study_of_an_upload_needs_its_file(upload):
    with pytest.raises(InputError, match="made on the uploaded file 'patients.csv' .* load that"):
        ExplorerState.from_study(upload["bare"])
    # the same file, given or already loaded: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        given = ExplorerState.from_study(upload["bare"], data=upload["content"])
        loaded = ExplorerState.from_study(upload["bare"], current=upload["state"])
    assert given.runs["unconstrained"].model == upload["state"].runs["unconstrained"].model
    assert loaded.frame.equals(upload["state"].frame)


def test_other_data_open_with_a_warning(upload):
    frame = pd.read_csv(pd.io.common.BytesIO(upload["content"]))
    frame.loc[0, "Age_geq_60"] = 1 - frame.loc[0, "Age_geq_60"]  # one value differs
    with pytest.warns(StudyWarning, match="the data differ from the study's") as caught:
        opened = ExplorerState.from_study(upload["bare"], data=frame, data_name="other.csv")
    assert "patients.csv" in str(caught[0].message) and "other.csv" in str(caught[0].message)
    assert opened.messages[-1][0] == "warning" and "differ" in opened.messages[-1][1]
    assert "unconstrained" in opened.runs  # shown on the data loaded now
    with pytest.raises(InputError, match="lack columns of the study's data .*: Density"):
        ExplorerState.from_study(upload["bare"], data=frame.drop(columns=["Density"]))


def test_a_bundled_dataset_that_changed_opens_with_a_warning(document):
    doc = json.loads(json.dumps(document))
    doc["data"]["sha256"] = "0" * 64  # as if the bundled file had been rebuilt since
    with pytest.warns(StudyWarning, match="mammo .* is not the table the study was made on"):
        ExplorerState.from_study(_rehash(doc))
    doc["data"]["name"] = "nope"
    with pytest.raises(InputError, match="bundled dataset 'nope', which this riskexplore"):
        ExplorerState.from_study(_rehash(doc))


def test_rows_that_do_not_match_their_hash_are_refused(upload):
    doc = json.loads(upload["full"])
    doc["data"]["table"] = doc["data"]["table"].replace("\n1,", "\n0,", 1)
    with pytest.raises(InputError, match="does not match its recorded hash"):
        ExplorerState.from_study(_rehash(doc))


def test_settings_this_version_refuses_are_named(document):
    doc = json.loads(json.dumps(document))
    doc["settings"]["colour"] = "blue"
    with pytest.raises(InputError, match="settings cannot be used: unknown setting 'colour'"):
        ExplorerState.from_study(_rehash(doc))


# --- the Explorer ------------------------------------------------------------------------------
def test_the_explorer_saves_and_opens_a_study_with_its_results_drawn(tmp_path):
    pytest.importorskip("ipywidgets")
    from riskexplore.widgets.explorer.widget import Explorer

    ex = Explorer("mammo", max_size=2, time_limit=10, auto_refresh=False)
    assert ex.add_constraint(C.Exclude("IrregularShape"))
    ex.solve(wait=True)
    ex.solve(constrained=True, wait=True)
    assert ex.compute_path(sizes=2, time_limit_per_size=5, wait=True)
    file = tmp_path / "mammo_study.json"
    saved = ex.save_study(file)
    assert set(saved.runs) == {"unconstrained", "constrained"} and saved.size_path is not None

    other = Explorer("heart", family="checklist", auto_refresh=False)
    assert other.open_study(file), other.last_message
    assert other.last_message[0] == "info" and "2 runs, 1 constraint" in other.last_message[1]
    assert other.save_study().to_json() == saved.to_json()  # exactly what was saved
    assert other.state.family == "risk_score" and other.family_picker.value == "risk_score"
    assert other.max_size.value == 2 and other.dataset_picker.value == "mammo"
    assert other.constraints == [C.Exclude("IrregularShape")]
    for run in ("unconstrained", "constrained"):
        monitor = other.monitors[run]
        assert monitor.model == ex.results[run] and monitor.status == "optimal"
        assert len(monitor.figure.data[0].x) == len(ex.results[run].trace) > 0  # the trace
        assert "certified optimal" in monitor.figure.layout.title.text
    assert other.reliability.model is not None and len(other.metrics.models) == 2
    assert other.comparison is not None and other.comparison.price_of_constraints is not None
    assert [r["size"] for r in other.pareto.rows] == [1, 2] and other.pareto.selected == 2
    # the Alternatives tab: a set found before opening is cleared (it is not the study's)
    other.alternatives.compute(wait=True)
    other.alternatives.wait()
    assert other.alternatives.state.found is not None
    assert other.open_study(file), other.last_message
    assert other.alternatives.state.found is None and other.alternatives.state.model is None

    # a bad file changes nothing
    before = other.save_study().to_json()
    doc = json.loads(before)
    doc["runs"]["constrained"]["model"]["intercept"] -= 1
    assert not other.open_study(json.dumps(doc).encode(), name="edited.json")
    assert other.last_message == (
        "error",
        "Could not open the study: edited.json was changed after it was saved (its checksum "
        "does not match its content), so it is not opened; save the study again from "
        "riskexplore",
    )
    assert other.save_study().to_json() == before


def test_the_explorer_warns_on_the_page_when_the_data_differ(upload):
    pytest.importorskip("ipywidgets")
    from riskexplore.widgets.explorer.widget import Explorer

    ex = Explorer(auto_refresh=False)
    assert not ex.open_study(upload["bare"], name="patients_study.json")
    assert "load that file first" in ex.last_message[1]
    changed = upload["content"].replace(b"\n1,", b"\n0,", 1)
    assert ex.load_csv(changed, "patients.csv")
    with pytest.warns(StudyWarning):
        assert ex.open_study(upload["bare"])
    level, text = ex.last_message
    assert level == "warning" and "the data differ from the study's" in text
    assert ex.monitors["unconstrained"].model is not None
