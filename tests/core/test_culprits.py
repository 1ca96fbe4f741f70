"""Tests for riskexplore.core.culprits: the deletion filter and its messages."""

from __future__ import annotations

import itertools

import pytest

from riskexplore.core.culprits import check_feasible, conflict_message, deletion_filter
from riskexplore.errors import InfeasibleError

# parts are intervals "lo-hi" of an integer x in [0, 10]; a set is feasible when they overlap
PARTS = {"x>=6": (6, 10), "x<=3": (0, 3), "x<=8": (0, 8), "x>=1": (1, 10), "x<=5": (0, 5)}


def probe(active, bounds=(0, 10)):
    lo = max([bounds[0]] + [PARTS[p][0] for p in active])
    hi = min([bounds[1]] + [PARTS[p][1] for p in active])
    return ("feasible", lo) if lo <= hi else ("infeasible", None)


def test_deletion_filter_is_irreducible():
    parts = list(PARTS)
    keep = deletion_filter(parts, lambda a: probe(a)[0] == "infeasible")
    assert probe(keep)[0] == "infeasible"
    for part in keep:  # dropping any one part makes the rest feasible
        assert probe([k for k in keep if k != part])[0] == "feasible"
    assert keep == ["x>=6", "x<=5"]  # the last conflicting pair in order survives


def test_deletion_filter_matches_brute_force_minimality():
    parts = list(PARTS)
    keep = deletion_filter(parts, lambda a: probe(a)[0] == "infeasible")
    smaller = [
        c
        for r in range(1, len(keep))
        for c in itertools.combinations(keep, r)
        if probe(list(c))[0] == "infeasible"
    ]
    assert smaller == []


def test_check_feasible_returns_the_model_or_names_culprits():
    assert check_feasible(["x>=1", "x<=8"], probe, model="number", empty="none") == 1
    with pytest.raises(InfeasibleError) as info:
        check_feasible(list(PARTS), probe, model="number", empty="none")
    assert info.value.culprits == ["x>=6", "x<=5"]
    assert info.value.bounds_involved is False
    assert str(info.value) == "constraints are infeasible together: 'x>=6' conflicts with 'x<=5'"


def test_check_feasible_with_bounds_and_undecided():
    def tight(active):  # x in [0, 4]: "x>=6" alone conflicts with the bounds
        return probe(active, bounds=(0, 4))

    with pytest.raises(InfeasibleError) as info:
        check_feasible(
            ["x>=1", "x>=6"],
            tight,
            model="number",
            empty="none",
            bounds=("the range [0, 4]", lambda keep: probe(keep)[0] == "feasible"),
        )
    assert info.value.culprits == ["x>=6"] and info.value.bounds_involved
    assert str(info.value) == "constraint 'x>=6' cannot be satisfied within the range [0, 4]"
    assert check_feasible(["x>=6"], lambda a: ("unknown", None), model="n", empty="e") is None


def test_conflict_messages():
    assert conflict_message([], "checklist", empty="sizes conflict") == "sizes conflict"
    assert conflict_message(["a"], "checklist", empty="") == (
        "constraint 'a' cannot be satisfied by any checklist"
    )
    assert conflict_message(["a", "b", "c"], "risk score", empty="", given="the bounds") == (
        "constraints are infeasible together: 'a', 'b' and 'c' cannot all hold given the bounds"
    )
