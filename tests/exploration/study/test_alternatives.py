"""A study keeps the Alternatives tab's near-optimal set: saved with the model selected,
opened again with every model, its certified distance and the set's certificate, and hand
edits of a restored model certified as on the original; a set of other settings or other
data is never shown as the study's; malformed sets are refused by name."""

from __future__ import annotations

import json

import pytest

import riskexplore.risk_score.constraints as C
from riskexplore.errors import InputError
from riskexplore.exploration.study.document import VERSION, Study, StudyWarning, checksum

pytest.importorskip("ipywidgets")
from riskexplore.widgets.explorer.widget import Explorer  # noqa: E402

SETUPS = {
    "risk_score": ("mammo", {"max_size": 3}, [C.Exclude("RoundShape")]),
    "checklist": ("heart", {"max_items": 3}, []),
}


@pytest.fixture(scope="module", params=sorted(SETUPS))
def explored(request):
    """An Explorer with a run, a near-optimal set (its second model selected) and its
    study, saved as JSON text."""
    family = request.param
    dataset, settings, rules = SETUPS[family]
    ex = Explorer(dataset, family=family, time_limit=20, auto_refresh=False, **settings)
    for rule in rules:
        assert ex.add_constraint(rule)
    ex.solve(wait=True)
    assert ex.alternatives.compute(wait=True)
    ex.alternatives.wait()
    found = ex.alternatives.state.found
    assert found is not None and len(found) >= 2 and found.complete, found and found.describe()
    assert ex.alternatives.select(1)
    study = ex.save_study()
    return family, ex, study, study.to_json()


def _rehash(doc: dict) -> dict:
    doc = dict(doc)
    doc.pop("checksum", None)
    doc["checksum"] = checksum(doc)
    return doc


def test_the_set_and_its_selection_round_trip_exactly(explored):
    family, ex, study, text = explored
    found = ex.alternatives.state.found
    assert study.alternatives is found and study.alternatives_selected == 1
    assert f"{len(found)} near-optimal models" in study.summary()
    again = Study.read(text)
    assert again == study and again.to_json() == text
    restored = again.alternatives
    assert (restored.family, restored.complete, restored.certified, restored.reason) == (
        family,
        True,
        True,
        None,
    )
    assert (restored.optimum, restored.lower_bound, restored.tolerance) == (
        found.optimum,
        found.lower_bound,
        found.tolerance,
    )
    assert [a.model.to_dict() for a in restored] == [a.model.to_dict() for a in found]
    assert [a.model.distance for a in restored] == [a.model.distance for a in found]
    assert [(a.rank, a.features, a.metrics) for a in restored] == [
        (a.rank, a.features, a.metrics) for a in found
    ]


def test_the_explorer_opens_the_set_drawn_and_edits_stay_certified(explored):
    family, ex, _study, text = explored
    other = Explorer(auto_refresh=False)
    assert other.open_study(text), other.last_message
    assert other.last_message[0] == "info", other.last_message
    assert "near-optimal model" in other.last_message[1]
    view, found = other.alternatives, ex.alternatives.state.found
    state = view.state
    assert state.selected == 1 and state.model.to_dict() == found[1].model.to_dict()
    assert len(view.cards.children) == len(found)
    assert view.cards.children[1].button_style == "info"  # the selected card
    assert "complete" in view.summary.value and "Model #2" in view.card.value
    assert view._tolerance() == found.tolerance  # the field shows what the set is within
    assert other.save_study().to_json() == text  # saved again: the same file
    # the same hand edit on the original and on the restored model: the same certificate
    if family == "risk_score":
        feature = next(f for f, v in found[1].model.all_points.items() if v != 0)
        assert ex.alternatives.change_points(feature, -1), ex.alternatives.message.value
        assert view.change_points(feature, -1), view.message.value
    else:
        item = next(i for i in found[1].model.item_names if i not in found[1].model.items)
        assert ex.alternatives.set_item(item, True), ex.alternatives.message.value
        assert view.set_item(item, True), view.message.value
    edited, original = state.model, ex.alternatives.state.model
    assert edited.to_dict() == original.to_dict()
    assert edited.distance == original.distance and edited.distance.notes == ()
    assert ex.alternatives.reset() is None and view.reset() is None


