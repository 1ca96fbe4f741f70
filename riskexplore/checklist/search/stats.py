"""The statistics of a finished exact search (``SolveResult.stats``)."""

from __future__ import annotations

from typing import Any

__all__ = ["search_stats"]


def search_stats(search: Any, n_ok: int) -> dict:
    """What an exact search reports with its result: the sizes of its arrays, its
    settings and work (frontier, deferred nodes, cell bounds), and the best checklist's
    training mistakes.

    Parameters
    ----------
    search : ExactSearch
        The search, finished.
    n_ok : int
        How many of its warm starts were feasible.

    Returns
    -------
    dict
    """
    p, s, settings, arrays = search.problem, search.data, search.settings, search.arrays
    stats = {
        "method": "exact",
        "build_time": search.build_time,
        "n_patterns": int(p.patterns.shape[0]),
        "n_search_rows": s.n_rows,
        "n_words": len(s.valid),
        "n_groups": len(s.group_start) - 1,
        "n_positions": len(s.items),
        "exact_keys": s.exact,
        "eps_n": p.eps_n,
        "eps_m": p.eps_m,
        "error_unit": p.error_unit,
        "lexicographic_exact": p.lexicographic_exact,
        "warm_starts_given": len(search.warm_starts),
        "warm_starts_feasible": n_ok,
        "incumbents": search.n_incumbents,
        "n_jobs": 1 if settings.client is not None else settings.n_jobs,
        "dask": settings.client is not None,
        "frontier_depth": arrays.depth if arrays is not None else None,
        "frontier_nodes": search.frontier_built,
        "deferred_nodes": search.deferred_nodes,
        "defer_band": search.defer_band,
        "frontier_time": search.frontier_time,
        "cell_entries": int(s.cells.entry_start[-1]) if s.cells is not None else 0,
        "cell_bounds": search.cell_bounds + search.other_cell_bounds if arrays is not None else 0,
        "notes": list(p.notes),
    }
    if search.best is not None:
        mask, M = search.best
        err = p.errors(mask, M)
        stats.update(
            train_fp=err["fp"],
            train_fn=err["fn"],
            train_errors=err["fp"] + err["fn"],
            train_error_rate=err["error"],
            loss=err["loss"],
            N=len(p.items_of(mask)),
        )
    return stats
