"""The one memory policy: freed memory stays in the process for reuse.

An evaluation allocates and frees arrays of hundreds of megabytes. By
default glibc serves each from a fresh ``mmap`` and unmaps it when freed, so
the next array is faulted in and zeroed by the kernel again: for 25 M run
lines that was 2-4 s of system time, a third of the wall time. The ``irpref``
command (a short-lived process) therefore calls :func:`keep_freed_memory`
once at start: glibc serves large blocks from the heap and never trims it
(``mallopt``; the same as starting with ``MALLOC_MMAP_MAX_=0
MALLOC_TRIM_THRESHOLD_=...``), and Arrow allocates from the same heap, so
memory the parser frees is reused. Safe: glibc still falls back to ``mmap``
when the heap cannot grow, and thread arenas keep using it.
``IRPREF_MALLOC=default`` turns it off.

The library never changes the process's allocator by itself, and never
trims it either: :func:`release_block` (called after each block of runs the
compact layout judges) only hands Arrow's pool back to its allocator, and
glibc's own thresholds decide the rest (a library process returns memory as
glibc always does; the command keeps it). The library's former policy, a
``malloc_trim`` after every block, overrode the command's choice for no
lower peak. Measured (``/usr/bin/time -v``; ``benchmarks/generate.py --runs
100 --queries 40 --docs 500``, 111 MB of runs; ``irpref evaluate -m AP
"ASL(missing=corpus)"``, which judges 8 runs per block): peak RSS 196-201 MB
with a trim per block, 191-196 MB without, wall time the same within noise
(10 s on a loaded machine); the same through ``irpref.evaluate`` in Python:
214-215 MB with, 217-222 MB without, 6.0 s both. Run files judged by the C
pass (``-m AP nDCG@10 P@10 RR``): 151-152 MB either way.
"""

from __future__ import annotations

import ctypes
import os

__all__ = ["keep_freed_memory", "release_block"]

M_TRIM_THRESHOLD = -1
M_MMAP_MAX = -4
M_ARENA_MAX = -8


def keep_freed_memory() -> bool:
    """Tune glibc's malloc as above; False where not glibc or turned off."""
    if os.environ.get("IRPREF_MALLOC", "").lower() == "default":
        return False
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return False
        mallopt = ctypes.CDLL(None).mallopt
    except (ValueError, OSError, AttributeError):  # not glibc / no such symbol
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    if not (
        mallopt(M_MMAP_MAX, 0)
        and mallopt(M_TRIM_THRESHOLD, 2**31 - 1)
        and mallopt(M_ARENA_MAX, 1)
    ):
        return False
    import pyarrow as pa

    # Arrow's buffers from the same heap: memory the parser frees is reused
    # by NumPy instead of being zeroed afresh (mimalloc keeps its own pages)
    pa.set_memory_pool(pa.system_memory_pool())
    return True


def release_block() -> None:
    """After a judged block: Arrow's pool returns what it cached to its
    allocator (where the next block reuses it); the heap is not trimmed."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()
