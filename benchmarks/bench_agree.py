"""Benchmark: ``irpref agree``, whole processes (start-up, reading and writing included).

1. Labels: two seeded synthetic qrels of ``--pairs`` (default 1,000,000)
   judged pairs each (B: A with 30% of the grades redrawn, 5% of the pairs
   replaced by pairs A does not judge); times ``irpref agree A B --format
   tsv``. Target: under 5 s.
2. Runs: the seeded collection of ``benchmarks/generate.py`` (``--runs``
   runs, default 100) with its qrels as A and a noisy copy as B; times
   ``irpref agree A B RUN... -m AP nDCG@10`` against ``irpref evaluate A
   RUN... -m AP nDCG@10`` plus the same under B. Target: agree <= 1.10 x the
   two evaluations.

Prints the median times and the ratio. Usage::

    python benchmarks/bench_agree.py [--pairs 1000000] [--runs 100] [--queries 50]
                                     [--docs 200] [--repeat 3] [--seed 1]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import time_process  # noqa: E402
from generate import generate  # noqa: E402

MEASURES = ["AP", "nDCG@10"]


def _timed(label: str, cmd: list[str], repeats: int):
    """time_process, plus the children's mean CPU seconds (user + sys): on a busy
    machine wall time measures the neighbours, CPU time the command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    timing = time_process(label, cmd, repeats)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return timing, cpu / max(1, len(timing.runs))


def _irpref() -> str:
    exe = Path(sys.executable).with_name("irpref")
    return str(exe) if exe.exists() else "irpref"


def _write_qrels(path: Path, query: np.ndarray, doc: np.ndarray, grade: np.ndarray) -> None:
    lines = np.char.add(np.char.add(np.char.add(np.char.add(
        query.astype(str), " 0 "), doc.astype(str)), " "), grade.astype(str))
    path.write_text("\n".join(lines.tolist()) + "\n")


def label_qrels(out: Path, pairs: int, seed: int) -> tuple[Path, Path]:
    """Two qrels of ``pairs`` pairs (500 per query), B a noisy, partly shifted A."""
    rng = np.random.default_rng(seed)
    per_query = 500
    queries = max(1, pairs // per_query)
    q = np.repeat(np.arange(queries), per_query)[:pairs]
    d = np.tile(np.arange(per_query), queries)[:pairs]
    query = np.char.add("q", q.astype(str))
    doc_a = np.char.add("d", (q * 7919 + d).astype(str))
    grade_a = rng.choice(4, size=pairs, p=[0.6, 0.2, 0.12, 0.08])
    grade_b = grade_a.copy()
    redraw = rng.random(pairs) < 0.3
    grade_b[redraw] = rng.integers(0, 4, int(redraw.sum()))
    doc_b = doc_a.copy()
    moved = rng.random(pairs) < 0.05
    doc_b[moved] = np.char.add("x", doc_b[moved])
    a, b = out / "labels_a.qrels", out / "labels_b.qrels"
    _write_qrels(a, query, doc_a, grade_a)
    _write_qrels(b, query, doc_b, grade_b)
    return a, b


def noisy_copy(qrels: Path, out: Path, seed: int) -> Path:
    """``qrels`` with 30% of the grades redrawn (seeded)."""
    rng = np.random.default_rng(seed)
    rows = [line.split() for line in qrels.read_text().splitlines() if line.strip()]
    grades = np.array([int(r[3]) for r in rows])
    redraw = rng.random(len(grades)) < 0.3
    grades[redraw] = rng.integers(0, 4, int(redraw.sum()))
    out.write_text("".join(f"{r[0]} {r[1]} {r[2]} {g}\n" for r, g in zip(rows, grades)))
    return out


def prepare(out: Path, args: argparse.Namespace) -> None:
    """The label qrels and the collection with its noisy qrels, under ``out``."""
    label_qrels(out, args.pairs, args.seed)
    qrels, _ = generate(out / "coll", args.seed, args.runs, args.queries, args.docs,
                        pool=6 * args.docs)
    noisy_copy(qrels, out / "coll" / "qrels_b.txt", args.seed + 1)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pairs", type=int, default=1_000_000)
    p.add_argument("--runs", type=int, default=100)
    p.add_argument("--queries", type=int, default=50)
    p.add_argument("--docs", type=int, default=200)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--prepare", type=Path, default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.prepare is not None:  # the data, written by a child process
        prepare(args.prepare, args)
        return 0
    exe = _irpref()
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        # written by a separate process, so that the timed children do not inherit
        # this process's peak memory in their rusage
        subprocess.run([sys.executable, __file__, "--prepare", tmp, "--pairs", str(args.pairs),
                        "--runs", str(args.runs), "--queries", str(args.queries), "--docs",
                        str(args.docs), "--seed", str(args.seed)], check=True)
        a, b = tmp_path / "labels_a.qrels", tmp_path / "labels_b.qrels"
        labels, cpu = _timed("agree labels", [exe, "agree", str(a), str(b), "--format", "tsv"],
                             args.repeat)
        print(f"agree on two qrels of {args.pairs:,} pairs: {labels.median:.2f} s wall, "
              f"{cpu:.2f} s CPU (peak {labels.max_rss_mb:.0f} MB; target < 5 s)")
        qrels = tmp_path / "coll" / "qrels.txt"
        qrels_b = tmp_path / "coll" / "qrels_b.txt"
        run_args = [str(r) for r in sorted((tmp_path / "coll" / "runs").iterdir())]
        ev = [exe, "evaluate", "-m", *MEASURES, "--format", "tsv", "--"]
        eval_a, cpu_a = _timed("evaluate A", [*ev, str(qrels), *run_args], args.repeat)
        eval_b, cpu_b = _timed("evaluate B", [*ev, str(qrels_b), *run_args], args.repeat)
        agree, cpu_agree = _timed("agree runs", [exe, "agree", "-m", *MEASURES, "--format",
                                                 "tsv", "--", str(qrels), str(qrels_b),
                                                 *run_args], args.repeat)
        both = eval_a.median + eval_b.median
        print(f"{args.runs} runs x {args.queries} queries x {args.docs} documents, "
              f"-m {' '.join(MEASURES)}: evaluate A {eval_a.median:.2f} s + evaluate B "
              f"{eval_b.median:.2f} s = {both:.2f} s; agree {agree.median:.2f} s; "
              f"ratio {agree.median / both:.2f} (target <= 1.10); CPU: {cpu_a:.2f} + "
              f"{cpu_b:.2f} s vs {cpu_agree:.2f} s, ratio {cpu_agree / (cpu_a + cpu_b):.2f}")
        ok = labels.ok and eval_a.ok and eval_b.ok and agree.ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
