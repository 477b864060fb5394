"""Rows per second of the tidy TSV / JSON writer (``irpref.report.formats``).

Seeded synthetic per-query tables shaped like ``compare --per-query`` (categorical
run_a, run_b, query, measure; 100 runs, 250 queries, 6 preferences) and
``evaluate --per-query`` (string run, query, measure as ``irpref.evaluate``
returns them), in random row order, so the writer also sorts by query, written
to a sink that discards the bytes. Wall and CPU seconds (the writer runs on two
threads); best of ``--repeats``.

``--before REV`` also times the writer of git revision REV (its
``src/irpref/report/formats.py``, or ``tables.py`` before that module went) in the
same process, interleaved, and checks that both print the same bytes. Usage:
``python benchmarks/bench_output.py [--rows N] [--seed S] [--repeats 3] [--before REV]``.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import io
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from irpref.report import formats as current

HERE = Path(__file__).resolve().parent


class _Sink(io.RawIOBase):
    """Discards the bytes (keeps a digest of them when ``digest``, to compare writers)."""

    def __init__(self, digest: bool = False) -> None:
        self.digest = hashlib.sha256() if digest else None

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        if self.digest is not None:
            self.digest.update(data)
        return len(data)


def tables(rows: int, seed: int) -> dict[str, tuple[pd.DataFrame, list[str]]]:
    rng = np.random.default_rng(seed)
    runs = [f"run{i:03d}" for i in range(100)]
    queries = [str(1000 + q) for q in range(250)]
    cat = pd.Categorical.from_codes
    compare = pd.DataFrame({
        "run_a": cat(rng.integers(0, 100, rows), categories=runs),
        "run_b": cat(rng.integers(0, 100, rows), categories=runs),
        "query": cat(rng.integers(0, 250, rows), categories=queries),
        "measure": cat(rng.integers(0, 6, rows), categories=[f"m{i}" for i in range(6)]),
        "value": rng.normal(size=rows),
    })
    evaluate = pd.DataFrame({
        "run": np.asarray(runs, dtype=object)[rng.integers(0, 100, rows)],
        "query": np.asarray(queries, dtype=object)[rng.integers(0, 250, rows)],
        "measure": "AP",
        "value": rng.random(rows),
    }).astype({"run": "str", "query": "str", "measure": "str"})
    return {"compare": (compare, ["run_a", "run_b", "query", "measure"]),
            "evaluate": (evaluate, ["run", "query", "measure"])}


def module_at(rev: str):
    """The table writer as it was at git revision ``rev``: ``irpref.report.tables`` where
    the revision has it (the writer's first home), else ``irpref.report.formats``."""
    def show(name: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", "show", f"{rev}:src/irpref/report/{name}"], cwd=HERE,
                              capture_output=True, text=True)

    found = show("tables.py")
    text = (found if found.returncode == 0 else show("formats.py")).stdout
    path = Path(tempfile.mkdtemp()) / "tables_before.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("irpref_tables_before", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def timed(module, frame, keys, fmt, digest: bool = False) -> tuple[float, float, str]:
    sink = _Sink(digest)
    out = io.TextIOWrapper(io.BufferedWriter(sink, buffer_size=1 << 20), encoding="utf-8")
    wall, cpu = time.perf_counter(), time.process_time()
    module.write_table(frame, keys, fmt, out)
    out.flush()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return wall, cpu, sink.digest.hexdigest() if digest else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--before", metavar="REV", default=None,
                        help="also time the writer of this git revision (same process)")
    args = parser.parse_args()
    writers = {"now": current}
    if args.before:
        writers = {f"before ({args.before})": module_at(args.before), "now": current}
    print(f"{args.rows:,} rows; best of {args.repeats}; M rows/s by wall time "
          f"(by CPU time)")
    same = True
    for name, (frame, keys) in tables(args.rows, args.seed).items():
        for fmt in ("tsv", "json"):
            best = {w: (np.inf, np.inf) for w in writers}
            for _ in range(args.repeats):
                for w, module in writers.items():  # interleaved
                    wall, cpu, _ = timed(module, frame, keys, fmt)
                    best[w] = (min(best[w][0], wall), min(best[w][1], cpu))
            if len(writers) > 1:  # one more, untimed run each: the bytes compared
                same &= len({timed(m, frame, keys, fmt, True)[2] for m in writers.values()}) == 1
            for w, (wall, cpu) in best.items():
                print(f"{name:<9}{fmt:<5}{w:<22}{wall:6.2f} s {args.rows / wall / 1e6:6.2f} "
                      f"({args.rows / cpu / 1e6:5.2f}) M rows/s")
    if args.before:
        print("same bytes as before" if same else "OUTPUT DIFFERS from before")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
