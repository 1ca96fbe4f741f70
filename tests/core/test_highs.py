"""HiGHS in short-lived threads: each of ours shuts its thread's scheduler down at the end
(``riskexplore.core.highs.highs_thread``), so many solves on new threads all finish."""

from __future__ import annotations

import threading

import numpy as np

from riskexplore.core.highs import end_highs_thread, highs_thread, new_highs


def _solve_small_lp() -> float:
    h = new_highs()
    h.addVars(2, np.array([0.0, 0.0]), np.array([1.0, 1.0]))
    h.changeColsCost(2, np.array([0, 1]), np.array([-1.0, -2.0]))
    h.run()
    return h.getInfo().objective_function_value


def test_many_short_threads_that_solve_all_finish_with_the_right_answer():
    answers: list[float] = []
    for _ in range(40):
        thread = threading.Thread(target=highs_thread(lambda: answers.append(_solve_small_lp())))
        thread.start()
        thread.join(30)
        assert not thread.is_alive()
    assert answers == [-3.0] * 40


def test_the_wrapper_keeps_the_result_and_the_error():
    assert highs_thread(lambda x: x + 1)(1) == 2
    try:
        highs_thread(lambda: 1 / 0)()
    except ZeroDivisionError:
        pass
    else:  # pragma: no cover
        raise AssertionError("the error was swallowed")


def test_the_main_thread_keeps_its_scheduler():
    end_highs_thread()  # a no-op on the main thread
    assert _solve_small_lp() == -3.0
