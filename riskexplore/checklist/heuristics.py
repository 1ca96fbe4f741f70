"""Heuristic checklists: the submodular knapsack cover, unit weighting from L1 logistic
regression (both from Zhang et al. 2021) and a greedy forward selection.

The knapsack cover is the submodular heuristic of Zhang et al. [1]_ (Section 4.1, with
Algorithm 2 in Appendix A.2); unit weighting follows their "Unit" baseline (Section 5.1).

The first two return feasible ``(items, M)`` candidates sorted by ``problem.objective``;
they are used on their own as baselines and as warm starts for the checklist IP. The
greedy selection gives the IP its first incumbent within a second.

References
----------
.. [1] H. Zhang, Q. Morris, B. Ustun and M. Ghassemi, "Learning Optimal
   Predictive Checklists", Advances in Neural Information Processing Systems 34
   (NeurIPS 2021), 2021.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Iterable, Iterator, Sequence

import numpy as np
import sklearn
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

#: The budgets ``B = k n+`` of Zhang et al. (2021), Section 5.1, followed by two larger
#: ones so that problems with a tight FNR limit (which need high coverage) also get
#: feasible starts.
BUDGET_FRACTIONS = (1 / 3, 1 / 2, 1.0, 2.0, 3.0, 5.0, 10.0)

#: The grid of the L1 logistic regression baseline of Zhang et al. (2021), Appendix C:
#: ``C in {1e-4, 1e-3.5, ..., 1e1}``.
DEFAULT_CS = tuple(10.0**k for k in np.arange(-4.0, 1.01, 0.5))

#: Step size of Algorithm 2 (0.2 in Zhang et al. (2021), Appendix A.2).
EPSILON = 0.2

#: Largest checklist the heuristics build when the problem sets no ``max_items``.
DEFAULT_MAX_ITEMS = 8


# --------------------------------------------------------------------------- helpers


def _l1_keywords() -> dict:
    """``l1_ratio=1`` on scikit-learn >= 1.8 (where ``penalty`` is deprecated), else l1."""

    major, minor = (int(part) for part in sklearn.__version__.split(".")[:2])
    return {"l1_ratio": 1.0} if (major, minor) >= (1, 8) else {"penalty": "l1"}


def item_group_ids(problem) -> np.ndarray | None:
    """Partition-matroid groups implied by the problem's "at most one of" rows, else None.

    A row ``sum_{j in G} use_j <= 1`` (what :class:`OneItemPerGroup` and
    ``AtMostKItems(..., k=1)`` compile to) makes ``G`` a group; overlapping groups are
    merged (a stricter partition, so sets that respect it still meet every row). Items in
    no such row are groups of their own. Returns one integer id per item, or ``None`` when
    the problem has no such row.

    Parameters
    ----------
    problem : ChecklistProblem
        The problem.

    Returns
    -------
    ndarray of int or None
        One group id per item.
    """
    d = len(problem.item_names)
    index = {name: j for j, name in enumerate(problem.item_names)}
    parent = list(range(d))

    def find(j: int) -> int:
        while parent[j] != j:
            parent[j] = parent[parent[j]]
            j = parent[j]
        return j

    found = False
    for row in getattr(problem, "rows", ()) or ():
        coefs = [c for c in row.items.values() if c != 0]
        if (
            row.M == 0
            and row.N == 0
            and len(coefs) >= 2
            and all(c == coefs[0] for c in coefs)
            and coefs[0] > 0
            and row.upper < 2 * coefs[0]
            and row.lower <= 0
        ):
            members = [index[name] for name, c in row.items.items() if c != 0]
            found = True
            root = find(members[0])
            for j in members[1:]:
                parent[find(j)] = root
    if not found:
        return None
    roots = np.array([find(j) for j in range(d)])
    _, ids = np.unique(roots, return_inverse=True)
    return ids.astype(np.int64)


def size_bounds(problem) -> tuple[int, int, int, int]:
    """``(n_lo, n_hi, m_lo, m_hi)``: the problem's bounds on ``N`` and ``M``, tightened by
    rows on ``N`` alone or ``M`` alone (e.g. :class:`MaxItems`, :class:`MRange`).

    Parameters
    ----------
    problem : ChecklistProblem
        The problem.

    Returns
    -------
    tuple of int
        ``(n_lo, n_hi, m_lo, m_hi)``.
    """
    n_lo, n_hi = int(problem.min_items), int(problem.max_items)
    m_lo, m_hi = int(problem.min_m), int(problem.max_m)
    for row in getattr(problem, "rows", ()) or ():
        if any(c != 0 for c in row.items.values()):
            continue
        for coef, which in ((row.N, "N"), (row.M, "M")):
            other = row.M if which == "N" else row.N
            if coef == 0 or other != 0:
                continue
            lo, hi = row.lower / coef, row.upper / coef
            if coef < 0:
                lo, hi = hi, lo
            lo_i = math.ceil(lo - 1e-9) if math.isfinite(lo) else None
            hi_i = math.floor(hi + 1e-9) if math.isfinite(hi) else None
            if which == "N":
                n_lo = max(n_lo, lo_i) if lo_i is not None else n_lo
                n_hi = min(n_hi, hi_i) if hi_i is not None else n_hi
            else:
                m_lo = max(m_lo, lo_i) if lo_i is not None else m_lo
                m_hi = min(m_hi, hi_i) if hi_i is not None else m_hi
    return max(n_lo, 1), n_hi, max(m_lo, 1), min(m_hi, n_hi)


def _max_items(problem, max_items: int | None) -> int:
    n_hi = size_bounds(problem)[1]
    if max_items is None:
        max_items = n_hi if n_hi < len(problem.item_names) else min(n_hi, DEFAULT_MAX_ITEMS)
    return int(max(0, min(max_items, n_hi)))


def _m_range(problem, n_items: int) -> range:
    _, _, m_lo, m_hi = size_bounds(problem)
    return range(m_lo, min(n_items, m_hi) + 1)


def rank_candidates(
    problem, candidates: Iterable[tuple[Sequence[int] | Sequence[str], int]]
) -> list[tuple[list[str], int]]:
    """Deduplicate, keep those with ``problem.violations == []``, sort by objective.

    Candidates are ``(items, M)`` with items given as indices or names. Ties are broken by
    ``(N, M, item names)`` so that the order is deterministic.

    Parameters
    ----------
    problem : ChecklistProblem
        The problem.
    candidates : iterable of ``(items, M)``
        Items as indices or names.

    Returns
    -------
    list of ``(items, M)``
        Feasible, distinct candidates (item names), best objective first.
    """
    names = list(problem.item_names)
    index = {name: j for j, name in enumerate(names)}
    d = len(names)
    seen: set[tuple[tuple[int, ...], int]] = set()
    scored: list[tuple[float, int, int, tuple[str, ...], list[str]]] = []
    for items, m in candidates:
        idx = tuple(sorted({index[i] if isinstance(i, str) else int(i) for i in items}))
        key = (idx, int(m))
        if key in seen:
            continue
        seen.add(key)
        mask = np.zeros(d, dtype=bool)
        mask[list(idx)] = True
        if problem.violations(mask, int(m)):
            continue
        chosen = [names[j] for j in idx]
        value = float(problem.objective(mask, int(m)))
        scored.append((value, len(idx), int(m), tuple(chosen), chosen))
    scored.sort(key=lambda t: t[:4])
    return [(chosen, m) for _, _, m, _, chosen in scored]


# ------------------------------------------------------------ submodular knapsack cover


def knapsack_cover(
    Xpos: np.ndarray,
    wpos: np.ndarray,
    cost: np.ndarray,
    *,
    M: int,
    max_items: int,
    budget: float,
    groups: np.ndarray | None = None,
    epsilon: float = EPSILON,
) -> list[frozenset[int]]:
    """Algorithm 2 (greedy knapsack cover, after Badanidiyuru and Vondrak 2014) for one M.

    Maximises ``f(S) = sum_{i in I+} w_i min(sum_{j in S} x_ij, M)`` subject to
    ``|S| <= max_items``, at most one item per group, and ``sum_{j in S} cost_j <= budget``.

    For every density threshold ``rho = m/(p+1) (1+eps)^k`` up to ``2 n m/(p+1)``
    (``m = max_j f({j})``, ``n`` the number of useful items, ``p`` the number of matroids),
    the marginal-gain threshold ``tau`` starts at the largest singleton value among items of
    density ``f({j}) / (c_j/B) >= rho`` and decreases by ``1+eps`` down to ``eps m/n``;
    each pass scans the items in order and adds ``j`` when the set stays independent, its
    gain is ``>= tau`` and its density ``gain / (c_j/B) >= rho``. (The listing of Algorithm
    2 in Zhang et al. [1]_, Appendix A.2, writes the density with the cost of the whole
    set; Badanidiyuru and Vondrak, whom it adapts, use the item's own cost, as here.)
    When an addition overflows the budget, both ``S \\ {j}`` and ``{j}`` are returned and
    the next ``rho`` starts; otherwise the final ``S`` is returned. Passes that cannot add
    anything are skipped (same result).

    Returns the distinct non-empty sets found, as frozensets of column indices.

    Parameters
    ----------
    Xpos : ndarray of shape (n+, d)
        The items of the positive rows.
    wpos : ndarray of shape (n+,)
        Their weights.
    cost : ndarray of shape (d,)
        The cost of each item (its weighted false positives at ``M``).
    M : int
        The threshold.
    max_items : int
        The most items.
    budget : float
        The cost budget ``B``.
    groups : ndarray of int, optional
        Item groups (at most one item per group).
    epsilon : float
        The step of the thresholds.

    Returns
    -------
    list of frozenset of int
        The sets found.

    References
    ----------
    .. [1] H. Zhang, Q. Morris, B. Ustun and M. Ghassemi, "Learning Optimal
       Predictive Checklists", Advances in Neural Information Processing Systems 34
       (NeurIPS 2021), 2021.
    """
    Xpos = np.asarray(Xpos, dtype=np.float64)
    wpos = np.asarray(wpos, dtype=np.float64)
    cost = np.asarray(cost, dtype=np.float64)
    d = Xpos.shape[1]
    if max_items <= 0 or d == 0 or M <= 0:
        return []
    singleton = wpos @ Xpos  # f({j}) = sum_i w_i x_ij (M >= 1)
    useful = singleton > 0
    n_useful = int(useful.sum())
    if n_useful == 0:
        return []
    m = float(singleton.max())
    p = 1 + (groups is not None)  # cardinality matroid, plus the partition matroid
    B = float(budget)
    if B <= 0:
        within = cost <= 0
    else:
        within = cost <= B
    # density f/(c/B) >= rho  <=>  f * B >= rho * c   (c = 0 means infinite density)
    base = m / (p + 1)
    top = 2.0 * n_useful * m / (p + 1)
    tau_min = epsilon * m / n_useful
    growth = 1.0 + epsilon
    found: set[frozenset[int]] = set()
    k = 0
    while True:
        rho = base * growth**k
        if rho > top * (1 + 1e-12):
            break
        k += 1
        dense = useful & within & (singleton * B >= rho * cost - 1e-12)
        if not dense.any():
            continue
        tau0 = float(singleton[dense].max())
        chosen: list[int] = []
        allowed = useful & within  # items of cost <= B that keep S independent
        total_cost = 0.0
        count = np.zeros(Xpos.shape[0], dtype=np.float64)
        gains = singleton.copy()
        overflow = False
        t = 0
        tau = tau0
        while tau >= tau_min and total_cost <= B and len(chosen) < max_items:
            ok_density = gains * B >= rho * cost - 1e-12
            start = 0
            while len(chosen) < max_items:
                cand = allowed & ok_density & (gains >= tau - 1e-12)
                cand[:start] = False
                hits = np.flatnonzero(cand)
                if hits.size == 0:
                    break
                j = int(hits[0])
                chosen.append(j)
                total_cost += cost[j]
                if total_cost > B:
                    overflow = True
                    break
                if groups is not None:
                    allowed &= groups != groups[j]
                allowed[j] = False
                count += Xpos[:, j]
                gains = (wpos * (count < M)) @ Xpos
                ok_density = gains * B >= rho * cost - 1e-12
                start = j + 1
            if overflow or len(chosen) >= max_items:
                break
            # Skip the passes that cannot add anything: next tau at or below the best gain.
            eligible = allowed & ok_density
            best = float(gains[eligible].max()) if eligible.any() else 0.0
            if best <= 0:
                break
            t += 1
            tau = tau0 / growth**t
            if best < tau - 1e-12:
                t = max(t, math.ceil(math.log(tau0 / best) / math.log(growth) - 1e-9))
                tau = tau0 / growth**t
        if overflow:
            j = chosen[-1]
            if len(chosen) > 1:
                found.add(frozenset(chosen[:-1]))
            found.add(frozenset([j]))
        elif chosen:
            found.add(frozenset(chosen))
    return sorted(found, key=lambda s: (len(s), sorted(s)))


def submodular_checklists(
    problem,
    *,
    budgets: Sequence[float] | None = None,
    max_items: int | None = None,
    epsilon: float = EPSILON,
) -> list[tuple[list[str], int]]:
    """Checklists from the submodular knapsack-cover heuristic (Zhang et al. 2021, Section 4.1).

    For every ``M = 1..N_max`` and every budget ``B``, :func:`knapsack_cover` (Algorithm 2
    of Zhang et al. [1]_, Appendix A.2) maximises the truncated coverage of the positives
    (problem (3) of [1]_, Section 4.1)::

        f_M^+(A) = sum_{i in I+} w_i * min(sum_{j in A} x_ij, M)

    i.e. each positive earns one unit per checked item of ``A`` up to ``M`` units, so
    ``f_M^+`` reaches its maximum ``M sum_i w_i`` exactly when every positive has at least
    ``M`` checked items (is predicted positive by the ``M``-of-``A`` checklist), and partial
    progress towards ``M`` is rewarded. This is monotone submodular ([1]_, Appendix A.1). The
    constraints are ``|A| <= N_max``, at most one item per feature group when the problem
    enforces it (partition matroid), and the knapsack budget on negatives
    ``sum_{j in A} c(j) <= B`` with ``c(j) = sum_{i in I-} w_i x_ij`` (the weight of
    negatives for which item ``j`` is checked). ``w_i`` are the problem's sample weights.

    Each set ``A`` found yields the candidates ``(A, M')`` for every allowed threshold
    ``M' <= |A|`` (the one it was built for and the others, which cost nothing to score).

    Parameters
    ----------
    budgets : sequence of float, optional
        Absolute budgets ``B`` (in the units of the weights). Default:
        :data:`BUDGET_FRACTIONS` times the total positive weight ``n+`` (the budgets
        ``{1/3, 1/2, 1, 2, 3} n+`` of [1]_, Section 5.1, plus two larger budgets).
    max_items : int, optional
        ``N_max``; default the problem's bound on ``N`` (:data:`DEFAULT_MAX_ITEMS` when the
        problem leaves ``N`` unbounded).

    Returns
    -------
    list of (items, M)
        Distinct feasible candidates (``problem.violations == []``), best objective first.

    References
    ----------
    .. [1] H. Zhang, Q. Morris, B. Ustun and M. Ghassemi, "Learning Optimal
       Predictive Checklists", Advances in Neural Information Processing Systems 34
       (NeurIPS 2021), 2021.
    """
    X = np.asarray(problem.X)
    y = np.asarray(problem.y)
    w = np.asarray(problem.weights, dtype=np.float64)
    pos, neg = y == 1, y != 1
    Xpos = X[pos].astype(np.float64)
    wpos = w[pos]
    cost = w[neg] @ X[neg].astype(np.float64)
    n_max = _max_items(problem, max_items)
    groups = item_group_ids(problem)
    if budgets is None:
        budgets = [k * float(wpos.sum()) for k in BUDGET_FRACTIONS]
    sets: set[frozenset[int]] = set()
    for M in _m_range(problem, n_max):
        for B in budgets:
            sets.update(
                knapsack_cover(
                    Xpos,
                    wpos,
                    cost,
                    M=M,
                    max_items=n_max,
                    budget=B,
                    groups=groups,
                    epsilon=epsilon,
                )
            )
    candidates = []
    for s in sets:
        items = sorted(s)
        for m in _m_range(problem, len(items)):
            candidates.append((items, m))
    return rank_candidates(problem, candidates)


# -------------------------------------------------------------------- unit weighting


def unit_weighting_checklists(
    problem,
    *,
    Cs: Sequence[float] = DEFAULT_CS,
    max_items: int | None = None,
    solver: str = "liblinear",
) -> list[tuple[list[str], int]]:
    """Unit-weighting checklists from L1-regularised logistic regression (Zhang et al. 2021).

    After the "Unit" baseline of Zhang et al. [1]_ (Section 5.1). For each ``C`` in ``Cs``
    (default ``10^-4 .. 10^1``, the grid of the L1 logistic regression baseline of [1]_,
    Appendix C; the Unit baseline of Section 5.1 names L1 penalties in ``[1e-5, 10]``),
    fit scikit-learn's ``LogisticRegression(penalty="l1", C=C)`` on the 0/1 items with
    the problem's sample weights, keep the items with positive coefficients in decreasing
    order, skipping an item whose feature group is already used when the problem enforces
    one item per group, and take the top ``N`` of them for every ``N <= N_max``. Each such
    list gets unit weights and every allowed threshold ``M`` in ``1..N``.

    Returns the distinct feasible candidates, best objective first.

    Parameters
    ----------
    problem : ChecklistProblem
        The problem.
    Cs : sequence of float
        Inverse regularisation strengths.
    max_items : int, optional
        The most items (default: the problem's, or :data:`DEFAULT_MAX_ITEMS`).
    solver : str
        scikit-learn's solver.

    Returns
    -------
    list of ``(items, M)``
        The candidates.

    References
    ----------
    .. [1] H. Zhang, Q. Morris, B. Ustun and M. Ghassemi, "Learning Optimal
       Predictive Checklists", Advances in Neural Information Processing Systems 34
       (NeurIPS 2021), 2021.
    """

    _L1 = _l1_keywords()
    X = np.asarray(problem.X, dtype=np.float64)
    y = np.asarray(problem.y).astype(int)
    w = np.asarray(problem.weights, dtype=np.float64)
    n_max = _max_items(problem, max_items)
    groups = item_group_ids(problem)
    if len(np.unique(y)) < 2 or n_max == 0:
        return []
    orders: set[tuple[int, ...]] = set()
    for C in Cs:
        model = LogisticRegression(C=float(C), solver=solver, max_iter=1000, random_state=0, **_L1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X, y, sample_weight=w)
        coef = model.coef_.ravel()
        ranked = [int(j) for j in np.argsort(-coef, kind="stable") if coef[j] > 0]
        picked: list[int] = []
        used: set[int] = set()
        for j in ranked:
            if len(picked) >= n_max:
                break
            if groups is not None:
                if int(groups[j]) in used:
                    continue
                used.add(int(groups[j]))
            picked.append(j)
        if picked:
            orders.add(tuple(picked))
    candidates = []
    for order in orders:
        for n in range(1, len(order) + 1):
            items = list(order[:n])
            for m in _m_range(problem, n):
                candidates.append((items, m))
    return rank_candidates(problem, candidates)


def greedy_checklists(problem, seconds: float = 1.0) -> Iterator[tuple[np.ndarray, int]]:
    """Forward selection of items, each prefix tried with every threshold ``M``.

    Each step adds the item that most lowers ``FN + W- FP`` for some ``M``. Candidates
    respect the rows that only cap sums of items (one item per group, at most k of,
    exclusions); other constraints are not checked here, so the caller checks every
    candidate exactly (as the IP's incumbent offer does).

    Parameters
    ----------
    problem : ChecklistProblem
        The problem.
    seconds : float
        Time budget; no new item is added after it.

    Yields
    ------
    tuple of (ndarray of bool, int)
        ``(mask, M)``: the items chosen so far and a threshold, for every prefix.
    """
    p = problem
    d = p.n_items
    P = p.patterns.astype(np.int32)
    A = p.row_A
    caps = np.zeros((0, d))
    cap_hi = np.zeros(0)
    if len(A):
        simple = (
            (A[:, :d] >= 0).all(axis=1) & (A[:, d:] == 0).all(axis=1) & np.isfinite(p.row_upper)
        )
        caps, cap_hi = A[simple, :d], p.row_upper[simple]
    counts = np.zeros(P.shape[0], dtype=np.int32)
    chosen = np.zeros(d, dtype=bool)
    used = np.zeros(len(cap_hi))
    deadline = time.perf_counter() + seconds
    for _ in range(p.max_items):
        ok = ~chosen
        if len(cap_hi):
            ok &= ((used[:, None] + caps) <= cap_hi[:, None] + 1e-9).all(axis=0)
        if not ok.any() or time.perf_counter() > deadline:
            break
        cand = np.flatnonzero(ok)
        C = counts[:, None] + P[:, cand]
        N = int(chosen.sum()) + 1
        best_j, best_val = -1, math.inf
        for M in range(p.min_m, min(p.max_m, N) + 1):
            pred = C >= M
            loss = p.w_pos @ (~pred) + p.fp_weight * (p.w_neg @ pred)
            k = int(np.argmin(loss))
            if loss[k] < best_val:
                best_j, best_val = int(cand[k]), float(loss[k])
        chosen[best_j] = True
        counts += P[:, best_j]
        used += caps[:, best_j] if len(cap_hi) else 0.0
        for M in range(p.min_m, min(p.max_m, N) + 1):
            yield chosen.copy(), M
