"""How often PPI intervals cover, from 10 human-judged queries: a seeded coverage study.

Held-out TREC data and machine judges (``ppi_judges.py``): DL 2019 passage at
relevance levels 1 and 2 and Robust 2003 at 1, each with four simulated judges
built from the human grades (``confusion``: an LLM's confusion matrix; ``over``:
lenient; ``noisy``; ``query``: errors shared by a query's pairs), and the LLMJudge
sample at levels 1 and 2 with its three real LLM label sets (synthetic runs over
its pool). For every run (every run pair for a preference), every measure
``evaluate --human-qrels`` prints by default (AP, nDCG, nDCG@10, P@10, RR,
R@1000) and the preferences sgnLP, rrLP and RPP (at most ``--pairs`` run pairs, a
seeded sample: DL 2019 has 666), and each size n = 10, 15, 20, 30
(below the collection's query count), the same ``--subsets`` uniform random
subsets of n human-judged queries (seeded) are given to every method of
``ppi_methods.py``. The target is the mean over all judged queries under the human
labels (the human preference mean for a preference): what ``irpref evaluate``
would print with every query judged by people.

A cell (collection, level, judge, measure, n, method) reports the coverage of the
95% intervals (averaged over runs and subsets), its Monte Carlo standard error
(over subsets: the runs of one subset share it), the mean width and the worst
run's coverage. Printed as Markdown: the methods' smallest and mean coverage over
all cells per n, the width relative to the human-only t interval, and the default's
table per judge and measure. ``--csv`` keeps every cell.

Usage::

    python benchmarks/bench_ppi_coverage.py [--subsets 1000] [--sizes 10 15 20 30]
        [--seed 0] [--bootstrap-subsets 100] [--pairs 200] [--quick] [--csv FILE]
    python benchmarks/bench_ppi_coverage.py --from-csv FILE

(``../shared/data`` relative to the project root, or ``IRPREF_DATA``; the per-query
values are cached in ``benchmarks/data/ppi-coverage``.) ``--quick``: 200 subsets,
n = 10 and 20, no bootstrap.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
import ppi_judges as judges
import ppi_methods as methods

CONFIGS = [("dl19", 1), ("dl19", 2), ("robust03", 1), ("llmjudge", 1), ("llmjudge", 2)]
DEFAULT = "irpref default"
TARGETS = {10: 0.93, 20: 0.945}
"""The issue's acceptance: the default covers at least this often at these sizes."""


def value_range(key: str) -> tuple[float, float]:
    """The range of a measure's or preference's values, from its record."""
    from irpref.llm_judged.ppi_checks import measure_range, preference_range
    from irpref.measures import parse_measure

    if key in judges.PREFERENCES:
        return preference_range(key)
    return measure_range(parse_measure(key))


def cell(human: np.ndarray, machine: np.ndarray, n: int, chosen: dict, subsets: int,
         seed: int, value_range: tuple, confidence: float, chunk: int = 100) -> list[dict]:
    """Coverage of every method over ``subsets`` random sets of n human-judged queries
    (rows: runs or run pairs; the queries where every row has both values)."""
    keep = ~np.isnan(human).any(0) & ~np.isnan(machine).any(0)
    human, machine = human[:, keep], machine[:, keep]
    rows, total = human.shape
    if n > total - 2:
        return []
    target = human.mean(1)
    rng = np.random.default_rng(seed)
    order = np.argsort(rng.random((subsets, total)), axis=1)
    per_subset = {m: np.empty(subsets) for m in chosen}
    per_row = {m: np.zeros(rows) for m in chosen}
    width = dict.fromkeys(chosen, 0.0)
    for start in range(0, subsets, chunk):  # chunks of subsets, every row at once
        part = order[start:start + chunk]
        lab, unl = part[:, :n], part[:, n:]
        y = human[:, lab].transpose(1, 0, 2).reshape(-1, n)
        f = machine[:, lab].transpose(1, 0, 2).reshape(-1, n)
        fu = machine[:, unl].transpose(1, 0, 2).reshape(-1, total - n)
        goal = np.tile(target, len(part))
        for name, method in chosen.items():
            low, high = method(y, f, fu, confidence, value_range)
            hit = ((low <= goal + 1e-12) & (goal <= high + 1e-12)).reshape(len(part), rows)
            per_subset[name][start:start + len(part)] = hit.mean(1)
            per_row[name] += hit.sum(0)
            width[name] += float(np.nansum(high - low))
    return [{"method": name, "coverage": per_subset[name].mean(),
             "mc_se": per_subset[name].std(ddof=1) / np.sqrt(subsets),
             "width": width[name] / subsets / rows, "worst": per_row[name].min() / subsets,
             "units": rows, "queries": total, "subsets": subsets} for name in chosen]


