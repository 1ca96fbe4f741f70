"""The nodes of LCPA's tree, and how a node splits.

A node is a pair of column-bound vectors over ``[lambda, alpha]`` (``lambda`` the
intercept and points, ``alpha_j`` whether feature ``j`` is used) with the bound of its
region. A child narrows one column; :func:`propagate` then ties ``lambda_j``'s bounds to
``alpha_j``'s, so every child's region is a subset of its parent's (one of the facts the
certificate rests on, see :mod:`riskexplore.risk_score.lcpa.search`). :func:`split_fractional`
splits on a fractional LP point, :func:`split_nonzero` on an indicator that is 1 where
its points are 0, and :func:`split_around` takes one integer model out of a region.
"""

from __future__ import annotations

import math

import numpy as np

from riskexplore.risk_score.lcpa.lp import BasisSnapshot
from riskexplore.risk_score.lcpa.pseudo_costs import PseudoCosts

__all__ = [
    "INT_TOL",
    "Node",
    "child",
    "propagate",
    "split_around",
    "split_fractional",
    "split_nonzero",
]

#: How far from a whole number an LP value is fractional.
INT_TOL = 1e-6


class Node:
    """A region of the search: column bounds ``lower``, ``upper`` and a bound on the
    objective of every model in it."""

    __slots__ = ("lower", "upper", "bound", "depth", "basis", "branch", "owner")

    def __init__(self, lower, upper, bound, depth, basis=None, branch=None):
        self.lower: np.ndarray = lower
        self.upper: np.ndarray = upper
        self.bound: float = bound
        self.depth: int = depth
        self.basis: BasisSnapshot | None = basis
        # (column, direction 0=down/1=up, distance moved): feeds the pseudo-costs
        self.branch: tuple[int, int, float] | None = branch
        self.owner = None  # the thread whose LP took ``basis``


def split_fractional(
    node: Node, x: np.ndarray, frac: np.ndarray, d: int, pseudo: PseudoCosts | None
) -> list[Node]:
    """Split on a fractional alpha if there is one, else on a fractional lambda.

    Among the candidates, pseudo-costs pick the column (most fractional until they have
    data, or always without ``pseudo``); the child on the LP point's nearer side comes
    first (the one dived into).

    Parameters
    ----------
    node : Node
        The node.
    x : array
        Its LP point over ``[lambda, alpha]``.
    frac : bool array
        Which entries of ``x`` are fractional.
    d : int
        The number of features.
    pseudo : PseudoCosts or None
        The pseudo-costs, if they choose the column.

    Returns
    -------
    list of Node
        The non-empty children.
    """
    candidates = np.flatnonzero(frac[d + 1 :]) + d + 1
    if candidates.size == 0:
        candidates = np.flatnonzero(frac[: d + 1])
    part = x[candidates] - np.floor(x[candidates])
    if pseudo is not None:
        col = pseudo.choose(candidates, part)
    else:
        col = int(candidates[np.argmin(np.abs(part - 0.5))])
    f = x[col] - math.floor(x[col])
    down = child(node, col, d, upper=math.floor(x[col]), branch=(col, 0, f))
    up = child(node, col, d, lower=math.ceil(x[col]), branch=(col, 1, 1.0 - f))
    children = [up, down] if f >= 0.5 else [down, up]
    return [c for c in children if c is not None]


def split_nonzero(node: Node, j: int, d: int) -> list[Node]:
    """alpha_j is 1 but lambda_j is 0: split into lambda_j <= -1 and lambda_j >= 1.

    Parameters
    ----------
    node : Node
        The node.
    j : int
        The column of ``lambda_j``.
    d : int
        The number of features.

    Returns
    -------
    list of Node
        The non-empty children.
    """
    pos = child(node, j, d, lower=1.0)
    neg = child(node, j, d, upper=-1.0)
    return [c for c in (pos, neg) if c is not None]


def split_around(node: Node, lam: np.ndarray, d: int) -> list[Node]:
    """The node's region minus the integer model ``lam``, as disjoint boxes.

    Box ``(k, side)`` has coordinate ``k`` below (or above) ``lam_k`` and the earlier
    coordinates fixed at ``lam``; together they cover every model of the region but
    ``lam``. The near-optimal enumeration goes on past a recorded model this way, and
    LCPA past an integer LP optimum that breaks an operating-point rule.

    Parameters
    ----------
    node : Node
        The node (its bound is the children's).
    lam : ndarray
        The model ``[intercept, points...]``, inside the node's region.
    d : int
        The number of features.

    Returns
    -------
    list of Node
        The non-empty boxes.
    """
    children = []
    lo, hi = node.lower.copy(), node.upper.copy()
    for k in range(d + 1):
        v = float(lam[k])
        for side in ("down", "up"):
            clo, chi = lo.copy(), hi.copy()
            if side == "down":
                chi[k] = min(chi[k], v - 1)
            else:
                clo[k] = max(clo[k], v + 1)
            if propagate(clo, chi, d, k):
                children.append(Node(clo, chi, node.bound, node.depth + 1))
        lo[k] = hi[k] = v  # the next boxes keep lam_k
        if not propagate(lo, hi, d, k):
            break
    return children


def child(
    node: Node,
    col: int,
    d: int,
    lower: float | None = None,
    upper: float | None = None,
    branch: tuple[int, int, float] | None = None,
) -> Node | None:
    """The node's child with column ``col`` narrowed to ``[lower, upper]``.

    Parameters
    ----------
    node : Node
        The parent.
    col : int
        The column narrowed.
    d : int
        The number of features.
    lower, upper : float, optional
        The column's new bounds (None: unchanged).
    branch : (int, int, float), optional
        The branching that made it (for the pseudo-costs).

    Returns
    -------
    Node or None
        The child, None if its region is empty.
    """
    lo, hi = node.lower.copy(), node.upper.copy()
    if lower is not None:
        lo[col] = max(lo[col], lower)
    if upper is not None:
        hi[col] = min(hi[col], upper)
    if not propagate(lo, hi, d, col):
        return None
    return Node(lo, hi, node.bound, node.depth + 1, branch=branch)


def propagate(lo: np.ndarray, hi: np.ndarray, d: int, col: int) -> bool:
    """Tie lambda_j's bounds to alpha_j's after column ``col`` changed.

    Parameters
    ----------
    lo, hi : array
        Column bounds over ``[lambda, alpha]`` (changed in place).
    d : int
        The number of features.
    col : int
        The column that changed.

    Returns
    -------
    bool
        False if the region became empty.
    """
    if lo[col] > hi[col]:
        return False
    j = col - d if col > d else col
    if j == 0:
        return True
    a = d + j
    if lo[j] > 0 or hi[j] < 0:
        lo[a] = 1.0
    if hi[a] == 0:
        lo[j], hi[j] = max(lo[j], 0.0), min(hi[j], 0.0)
    if lo[j] == 0 and hi[j] == 0:
        if lo[a] == 1:
            return False
        hi[a] = 0.0
    return lo[j] <= hi[j] and lo[a] <= hi[a]
