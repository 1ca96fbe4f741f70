"""The Explorer driven from code: data, outcome, constraints, both runs, result views, and
readable messages for every invalid choice (previous results stay)."""

from __future__ import annotations

import datetime
import math

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("plotly")

from riskexplore.checklist import constraints as cc  # noqa: E402
from riskexplore.errors import InputError  # noqa: E402
from riskexplore.exploration.explorer import MAX_UPLOAD_BYTES, ExplorerState  # noqa: E402
from riskexplore.risk_score import constraints as C  # noqa: E402
from riskexplore.widgets.explorer.widget import Explorer  # noqa: E402


def level(ex):
    return ex.last_message[0]


def _upload(ex, name: str, content: bytes) -> None:
    """Choose a file in the Explorer's upload button, as the FileUpload widget does."""
    ex.upload.value = (
        {
            "name": name,
            "type": "text/csv",
            "size": len(content),
            "content": memoryview(content),
            "last_modified": datetime.datetime(2026, 1, 1),
        },
    )


@pytest.fixture(scope="module")
def solved():
    """mammo risk scores: unconstrained and constrained runs (max_size 3, 3 s each)."""
    ex = Explorer("mammo", time_limit=3, max_size=3, auto_refresh=False)
    assert ex.add_constraint(C.Exclude("IrregularShape")), ex.last_message
    free = ex.solve(constrained=False)
    bound = ex.solve(constrained=True)
    assert free is not None and bound is not None
    assert free.wait(60) in ("optimal", "time_limit")
    assert bound.wait(60) in ("optimal", "time_limit")
    return ex


def test_layout_and_state():
    import ipywidgets as w

    ex = Explorer(time_limit=5, auto_refresh=False)
    assert isinstance(ex.widget, w.VBox) and isinstance(ex.state, ExplorerState)
    assert ex.state.frame is None and ex.results == {}
    assert ex.solve() is None and "load a dataset" in ex.last_message[1]
    assert not ex.add_constraint(C.MaxFeatures(2))
    ex.dataset_picker.value = "mammo"  # the dropdown loads it
    assert ex.state.dataset == "mammo" and ex.state.outcome == "Malignant"
    assert ex.outcome_picker.value == "Malignant"
    assert len(ex.state.X) + len(ex.state.X_test) == 961
    assert abs(ex.state.y.mean() - ex.state.y_test.mean()) < 0.02  # stratified split
    assert type(ex.constraint_builder).__name__ == "ConstraintBuilder"
    ex.family_picker.value = "checklist"
    assert ex.state.family == "checklist"
    assert ex.settings_controls.family_boxes["checklist"].layout.display is None
    assert ex.settings_controls.family_boxes["risk_score"].layout.display == "none"
    assert type(ex.constraint_builder).__name__ == "ChecklistConstraintBuilder"
    # settings from the widgets; invalid values are refused with a message
    ex.time_limit.value = 7
    assert ex.settings["time_limit"] == 7
    assert not ex.update_settings(coef_min=2)
    assert "coefficient range" in ex.last_message[1] and ex.settings["coef_min"] == -5
    assert not ex.update_settings(nonsense=1) and level(ex) == "error"


def test_both_runs_and_result_views(solved):
    ex = solved
    assert set(ex.results) == {"unconstrained", "constrained"}
    free, bound = ex.results["unconstrained"], ex.results["constrained"]
    assert "IrregularShape" not in bound.points
    run = ex.state.runs["constrained"]
    assert run.constraints == [C.Exclude("IrregularShape")] and run.family == "risk_score"
    # both monitors kept their models, side by side
    assert ex.monitors["unconstrained"].model is free
    assert ex.monitors["constrained"].model is bound
    # compare view: the certified price interval
    price = ex.comparison.price_of_constraints
    lo, hi = price
    assert 0 <= lo <= hi < math.inf
    assert hi == pytest.approx(
        max(0.0, bound.certificate.upper_bound - free.certificate.lower_bound)
    )
    assert "certified price of the constraints" in ex.compare.price_label.value
    assert "certified price" in ex.compare.figure.layout.title.text
    # metrics panel: both models, train and test
    names = [t.name for t in ex.metrics.figure.data]
    assert {"unconstrained train", "unconstrained test", "constrained test"} <= set(names)
    assert list(ex.metrics.table.index) == ["unconstrained", "constrained"]
    # reliability view follows the run picker
    shown = np.asarray(ex.reliability.figure.data[1].x).copy()
    ex.reliability_run.value = "unconstrained"
    assert ex.reliability.model is free
    ex.reliability_run.value = "constrained"
    assert ex.reliability.model is bound and len(shown)
    # every view as a static figure
    figures = ex.figures()
    assert {"unconstrained", "constrained", "reliability", "metrics", "compare"} <= set(figures)
    assert all(type(f).__name__ == "Figure" for f in figures.values())
    assert "certified price" in figures["compare"].layout.title.text