def study(args) -> pd.DataFrame:
    out = []
    started = time.perf_counter()
    for name, rel in CONFIGS:
        for judge in judges.collection(name)[2]:
            values = judges.values(name, rel, judge, seed=args.seed)
            for k, key in enumerate(judges.MEASURES + judges.PREFERENCES):
                human, machine = values[f"h:{key}"], values[f"m:{key}"]
                if len(human) > args.pairs:  # a seeded sample of the run pairs
                    pick = np.sort(np.random.default_rng(args.seed).choice(
                        len(human), args.pairs, replace=False))
                    human, machine = human[pick], machine[pick]
                for n in args.sizes:
                    seed = args.seed + 1000 * n + k  # the same subsets for every method
                    found = cell(human, machine, n, methods.METHODS, args.subsets, seed,
                                 value_range(key), args.confidence)
                    if (args.bootstrap_subsets and key in judges.MEASURES
                            and n in TARGETS):
                        found += cell(human, machine, n, methods.SLOW, args.bootstrap_subsets,
                                      seed, value_range(key), args.confidence, chunk=20)
                    out += [dict(collection=name, rel=rel, judge=judge, measure=key, n=n,
                                 **row) for row in found]
            print(f"  {name} rel {rel} {judge}: {time.perf_counter() - started:.0f} s",
                  flush=True)
    return pd.DataFrame(out)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def summary(table: pd.DataFrame) -> str:
    """Per method and n: the smallest and the mean coverage over every cell, the cells
    below the targets, and the mean width relative to the human-only t interval."""
    width = table.pivot_table(index=["collection", "rel", "judge", "measure", "n"],
                              columns="method", values="width")
    ratio = width.div(width["human t"], axis=0).groupby(level="n").mean()
    lines = ["| method | n | smallest coverage (cell) | mean | cells below target | "
             "width / human t |", "|---|---:|---|---:|---:|---:|"]
    for (method, n), g in table.groupby(["method", "n"], sort=False):
        worst = g.loc[g["coverage"].idxmin()]
        below = (g["coverage"] < TARGETS.get(n, 0)).sum() if n in TARGETS else "-"
        lines.append(
            f"| {method} | {n} | {_pct(worst['coverage'])} +- {_pct(worst['mc_se'])} "
            f"({worst['collection']}{worst['rel']} {worst['judge']} {worst['measure']}) | "
            f"{_pct(g['coverage'].mean())} | {below}/{len(g)} | "
            f"{ratio.loc[n, method]:.2f} |")
    return "\n".join(lines)


def per_judge(table: pd.DataFrame, method: str = DEFAULT) -> str:
    """The method's coverage (and MC standard error) per collection, judge and measure,
    one column per n."""
    g = table[table["method"] == method]
    sizes = sorted(g["n"].unique())
    keys = judges.MEASURES + judges.PREFERENCES
    lines = [f"| collection, rel, judge | measure | {' | '.join(f'n={n}' for n in sizes)} |",
             "|---|---|" + "---:|" * len(sizes)]
    for (c, rel, judge), block in g.groupby(["collection", "rel", "judge"], sort=False):
        for key in keys:
            cells = block[block["measure"] == key].set_index("n")
            shown = [f"{_pct(cells.loc[n, 'coverage'])} +- {_pct(cells.loc[n, 'mc_se'])}"
                     if n in cells.index else "" for n in sizes]
            lines.append(f"| {c} {rel} {judge} | {key} | {' | '.join(shown)} |")
    return "\n".join(lines)


def smallest(table: pd.DataFrame, by: list[str], method: str = DEFAULT) -> str:
    """The method's smallest coverage over the other cells, per ``by`` and n."""
    g = table[table["method"] == method]
    sizes = sorted(g["n"].unique())
    lines = [f"| {', '.join(by)} | {' | '.join(f'n={n}' for n in sizes)} |",
             "|---|" + "---:|" * len(sizes)]
    for key, block in g.groupby(by, sort=False):
        shown = []
        for n in sizes:
            at = block[block["n"] == n]
            if at.empty:
                shown.append("")
                continue
            worst = at.loc[at["coverage"].idxmin()]
            shown.append(f"{_pct(worst['coverage'])} +- {_pct(worst['mc_se'])}")
        label = " ".join(map(str, key)) if isinstance(key, tuple) else str(key)
        lines.append(f"| {label} | {' | '.join(shown)} |")
    return "\n".join(lines)


def report(table: pd.DataFrame, args) -> None:
    """The Markdown tables of a finished study."""
    print(f"\n{args.subsets} subsets per cell (bootstrap-t: {args.bootstrap_subsets}, "
          f"measures at n = {', '.join(map(str, TARGETS))}), at most {args.pairs} run pairs "
          f"per preference, level {args.confidence:g}, seed {args.seed}; coverage in %, "
          "+- its Monte Carlo standard error.\n")
    print(summary(table))
    print(f"\n{DEFAULT}: smallest coverage over measures and preferences, per judge:\n")
    print(smallest(table, ["collection", "rel", "judge"]))
    print(f"\n{DEFAULT}: smallest coverage over collections and judges, per measure:\n")
    print(smallest(table, ["measure"]))
    print(f"\n{DEFAULT}, per collection, judge and measure:\n")
    print(per_judge(table))
    defaults = table[table["method"] == DEFAULT]
    for n, floor in TARGETS.items():
        low = defaults[(defaults["n"] == n) & (defaults["coverage"] < floor)]
        print(f"\nn = {n}: {len(low)} cells of the default below {floor:g}" +
              ("".join(f"\n  {r.collection}{r.rel} {r.judge} {r.measure}: "
                       f"{_pct(r.coverage)} +- {_pct(r.mc_se)}" for r in low.itertuples())))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--subsets", type=int, default=1000)
    p.add_argument("--sizes", type=int, nargs="+", default=[10, 15, 20, 30])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--confidence", type=float, default=0.95)
    p.add_argument("--bootstrap-subsets", type=int, default=100)
    p.add_argument("--pairs", type=int, default=200,
                   help="run pairs per preference at most (a seeded sample; default 200)")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--csv", type=Path, default=None, help="write every cell to FILE")
    p.add_argument("--from-csv", type=Path, default=None,
                   help="print the tables of a study written by --csv (no new runs)")
    args = p.parse_args(argv)
    if args.quick:
        args.subsets, args.sizes, args.bootstrap_subsets = 200, [10, 20], 0
    if args.from_csv:
        report(pd.read_csv(args.from_csv), args)
        return 0
    table = study(args)
    if args.csv:
        table.to_csv(args.csv, index=False)
    report(table, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
