"""Helpers for benchmark scripts: time whole processes, their peak memory, medians.

Every measurement starts a new process (a cold Python: imports included), so
the figures are what a user waits for at the command line. Peak memory is the
child's maximum resident set size as reported by ``wait4`` (Linux).

Linux starts a child's high-water mark at its parent's resident size when it
forks (the copied address space counts until ``exec``), so a benchmark that
builds a large collection in its own process before timing children reads
that size as every child's peak. Build data with :func:`run_apart` (a fresh
interpreter); :func:`run_process` warns when the parent is large.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Measurement", "Timing", "median", "run_apart", "run_process", "time_process",
           "user_env"]

HERE = Path(__file__).resolve().parent


@dataclass
class Measurement:
    """One finished child process."""

    seconds: float
    max_rss_mb: float
    returncode: int
    stdout: bytes = b""
    stderr: bytes = b""


@dataclass
class Timing:
    """Repeated measurements of one command."""

    label: str
    runs: list[Measurement] = field(default_factory=list)

    @property
    def seconds(self) -> list[float]:
        return [m.seconds for m in self.runs]

    @property
    def median(self) -> float:
        return median(self.seconds)

    @property
    def max_rss_mb(self) -> float:
        return max((m.max_rss_mb for m in self.runs), default=float("nan"))

    @property
    def ok(self) -> bool:
        return bool(self.runs) and all(m.returncode == 0 for m in self.runs)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def user_env(**extra: str) -> dict[str, str]:
    """The environment of a timed child: this one without ``PYTHONDONTWRITEBYTECODE``
    (an installed package has its bytecode compiled; a child that compiled every module
    from source at each start would time the compiler), plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, **extra}


def run_apart(function, *args, **kwargs) -> None:
    """``function(*args, **kwargs)`` in a fresh interpreter (multiprocessing's spawn), so
    the memory it takes never inflates the peaks measured of later children."""
    import multiprocessing

    proc = multiprocessing.get_context("spawn").Process(target=function, args=args,
                                                        kwargs=kwargs)
    proc.start()
    proc.join()
    if proc.exitcode != 0:
        raise RuntimeError(f"{getattr(function, '__name__', function)} failed "
                           f"(exit {proc.exitcode})")


def _resident_mb() -> float:
    """This process's resident size now (MB; 0 where /proc is absent)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0.0
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


_WARNED: list[bool] = []


def run_process(
    cmd: list[str],
    *,
    cwd: Path | None = None,
    env: dict | None = None,
    timeout: float | None = None,
) -> Measurement:
    """Run ``cmd`` to completion: wall time, peak RSS of the child, its output.

    The child is reaped with ``os.wait4``, whose rusage is that child's alone; its
    peak is at least this process's resident size at the fork (see the module doc).
    """
    if not _WARNED and _resident_mb() > 100:
        _WARNED.append(True)
        print(f"warning: the benchmark process holds {_resident_mb():.0f} MB: every child's "
              "peak memory reads at least that (build data with run_apart)", file=sys.stderr)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=user_env() if env is None else env,
                                stdout=out, stderr=err)
        timer = threading.Timer(timeout, proc.kill) if timeout else None
        if timer:
            timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        if timer:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        rss_mb = usage.ru_maxrss / 1024.0  # KiB on Linux
        return Measurement(seconds, rss_mb, proc.returncode, out.read(), err.read())


def time_process(
    label: str,
    cmd: list[str],
    repeats: int = 3,
    *,
    cwd: Path | None = None,
    env: dict | None = None,
    timeout: float | None = None,
    verbose: bool = True,
) -> Timing:
    """Run ``cmd`` ``repeats`` times (each a new process) and collect the figures."""
    timing = Timing(label)
    for i in range(repeats):
        m = run_process(cmd, cwd=cwd, env=env, timeout=timeout)
        timing.runs.append(m)
        if verbose:
            print(
                f"  {label} [{i + 1}/{repeats}]: {m.seconds:.2f} s, {m.max_rss_mb:.0f} MB"
                + ("" if m.returncode == 0 else f", exit {m.returncode}"),
                file=sys.stderr,
                flush=True,
            )
        if m.returncode != 0:
            if verbose:
                print(m.stderr.decode(errors="replace")[-2000:], file=sys.stderr)
            break
    return timing
