"""Benchmark: every command on this tree against a git revision, in one run.

A restructuring must make no command slower. This runs the everyday commands
(evaluate, evaluate --ties expected, evaluate --bounds, compare, significance,
ties, meta ties, trec_eval, judge, report) twice per round, once on a checkout
of ``--before REV`` (its C extensions built in a temporary worktree) and once
on this tree, interleaved round by round so both meet the same machine load,
on two collections: the example shipped in the package (6 DL 2019 runs, 43
queries) and a seeded TREC-shaped one (``--runs`` x 250 queries x 1000
documents, ``benchmarks/generate.py``). Whole processes; it prints per
command the median wall and CPU seconds of each side, their ratios (this /
before; < 1 is faster) and the peak memory.

Usage::

    python benchmarks/bench_before_after.py --before REV [--runs 30] [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from common import median, run_apart, user_env  # noqa: E402


def checkout(rev: str) -> Path:
    """A worktree of ``rev`` with its C extensions built."""
    where = Path(tempfile.mkdtemp(prefix="irpref-before-")) / "tree"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(where), rev],
                   check=True, capture_output=True)
    subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", "-q"], cwd=where,
                   check=True, capture_output=True)
    return where


def collection(data: Path, runs: int) -> tuple[Path, list[Path]]:
    """The seeded TREC-shaped collection (generated when missing)."""
    qrels = data / "qrels.txt"
    paths = sorted((data / "runs").glob("run-*.txt")) if (data / "runs").is_dir() else []
    if qrels.exists() and len(paths) == runs:
        return qrels, paths
    from generate import generate  # benchmarks/ is on the path, the spawned child's too

    run_apart(generate, data, runs=runs, queries=250, docs=1000)  # see common.run_apart
    return qrels, sorted((data / "runs").glob("run-*.txt"))


def commands(example: list[str], big: list[str], tmp: Path) -> dict[str, list[str]]:
    ms = ["-m", "AP", "nDCG@10", "RR", "P@10", "R@1000"]
    return {
        "evaluate (example)": ["evaluate", *example, *ms, "--rel", "2"],
        "evaluate": ["evaluate", *big, *ms],
        "evaluate --ties expected": ["evaluate", *big, "-m", "AP", "nDCG@10", "RR",
                                     "--ties", "expected"],
        "evaluate --bounds": ["evaluate", *big[:11], *ms, "--bounds"],
        "compare sgnLP rrLP RPP": ["compare", *big, "-m", "sgnLP", "rrLP", "RPP",
                                   "--format", "tsv"],
        "significance AP sgnLP": ["significance", *big, "-m", "AP", "sgnLP", "--format",
                                  "tsv"],
        "ties": ["ties", *big, "-m", "AP", "RR"],
        "meta ties": ["meta", "ties", *big, "-m", "AP", "RR", "sgnLP"],
        "trec_eval -m all_trec": ["trec_eval", "-m", "all_trec", big[0], big[1]],
        "judge": ["judge", *big, "-o", str(tmp / "judged.parquet")],
        "report (example)": ["report", *example, "--rel", "2", "-o", str(tmp / "r.html")],
    }


def run(args: list[str], src: Path) -> tuple[float, float, float, int]:
    """One ``irpref ARGS`` process with ``src`` first on the path: wall and CPU
    seconds, peak MB, exit code."""
    env = user_env(PYTHONPATH=str(src))
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(["irpref", "--quiet", *args], stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        if code:
            err.seek(0)
            print(err.read().decode(errors="replace")[-1500:], file=sys.stderr)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, metavar="REV")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--data", type=Path, default=HERE / "data" / "before_after")
    parser.add_argument("--only", nargs="*", default=None, help="command labels to run")
    opts = parser.parse_args(argv)
    # the example's files by path: importing irpref here would grow this process, and a
    # child's peak memory starts at its parent's size (common.run_apart)
    shipped = ROOT / "src" / "irpref" / "examples" / "dl19"
    example = [str(shipped / "qrels.txt"), *map(str, sorted(shipped.glob("*.gz")))]
    qrels, runs = collection(opts.data, opts.runs)
    big = [str(qrels), *map(str, runs)]
    before = checkout(opts.before)
    tmp = Path(tempfile.mkdtemp(prefix="irpref-ba-"))
    sides = {"before": before / "src", "this": ROOT / "src"}
    table = commands(example, big, tmp)
    if opts.only:
        table = {k: v for k, v in table.items() if k in opts.only}
    got: dict = {(c, s): [] for c in table for s in sides}
    try:
        for r in range(opts.repeats):
            for label, args in table.items():
                for side, src in (sides.items() if r % 2 == 0 else reversed(sides.items())):
                    got[label, side].append(run(args, src))
            print(f"round {r + 1}/{opts.repeats} done", file=sys.stderr, flush=True)
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before)],
                       capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"| command | before wall / cpu s | this wall / cpu s | ratio wall / cpu | peak MB "
          f"before / this |  (median of {opts.repeats}, before = {opts.before})")
    print("|---|---:|---:|---:|---:|")
    for label in table:
        b, t = got[label, "before"], got[label, "this"]
        if any(x[3] for x in b + t):
            print(f"| {label} | failed | | | |")
            continue
        bw, bc = median([x[0] for x in b]), median([x[1] for x in b])
        tw, tc = median([x[0] for x in t]), median([x[1] for x in t])
        print(f"| {label} | {bw:.2f} / {bc:.2f} | {tw:.2f} / {tc:.2f} | {tw / bw:.2f} / "
              f"{tc / bc:.2f} | {max(x[2] for x in b):.0f} / {max(x[2] for x in t):.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
