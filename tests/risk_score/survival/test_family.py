"""Survival scores as the third family: the registry, live incumbents, card, comparison."""

from __future__ import annotations

import numpy as np
import pytest
from _survival_data import structured, survival_data

from riskexplore import iter_fit_survival_score
from riskexplore.core.registry import family_of, family_of_incumbent, get_family
from riskexplore.errors import InputError


def test_the_family_is_registered_with_its_outcome_kind_and_incumbents():
    family = get_family("survival_score")
    assert get_family("cox") is family and family.outcome == "survival"
    assert get_family("risk_score").outcome == "binary" == get_family("checklist").outcome
    assert family_of_incumbent({"hazard_points": {"a": 1}}) is family
    assert family_of_incumbent({"intercept": 0, "points": {"a": 1}}) is get_family("risk_score")


def test_a_fit_through_the_family_streams_incumbents_that_make_cards():
    family = get_family("survival_score")
    X, time, event, _ = survival_data(n=150, d=4, seed=2)
    y = structured(time, event)
    family.check_data(X, y, {})
    events = iter_fit_survival_score(X, y, c0=0.001, coef_min=-3, coef_max=3, n_jobs=1)
    incumbents = []
    while True:
        try:
            event_ = next(events)
        except StopIteration as done:
            model = done.value
            break
        if event_.incumbent is not None:
            incumbents.append(event_.incumbent)
    assert incumbents and family_of(model) is family
    live = family.from_incumbent(incumbents[-1], model.certificate, {}, template=model)
    assert live.points == model.points
    assert family.describe_incumbent(incumbents[-1]) == ", ".join(
        f"{n} {p:+d}" for n, p in model.points.items()
    )
    with pytest.raises(InputError, match="no baseline hazard"):
        live.predict_risk(X)
    header, (names, points) = family.card_table(model)
    assert header == ["item", "points"] and names == list(model.points)
    again = family.fit(X, y, c0=0.001, coef_min=-3, coef_max=3, max_size=1, n_jobs=1)
    table = family.compare_table(model, again, ("free", "one item"))
    assert table["changed"].any() and set(table["item"]) >= set(model.points)


def test_what_the_family_does_not_offer_yet_is_refused_clearly():
    family = get_family("survival_score")
    X, time, event, _ = survival_data(n=30, d=2, seed=0)
    with pytest.raises(InputError, match="time"):
        family.check_data(X, np.ones(30), {})  # a 0/1 label is no survival outcome
    with pytest.raises(InputError, match="bands are not offered"):
        family.path_session(X, structured(time, event), bands=["x0"])


def test_the_explorer_settings_are_checked_and_become_fit_arguments():
    family = get_family("survival_score")
    settings = dict(family.settings, time_column="days", horizon=365)
    family.check_settings(settings)
    assert family.fit_arguments(settings) == {
        "max_size": 5,
        "coef_min": -5,
        "coef_max": 5,
        "horizon": 365.0,
        "time_unit": "days",
        "binarize": None,
    }
    unnamed = family.fit_arguments(dict(settings, time_column="futime"))
    assert unnamed["time_unit"] == "time units"  # the card never shows a bare "by 365"
    for bad, match in (
        ({"horizon": -1}, "horizon"),
        ({"coef_min": 1}, "points range"),
        ({"max_size": 0}, "max_size"),
        ({"time_column": 3}, "time_column"),
    ):
        with pytest.raises(InputError, match=match):
            family.check_settings({**settings, **bad})
