"""Blocks of run pairs: the unit of work of every all-pairs computation.

The R (R - 1) / 2 pairs ``a < b`` of R runs are numbered row-major (the order of
``np.triu_indices(R, 1)``): pair ``i`` of row ``a`` is ``(a, a + 1 + i)``. A
block is a half-open range ``[start, stop)`` of those numbers, so a block's
pairs are known from two integers (a task ships no index arrays) and
blocks concatenate to the single-process order.

``map_blocks(func, shared, blocks, *args)`` runs ``func(shared, block, *args)``
for each block and yields the results in block order: :func:`serial_map` in
this process, :class:`irpref.distributed.PairMap` as Dask tasks (``shared``,
the state every block reads, is sent to the workers once).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

import numpy as np

__all__ = ["MapBlocks", "n_pairs", "pair_blocks", "pair_index", "pair_range", "serial_map"]

MapBlocks = Callable[..., Iterator]


def n_pairs(n_runs: int) -> int:
    """R (R - 1) / 2."""
    return n_runs * (n_runs - 1) // 2


def _row_starts(n_runs: int) -> np.ndarray:
    """(R,) number of the first pair of each row ``a``."""
    a = np.arange(n_runs, dtype=np.int64)
    return a * n_runs - a * (a + 1) // 2


def pair_range(n_runs: int, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) of the pairs numbered ``start .. stop - 1`` (``a < b``, row-major)."""
    index = np.arange(start, stop, dtype=np.int64)
    starts = _row_starts(n_runs)
    a = np.searchsorted(starts, index, side="right") - 1
    return a, index - starts[a] + a + 1


def pair_index(a: np.ndarray, b: np.ndarray, n_runs: int) -> np.ndarray:
    """Number of pair {a, b} (either order) in the row-major ``a < b`` order."""
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    return lo * n_runs - lo * (lo + 1) // 2 + (hi - lo - 1)


def pair_blocks(n_runs: int, size: int) -> list[tuple[int, int]]:
    """The pairs of ``n_runs`` runs in consecutive blocks of ``size`` (the last shorter)."""
    total, size = n_pairs(n_runs), max(int(size), 1)
    return [(s, min(s + size, total)) for s in range(0, total, size)]


def serial_map(func: Callable, shared, blocks: Iterable, *args) -> Iterator:
    """``func(shared, block, *args)`` for each block, in this process, lazily."""
    return (func(shared, block, *args) for block in blocks)
