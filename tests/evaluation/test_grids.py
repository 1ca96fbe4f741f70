"""run_grid: serial, joblib and dask backends; failed and timed-out cells are reported."""

from __future__ import annotations

import math

import pytest

from riskexplore.errors import InputError
from riskexplore.evaluation.grids import GridEvent, GridResult, run_grid


def make_fit_cell():
    """A fit_cell defined in a closure, so that cloudpickle ships it by value."""

    def fit_cell(cell):
        import time

        if cell.get("fail"):
            raise ValueError(f"cell {cell['k']} cannot be fitted\nsecond line")
        if cell.get("sleep"):
            time.sleep(cell["sleep"])
        k = cell["k"]
        return {"upper_bound": 10.0 - k, "lower_bound": 5.0 + 0.5 * k, "square": k * k}

    return fit_cell


CELLS = [{"k": 0}, {"k": 1}, {"k": 2, "fail": True}, {"k": 3}]


def check(result: GridResult, events: list[GridEvent], cells=CELLS) -> None:
    assert len(result) == len(cells)
    assert [c.cell for c in result] == cells  # in the order of the cells, none dropped
    frame = result.to_frame()
    assert list(frame["k"]) == [c["k"] for c in cells]
    failed = frame[frame["k"] == 2].iloc[0]
    assert failed["status"] == "failed"
    assert failed["error"] == "ValueError: cell 2 cannot be fitted"
    ok = frame[frame["status"] == "ok"]
    assert list(ok["square"]) == [c["k"] ** 2 for c in cells if c["k"] != 2 and "sleep" not in c]
    # progress: one event per cell, delivered here, monotone counts
    assert [e.done for e in events] == list(range(1, len(cells) + 1))
    assert all(e.total == len(cells) for e in events)
    last = events[-1]
    assert last.failed == result.n_failed
    assert last.fraction == 1.0
    ks = [c["k"] for c in cells if c["k"] != 2 and "sleep" not in c]
    assert last.best_upper_bound == 10.0 - max(ks)
    assert last.best_lower_bound == 5.0 + 0.5 * max(ks)
    assert {e.last_cell["k"] for e in events} == {c["k"] for c in cells}


def test_serial_reports_failed_cells_and_progress():
    events = []
    result = run_grid(CELLS, make_fit_cell(), listener=events.append)
    assert result.backend == "serial"
    check(result, events)
    assert result.n_failed == 1
    assert "traceback" in result[2].result


def test_serial_timeout():
    cells = [{"k": 0}, {"k": 1, "sleep": 30}, {"k": 2, "fail": True}]
    events = []
    result = run_grid(cells, make_fit_cell(), listener=events.append, time_limit_per_cell=0.5)
    assert [c.status for c in result] == ["ok", "timeout", "failed"]
    assert result[1].time < 5
    assert "0.5 s" in result[1].error
    assert events[-1].failed == 2


def test_joblib_backend_with_timeout():
    cells = [*CELLS, {"k": 4, "sleep": 30}]
    events = []
    result = run_grid(
        cells,
        make_fit_cell(),
        backend="joblib",
        n_jobs=2,
        listener=events.append,
        time_limit_per_cell=2.0,
    )
    assert result.backend == "joblib"
    check(result, events, cells)
    assert result[4].status == "timeout"
    assert result[4].time < 10


def test_dask_local_cluster():
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        events = []
        cells = [*CELLS, {"k": 4, "sleep": 30}]
        result = run_grid(
            cells, make_fit_cell(), client=client, listener=events.append, time_limit_per_cell=2
        )
        assert result.backend == "dask"
        check(result, events, cells)
        assert result[4].status == "timeout"
        # the client stays usable (run_grid does not close what it did not open)
        assert client.submit(math.sqrt, 4.0).result() == 2.0


def test_empty_grid_and_bad_arguments():
    result = run_grid([], make_fit_cell())
    assert len(result) == 0 and result.to_frame().empty
    with pytest.raises(InputError, match="backend"):
        run_grid(CELLS, make_fit_cell(), backend="spark")
    with pytest.raises(InputError, match="time_limit_per_cell"):
        run_grid(CELLS, make_fit_cell(), time_limit_per_cell=0)


def test_non_dict_results_fail_the_cell():
    result = run_grid([{"k": 0}], lambda cell: 42)
    assert result[0].status == "failed"
    assert "must return a dict" in result[0].error
