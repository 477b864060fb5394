"""Benchmark: the cost of ``--ties expected`` beside ``--ties docid``.

McSherry & Najork (ECIR 2008, section 3) report that tie-aware measures cost
about as much as the tie-oblivious ones, except about 25% more for RR; the
target here is at most 1.5x. On the synthetic collection of ``generate.py``
(100 runs x 250 queries x 1000 documents; every fourth run rounds its scores
to 2 decimals and every tenth to 1, so ties are common), this script

1. times whole ``irpref evaluate`` processes (a new Python each time, reading
   every file) with ``--ties docid`` and ``--ties expected``: median wall time
   of ``--repeats`` runs and their ratio;
2. times each measure's kernel in one process on rankings judged once
   (median of ``--repeats``; the expected kernel's time includes building its
   tie-group statistics), to show where the extra cost lies.

Usage::

    python benchmarks/generate.py          # once (writes benchmarks/data/)
    python benchmarks/bench_ties.py [--repeats 3] [--data DIR] [-m AP nDCG RR ...]

If the data directory is empty, the collection is generated first (seed 1).
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MEASURES = ["AP", "nDCG", "RR", "P@10", "R@1000"]
KERNEL_MEASURES = [*MEASURES, "nDCG@10", "RR@10", "AP@100", "F1@10", "Success@10", "Rprec", "RBP"]


def find_data(data: Path) -> tuple[Path, list[Path]]:
    """qrels and runs of the synthetic collection, generating it when absent."""
    runs = sorted((data / "runs").glob("run-*.txt*")) if (data / "runs").is_dir() else []
    qrels = next(iter(sorted(data.glob("qrels.txt*"))), None)
    if not runs or qrels is None:
        sys.path.insert(0, str(HERE))
        from generate import generate  # the shared, seeded generator

        print(f"generating the synthetic collection in {data} ...", file=sys.stderr)
        qrels, runs = generate(data)
    return qrels, runs


def irpref_command() -> list[str]:
    exe = shutil.which("irpref")
    return [exe] if exe else [sys.executable, "-m", "irpref.cli.main"]


def time_process(cmd: list[str], repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - start)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(cmd[:3])} ... failed:\n{proc.stderr.decode()}")
    return times


def bench_processes(qrels: Path, runs: list[Path], measures: list[str], repeats: int) -> None:
    base = [*irpref_command(), "evaluate", str(qrels), *map(str, runs), "-m", *measures,
            "--format", "tsv"]
    print(f"whole processes: irpref evaluate, {len(runs)} runs, -m {' '.join(measures)}, "
          f"median of {repeats}")
    medians = {}
    for ties in ("docid", "expected"):
        times = time_process([*base, "--ties", ties], repeats)
        medians[ties] = statistics.median(times)
        print(f"  --ties {ties:<8} {medians[ties]:8.2f} s   "
              f"(runs: {', '.join(f'{t:.2f}' for t in times)})")
    print(f"  ratio expected/docid: {medians['expected'] / medians['docid']:.3f}  (target <= 1.5)")


def bench_kernels(qrels: Path, runs: list[Path], measures: list[str], repeats: int) -> None:
    from irpref.evaluate import judge_inputs
    from irpref.measures import parse_measure, ties
    from irpref.meta.ties import tie_counts

    start = time.perf_counter()
    docid = judge_inputs(qrels, runs, ties="docid")
    print(f"\nkernels in one process (read + judge once: {time.perf_counter() - start:.1f} s, "
          f"{docid.n_items:,} items), median of {repeats}")
    counts = tie_counts(docid)
    print(f"  ties: {int((counts['tied_queries'] > 0).sum())} of {len(counts)} runs tie; "
          f"{int(counts['tied_items'].sum()):,} items in tie groups; "
          f"largest group {int(counts['largest_group'].max())}")
    docid.rank  # noqa: B018  (per-item lazies both policies use, computed once)
    expected = dataclasses.replace(docid, ties="expected")  # same arrays, judged alike
    expected.__dict__.update(segment=docid.segment, rank=docid.rank)
    t = time.perf_counter()
    expected.tie_offsets  # noqa: B018
    print(f"  tie groups (JudgedRankings.tie_offsets, once): "
          f"{(time.perf_counter() - t) * 1e3:.1f} ms")
    print(f"  {'measure':<12}{'docid (ms)':>12}{'expected (ms)':>15}{'ratio':>8}")
    total = {"docid": 0.0, "expected": 0.0}
    for text in measures:
        m = parse_measure(text)
        med = {}
        for name, judged in (("docid", docid), ("expected", expected)):
            times = []
            for _ in range(repeats):
                ties._CACHE.pop(judged, None)  # pay for the tie-group statistics each time
                t = time.perf_counter()
                m.compute(judged)
                times.append(time.perf_counter() - t)
            med[name] = statistics.median(times)
            total[name] += med[name]
        print(f"  {text:<12}{med['docid'] * 1e3:12.1f}{med['expected'] * 1e3:15.1f}"
              f"{med['expected'] / med['docid']:8.2f}")
    print(f"  {'all':<12}{total['docid'] * 1e3:12.1f}{total['expected'] * 1e3:15.1f}"
          f"{total['expected'] / total['docid']:8.2f}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=HERE / "data", help="synthetic collection")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("-m", "--measures", nargs="+", default=MEASURES,
                   help=f"measures for the process timing (default {' '.join(MEASURES)})")
    p.add_argument("--skip-processes", action="store_true", help="only time the kernels")
    p.add_argument("--skip-kernels", action="store_true", help="only time whole processes")
    args = p.parse_args(argv)
    qrels, runs = find_data(args.data)
    if not args.skip_processes:
        bench_processes(qrels, runs, args.measures, args.repeats)
    if not args.skip_kernels:
        bench_kernels(qrels, runs, KERNEL_MEASURES, args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