def test_reliability_of_a_run_not_solved_yet_is_empty():
    ex = Explorer("mammo", time_limit=1, max_size=2, auto_refresh=False)
    ex.solve(constrained=False, wait=True)
    free = ex.results["unconstrained"]
    assert ex.reliability.model is free and len(ex.reliability.figure.data[1].x)
    assert ex.metrics.models == {"unconstrained": free}
    ex.reliability_run.value = "constrained"  # no such run: no diagram under its name
    assert ex.reliability.model is None and len(ex.reliability.figure.data[1].x) == 0
    assert "No constrained model" in ex.reliability.message.value
    ex.reliability_run.value = "unconstrained"
    assert ex.reliability.model is free and len(ex.reliability.figure.data[1].x)
    assert ex.reliability.message.value == ""


def test_invalid_choices_are_messages_and_results_stay(solved):
    ex = solved
    before = dict(ex.results)
    rel = np.asarray(ex.reliability.figure.data[1].x).copy()
    # constraint on a missing feature; infeasible set
    assert not ex.add_constraint(C.Include("NoSuchFeature"))
    assert "NoSuchFeature" in ex.last_message[1] and level(ex) == "error"
    assert not ex.add_constraint(C.Include("IrregularShape"))  # Exclude is active
    assert "conflict" in ex.last_message[1] or "infeasible" in ex.last_message[1].lower()
    assert ex.constraints == [C.Exclude("IrregularShape")]
    ex.clear_constraints()
    assert ex.solve(constrained=True) is None and "constraint" in ex.last_message[1]
    # bad uploads
    assert not ex.load_csv(b"x" * (MAX_UPLOAD_BYTES + 1), "big.csv")
    assert "20 MB" in ex.last_message[1]
    assert not ex.load_csv(b"a,b,c\n1,2,3\n4,5,6,7\n1,2,3\n1,2,3\n", "ragged.csv")
    assert "could not read ragged.csv as CSV" in ex.last_message[1]
    assert not ex.load_csv(b"\xff\xfe\x00\x81\x00", "binary.csv")
    assert not ex.load_csv(b"", "empty.csv") and "empty" in ex.last_message[1]
    assert ex.state.dataset == "mammo"  # nothing changed
    # a run that fails (e.g. infeasible constraints found by the solver): message only
    from riskexplore.errors import InfeasibleError

    ex.run_controls.finished(
        "constrained", None, InfeasibleError("no risk score satisfies the constraints")
    )
    assert "The constrained solve failed: no risk score satisfies" in ex.last_message[1]
    assert ex.results == before
    np.testing.assert_allclose(ex.reliability.figure.data[1].x, rel)
    assert "Traceback" not in ex.message.value


def test_new_data_clear_the_result_views():
    """After a solve, choosing other data leaves no result of the old data on screen."""
    ex = Explorer("mammo", time_limit=2, max_size=2, auto_refresh=False)
    runner = ex.solve(constrained=False)
    assert runner is not None and runner.wait(60) in ("optimal", "time_limit")
    ex.wait(60)
    assert ex.reliability.tables and ex.metrics.models
    assert len(ex.reliability.figure.sent_figure().data[1].x) > 0
    assert ex.load_dataset("breastcancer")
    assert ex.reliability.tables == {} and ex.metrics.models == {}
    assert ex.compare.comparison is None and ex.pareto.rows == []
    sent = ex.reliability.figure.sent_figure()  # what the page shows
    assert all(len(t.x if t.x is not None else ()) == 0 for t in sent.data[1:])
    from riskexplore.figures.metrics import metrics_figure

    empty = metrics_figure(None, title=ex.metrics.title)
    assert [t.name for t in ex.metrics.figure.sent_figure().data] == [t.name for t in empty.data]
    assert "mammo" in {r.dataset for r in ex.state.runs.values()}  # the run itself is kept


def test_uploaded_csv_outcome_choice():
    rng = np.random.default_rng(0)
    n = 200
    x1 = rng.integers(0, 2, n)
    x2 = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "grade": rng.integers(0, 4, n),  # four values: not an outcome
            "x1": x1,
            "x2": x2,
            "sick": np.where(rng.random(n) < 0.2 + 0.5 * x1, "yes", "no"),
            "note": ["a"] * n,
        }
    )
    ex = Explorer(time_limit=2, max_size=2, auto_refresh=False)
    _upload(ex, "clinic.csv", frame.to_csv(index=False).encode())
    assert ex.state.dataset == "clinic.csv" and ex.state.source == "upload"
    assert ex.upload.value == ()  # reset: the same file can be chosen again
    assert ex.state.outcome is None and "Choose the outcome" in ex.last_message[1]
    assert ex.solve() is None and "choose the outcome column" in ex.last_message[1]
    ex.outcome_picker.value = "grade"
    assert "must be binary" in ex.last_message[1] and ex.state.outcome is None
    assert ex.outcome_picker.value == ""
    assert ex.set_outcome("sick") and ex.state.y.isin([0, 1]).all()
    assert ex.state.y.sum() == (ex.state.frame.loc[ex.state.y.index, "sick"] == "yes").sum()
    # a column of one text value gives no item: skipped, and the step says why
    note = [v for v in ex.state.column_views() if v.name == "note"]
    assert note[0].kind == "skipped" and "constant" in note[0].reason
    assert "skipped (note)" in ex.binarization.table.value
    ex.load_csv(frame.drop(columns=["note"]).to_csv(index=False).encode(), "clinic2.csv")
    ex.set_outcome("sick")
    monitor = ex.solve(wait=True)
    assert monitor.status in ("optimal", "time_limit")
    assert set(ex.results) == {"unconstrained"}
    assert ex.comparison is None and "solve without and with" in ex.compare.figure.layout.title.text


