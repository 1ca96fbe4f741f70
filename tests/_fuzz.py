"""A fuzzer of the public API: random data, settings and constraints for both families, the
command line, and study files (shared by ``tests/test_fuzz.py`` and ``benchmarks/fuzz.py``).

Every case is a :func:`hypothesis.strategies` draw (:data:`CASES`) run by :func:`run_case`,
whose answer is one of

* ``"model"``: a model whose certificate is consistent (lower bound <= upper bound, both
  finite or the lower bound -inf/0, gap in [0, 1]);
* ``"error"``: a :class:`~riskexplore.errors.RiskExploreError` with a message (or, for the
  command line, exit code 2 and one ``error:`` line that names no Python internals; for a
  study file, a refusal);
* ``"defect"``: anything else (another exception, an inconsistent certificate, an internal
  message), with the exception's type and message.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import strategies as st

import riskexplore.checklist.constraints as K
import riskexplore.risk_score.constraints as C
from riskexplore import fit_checklist, fit_risk_score
from riskexplore.errors import RiskExploreError

#: Seconds a fit may search (the fuzzer wants many short cases, not good models).
TIME_LIMIT = 1.0
#: Words of messages that leak Python internals to a user.
INTERNAL = (
    "Traceback",
    "broadcast",
    "index out of bounds",
    "has no attribute",
    "object is not",
    "unsupported operand",
    "NoneType",
)

# --- data ----------------------------------------------------------------------------------
_names = st.sampled_from(["age", "bmi", "smoker", "sex", "x1", "x2", "a b", "é", "0", "age"])
_values = st.one_of(
    st.integers(-3, 3),
    st.sampled_from([0, 1]),
    st.floats(-100, 100, allow_nan=False),
    st.sampled_from([1e300, -1e300, 1e18, 1e9, 1e-300, float("nan"), float("inf")]),
)


@st.composite
def frames(draw) -> tuple[pd.DataFrame, list[int]]:
    """A table of 1-6 features (mostly small numbers, sometimes huge, missing or text
    values, repeated names) and an outcome of 0/1 (sometimes a single class)."""
    d = draw(st.integers(1, 6))
    n = draw(st.integers(8, 40) if draw(st.integers(0, 9)) else st.integers(1, 8))
    names = [draw(_names) + ("" if draw(st.integers(0, 4)) == 0 else str(j)) for j in range(d)]
    rare = draw(st.integers(0, 9))  # most tables are clean: the solvers are reached
    columns = {}
    for j in range(d):
        kind = draw(st.sampled_from(["binary", "small", "any"] if rare == 0 else ["binary"] * 2))
        if kind == "binary":
            col = draw(st.lists(st.sampled_from([0, 1]), min_size=n, max_size=n))
        elif kind == "small":
            col = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
        else:
            col = draw(st.lists(_values, min_size=n, max_size=n))
        columns[j] = col
    frame = pd.DataFrame(columns)
    frame.columns = names
    if rare == 1 and d:
        frame[names[0]] = frame[names[0]].astype(str)
    y = draw(st.lists(st.sampled_from([0, 1]), min_size=n, max_size=n))
    return frame, y


# --- settings and constraints ---------------------------------------------------------------
_bound = st.one_of(st.integers(-6, 6), st.sampled_from([-(10**9), 10**9, -20000, 20000]))


def _pick(draw, wild: bool, tame, anything):
    """``anything`` in a wild case (settings that may be wrong), else ``tame``."""
    return draw(anything if wild else tame)


@st.composite
def risk_settings(draw, names: list[str]) -> dict:
    """Keyword arguments of ``fit_risk_score``: valid in most cases, in one of four
    anything (wrong, crossed or very wide)."""
    wild = draw(st.integers(0, 3)) == 0
    lo, hi = draw(st.integers(-6, 0)), draw(st.integers(0, 6))
    s = {
        "max_size": _pick(draw, wild, st.integers(1, 4), st.one_of(st.none(), st.integers(-1, 7))),
        "coef_min": _pick(draw, wild, st.just(lo), _bound),
        "coef_max": _pick(draw, wild, st.just(hi), _bound),
        "intercept_min": _pick(draw, wild, st.just(-100), _bound),
        "intercept_max": _pick(draw, wild, st.just(100), _bound),
        "c0": _pick(
            draw, wild, st.sampled_from([1e-6, 0.01]), st.sampled_from([0.0, -1.0, float("inf")])
        ),
        "scale": _pick(draw, wild, st.sampled_from(["fixed", "learned"]), st.just("cubic")),
    }
    if s["scale"] == "learned" or (wild and draw(st.booleans())):
        s["scale"] = "learned"
        s["multiplier_min"] = _pick(
            draw, wild, st.sampled_from([0.25, 1.0]), st.sampled_from([1e-9, 0.0, -1.0, 5.0])
        )
        s["multiplier_max"] = _pick(
            draw, wild, st.sampled_from([10.0, 3.0]), st.sampled_from([1e9, 0.5, float("inf")])
        )
    s["constraints"] = draw(st.lists(risk_rule(names), max_size=3))
    return s


def _rule(cls, *args):
    """A rule drawn as ``(class, arguments)``: built when the case runs, so that a rule the
    constructor refuses is an outcome of the case, not a failed draw."""
    return st.tuples(st.just(cls), st.tuples(*args))


def build_rules(rules) -> list:
    """The rules of a case, constructed."""
    return [cls(*args) for cls, args in rules]


def risk_rule(names: list[str]):
    """A rule of a risk score over ``names`` (or an unknown name)."""
    name = st.sampled_from([*names, *names, "nope"])
    pair = st.lists(name, min_size=1, max_size=3).map(tuple)
    return st.one_of(
        _rule(C.Include, name),
        _rule(C.Exclude, name),
        _rule(C.Sign, name, st.sampled_from([1, -1, 0])),
        _rule(C.AtMostKOf, pair, st.integers(-1, 3)),
        _rule(C.AtLeastKOf, pair, st.integers(0, 3)),
        _rule(C.MaxFeatures, st.integers(-1, 5)),
        _rule(C.PointsBetween, name, st.integers(-3, 3), st.integers(-3, 3)),
        _rule(C.NotTogether, name, name),
    )


@st.composite
def checklist_settings(draw, names: list[str]) -> dict:
    """Keyword arguments of ``fit_checklist`` (valid in most cases, as for risk scores)."""
    wild = draw(st.integers(0, 3)) == 0
    item = st.sampled_from([*(f"{n} >= 1" for n in names), "nope"])
    rules = st.one_of(
        _rule(K.FNRLimit, st.sampled_from([0.0, 0.3, 0.6, 1.0, 2.0])),
        _rule(K.MRange, st.integers(0, 3), st.integers(0, 3)),
        _rule(K.MaxItems, st.integers(-1, 4)),
        _rule(K.ExcludeItem, item),
    )
    return {
        "max_items": _pick(draw, wild, st.integers(1, 4), st.one_of(st.none(), st.integers(-1, 6))),
        "binarize": _pick(
            draw, wild, st.sampled_from(["adaptive", "fixed", None]), st.sampled_from(["other"])
        ),
        "min_m": _pick(draw, wild, st.integers(1, 2), st.integers(0, 3)),
        "fp_weight": _pick(draw, wild, st.sampled_from([1.0, 3.0]), st.sampled_from([0.0, -1.0])),
        "constraints": draw(st.lists(rules, max_size=2)),
    }


@st.composite
def api_cases(draw) -> dict:
    frame, y = draw(frames())
    family = draw(st.sampled_from(["risk_score", "checklist"]))
    names = [str(c) for c in frame.columns]
    strategy = risk_settings if family == "risk_score" else checklist_settings
    return {"kind": family, "frame": frame, "y": y, "settings": draw(strategy(names))}


@st.composite
def cli_cases(draw) -> dict:
    frame, y = draw(frames())
    command = draw(st.sampled_from(["fit", "checklist"]))
    argv = [command]
    if command == "fit":
        for flag in ("--max-size", "--coef-min", "--coef-max", "--intercept-min"):
            if draw(st.booleans()):
                argv += [flag, str(draw(_bound))]
        if draw(st.booleans()):
            argv += ["--scale", "learned", "--multiplier-max", draw(st.sampled_from(["3", "1e9"]))]
    else:
        if draw(st.booleans()):
            argv += ["--max-items", str(draw(st.integers(-1, 5)))]
        argv += ["--binarize", draw(st.sampled_from(["adaptive", "fixed", "none"]))]
    return {"kind": "cli", "frame": frame, "y": y, "argv": argv}


_json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
    st.just([]),
    st.just({}),
)


@st.composite
def study_cases(draw) -> dict:
    """Edits of a real study file: a value somewhere replaced (the checksum recomputed, as a
    careful forger would, or not), a key removed, or the file cut short."""
    return {
        "kind": "study",
        "path_pick": draw(st.lists(st.integers(0, 10**6), min_size=1, max_size=6)),
        "edit": draw(st.sampled_from(["replace", "replace", "delete", "truncate"])),
        "value": draw(_json_leaf),
        "rehash": draw(st.booleans()),
        "cut": draw(st.integers(0, 5000)),
    }


CASES = st.one_of(api_cases(), api_cases(), api_cases(), cli_cases(), study_cases())


# --- running a case ------------------------------------------------------------------------
def check_certificate(model) -> str | None:
    """Why ``model``'s certificate is inconsistent, or None."""
    c = model.certificate
    lower, upper, gap = float(c.lower_bound), float(c.upper_bound), float(c.gap)
    if not math.isfinite(upper):
        return f"upper bound {upper}"
    if math.isnan(lower) or lower > upper + 1e-7 * max(1.0, abs(upper)):
        return f"lower bound {lower} above upper bound {upper}"
    if not (0.0 <= gap <= 1.0):
        return f"gap {gap} outside [0, 1]"
    return None


