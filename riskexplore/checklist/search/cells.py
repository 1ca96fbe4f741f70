"""Cells of rows that no completion can tell apart: the equivalent-row bound.

Below a node whose items come from groups before ``q``, two rows with the same checked
items in every group from ``q`` on (the same *later signature*) and the same checked
count now get the same count in every completion, hence the same prediction. If such a
*cell* holds positives and negatives that can still reach the threshold, one of the two
sides is wrong whatever the search adds (CORELS' equivalent points, GOSDT's
equivalence classes). More: rows of one cell whose counts differ by ``d`` reach the
threshold in a fixed order, so the whole cell is predicted by a single cut ``a`` (how many
of the added items the cell has checked), and its forced mistakes are the least over
``a`` of the negatives that ``a`` makes positive plus the positives it leaves out.

The cells of every ``q`` are nested (a later signature from ``q`` refines the one from
``q + 1``), so one order of the rows keeps every cell of every ``q`` contiguous inside its
coefficient class: sort by the signature of the last group first. A cell then covers few
64-bit words, and the compiled bound (``bounds.cell_gain``)
walks one *entry* per (word, cell): the word, the mask of the cell's rows in it, and the
cell. Only cells with both labels can force a mistake, so only they get entries.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["CELL_ENTRY_BUDGET", "Cells", "build_cells", "later_signatures", "row_order"]

#: Most entries kept over all depths; the deepest groups' cells are kept first (they
#: are the largest and the most often mixed), shallower ones while the budget lasts.
CELL_ENTRY_BUDGET = 6_000_000


@dataclass
class Cells:
    """The cell entries of a search (see the module docstring).

    ``entry_start[q]:entry_start[q + 1]`` are the entries used below nodes whose next
    group is ``q``; ``entry_cell`` numbers cells within one ``q`` (``0..n_cells(q)``) and
    ``cell_reach[cell_start[q] + cell]`` is in how many groups from ``q`` on the cell's rows
    have a checked item.
    """

    entry_start: np.ndarray  # int64 (groups + 2,)
    entry_word: np.ndarray  # int64 (entries,)
    entry_mask: np.ndarray  # uint64 (entries,)
    entry_cell: np.ndarray  # int64 (entries,)
    cell_start: np.ndarray  # int64 (groups + 2,)
    cell_reach: np.ndarray  # int64 (cells,)
    max_cells: int
    most_gain: np.ndarray  # float (groups + 2,): the most the cells of q can add

    @classmethod
    def none(cls, n_groups: int) -> Cells:
        """No cells: the bound adds nothing."""
        zeros = np.zeros(n_groups + 2, dtype=np.int64)
        empty = np.zeros(0, dtype=np.int64)
        return cls(
            zeros, empty, np.zeros(0, np.uint64), empty, zeros.copy(), empty, 1,
            np.zeros(n_groups + 2),
        )  # fmt: skip

    def arrays(self) -> tuple:
        """The arrays in the order the compiled loop takes them."""
        return (
            self.entry_start,
            self.entry_word,
            self.entry_mask,
            self.entry_cell,
            self.cell_start,
            self.cell_reach,
            self.most_gain,
        )


def later_signatures(checked: np.ndarray, group_start: np.ndarray) -> np.ndarray:
    """Cell of every row for every ``q``: rows equal on every group from ``q`` on.

    Parameters
    ----------
    checked : ndarray of bool (rows, positions)
    group_start : ndarray of int
        First position of each group, then the number of positions.

    Returns
    -------
    ndarray of int64 (groups + 1, rows)
        ``out[q, i]`` numbers the later signature of row ``i`` from group ``q`` (row
        ``n_groups``: every row in one cell).
    """
    n_groups = len(group_start) - 1
    n = checked.shape[0]
    out = np.zeros((n_groups + 1, n), dtype=np.int64)
    for q in range(n_groups - 1, -1, -1):
        block = checked[:, group_start[q] : group_start[q + 1]]
        _, own = np.unique(block, axis=0, return_inverse=True)
        pairs = np.column_stack([out[q + 1], np.asarray(own).ravel()])
        _, out[q] = np.unique(pairs, axis=0, return_inverse=True)
    return out


def row_order(classes: np.ndarray, signatures: np.ndarray) -> np.ndarray:
    """Rows by coefficient class, then by later signature from the last group back, so
    that every cell of every ``q`` is contiguous within its class.

    Parameters
    ----------
    classes : ndarray of int (rows,)
        The coefficient class of each row (rows of one word share it).
    signatures : ndarray (groups + 1, rows)
        From :func:`later_signatures`.

    Returns
    -------
    ndarray of int
        The rows in word order.
    """
    keys = [signatures[q] for q in range(signatures.shape[0] - 2, -1, -1)][::-1]
    return np.lexsort((*keys, classes)) if keys else np.argsort(classes, kind="stable")


def build_cells(
    signatures: np.ndarray,
    positive: np.ndarray,
    cost: np.ndarray,
    reach_count: np.ndarray,
    word_of: np.ndarray,
    bit_of: np.ndarray,
    order: np.ndarray,
    budget: int = CELL_ENTRY_BUDGET,
) -> Cells:
    """The entries of the mixed cells of every ``q``, deepest first, within ``budget``.

    Parameters
    ----------
    signatures : ndarray (groups + 1, rows)
        From :func:`later_signatures`.
    positive : ndarray of bool (rows,)
    cost : ndarray (rows,)
        What a mistake on each row costs (in the search's key units).
    reach_count : ndarray (rows, groups + 1)
        In how many groups from ``q`` on a row has a checked item.
    word_of, bit_of : ndarray of int (rows,)
        Where each row lies in the words.
    order : ndarray of int
        The rows in word order (as laid out).
    budget : int
        Most entries over all ``q``.
    """
    n_groups = signatures.shape[0] - 1
    per_q: list[tuple[np.ndarray, ...]] = [()] * (n_groups + 1)
    most_gain = np.zeros(n_groups + 2)
    used = 0
    for q in range(n_groups, -1, -1):
        cells = signatures[q]
        n_cells = int(cells.max()) + 1 if cells.size else 0
        has_pos = np.zeros(n_cells, bool)
        has_neg = np.zeros(n_cells, bool)
        has_pos[cells[positive]] = True
        has_neg[cells[~positive]] = True
        mixed = has_pos & has_neg
        # a cell forces at most the lighter of its two sides: a cap that lets the loop
        # skip the cells where they cannot prune
        weight_pos = np.bincount(cells[positive], cost[positive], minlength=n_cells)
        weight_neg = np.bincount(cells[~positive], cost[~positive], minlength=n_cells)
        local = np.cumsum(mixed) - 1
        rows = order[mixed[cells[order]]]  # mixed rows in word order
        if rows.size == 0:
            per_q[q] = ()
            continue
        words, owners = word_of[rows], local[cells[rows]]
        new = np.ones(len(rows), bool)
        new[1:] = (words[1:] != words[:-1]) | (owners[1:] != owners[:-1])
        starts = np.flatnonzero(new)
        if used + len(starts) > budget:
            break
        used += len(starts)
        most_gain[q] = float(np.minimum(weight_pos, weight_neg).sum())
        bits = np.left_shift(np.uint64(1), bit_of[rows].astype(np.uint64))
        masks = np.bitwise_or.reduceat(bits, starts)
        reach = np.zeros(int(mixed.sum()), dtype=np.int64)
        reach[owners] = reach_count[rows, q]
        per_q[q] = (words[starts], masks, owners[starts], reach)
    return _pack(per_q, n_groups, most_gain)


def _pack(per_q: list[tuple[np.ndarray, ...]], n_groups: int, most_gain: np.ndarray) -> Cells:
    entry_start = np.zeros(n_groups + 2, dtype=np.int64)
    cell_start = np.zeros(n_groups + 2, dtype=np.int64)
    for q, part in enumerate(per_q):
        entry_start[q + 1] = entry_start[q] + (len(part[0]) if part else 0)
        cell_start[q + 1] = cell_start[q] + (len(part[3]) if part else 0)
    entry_start[-1] = entry_start[-2]
    cell_start[-1] = cell_start[-2]
    parts = [p for p in per_q if p]

    def joined(k: int, dtype) -> np.ndarray:
        return np.concatenate([p[k] for p in parts]).astype(dtype) if parts else np.zeros(0, dtype)

    sizes = np.diff(cell_start)
    return Cells(
        entry_start=entry_start,
        entry_word=joined(0, np.int64),
        entry_mask=joined(1, np.uint64),
        entry_cell=joined(2, np.int64),
        cell_start=cell_start,
        cell_reach=joined(3, np.int64),
        max_cells=max(int(sizes.max()) if sizes.size else 0, 1),
        most_gain=most_gain,
    )
