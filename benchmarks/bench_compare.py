"""Benchmark: all-pairs preferences vs evaluating measures, whole processes.

Times, on the synthetic collection (100 runs x 250 queries x 1000 documents),

- ``irpref evaluate QRELS RUN... -m AP nDCG RR P@10 R@1000``  and
- ``irpref compare  QRELS RUN... -m sgnLP rrLP sgnLR RPP RPP(p=dcg) RPP(p=inverse)``
  (all 4,950 run pairs x 250 queries x 6 preferences; means printed as TSV),

each as a separate process (reading, judging, computing and writing
included), alternating the two, and prints the times and their ratio. The
target is ``compare <= 3 x evaluate``.

The collection is ``benchmarks/data`` (written by ``benchmarks/generate.py``
when missing; without that script, by a seeded generator of the same shape
here).

Usage::

    python benchmarks/bench_compare.py [--data DIR] [--repeat 3] [--check]
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
MEASURES = ["AP", "nDCG", "RR", "P@10", "R@1000"]
PREFERENCES = ["sgnLP", "rrLP", "sgnLR", "RPP", "RPP(p=dcg)", "RPP(p=inverse)"]


def _fallback_generate(out: Path, seed: int, runs: int, queries: int, docs: int) -> None:
    """Seeded collection of the same shape as generate.py's (qrels grades 0-3,
    ~100 relevant per query, runs of ``docs`` documents ranked by noisy scores)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    rng = np.random.default_rng(seed)
    pool = 6 * docs
    (out / "runs").mkdir(parents=True, exist_ok=True)
    grade = np.zeros((queries, pool), np.int64)
    n_rel = np.clip(rng.poisson(100, queries), 5, pool // 4)
    n_judged = n_rel + np.clip(rng.poisson(250, queries), 5, pool // 2)
    col = np.arange(pool)[None, :]
    grade[:] = np.where(col < n_rel[:, None], rng.choice([1, 2, 3], (queries, pool),
                                                         p=[0.55, 0.3, 0.15]), 0)
    qid = np.arange(queries) + 100_000
    q, c = np.nonzero(col < n_judged[:, None])

    def text(values) -> pa.Array:
        return pc.cast(pa.array(values), pa.string())

    def lines(*cols) -> bytes:
        joined = pc.binary_join_element_wise(*cols, " ")
        return ("\n".join(joined.to_pylist()) + "\n").encode()

    doc = pc.binary_join_element_wise("doc", text(q * pool + c), "")
    (out / "qrels.txt").write_bytes(lines(text(qid[q]), text(np.zeros(len(q), int)), doc,
                                          text(grade[q, c])))
    for r in range(runs):
        raw = rng.uniform(0.2, 1.5) * grade + rng.standard_normal(grade.shape)
        top = np.argsort(-raw, axis=1)[:, :docs]
        score = np.round(10 + 2 * np.take_along_axis(raw, top, axis=1), 6).ravel()
        qq = np.repeat(np.arange(queries), docs)
        doc = pc.binary_join_element_wise("doc", text(qq * pool + top.ravel()), "")
        rank = np.tile(np.arange(1, docs + 1), queries)
        n = len(qq)
        data = lines(text(qid[qq]), pa.array(["Q0"] * n), doc, text(rank), text(score),
                     pa.array([f"sys{r:03d}"] * n))
        (out / "runs" / f"run-{r:03d}.txt").write_bytes(data)


def ensure_data(data: Path, runs: int, queries: int, docs: int) -> tuple[Path, list[Path]]:
    qrels = data / "qrels.txt"
    run_paths = sorted((data / "runs").glob("run-*.txt")) if (data / "runs").is_dir() else []
    if qrels.exists() and len(run_paths) == runs:
        return qrels, run_paths
    script = HERE / "generate.py"
    start = time.perf_counter()
    if script.exists():
        spec = importlib.util.spec_from_file_location("irpref_bench_generate", script)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.generate(data, runs=runs, queries=queries, docs=docs)
    else:
        _fallback_generate(data, 1, runs, queries, docs)
    print(f"generated {data} in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return qrels, sorted((data / "runs").glob("run-*.txt"))


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=HERE / "data")
    p.add_argument("--runs", type=int, default=100)
    p.add_argument("--queries", type=int, default=250)
    p.add_argument("--docs", type=int, default=1000)
    p.add_argument("--repeat", type=int, default=1, help="alternating repetitions (median kept)")
    p.add_argument("--check", action="store_true", help="exit 1 when the ratio exceeds 3")
    args = p.parse_args(argv)
    qrels, runs = ensure_data(args.data, args.runs, args.queries, args.docs)
    files = [str(qrels), *map(str, runs)]
    evaluate = ["irpref", "evaluate", *files, "-m", *MEASURES, "--format", "tsv"]
    compare = ["irpref", "compare", *files, "-m", *PREFERENCES, "--format", "tsv"]
    t_eval, t_cmp = [], []
    for _ in range(args.repeat):
        t_eval.append(timed(evaluate))
        t_cmp.append(timed(compare))
    e, c = statistics.median(t_eval), statistics.median(t_cmp)
    pairs = len(runs) * (len(runs) - 1) // 2
    print(f"collection: {len(runs)} runs x {args.queries} queries x {args.docs} documents")
    print(f"irpref evaluate, {len(MEASURES)} measures ({' '.join(MEASURES)}): "
          f"{e:.2f} s  (runs: {', '.join(f'{t:.2f}' for t in t_eval)})")
    print(f"irpref compare, {pairs} pairs x {len(PREFERENCES)} preferences: "
          f"{c:.2f} s  (runs: {', '.join(f'{t:.2f}' for t in t_cmp)})")
    ratio = c / e
    print(f"ratio compare / evaluate: {ratio:.2f} (target <= 3)")
    return 1 if args.check and ratio > 3 else 0


if __name__ == "__main__":
    sys.exit(main())