def _fit(case: dict):
    frame, y = case["frame"], pd.Series(case["y"], name="outcome")
    settings = dict(case["settings"])
    settings["constraints"] = build_rules(settings["constraints"])
    if case["kind"] == "risk_score":
        return fit_risk_score(frame, y, time_limit=TIME_LIMIT, **settings)
    return fit_checklist(frame, y, time_limit=TIME_LIMIT, **settings)


def _cli(case: dict) -> dict:
    from riskexplore.cli import main

    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp) / "data.csv"
        table = case["frame"].copy()
        table.insert(0, "outcome", case["y"])
        table.to_csv(csv, index=False)
        argv = [*case["argv"], str(csv), "--time-limit", str(TIME_LIMIT), "--json"]
        err, out = io.StringIO(), io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse: a usage error
                code = exc.code
    message = err.getvalue().strip()
    if code == 0:
        model = json.loads(out.getvalue())
        cert = model.get("certificate", {})
        lower, upper = cert.get("lower_bound", 0), cert.get("upper_bound", 0)
        if isinstance(lower, int | float) and isinstance(upper, int | float) and lower > upper:
            return {"outcome": "defect", "error": f"lower {lower} > upper {upper}"}
        return {"outcome": "model"}
    if code == 2 and message and not any(w in message for w in INTERNAL):
        return {"outcome": "error", "error": message.splitlines()[-1][:300]}
    return {"outcome": "defect", "error": f"exit {code}: {message[-300:]}"}


