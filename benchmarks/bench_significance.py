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
fairer figure on a busy machine) and discriminative power. ``--kernels both``
(the default) times every HSD twice in the same process, with the NumPy
kernels (``IRPREF_KERNELS=numpy``) and with the C extension
``irpref._native.kernels``, prints the ratio and checks that the p-values are
identical; ``--hsd-measures`` picks the measures (default: all seven), and
the bootstrap CI is timed on a metric and on a real-valued preference.

``--ab`` times the HSD kernels against the previous implementation (kept
below as ``_reference_*``, the code before the per-query take/threads
rewrite), interleaved old/new in one process on seeded (Q, R) matrices
(default 250 queries x 100 runs), checks that both give the same maxima, and
prints medians. Figures measured before the rewrite (10,000 permutations,
100 runs x 250 queries): metric (RR) 9.7 s, sgnLP 26 s, rrLP 269 s, RPP 512 s.

Usage::

    python benchmarks/generate.py            # once, for the synthetic collection
    python benchmarks/bench_significance.py [--permutations 10000] [--repeats 1]
        [--skip-synthetic] [--skip-dl19] [--data DIR] [--kernels both|c|numpy]
        [--hsd-measures AP sgnLP rrLP RPP]
    python benchmarks/bench_significance.py --ab [--permutations 1000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
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


BEFORE = {"metric": 9.7, "sign (order)": 26.0, "real (rrLP)": 269.0, "real (RPP)": 512.0}
"""Seconds for 10,000 permutations, 100 runs x 250 queries, before the rewrite."""


def _reference_matrix_maxima(m, sign, rng, permutations, batch, a, b):
    """The previous generic gather: flat (B, Q, P) indices, one gather, sum over queries."""
    from irpref.stats import hsd_permutations

    nq, r, _ = m.shape
    dflat = m.astype(np.int8 if sign else np.float64).ravel()
    acc = np.int32 if sign else np.float64
    batch = batch or max(1, 2**21 // (nq * len(a)))
    base = (np.arange(nq, dtype=np.int32) * (r * r))[None, :, None]
    maxima = []
    for perm in hsd_permutations(rng, permutations, nq, r, batch):
        perm = perm.astype(np.int32)
        idx = perm[:, :, a] * r
        idx += perm[:, :, b]
        idx += base
        maxima.append(np.abs(dflat[idx].sum(1, dtype=acc)).max(-1))
    return np.concatenate(maxima)


def _reference_order_maxima(keys, rng, permutations, batch):
    """The previous order-key kernel: (B, Q, R, R) int8 signs summed over queries."""
    from irpref.stats import hsd_permutations

    nq, r = keys.shape
    acc = np.int16 if nq < 2**15 else np.int32
    batch = batch or max(1, 2**22 // (nq * r * r))
    qi = np.arange(nq)[None, :, None]
    maxima = []
    for perm in hsd_permutations(rng, permutations, nq, r, batch):
        y = keys[qi, perm]
        d = np.subtract(y[..., :, None], y[..., None, :], dtype=keys.dtype)
        np.sign(d, out=d)
        maxima.append(np.abs(d.sum(1, dtype=acc)).max((-1, -2)))
    return np.concatenate(maxima).astype(np.float64)


def _reference_metric_maxima(x, rng, permutations, batch=None):
    from irpref.stats import hsd_permutations

    nq, r = x.shape
    batch = batch or max(1, 2**20 // (nq * r))
    qi = np.arange(nq)[None, :, None]
    return np.concatenate([np.ptp(x[qi, perm].mean(1), axis=-1)
                           for perm in hsd_permutations(rng, permutations, nq, r, batch)])


def ab(args) -> None:
    """Old vs new HSD kernels, interleaved, medians of ``--repeats``; same maxima asserted."""
    from irpref.stats import hsd as H

    q, r, n = args.queries, args.runs, args.permutations
    rng = np.random.default_rng(0)
    u = rng.random((q, r))
    x = u.T.copy()
    real = np.round(u[:, :, None] - u[:, None, :], 3) * (rng.random((q, 1, 1)) + 0.5)
    real = real - real.transpose(0, 2, 1)
    keys = np.argsort(np.argsort(u, axis=1), axis=1).astype(np.int8 if r <= 127 else np.int16)
    a, b = np.triu_indices(r, 1)
    kernels = {
        "metric": (lambda: _reference_metric_maxima(x, np.random.default_rng(1), n),
                   lambda: H._hsd_metric_maxima(x, np.random.default_rng(1), n, None)),
        "sign (order)": (lambda: _reference_order_maxima(keys, np.random.default_rng(1), n, None),
                         lambda: H._hsd_order_maxima(keys, np.random.default_rng(1), n, None)),
        "real (rrLP)": (
            lambda: _reference_matrix_maxima(real, False, np.random.default_rng(1), n, None, a, b),
            lambda: H._hsd_matrix_maxima(real, False, np.random.default_rng(1), n, None, a, b)),
    }
    print(f"HSD kernels, {n} permutations, {r} runs x {q} queries, {H._threads()} thread(s); "
          f"median of {args.repeats} interleaved old/new runs (wall s, scaled to 10,000 "
          f"permutations in brackets)")
    print(f"  {'kernel':14s} {'old':>9s} {'new':>9s} {'speed-up':>8s}  {'before (10k)':>12s}")
    for name, (old, new) in kernels.items():
        t_old, t_new = [], []
        for _ in range(args.repeats):
            for fn, times in ((old, t_old), (new, t_new)):
                start = time.perf_counter()
                out = fn()
                times.append(time.perf_counter() - start)
                if fn is old:
                    ref = out
            tol = 1e-9 * q * max(1.0, float(np.abs(real).max()))
            assert np.abs(out - ref).max() <= tol, f"{name}: new maxima differ from the reference"
        mo, mn = statistics.median(t_old), statistics.median(t_new)
        scale = 10_000 / n
        print(f"  {name:14s} {mo:9.2f} {mn:9.2f} {mo / mn:7.1f}x  {BEFORE[name]:10.1f} s"
              f"   [old {mo * scale:6.1f} s, new {mn * scale:6.1f} s]")


def bench(name: str, qrels: Path, runs: list[Path], rel: int, args) -> None:
    import irpref
    from irpref import stats as S
    from irpref.compare import compare_matrices
    from irpref.runtime import native
    from irpref.stats import hsd as H

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
    real = next(pw for pw in pairwise if pw.kind == "real")
    _, b_real, _ = _time(lambda: S.bootstrap_ci(real.values, 1000, seed=0), args.repeats)

    def loop():
        from scipy import stats

        a, b = rr.pairs
        return [stats.ttest_rel(rr.scores[i], rr.scores[j]).pvalue for i, j in zip(a, b)]

    _, t_loop, _ = _time(loop, args.repeats)
    print(f"paired t, all pairs (RR):       {t_vec:8.3f} s   scipy loop per pair {t_loop:7.3f} s"
          f"  ({t_loop / t_vec:.0f}x)")
    print(f"wilcoxon, all pairs (RR):       {w_vec:8.3f} s")
    print(f"bootstrap CI, 1000 resamples:   {b_vec:8.3f} s (RR), {b_real:.3f} s ({real.measure}, "
          f"{real.values.shape[0]} pairs x {real.values.shape[1]} queries)")

    modes = ["numpy", "c"] if args.kernels == "both" else [args.kernels]
    chosen = [pw for pw in pairwise
              if not args.hsd_measures or pw.measure.lower() in args.hsd_measures]
    print(f"randomized Tukey HSD, {args.permutations} permutations, seed 1, "
          f"{H._threads()} thread(s); kernels: {' vs '.join(modes)}")
    head = "".join(f"  {m + ' wall':>11s} {m + ' cpu':>10s}" for m in modes)
    ratio = f"  {'ratio':>6s} {'same p':>6s}" if len(modes) == 2 else ""
    print(f"  {'measure':10s} {'kind':7s}{head}{ratio}  {'paired %':>8s}  {'hsd %':>6s}")
    previous = os.environ.get(native.ENV)
    try:
        for pw in pairwise:
            if pw not in chosen:
                continue
            cells, walls, ps = "", [], []
            for mode in modes:
                os.environ[native.ENV] = mode
                (p, _), secs, cpu = _time(
                    lambda pw=pw: S.tukey_hsd(pw, args.permutations, seed=1), args.repeats)
                cells += f"  {secs:11.2f} {cpu:10.2f}"
                walls.append(secs)
                ps.append(p)
            if len(modes) == 2:
                same = np.array_equal(ps[0], ps[1])
                cells += f"  {walls[0] / walls[1]:5.1f}x {'yes' if same else 'NO':>6s}"
            paired = S.pair_tests(pw, "paired", bootstrap=0)
            dp_paired = 100 * float(np.mean(paired["p_adjusted"] < 0.05))
            dp_hsd = 100 * float(np.mean(ps[-1] < 0.05))
            print(f"  {pw.measure:10s} {pw.kind:7s}{cells}  {dp_paired:8.2f}  {dp_hsd:6.2f}",
                  flush=True)
        if (r, pairwise[0].n_queries) == (100, 250):
            print("  first measured (100 runs x 250 queries, before the NumPy rewrite): "
                  + ", ".join(f"{k} {v:g} s" for k, v in BEFORE.items()))
    finally:
        if previous is None:
            os.environ.pop(native.ENV, None)
        else:
            os.environ[native.ENV] = previous


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=HERE / "data")
    ap.add_argument("--permutations", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--skip-dl19", action="store_true")
    ap.add_argument("--skip-synthetic", action="store_true")
    ap.add_argument("--ab", action="store_true", help="old vs new HSD kernels, interleaved")
    ap.add_argument("--queries", type=int, default=250)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--kernels", choices=("both", "c", "numpy"), default="both",
                    help="HSD kernels to time: NumPy and C side by side (default), or one")
    ap.add_argument("--hsd-measures", nargs="+", type=str.lower, default=None,
                    metavar="MEASURE", help="measures to run HSD on (default: all)")
    args = ap.parse_args(argv)
    if args.ab:
        ab(args)
        return 0
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
