"""Benchmark: significance tests over all run pairs, randomized Tukey HSD with 10,000 permutations.

Two collections: the 37 TREC DL 2019 passage runs (43 topics, grade >= 2
relevant; ``../shared/data/dl19-passage``) and the 100-run synthetic
collection of ``generate.py`` (``benchmarks/data``; 250 queries by default).
For each, the per-query tables are computed once (``evaluate`` for metrics,
``compare_matrices`` for preferences; timed as "setup"), then, in process:

- the paired tests of all R (R - 1) / 2 pairs (t / sign / Wilcoxon) with Holm,
  against a Python loop calling ``scipy.stats.ttest_rel`` once per pair;
- the randomized Tukey HSD with ``--permutations`` permutations, per measure
  (metric: range of permuted run means; sgnLP / sgnLR: permuted per-query
  orders; rrLP / RPP: gathered R x R matrices);

and prints wall and CPU seconds (median of ``--repeats``; CPU time is the
fairer figure on a busy machine) and discriminative power.

Usage::

    python benchmarks/generate.py            # once, for the synthetic collection
    python benchmarks/bench_significance.py [--permutations 10000] [--repeats 1]
        [--skip-synthetic] [--skip-dl19] [--data DIR]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DL19 = ROOT.parent / "shared" / "data" / "dl19-passage"

METRICS = ["RR", "AP", "nDCG@10"]
PREFERENCES = ["sgnLP", "rrLP", "sgnLR", "RPP"]


def _time(fn, repeats: int):
    """Result, median wall seconds and median CPU seconds of this process."""
    out, wall, cpu = None, [], []
    for _ in range(repeats):
        start, cpu_start = time.perf_counter(), time.process_time()
        out = fn()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - cpu_start)
    return out, statistics.median(wall), statistics.median(cpu)


def bench(name: str, qrels: Path, runs: list[Path], rel: int, args) -> None:
    import irpref
    from irpref import stats as S
    from irpref.compare import compare_matrices

    print(f"\n== {name}: {len(runs)} runs, rel >= {rel}")
    start = time.perf_counter()
    judged = irpref.judge_inputs(qrels, runs, rel=rel, warn=False)
    metrics = irpref.evaluate(None, None, METRICS, judged=judged)
    prefs = compare_matrices(None, None, PREFERENCES, rel=rel, judged=judged)
    print(f"setup (read, judge, evaluate {len(METRICS)} metrics, compare "
          f"{len(PREFERENCES)} preferences): {time.perf_counter() - start:.1f} s")
    pairwise = S.as_pairwise(metrics) + [S.Pairwise.from_comparison(prefs, p) for p in PREFERENCES]
    r = pairwise[0].n_runs
    print(f"queries {pairwise[0].n_queries}, pairs {r * (r - 1) // 2}")

    # paired tests, vectorized vs a per-pair scipy loop
    rr = pairwise[0]
    S.pair_tests(rr, "t", bootstrap=0)  # warm up: scipy.stats is imported on first use
    _, t_vec, _ = _time(lambda: S.pair_tests(rr, "t", bootstrap=0), args.repeats)
    _, w_vec, _ = _time(lambda: S.pair_tests(rr, "wilcoxon", bootstrap=0), args.repeats)
    _, b_vec, _ = _time(lambda: S.bootstrap_ci(rr.values, 1000, seed=0), args.repeats)

    def loop():
        from scipy import stats

        a, b = rr.pairs
        return [stats.ttest_rel(rr.scores[i], rr.scores[j]).pvalue for i, j in zip(a, b)]

    _, t_loop, _ = _time(loop, args.repeats)
    print(f"paired t, all pairs (RR):       {t_vec:8.3f} s   scipy loop per pair {t_loop:7.3f} s"
          f"  ({t_loop / t_vec:.0f}x)")
    print(f"wilcoxon, all pairs (RR):       {w_vec:8.3f} s")
    print(f"bootstrap CI, 1000 resamples:   {b_vec:8.3f} s")

    print(f"randomized Tukey HSD, {args.permutations} permutations, seed 1:")
    print(f"  {'measure':10s} {'kind':7s} {'wall s':>8s} {'cpu s':>8s}  {'paired %':>8s}"
          f"  {'hsd %':>6s}")
    for pw in pairwise:
        (p, _), secs, cpu = _time(lambda pw=pw: S.tukey_hsd(pw, args.permutations, seed=1),
                                  args.repeats)
        paired = S.pair_tests(pw, "paired", bootstrap=0)
        dp_paired = 100 * float(np.mean(paired["p_adjusted"] < 0.05))
        dp_hsd = 100 * float(np.mean(p < 0.05))
        print(f"  {pw.measure:10s} {pw.kind:7s} {secs:8.2f} {cpu:8.2f}  {dp_paired:8.2f}"
              f"  {dp_hsd:6.2f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=HERE / "data")
    ap.add_argument("--permutations", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--skip-dl19", action="store_true")
    ap.add_argument("--skip-synthetic", action="store_true")
    args = ap.parse_args(argv)
    if not args.skip_dl19:
        bench("TREC DL 2019 passage", DL19 / "qrels.txt", sorted((DL19 / "runs").glob("*.gz")),
              2, args)
    if not args.skip_synthetic:
        runs = sorted((args.data / "runs").glob("run-*"))
        if not runs:
            print(f"\nno synthetic collection in {args.data}: run benchmarks/generate.py first",
                  file=sys.stderr)
            return 1
        bench("synthetic (generate.py)", args.data / "qrels.txt", runs, 1, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
