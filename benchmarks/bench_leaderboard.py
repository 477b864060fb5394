"""Benchmark: significance and rank at leaderboard scale, against evaluate of the same runs.

The leaderboard shape: 1,000 runs x 50 queries x depth 100 (5 M
run lines, about 270 MB), seeded with ``generate.py`` (``--runs 1000
--queries 50 --docs 100``; written to ``DATA`` when missing). Every figure is a
whole process (imports included), the commands interleaved repeat by repeat
so load drifts hit all of them alike:

- ``irpref evaluate QRELS RUN... -m AP --format tsv`` (the reference);
- ``irpref significance QRELS RUN... -m AP --format tsv``: the default
  columns (paired t, Holm, t interval of the difference, the exact noncentral-t
  interval of d_z, ES_E) over all 499,500 pairs;
- ``irpref rank QRELS RUN... -m AP --format tsv``: the leaderboard (the same
  tests, rank intervals and letters).

Prints each command's median seconds and peak RSS, and the ratios to
evaluate (median of the per-repeat ratios). ``--commands`` picks a subset.

Usage::

    python benchmarks/bench_leaderboard.py [--data DIR] [--repeats 3] [--runs 1000]
        [--queries 50] [--docs 100] [--commands evaluate significance rank]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import run_process  # noqa: E402
from generate import generate  # noqa: E402

COMMANDS = {
    "evaluate": ["evaluate", "-m", "AP", "--format", "tsv"],
    "significance": ["significance", "-m", "AP", "--format", "tsv"],
    "rank": ["rank", "-m", "AP", "--format", "tsv"],
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=HERE / "data" / "leaderboard")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--runs", type=int, default=1000)
    p.add_argument("--queries", type=int, default=50)
    p.add_argument("--docs", type=int, default=100)
    p.add_argument("--commands", nargs="+", default=list(COMMANDS), choices=list(COMMANDS))
    args = p.parse_args(argv)
    qrels = args.data / "qrels.txt"
    runs = sorted((args.data / "runs").glob("run-*.txt")) if (args.data / "runs").exists() else []
    if not qrels.exists() or len(runs) != args.runs:
        print(f"generating {args.runs} runs x {args.queries} queries x {args.docs} in "
              f"{args.data}", file=sys.stderr)
        qrels, runs = generate(args.data, seed=1, runs=args.runs, queries=args.queries,
                               docs=args.docs)
    names = ["evaluate", *[c for c in args.commands if c != "evaluate"]]
    seconds: dict[str, list[float]] = {c: [] for c in names}
    peak: dict[str, float] = {c: 0.0 for c in names}
    for i in range(args.repeats):
        for name in names:
            sub, *rest = COMMANDS[name]
            m = run_process(["irpref", sub, str(qrels), *map(str, runs), *rest])
            if m.returncode != 0:
                print(m.stderr.decode(errors="replace")[-2000:], file=sys.stderr)
                return 1
            seconds[name].append(m.seconds)
            peak[name] = max(peak[name], m.max_rss_mb)
            print(f"  {name} [{i + 1}/{args.repeats}]: {m.seconds:.2f} s, "
                  f"{m.max_rss_mb:.0f} MB", file=sys.stderr, flush=True)
    print(f"leaderboard: {args.runs} runs x {args.queries} queries x depth {args.docs}, "
          f"{args.repeats} repeats, interleaved")
    print(f"{'command':<14}{'median s':>10}{'peak MB':>10}{'/ evaluate':>12}{'mem ratio':>11}")
    for name in names:
        ratios = [s / e for s, e in zip(seconds[name], seconds["evaluate"])]
        print(f"{name:<14}{statistics.median(seconds[name]):>10.2f}{peak[name]:>10.0f}"
              f"{statistics.median(ratios):>12.2f}{peak[name] / peak['evaluate']:>11.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