_BASE_STUDY: dict | None = None


def base_study() -> dict:
    """A real study document (mammo, a small certified search), made once."""
    global _BASE_STUDY
    if _BASE_STUDY is None:
        from riskexplore.exploration.explorer import ExplorerState

        state = ExplorerState()
        state.load_dataset("mammo")
        state.update_settings(max_size=2, time_limit=10)
        model = state.solve_function([])(callbacks=[], stop=None)
        state.record("unconstrained", model, state.family, state.settings, [], state.data_version)
        _BASE_STUDY = json.loads(state.to_study([]).to_json())
    return _BASE_STUDY


def _edited_study(case: dict) -> bytes:
    from riskexplore.exploration.study.document import checksum

    doc = json.loads(json.dumps(base_study()))
    node, key = doc, None
    for depth, pick in enumerate(case["path_pick"]):
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            break
        key = keys[pick % len(keys)]
        last = depth == len(case["path_pick"]) - 1
        if last or not isinstance(node[key], dict | list) or not node[key]:
            break
        node, key = node[key], None
    if key is not None and case["edit"] == "replace":
        node[key] = case["value"]
    elif key is not None and case["edit"] == "delete":
        del node[key]
    if case["rehash"]:
        doc.pop("checksum", None)
        doc["checksum"] = checksum(doc)
    text = json.dumps(doc).encode()
    return text[: case["cut"]] if case["edit"] == "truncate" else text


def _study(case: dict) -> dict:
    from riskexplore.exploration.explorer import ExplorerState

    state = ExplorerState.from_study(_edited_study(case))
    for run in state.runs.values():
        why = check_certificate(run.model)
        if why:
            return {"outcome": "defect", "error": why}
    return {"outcome": "model"}


def run_case(case: dict) -> dict:
    """Run one case; ``{"outcome", "error", "seconds", "kind"}`` (module docstring)."""
    started = time.perf_counter()
    try:
        if case["kind"] == "cli":
            answer = _cli(case)
        elif case["kind"] == "study":
            answer = _study(case)
        else:
            why = check_certificate(_fit(case))
            answer = {"outcome": "defect", "error": why} if why else {"outcome": "model"}
    except RiskExploreError as exc:
        message = str(exc).strip()
        bad = not message or any(w in message for w in INTERNAL)
        answer = {"outcome": "defect" if bad else "error", "error": message[:300]}
    except Exception as exc:  # a defect: the user would see a Python error
        where = traceback.extract_tb(exc.__traceback__)[-1]
        answer = {
            "outcome": "defect",
            "error": f"{type(exc).__name__}: {str(exc)[:300]}",
            "where": f"{Path(where.filename).name}:{where.lineno}",
        }
    answer["kind"] = case["kind"]
    answer["seconds"] = round(time.perf_counter() - started, 3)
    return answer


def describe(case: dict) -> dict:
    """The case as JSON-able data (for a report line)."""
    out = {k: v for k, v in case.items() if k not in ("frame", "settings")}
    if "frame" in case:
        frame = case["frame"]
        out["frame"] = {"columns": [str(c) for c in frame.columns], "rows": len(frame)}
        out["y"] = list(case["y"])[:5]
        out["values"] = np.asarray(frame.head(3).astype(object)).tolist()
    if "settings" in case:
        out["settings"] = {k: repr(v) for k, v in case["settings"].items()}
    return json.loads(json.dumps(out, default=repr))
