"""Benchmark: residual bounds (``evaluate(..., bounds=True)``, ``--bounds``)
against the plain evaluation, kernel-only and as whole processes.

For each shape (query count, depth 100/1000, a low or high share of unjudged
documents, numeric or string document ids; collections written by
``generate.py`` with a seed, into ``--data``): *kernel*: the measures computed
on judged rankings in memory (the layout the process judges), then the same
plus :func:`irpref.measures.bounds.residual_bounds` (median of ``--repeats``);
*process*: ``irpref evaluate`` with and without ``--bounds``, each a new
process (plain evaluation judges the compact layout when it can, and so do
bounds, completing it with the unjudged items,
:func:`irpref.measures.bounds.with_unjudged`). Prints the medians and the ratios
bounds / plain. Process runs are interleaved (plain, bounds, plain, ...) so
load from other work on the machine falls on both alike; ``--before SRC``
also times ``--bounds`` with another checkout's ``src`` (e.g. ``git archive
<commit> src | tar -x -C /tmp/before``, C extensions copied in) in the same
rounds, and checks that both print the same numbers (to 1e-9).

Usage::

    python benchmarks/bench_bounds.py [--repeats 5] [--runs 10] [--measures AP nDCG ...]
        [--shapes q50-d1000-high-clueweb ...] [--before /tmp/before/src]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import run_process, user_env  # noqa: E402
from generate import generate  # noqa: E402

MEASURES = ["AP", "nDCG", "nDCG@10", "P@10", "RR", "R@1000"]
# name, queries, depth (documents retrieved), pool (candidates: larger = more unjudged), ids
SHAPES = [
    ("q50-d100-low-msmarco", 50, 100, 400, "msmarco1"),
    ("q50-d1000-high-clueweb", 50, 1000, 6000, "clueweb"),
    ("q250-d100-high-clueweb", 250, 100, 6000, "clueweb"),
    ("q250-d1000-low-msmarco", 250, 1000, 1200, "msmarco1"),
]


def _median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def kernel(qrels: Path, runs: list[Path], measures: list[str], repeats: int) -> tuple:
    from irpref.evaluate import judge_inputs, layout_for
    from irpref.measures import parse_measure
    from irpref.measures.bounds import residual_bounds, with_unjudged

    ms = [parse_measure(m) for m in measures]
    layout, count_docs = layout_for(ms)  # as the process judges (bounds complete it)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        judged = judge_inputs(qrels, runs, layout=layout, count_docs=count_docs)
    unjudged = float((with_unjudged(judged).grade < 0).mean())

    def plain():
        return {m: m.compute(judged) for m in ms}

    def with_bounds():
        values = plain()
        residual_bounds(judged, ms, values=values)

    plain()  # warm caches (tie groups, power tables); bounds start cold each time,
    # as in a process: with_unjudged builds new rankings on every call
    return _median_time(plain, repeats), _median_time(with_bounds, repeats), unjudged


def _numbers(out: bytes) -> list[list]:
    """The rows of a TSV output, numbers as floats."""
    def cell(x: str):
        try:
            return float(x)
        except ValueError:
            return x
    return [[cell(x) for x in line.split("\t")] for line in out.decode().splitlines()]


def _rounds(cmd: list[str], repeats: int, before: Path | None) -> tuple[float, float, float]:
    """Medians of plain, ``--bounds`` and (``before``) ``--bounds`` with another
    src tree, run in interleaved rounds; every run must succeed and the two
    ``--bounds`` outputs agree to 1e-9."""
    plain, bounds, old = [], [], []
    if before is not None:  # the same command, the other src tree first on the path
        cmd = [sys.executable, "-m", "irpref", *cmd[1:]]
    jobs = [(plain, cmd, None), (bounds, [*cmd, "--bounds"], None)]
    if before is not None:
        env = user_env(PYTHONPATH=str(before))
        jobs.append((old, [*cmd, "--bounds"], env))
    for _ in range(repeats):
        for times, c, env in jobs:
            m = run_process(c, env=env)
            if m.returncode != 0:
                raise SystemExit(f"{' '.join(c[:3])}...: exit {m.returncode}\n"
                                 + m.stderr.decode(errors="replace")[-2000:])
            times.append(m)
    if before is not None:
        new, ref = _numbers(bounds[0].stdout), _numbers(old[0].stdout)
        same = len(new) == len(ref) and all(
            len(x) == len(y) and all(
                (abs(p - q) <= 1e-9 or (p != p and q != q)) if isinstance(p, float)
                and isinstance(q, float) else p == q for p, q in zip(x, y))
            for x, y in zip(new, ref))
        if not same:  # a rule made exact prints a narrower interval: said, not fatal
            print("note: --bounds and --before print different numbers", file=sys.stderr)
    med = [statistics.median([m.seconds for m in t]) if t else float("nan")
           for t in (plain, bounds, old)]
    return med[0], med[1], med[2]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--measures", nargs="+", default=MEASURES)
    p.add_argument("--data", type=Path, default=HERE / "data" / "bounds")
    p.add_argument("--no-process", action="store_true", help="kernel timings only")
    p.add_argument("--before", type=Path, help="also time --bounds with this src tree "
                   "(PYTHONPATH) in the same rounds")
    p.add_argument("--shapes", nargs="+", choices=[s[0] for s in SHAPES],
                   help="only these shapes (default: all)")
    args = p.parse_args(argv)
    exe = str(Path(sys.executable).with_name("irpref"))
    print(f"measures: {' '.join(args.measures)}; {args.runs} runs; medians of {args.repeats}")
    head = (f"{'shape':28} {'unjudged':>8} {'kernel':>8} {'+bounds':>8} {'ratio':>6}"
            f" {'process':>8} {'+bounds':>8} {'ratio':>6}")
    print(head + (f" {'before':>8} {'ratio':>6}" if args.before else ""))
    for name, queries, depth, pool, ids in SHAPES:
        if args.shapes and name not in args.shapes:
            continue
        out = args.data / name
        if not (out / "qrels.txt").exists():
            generate(out, seed=1, runs=args.runs, queries=queries, docs=depth, pool=pool,
                     ids=ids)
        qrels = out / "qrels.txt"
        runs = sorted((out / "runs").glob("run-*.txt"))[: args.runs]
        k_plain, k_bounds, unj = kernel(qrels, runs, args.measures, args.repeats)
        line = (f"{name:28} {unj:8.2f} {k_plain:8.3f} {k_bounds:8.3f} "
                f"{k_bounds / k_plain:6.2f}")
        if not args.no_process:
            cmd = [exe, "evaluate", str(qrels), *map(str, runs), "-m", *args.measures,
                   "--format", "tsv", "--quiet"]
            a, b, c = _rounds(cmd, args.repeats, args.before)
            line += f" {a:8.2f} {b:8.2f} {b / a:6.2f}"
            if args.before:
                line += f" {c:8.2f} {c / a:6.2f}"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
