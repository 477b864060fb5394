"""``irpref evaluate --human-qrels``: prediction-powered evaluation against two plain
evaluations, whole processes, interleaved.

On the benchmark collection (``generate.py``: 100 runs x 250 queries x 1000
documents, generated into ``--data`` when missing) the generated qrels are the
truth; the machine qrels M redraw every grade from the confusion matrix of an LLM
judge against NIST labels (the LLMJudge sample's h2oloo-fewself, as the tests'
``ppi_collections.CONFUSION``), and the human qrels H keep the truth on
``--human`` random queries (seeded). Each round times, in turn:

- ``evaluate M RUN...`` and ``evaluate H RUN...`` (the two plain evaluations);
- ``evaluate M RUN... --human-qrels H`` (judges the runs under both, PPI++).

Printed: the medians, and the medians over rounds of the ratios PPI / (M + H) and
PPI / M. The target is PPI <= 2.5 x (M + H).

``--before REV``: instead, ``evaluate --human-qrels`` (and ``significance
--human-qrels -m AP sgnLP``) on this tree against a checkout of REV (its C
extensions built in a temporary worktree, as ``bench_before_after.py``), the two
sides interleaved round by round (the order alternating), medians and the median
ratio this / before.

Usage::

    python benchmarks/bench_ppi.py [--data benchmarks/data] [--repeats 3] [--human 50]
    python benchmarks/bench_ppi.py --before main [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from common import HERE, run_process, user_env

MEASURES = ["AP", "nDCG", "RR", "P@10", "R@1000"]
CONFUSION = np.array([[1586, 229, 98, 92], [602, 302, 183, 146], [225, 143, 212, 228],
                      [57, 58, 64, 198]])  # human grade 0-3 (rows) x LLM grade (columns)


def labels(data: Path, human: int, seed: int) -> tuple[Path, Path]:
    """The machine qrels (every grade redrawn) and the human qrels (``human`` queries)."""
    out = data / "ppi"
    out.mkdir(exist_ok=True)
    machine, sample = out / "machine.qrels", out / f"human-{human}.qrels"
    if machine.exists() and sample.exists():
        return machine, sample
    truth = pd.read_csv(data / "qrels.txt", sep=r"\s+", header=None, dtype={0: str, 2: str},
                        names=["q", "it", "d", "g"])
    rng = np.random.default_rng(seed)
    cumulative = (CONFUSION / CONFUSION.sum(axis=1, keepdims=True)).cumsum(axis=1)
    grades = np.clip(truth["g"].to_numpy(), 0, 3)
    drawn = (rng.random(len(truth))[:, None] > cumulative[grades]).sum(axis=1)
    truth.assign(g=drawn).to_csv(machine, sep=" ", header=False, index=False)
    chosen = rng.choice(sorted(truth["q"].unique()), human, replace=False)
    truth[truth["q"].isin(chosen)].to_csv(sample, sep=" ", header=False, index=False)
    return machine, sample


def before_after(rev: str, machine: Path, human: Path, runs: list[str], repeats: int) -> int:
    """``--human-qrels`` on this tree against REV, interleaved; medians and ratios."""
    import shutil

    from bench_before_after import checkout

    before = checkout(rev)
    sides = {"before": before / "src", "this": HERE.parent / "src"}
    tail = ["--human-qrels", str(human), "--format", "tsv", "--", str(machine), *runs]
    commands = {"evaluate --human-qrels": ["evaluate", "-m", *MEASURES, *tail],
                "significance --human-qrels AP sgnLP": ["significance", "-m", "AP", "sgnLP",
                                                        *tail]}
    exe = str(Path(sys.executable).with_name("irpref"))
    times = {(c, s): [] for c in commands for s in sides}
    try:
        for i in range(repeats):
            order = list(sides.items()) if i % 2 == 0 else list(reversed(sides.items()))
            for label, cmd in commands.items():
                for side, src in order:
                    m = run_process([exe, "--quiet", *cmd], env=user_env(PYTHONPATH=str(src)))
                    if m.returncode != 0:
                        print(m.stderr.decode(errors="replace")[-2000:], file=sys.stderr)
                        return 1
                    times[label, side].append(m.seconds)
                    print(f"  round {i + 1} {label} {side}: {m.seconds:.2f} s", file=sys.stderr,
                          flush=True)
    finally:
        subprocess.run(["git", "-C", str(HERE.parent), "worktree", "remove", "--force",
                        str(before)], capture_output=True)
        shutil.rmtree(before.parent, ignore_errors=True)
    print(f"| command ({len(runs)} runs, {len(MEASURES)} measures) | before {rev} s | this s | "
          f"median ratio this / before |  (medians of {repeats}, interleaved)")
    print("|---|---:|---:|---:|")
    for label in commands:
        b, t = times[label, "before"], times[label, "this"]
        ratio = statistics.median(x / y for x, y in zip(t, b))
        print(f"| {label} | {statistics.median(b):.2f} | {statistics.median(t):.2f} | "
              f"{ratio:.2f} |")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=HERE / "data")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--human", type=int, default=50, help="human-judged queries (default 50)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--before", metavar="REV", default=None,
                   help="time --human-qrels on this tree against a checkout of REV")
    args = p.parse_args(argv)
    if not (args.data / "qrels.txt").exists():
        subprocess.run([sys.executable, str(HERE / "generate.py"), "--out", str(args.data)],
                       check=True)
    machine, human = labels(args.data, args.human, args.seed)
    runs = [str(r) for r in sorted((args.data / "runs").iterdir())]
    if args.before:
        return before_after(args.before, machine, human, runs, args.repeats)
    exe = str(Path(sys.executable).with_name("irpref"))
    base = [exe, "evaluate", "--quiet", "-m", *MEASURES, "--format", "tsv", "--"]
    commands = {
        "plain M": [*base, str(machine), *runs],
        "plain H": [*base, str(human), *runs],
        "--human-qrels": [*base[:-1], "--human-qrels", str(human), "--", str(machine), *runs],
    }
    times: dict[str, list[float]] = {k: [] for k in commands}
    for i in range(args.repeats):
        for label, cmd in commands.items():
            m = run_process(cmd)
            if m.returncode != 0:
                print(m.stderr.decode(errors="replace")[-2000:], file=sys.stderr)
                return 1
            times[label].append(m.seconds)
            print(f"  round {i + 1} {label}: {m.seconds:.2f} s, {m.max_rss_mb:.0f} MB",
                  file=sys.stderr, flush=True)
    med = {k: statistics.median(v) for k, v in times.items()}
    two = [a + b for a, b in zip(times["plain M"], times["plain H"])]
    vs_two = statistics.median(c / t for c, t in zip(times["--human-qrels"], two))
    vs_one = statistics.median(c / a for c, a in zip(times["--human-qrels"], times["plain M"]))
    print(f"{len(runs)} runs, -m {' '.join(MEASURES)}, {args.human} human-judged queries; "
          f"medians of {args.repeats}: plain M {med['plain M']:.2f} s, plain H "
          f"{med['plain H']:.2f} s, --human-qrels {med['--human-qrels']:.2f} s; ratio to the "
          f"two plain evaluations {vs_two:.2f} (target <= 2.5), to one {vs_one:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