def test_a_set_of_other_settings_is_not_saved(explored):
    family, _ex, _study, text = explored
    other = Explorer(auto_refresh=False)
    assert other.open_study(text)
    assert other.alternatives.state.found is not None
    size = other.state.model_family.size_parameter
    other.update_settings(**{size: 2})
    study = other.save_study()
    assert study.alternatives is None and "near-optimal" not in study.summary()


def test_a_set_found_on_other_data_is_left_out(explored):
    _family, ex, _study, text = explored
    frame = ex.state.frame.copy()
    frame.iloc[0, 0] = 1 - frame.iloc[0, 0] if frame.iloc[0, 0] in (0, 1) else frame.iloc[0, 0] + 1
    other = Explorer(auto_refresh=False)
    with pytest.warns(StudyWarning):
        assert other.open_study(text, data=frame)
    level, message = other.last_message
    assert level == "warning" and "The near-optimal set was left out" in message
    assert other.alternatives.state.found is None
    assert other.monitors["unconstrained"].model is not None  # the run is still shown


def test_a_study_of_format_1_has_no_set_and_opens():
    ex = Explorer("mammo", max_size=1, time_limit=10, auto_refresh=False)
    doc = ex.save_study().to_dict()
    doc.pop("alternatives")
    doc["version"] = 1
    study = Study.read(_rehash(doc))
    assert study.alternatives is None and study.alternatives_selected is None


@pytest.mark.parametrize(
    "edit, match",
    [
        (lambda a: a.update(family="other"), r"alternatives.family must be the study's family"),
        (lambda a: a.update(extra=1), "alternatives.extra is not a field of a near-optimal set"),
        (lambda a: a.pop("complete"), "alternatives.complete is missing"),
        (lambda a: a.update(complete="yes"), "alternatives.complete must be true or false"),
        (lambda a: a.update(optimum="x"), "alternatives.optimum must be a number"),
        (lambda a: a.update(tolerance=-1.0), "negative tolerance"),
        (lambda a: a.update(tolerance_unit="percent"), "tolerance_unit must be one of"),
        (lambda a: a.update(reason="bored"), "alternatives.reason must be null or one of"),
        (lambda a: a.update(nodes=-3), r"alternatives.nodes must be a whole number"),
        (lambda a: a.update(models=[]), "alternatives.models must be a non-empty list"),
        (lambda a: a.update(selected=99), "alternatives.selected must be null or an index"),
        (lambda a: a["models"][0].update(rank=2), r"models\[0\].rank must be 1"),
        (lambda a: a["models"][1].pop("metrics"), r"models\[1\] must be an object with"),
        (lambda a: a["models"][0].update(features="Age"), r"features must be a list"),
        (lambda a: a["models"][0]["metrics"].update(train_auc="high"), "must be a number or null"),
        (lambda a: a["models"][0]["model"].update(hidden=1), r"models\[0\].model is not a"),
    ],
)
def test_a_malformed_set_is_refused_even_with_a_matching_checksum(explored, edit, match):
    _family, _ex, _study, text = explored
    doc = json.loads(text)
    edit(doc["alternatives"])
    with pytest.raises(InputError, match=match) as info:
        Study.read(json.dumps(_rehash(doc)), name="shared.json")
    assert str(info.value).startswith("shared.json") and "\n" not in str(info.value)


def test_a_newer_format_is_refused(explored):
    doc = json.loads(explored[3])
    doc["version"] = VERSION + 1
    with pytest.raises(InputError, match="saved by a newer riskexplore"):
        Study.read(_rehash(doc))
