"""Benchmark: how long the irpref command takes to start, side by side, in one run.

1. trec_eval 10.0 and ``irpref trec_eval`` on one run of 250 queries x 1,000
   documents (``generate.py``, seeded, one collection per id shape), with the
   default measures and with ``-m all_trec``: interleaved (A B B A ...), medians
   of wall and CPU seconds, and irpref's ratio to trec_eval.
2. ``irpref --version`` beside ``python -c pass`` (the interpreter's own start).
3. With ``--before REV``: ``irpref --version`` and ``irpref CMD --help`` of every
   subcommand (the imports and the parser of that command, no data), on a
   worktree of REV (its C extensions built) and on this tree, interleaved.

Whole processes with bytecode caching (``PYTHONDONTWRITEBYTECODE`` removed, one
untimed warm-up each), as users meet them. The machine is shared: read medians
and ratios.

Usage::

    python benchmarks/bench_startup.py --trec-eval BINARY [--before REV] [--repeats 9]
        [--shapes clueweb,msmarco1,uuid]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from bench_before_after import checkout  # noqa: E402
from common import median, run_apart, user_env  # noqa: E402

SUBCOMMANDS = ("evaluate", "trec_eval", "measures", "ties", "compare", "significance", "rank",
               "design", "judge", "meta", "report", "plot", "agree")


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one child process (its output discarded)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr.read().decode()[-800:]}")
    return wall, usage.ru_utime + usage.ru_stime


def collection(shape: str, data: Path) -> tuple[str, str]:
    """The seeded 250 x 1000 collection of one id shape (generated when missing)."""
    where = data / shape
    qrels, run = where / "qrels.txt", where / "runs" / "run-000.txt"
    if not run.exists():
        from generate import generate  # benchmarks/ is on the path (children's too)

        run_apart(generate, where, runs=1, queries=250, docs=1000, ids=shape)
    return str(qrels), str(run)


def interleaved(commands: dict[str, tuple[list[str], dict]], repeats: int) -> dict:
    """Each command ``repeats`` times, in alternating order, after one warm-up each."""
    for cmd, env in commands.values():
        timed(cmd, env)
    got: dict[str, list[tuple[float, float]]] = {k: [] for k in commands}
    order = list(commands)
    for r in range(repeats):
        for label in order if r % 2 == 0 else reversed(order):
            got[label].append(timed(*commands[label]))
    return {k: (median([w for w, _ in v]), median([c for _, c in v])) for k, v in got.items()}


def trec_eval_table(binary: str, shapes: list[str], data: Path, repeats: int) -> list[str]:
    env = user_env()
    lines = ["| run (250 x 1000) | measures | trec_eval wall / cpu s | irpref wall / cpu s "
             "| ratio wall / cpu |", "|---|---|---:|---:|---:|"]
    for shape in shapes:
        qrels, run = collection(shape, data)
        for label, marks in (("default", []), ("all_trec", ["-m", "all_trec"])):
            got = interleaved({"te": ([binary, *marks, qrels, run], env),
                               "ir": (["irpref", "trec_eval", *marks, qrels, run], env)},
                              repeats)
            (tw, tc), (iw, ic) = got["te"], got["ir"]
            lines.append(f"| {shape} | {label} | {tw:.2f} / {tc:.2f} | {iw:.2f} / {ic:.2f} "
                         f"| {iw / tw:.2f} / {ic / tc:.2f} |")
    return lines


def version_table(repeats: int) -> list[str]:
    env = user_env()
    got = interleaved({"python -c pass": ([sys.executable, "-c", "pass"], env),
                       "irpref --version": (["irpref", "--version"], env)}, repeats)
    return ["| command | wall s | cpu s |", "|---|---:|---:|",
            *[f"| {k} | {w:.3f} | {c:.3f} |" for k, (w, c) in got.items()]]


def before_after_table(rev: str, repeats: int) -> list[str]:
    before = checkout(rev)
    try:
        sides = {"before": user_env(PYTHONPATH=str(before / "src")),
                 "this": user_env(PYTHONPATH=str(ROOT / "src"))}
        lines = [f"| start of | before ({rev}) wall / cpu s | this wall / cpu s "
                 "| ratio wall / cpu |", "|---|---:|---:|---:|"]
        for args in (["--version"], *[[c, "--help"] for c in SUBCOMMANDS]):
            cmd = [sys.executable, "-m", "irpref", *args]
            got = interleaved({s: (cmd, env) for s, env in sides.items()}, repeats)
            (bw, bc), (tw, tc) = got["before"], got["this"]
            lines.append(f"| irpref {' '.join(args)} | {bw:.2f} / {bc:.2f} | {tw:.2f} / "
                         f"{tc:.2f} | {tw / bw:.2f} / {tc / bc:.2f} |")
        return lines
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before)],
                       capture_output=True)
        shutil.rmtree(before.parent, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trec-eval", required=True, help="trec_eval 10.0's binary")
    parser.add_argument("--before", metavar="REV", help="also time every start against REV")
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--shapes", default="clueweb,msmarco1,uuid")
    parser.add_argument("--data", type=Path, default=HERE / "data" / "startup")
    opts = parser.parse_args(argv)
    print(f"median of {opts.repeats} interleaved processes each\n")
    print("\n".join(trec_eval_table(opts.trec_eval, opts.shapes.split(","), opts.data,
                                    opts.repeats)) + "\n")
    print("\n".join(version_table(opts.repeats)) + "\n")
    if opts.before:
        print("\n".join(before_after_table(opts.before, opts.repeats)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
