"""Stress: many short ``irpref`` processes, each must end with its own exit code.

A native thread still running when the interpreter exits makes the C++
runtime abort the process (``terminate called without an active
exception``, exit 134) after it printed correct output. This script runs a
few hundred short commands in parallel (the shipped example collection:
``trec_eval``, ``evaluate``, ``evaluate`` on a ``.csv`` run with an input
error, ``evaluate`` on a ``.csv`` run without one) and reports every process
whose exit code is not the expected one or that wrote ``terminate called``.

    python benchmarks/stress_exit.py --count 300 --jobs 4

Exit status 1 when any process ended abnormally, else 0. Bounded in time:
``--timeout`` seconds per command, ``--budget`` seconds in all (commands not
started by then are skipped and counted).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "src" / "irpref" / "examples" / "dl19"


def commands(folder: Path) -> list[tuple[str, list[str], int]]:
    """(label, argv after ``irpref``, expected exit code) of each kind of command."""
    import gzip

    qrels = str(EXAMPLE / "qrels.txt")
    runs = sorted(str(p) for p in EXAMPLE.glob("*.gz"))
    lines = gzip.decompress(Path(runs[0]).read_bytes()).decode().splitlines()[:400]
    good = folder / "good.csv"
    good.write_text("query_id,doc_id,score\n" + "".join(
        f"{f[0]},{f[2]},{f[4]}\n" for f in (ln.split() for ln in lines)))
    bad = folder / "bad.csv"
    rows = good.read_text().splitlines()
    rows[200] = rows[200].rsplit(",", 1)[0] + ",abc"
    bad.write_text("\n".join(rows) + "\n")
    return [
        ("trec_eval", ["trec_eval", qrels, runs[0]], 0),
        ("trec_eval -q", ["trec_eval", "-q", "-m", "all_trec", qrels, runs[1]], 0),
        ("evaluate", ["evaluate", qrels, *runs, "-m", "AP", "nDCG@10", "RR"], 0),
        ("evaluate csv", ["evaluate", qrels, str(good), runs[0], "-m", "AP"], 0),
        ("evaluate bad csv", ["evaluate", qrels, runs[0], str(bad), "-m", "AP"], 1),
        ("trec_eval bad csv", ["trec_eval", qrels, str(bad)], 1),
    ]


def run_one(argv: list[str], timeout: float) -> tuple[int | None, str]:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, "PYTHONFAULTHANDLER": "1"})
    except subprocess.TimeoutExpired:
        return None, "timed out"
    return done.returncode, done.stderr


def stress(count: int, jobs: int, timeout: float, budget: float) -> dict:
    """Run ``count`` commands (cycling through :func:`commands`), ``jobs`` at a time."""
    exe = shutil.which("irpref")
    base = [exe] if exe else [sys.executable, "-m", "irpref"]
    with tempfile.TemporaryDirectory() as tmp:
        kinds = commands(Path(tmp))
        plan = [kinds[i % len(kinds)] for i in range(count)]
        deadline = time.monotonic() + budget

        def task(item):
            label, argv, expected = item
            if time.monotonic() > deadline:
                return label, expected, "skipped", ""
            code, err = run_one(base + argv, timeout)
            return label, expected, code, err

        start = time.monotonic()
        with ThreadPoolExecutor(jobs) as pool:
            results = list(pool.map(task, plan))
        elapsed = time.monotonic() - start
    bad = [(label, expected, code, err) for label, expected, code, err in results
           if code != "skipped" and (code != expected or "terminate called" in err)]
    return {
        "run": sum(code != "skipped" for _, _, code, _ in results),
        "skipped": sum(code == "skipped" for _, _, code, _ in results),
        "codes": Counter(str(code) for _, _, code, _ in results),
        "abnormal": bad,
        "seconds": elapsed,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300, help="commands in all (default 300)")
    parser.add_argument("--jobs", type=int, default=4, help="commands at a time (default 4)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per command")
    parser.add_argument("--budget", type=float, default=600.0, help="seconds in all")
    args = parser.parse_args(argv)
    if args.count < 1 or args.jobs < 1:
        parser.error("--count and --jobs must be >= 1")
    out = stress(args.count, args.jobs, args.timeout, args.budget)
    print(f"{out['run']} commands in {out['seconds']:.1f} s ({args.jobs} at a time), "
          f"{out['skipped']} skipped; exit codes {dict(out['codes'])}")
    for label, expected, code, err in out["abnormal"]:
        tail = " | ".join(err.strip().splitlines()[-3:])
        print(f"ABNORMAL {label}: exit {code}, expected {expected}: {tail}")
    print(f"{len(out['abnormal'])} abnormal")
    return 1 if out["abnormal"] else 0


if __name__ == "__main__":
    sys.exit(main())
