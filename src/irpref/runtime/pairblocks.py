"""Blocks of run pairs: the unit of work of every all-pairs computation.

The R (R - 1) / 2 pairs ``a < b`` of R runs are numbered row-major (the order of
``np.triu_indices(R, 1)``): pair ``i`` of row ``a`` is ``(a, a + 1 + i)``. A
block is a half-open range ``[start, stop)`` of those numbers, so a block's
pairs are known from two integers (a task ships no index arrays) and
blocks concatenate to the single-process order.

``map_blocks(func, shared, blocks, *args)`` runs ``func(shared, block, *args)``
for each block and yields the results in block order: :func:`local_map` on
this process's threads (the kernels release the GIL; a block's numbers do not
depend on the thread that computes it), :func:`serial_map` in one thread,
:class:`irpref.distributed.PairMap` as Dask tasks (``shared``, the state every
block reads, is sent to the workers once).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from irpref.runtime.threads import COMPUTE_CAP, worker_count

__all__ = ["MapBlocks", "local_map", "n_pairs", "pair_blocks", "pair_index", "pair_range",
           "serial_map"]

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


def local_map(func: Callable, shared, blocks: Iterable, *args) -> Iterator:
    """``func(shared, block, *args)`` for each block on :func:`~irpref.runtime.threads.worker_count`
    threads, yielded in block order with one block per thread in flight (the pool
    is joined when the iteration ends or is closed)."""
    blocks = list(blocks)
    threads = worker_count(COMPUTE_CAP)
    if threads == 1 or len(blocks) < 2:
        yield from serial_map(func, shared, blocks, *args)
        return
    with ThreadPoolExecutor(min(threads, len(blocks)), thread_name_prefix="irpref-pairs") as pool:
        pending: deque = deque()
        for block in blocks:
            pending.append(pool.submit(func, shared, block, *args))
            if len(pending) >= threads:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
