"""Benchmark: inference against baselines (t interval, ES_E, seeded bootstrap percentile and BCa).

Writes the seeded synthetic collection of ``generate.py`` (``--runs`` x
``--queries``, ``--docs`` per ranking) into a temporary folder, evaluates
``--measures`` once (timed as "evaluate"), then times, in process,
:func:`irpref.significance` of every run against ``--baselines`` baselines
under every measure, family ``all``, with

- the t interval (``ci="t"``),
- the paired bootstrap percentile interval (``ci="bootstrap"``) and BCa
  (``ci="bca"``), ``--samples`` resamples each, seed ``--seed``,

and checks that two bootstrap runs with the same seed give identical tables;
then :func:`irpref.stats.against_baselines` (the table of ``irpref evaluate
--baseline``) with the bootstrap and BCa intervals of the differences, and,
as whole processes (imports included), ``irpref evaluate`` plain and
``irpref evaluate --baseline x3 --ci bootstrap --bootstrap N --seed S``
(intervals of every mean and every difference), with their ratio.
Target: 100 runs x 3 baselines x 5 measures x 10,000 samples in at most 30 s
on 2 cores. Prints wall and CPU seconds (median of ``--repeats``).

Usage::

    python benchmarks/bench_inference.py                        # the full target
    python benchmarks/bench_inference.py --runs 30 --queries 100 --samples 2000
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

MEASURES = ["AP", "nDCG@10", "RR", "P@10", "ASL"]


def _time(fn, repeats: int):
    walls, cpus, out = [], [], None
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return out, statistics.median(walls), statistics.median(cpus)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=100)
    p.add_argument("--queries", type=int, default=250)
    p.add_argument("--docs", type=int, default=100, help="documents retrieved per query")
    p.add_argument("--baselines", type=int, default=3)
    p.add_argument("--measures", nargs="+", default=MEASURES)
    p.add_argument("--samples", type=int, default=10_000, help="bootstrap resamples")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--repeats", type=int, default=1)
    args = p.parse_args(argv)

    import pandas as pd
    from generate import generate

    import irpref

    with tempfile.TemporaryDirectory() as tmp:
        qrels, runs = generate(Path(tmp), seed=args.seed, runs=args.runs,
                               queries=args.queries, docs=args.docs)
        table, wall, cpu = _time(lambda: irpref.evaluate(str(qrels), [str(r) for r in runs],
                                                         args.measures), 1)
        processes = _time_cli(args, qrels, runs, list(pd.unique(table["run"]))[: args.baselines])
    names = list(pd.unique(table["run"]))
    bases = names[: args.baselines]
    rows = (len(names) - 1) * len(bases) * len(args.measures)
    print(f"{len(names)} runs x {table['query'].nunique()} queries, {len(bases)} baselines, "
          f"{len(args.measures)} measures ({rows} comparisons), {args.samples} bootstrap samples")
    print(f"{'evaluate':<22} wall {wall:7.2f} s  cpu {cpu:7.2f} s")

    def sig(ci: str):
        return irpref.significance(table, "t", baseline=bases, family="all", ci=ci,
                                   bootstrap=args.samples, seed=args.seed)

    sig("t")  # warm up: scipy is imported on first use
    for ci in ("t", "bootstrap", "bca"):
        frame, wall, cpu = _time(lambda ci=ci: sig(ci), args.repeats)
        assert len(frame) == rows, (len(frame), rows)
        print(f"{'significance ci=' + ci:<22} wall {wall:7.2f} s  cpu {cpu:7.2f} s")
    again = sig("bca")
    pd.testing.assert_frame_equal(frame, again)
    print("same seed, same table: ok")

    from irpref.stats import against_baselines

    for ci in ("bootstrap", "bca"):
        out, wall, cpu = _time(lambda ci=ci: against_baselines(
            table, bases, family="all", ci=ci, bootstrap=args.samples, seed=args.seed),
            args.repeats)
        assert len(out) == len(names) * len(bases) * len(args.measures)
        print(f"{'against_baselines ' + ci:<22} wall {wall:7.2f} s  cpu {cpu:7.2f} s")
    plain, view = processes
    print(f"{'irpref evaluate':<22} wall {plain:7.2f} s  (process, median)")
    print(f"{'evaluate --baseline x' + str(len(bases)):<22} wall {view:7.2f} s  (--ci bootstrap "
          f"--bootstrap {args.samples}; ratio {view / plain:.2f} x plain evaluate, "
          f"intervals {view - plain:.2f} s)")
    return 0


def _time_cli(args, qrels: Path, runs: list[Path], bases: list[str]) -> tuple[float, float]:
    """Median wall seconds of ``irpref evaluate`` plain and with the baseline view."""
    from common import median, time_process

    head = [sys.executable, "-m", "irpref", "evaluate", str(qrels), *map(str, runs),
            "-m", *args.measures, "--format", "tsv", "-o", "/dev/null"]
    view = [*head, "--ci", "bootstrap", "--bootstrap", str(args.samples), "--seed",
            str(args.seed)]
    for b in bases:
        view += ["--baseline", b]
    figures = []
    for label, cmd in (("evaluate", head), ("evaluate --baseline", view)):
        timing = time_process(label, cmd, args.repeats, verbose=False)
        bad = [m for m in timing.runs if m.returncode != 0]
        if bad:
            raise SystemExit(bad[0].stderr.decode(errors="replace")[-2000:])
        figures.append(median([m.seconds for m in timing.runs]))
    return figures[0], figures[1]


if __name__ == "__main__":
    raise SystemExit(main())
