"""The one thread policy: how many workers a pool of the package may use.

``worker_count(cap)`` is the number of CPUs this process may run on
(``os.sched_getaffinity``: a container or ``taskset`` limit counts, the
machine's total does not), lowered to ``IRPREF_THREADS`` when that is set,
and never more than ``cap``. ``IRPREF_THREADS=1`` makes every pool a plain loop; every result is
the same for any number of threads (work is split into pieces whose results
are put back in order, and randomized methods draw their numbers in one
thread).

Caps differ by what a pool does, not by taste:

- 4 (:data:`IO_CAP`) for reading and judging run files and interning: these
  pools are memory-bound (bytes read, hashed, sorted), and a fifth thread
  adds memory traffic and peak memory (one run file in flight per thread)
  without speed;
- 8 (:data:`COMPUTE_CAP`) for the batches of randomized tests: compute-bound,
  one small batch in flight per thread;
- 2 (:data:`WRITE_CAP`) for writing tables: encoding columns and writing
  chunks in order, with a bounded look-ahead of a few chunks.

Every pool is a ``with ThreadPoolExecutor(...)`` block (or :func:`in_threads`):
joined before the call that started it returns or raises, so no worker
outlives its work (a native thread still running at interpreter exit aborts
the process).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from irpref.errors import UsageError

__all__ = ["COMPUTE_CAP", "ENV", "IO_CAP", "WRITE_CAP", "in_threads", "worker_count"]

ENV = "IRPREF_THREADS"
"""Environment variable: a positive integer, the most workers of any pool."""

IO_CAP = 4
COMPUTE_CAP = 8
WRITE_CAP = 2

PARALLEL_MIN = 1 << 20
"""Rows from which :func:`in_threads` uses a pool (below, thread start-up costs more)."""

T = TypeVar("T")


def _requested() -> int | None:
    """``IRPREF_THREADS`` as a positive integer, None when unset or empty."""
    text = os.environ.get(ENV, "").strip()
    if not text:
        return None
    if not text.isdigit() or int(text) < 1:
        raise UsageError(f"{ENV} must be a positive integer, not {text!r}")
    return int(text)


def available_cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def worker_count(cap: int | None = None) -> int:
    """Workers for one pool: the CPUs available, at most ``IRPREF_THREADS``
    (if set) and ``cap``; at least 1. A bad ``IRPREF_THREADS`` is a
    :class:`~irpref.errors.UsageError`."""
    n = available_cpus()
    requested = _requested()
    if requested is not None:
        n = min(n, requested)
    if cap is not None:
        n = min(n, cap)
    return max(1, n)


def check_env() -> None:
    """Refuse a bad ``IRPREF_THREADS`` up front (the CLI calls it once at start)."""
    _requested()


def in_threads(
    func: Callable[[T], object],
    tasks: Iterable[T],
    weight: Sequence[int] | None = None,
    *,
    cap: int = IO_CAP,
    name: str = "irpref",
) -> list:
    """``[func(t) for t in tasks]``, on a pool of :func:`worker_count` ``(cap)``
    threads when there are several tasks and the total ``weight`` (rows) is at
    least :data:`PARALLEL_MIN`: NumPy and Arrow kernels release the GIL. The
    pool is joined before returning or raising."""
    tasks = list(tasks)
    n = worker_count(cap)
    if n == 1 or len(tasks) < 2 or (weight is not None and sum(weight) < PARALLEL_MIN):
        return [func(t) for t in tasks]
    with ThreadPoolExecutor(min(n, len(tasks)), thread_name_prefix=name) as pool:
        return list(pool.map(func, tasks))
