"""Benchmark: compare and significance over preferences at the leaderboard shape.

A leaderboard has many runs of shallow rankings: 1,000 runs x 50 queries x
depth 100 (5 M run lines; 499,500 run pairs), generated seeded by
``benchmarks/generate.py``. Whole processes, interleaved round by round:

- ``irpref evaluate -m AP nDCG@10 RR`` (the reference: the same runs read and judged);
- ``irpref compare -m sgnLP RPP`` (means of every pair, TSV);
- with ``--per-query``: the same with ``--per-query`` (499,500 pairs x 50 queries
  x 2 preferences = 50 M rows of TSV);
- with ``--significance``: ``irpref significance -m sgnLP rrLP RPP`` (every pair
  tested, TSV).

Each row prints the median wall time, the peak RSS (``wait4``), and both as
ratios of evaluate's (the target: compare's peak memory within 3x
evaluate's). ``--before REV`` runs the same commands on a checkout of git
revision REV (its C extensions built in a temporary worktree) in the same
rounds, and says whether each output is byte-identical to this tree's.
``--dask local:N`` (or an address) also runs compare and significance on Dask
and checks their output equals the single process's.

Output is hashed, never held: every command writes to a temporary file.

Usage::

    python benchmarks/bench_compare_scale.py [--data DIR] [--runs 1000] [--queries 50]
        [--docs 100] [--repeats 3] [--per-query] [--significance] [--before REV]
        [--dask local:2]
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from common import median, user_env  # noqa: E402

MEASURES = ["AP", "nDCG@10", "RR"]
PREFERENCES = ["sgnLP", "RPP"]
TESTED = ["sgnLP", "rrLP", "RPP"]


def collection(data: Path, runs: int, queries: int, docs: int) -> tuple[Path, list[Path]]:
    """The seeded collection in ``data`` (generated when missing)."""
    qrels = data / "qrels.txt"
    paths = sorted((data / "runs").glob("run-*.txt")) if (data / "runs").is_dir() else []
    if qrels.exists() and len(paths) == runs:
        return qrels, paths
    spec = importlib.util.spec_from_file_location("irpref_bench_generate", HERE / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    start = time.perf_counter()
    qrels, paths = module.generate(data, runs=runs, queries=queries, docs=docs)
    print(f"generated {data} in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return qrels, paths


def checkout(rev: str) -> Path:
    """A worktree of ``rev`` with its C extensions built (removed at exit by the caller)."""
    where = Path(tempfile.mkdtemp(prefix="irpref-before-")) / "tree"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(where), rev],
                   check=True, capture_output=True)
    subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", "-q"], cwd=where,
                   check=True, capture_output=True)
    return where


def run(args: list[str], src: Path) -> tuple[float, float, int, str]:
    """One ``irpref ARGS`` process with ``src`` first on the path: seconds, peak MB,
    exit code, MD5 of its output."""
    env = user_env(PYTHONPATH=str(src))
    with tempfile.NamedTemporaryFile(prefix="irpref-out-", delete=False) as out:
        path = out.name
    try:
        with open(path, "wb") as out, tempfile.TemporaryFile() as err:
            start = time.perf_counter()
            proc = subprocess.Popen(["irpref", *args], stdout=out, stderr=err, env=env)
            _, status, usage = os.wait4(proc.pid, 0)
            seconds = time.perf_counter() - start
            code = os.waitstatus_to_exitcode(status)
            if code:
                err.seek(0)
                print(err.read().decode(errors="replace")[-2000:], file=sys.stderr)
        digest = hashlib.md5()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 24), b""):
                digest.update(chunk)
        return seconds, usage.ru_maxrss / 1024.0, code, digest.hexdigest()
    finally:
        os.unlink(path)


def commands(qrels: Path, runs: list[Path], opts: argparse.Namespace) -> dict[str, list[str]]:
    files = [str(qrels), *map(str, runs)]
    out = {
        "evaluate " + " ".join(MEASURES): ["evaluate", *files, "-m", *MEASURES, "--format",
                                           "tsv"],
        "compare " + " ".join(PREFERENCES): ["compare", *files, "-m", *PREFERENCES,
                                             "--format", "tsv"],
    }
    if opts.per_query:
        out["compare --per-query"] = [*out["compare " + " ".join(PREFERENCES)], "--per-query"]
    if opts.significance:
        out["significance " + " ".join(TESTED)] = ["significance", *files, "-m", *TESTED,
                                                   "--format", "tsv", "--seed", "1"]
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=HERE / "data" / "leaderboard")
    p.add_argument("--runs", type=int, default=1000)
    p.add_argument("--queries", type=int, default=50)
    p.add_argument("--docs", type=int, default=100)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--per-query", action="store_true", help="also compare --per-query")
    p.add_argument("--significance", action="store_true",
                   help="also significance over preferences")
    p.add_argument("--before", metavar="REV", help="also run a checkout of git revision REV")
    p.add_argument("--dask", metavar="ADDRESS", help="also compare and test on Dask")
    opts = p.parse_args(argv)
    qrels, runs = collection(opts.data, opts.runs, opts.queries, opts.docs)
    jobs = commands(qrels, runs, opts)
    trees = {"now": ROOT / "src"}
    before = checkout(opts.before) if opts.before else None
    if before is not None:
        trees[f"before ({opts.before})"] = before / "src"
    figures: dict[tuple[str, str], list] = {}
    try:
        for i in range(opts.repeats):  # round by round: every command of every tree
            for label, args in jobs.items():
                for tree, src in trees.items():
                    m = run(args, src)
                    figures.setdefault((label, tree), []).append(m)
                    print(f"  [{i + 1}/{opts.repeats}] {tree}: {label}: {m[0]:.2f} s, "
                          f"{m[1]:.0f} MB" + (f", exit {m[2]}" if m[2] else ""),
                          file=sys.stderr, flush=True)
        dask = {}
        if opts.dask:
            for label, args in jobs.items():
                if not label.startswith("evaluate"):
                    dask[label] = run([*args, "--dask", opts.dask], trees["now"])
    finally:
        if before is not None:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(before)], capture_output=True)
    report(jobs, trees, figures, dask, len(runs), opts)
    return 0


def report(jobs, trees, figures, dask, n_runs: int, opts) -> None:
    pairs = n_runs * (n_runs - 1) // 2
    print(f"leaderboard: {n_runs} runs x {opts.queries} queries x depth {opts.docs} "
          f"({pairs:,} run pairs), medians of {opts.repeats}, interleaved")
    reference = next(iter(jobs))
    for tree in trees:
        base_s = median([m[0] for m in figures[reference, tree]])
        base_mb = max(m[1] for m in figures[reference, tree])
        print(f"\n{tree}:")
        print(f"{'command':<34} {'seconds':>8} {'peak MB':>8} {'time/eval':>10} "
              f"{'mem/eval':>9}  output")
        for label in jobs:
            ms = figures[label, tree]
            s, mb = median([m[0] for m in ms]), max(m[1] for m in ms)
            same = ""
            if tree != "now":
                same = ("same bytes as now" if ms[0][3] == figures[label, "now"][0][3]
                        else "OUTPUT DIFFERS from now")
            print(f"{label:<34} {s:>8.2f} {mb:>8.0f} {s / base_s:>10.2f} {mb / base_mb:>9.2f}"
                  f"  {same}")
    for tree in list(trees)[1:]:
        print(f"\nnow / {tree} (same rounds):")
        for label in jobs:
            now, then = figures[label, "now"], figures[label, tree]
            time_ratio = median([m[0] for m in now]) / median([m[0] for m in then])
            memory_ratio = max(m[1] for m in now) / max(m[1] for m in then)
            print(f"{label:<34} time {time_ratio:.2f}, peak memory {memory_ratio:.2f}")
    for label, m in dask.items():
        same = m[3] == figures[label, "now"][0][3]
        print(f"dask {opts.dask}: {label}: {m[0]:.2f} s, client peak {m[1]:.0f} MB, "
              + ("same bytes as the single process" if same else "OUTPUT DIFFERS"))


if __name__ == "__main__":
    sys.exit(main())