def test_upload_with_a_repeated_column_name_is_refused_by_name():
    """The dashboard's upload path (the FileUpload widget's value): pandas would read the
    second "age" as "age.1", and the model would then speak of a feature the file does
    not have; instead the page says which name is repeated and the data stay."""
    ex = Explorer("mammo", time_limit=2, max_size=2, auto_refresh=False)
    content = b"sick,age,smoker,age\n" + b"1,70,1,1\n0,40,0,0\n" * 10
    _upload(ex, "clinic.csv", content)
    assert level(ex) == "error"
    assert ex.last_message[1] == (
        "clinic.csv repeats the column name 'age' (columns 2 and 4); rename the repeated "
        "columns so that each column has a unique name"
    )
    assert "rx-error" in ex.message.value  # shown on the page (HTML-escaped)
    assert "clinic.csv repeats the column name &#x27;age&#x27; (columns 2 and 4)" in (
        ex.message.value
    )
    assert ex.state.dataset == "mammo" and "age.1" not in ex.state.columns  # data stay
    _upload(ex, "clinic.csv", content.replace(b"age\n", b"age2\n"))
    assert ex.state.dataset == "clinic.csv"
    assert ex.state.columns == ["sick", "age", "smoker", "age2"]


def test_checklist_runs_and_path():
    ex = Explorer("heart", family="checklist", time_limit=2, max_items=3, auto_refresh=False)
    builder = ex.constraint_builder
    assert type(builder).__name__ == "ChecklistConstraintBuilder"
    assert not ex.add_constraint(cc.IncludeItem("age ≥ 1000"))
    assert ex.add_constraint(cc.FNRLimit(0.3)), ex.last_message
    ex.solve(constrained=False)
    ex.solve(constrained=True)
    ex.wait(60)
    assert set(ex.results) == {"unconstrained", "constrained"}, ex.state.messages[-3:]
    assert ex.results["constrained"].stats["fnr"] <= 0.3 + 1e-9
    lo, hi = ex.comparison.price_of_constraints
    assert 0 <= lo <= hi
    assert "certified price" in ex.compare.price_label.value
    # the size path of the current settings, filled into its view
    assert ex.compute_path(sizes=[1, 2], time_limit_per_size=1, wait=True)
    assert list(ex.pareto.figure.data[0].x) == [1, 2]
    assert ex.pareto.figure.data[0].name == "objective (mistakes)"


def test_state_alone():
    st = ExplorerState()
    with pytest.raises(InputError, match="load a dataset"):
        st.set_outcome("x")
    st.load_dataset("mammo")
    with pytest.raises(InputError, match="unknown outcome column"):
        st.set_outcome("nope")
    with pytest.raises(InputError, match="must be binary"):
        st.set_outcome("Density")
    assert st.outcome == "Malignant"
    st.update_settings(test_fraction=0)
    assert st.X_test is None and len(st.X) == 961
    st.check_ready()
    kwargs = st.fit_kwargs()
    binarizer = kwargs.pop("binarize")  # Density (1 to 4) becomes an item; the rest pass
    assert kwargs == {
        "max_size": 5,
        "coef_min": -5,
        "coef_max": 5,
        "linear": [],
        "time_limit": 60.0,
    }
    assert [v.items for v in st.column_views() if v.name == "Density"] == [("Density ≥ 3",)]
    assert list(binarizer.get_feature_names_out()) == list(st.features().columns)


def test_explorer_in_a_real_kernel():
    """In ipykernel the Solve buttons and the path run with asyncio tasks on the kernel
    loop (no polling by the caller)."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    setup = (
        "import asyncio\n"
        "from riskexplore.risk_score.constraints import Exclude\n"
        "from riskexplore.widgets import Explorer\n"
        "ex = Explorer('mammo', time_limit=1, max_size=2)\n"
        "ex.add_constraint(Exclude('IrregularShape'))\n"
        "ex.solve_free.click()\n"
        "ex.solve_bound.click()\n"
        "ex.pareto.compute_button.click()\n"
        "print(all(m._task is not None for m in ex.monitors.values()),"
        " ex.pareto._task is not None)"
    )
    wait = (
        "for _ in range(600):\n"
        "    if len(ex.results) == 2 and not ex.pareto.running:\n"
        "        break\n"
        "    await asyncio.sleep(0.05)\n"
        "print(sorted(ex.results), ex.comparison is not None,"
        " len(ex.pareto.figure.data[0].x))"
    )
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(setup), nbformat.v4.new_code_cell(wait)]
    )
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=120).execute()
    outputs = ["".join(o.get("text", "") for o in cell.outputs) for cell in nb.cells]
    assert outputs[0].strip() == "True True"
    assert outputs[1].strip() == "['constrained', 'unconstrained'] True 2"
