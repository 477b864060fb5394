"""Rows per second of the tidy TSV / JSON writer (``irpref.report.tables``).

Seeded synthetic per-query tables shaped like ``compare --per-query`` (categorical
run_a, run_b, query, measure) and ``evaluate --per-query`` (object run, query),
written to a sink that discards the bytes. Usage:
``python benchmarks/bench_output.py [--rows N] [--seed S]``.
"""

from __future__ import annotations

import argparse
import io
import time

import numpy as np
import pandas as pd

from irpref.report.tables import write_table


class _Sink(io.RawIOBase):
    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
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
    })
    return {"compare": (compare, ["run_a", "run_b", "query", "measure"]),
            "evaluate": (evaluate, ["run", "query", "measure"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for name, (frame, keys) in tables(args.rows, args.seed).items():
        for fmt in ("tsv", "json"):
            out = io.TextIOWrapper(io.BufferedWriter(_Sink()), encoding="utf-8")
            start = time.perf_counter()
            write_table(frame, keys, fmt, out)
            out.flush()
            seconds = time.perf_counter() - start
            print(f"{name:<9}{fmt:<5}{args.rows:>10,} rows {seconds:7.2f} s "
                  f"{args.rows / seconds / 1e6:6.2f} M rows/s")


if __name__ == "__main__":
    main()
