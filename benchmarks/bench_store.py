"""Benchmark: loading saved judged rankings (Parquet) against reading and judging again.

For the shipped example (src/irpref/examples/dl19) and, with ``--data DIR``, a
collection of ``generate.py`` (``DIR/qrels.txt``, ``DIR/runs/run-*``): times
``judge_inputs`` (parse, intern, judge) and ``irpref.judging.store.load`` (with its
staleness check: stat of every input), interleaved, median of ``--repeats``.

Usage::

    python benchmarks/bench_store.py [--data benchmarks/data] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def bench(name: str, qrels: Path, runs: list[Path], repeats: int) -> None:
    import irpref
    from irpref.judging.store import load, save

    judged = irpref.judge_inputs(qrels, runs, warn=False)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "judged.parquet"
        start = time.perf_counter()
        save(judged, out, qrels=qrels, runs=runs)
        save_s = time.perf_counter() - start
        parse, load = [], []
        for _ in range(repeats):
            start = time.perf_counter()
            irpref.judge_inputs(qrels, runs, warn=False)
            parse.append(time.perf_counter() - start)
            start = time.perf_counter()
            load(out)
            load.append(time.perf_counter() - start)
        size = out.stat().st_size
    text = sum(p.stat().st_size for p in [qrels, *runs])
    p, lo = statistics.median(parse), statistics.median(load)
    print(f"{name}: {len(runs)} runs, {text / 1e6:.0f} MB text, {judged.n_items} items; "
          f"parquet {size / 1e6:.1f} MB (save {save_s:.2f} s)\n"
          f"  read+judge {p:.3f} s   load {lo:.3f} s   ({p / lo:.1f}x)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    from irpref import examples

    ex = Path(examples.__file__).parent / "dl19"
    bench("shipped example", ex / "qrels.txt", sorted(ex.glob("*.gz")), args.repeats)
    if args.data:
        bench(f"generated ({args.data})", args.data / "qrels.txt",
              sorted((args.data / "runs").glob("run-*")), args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
