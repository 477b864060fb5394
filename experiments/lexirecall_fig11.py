"""Lexirecall (Diaz & Mitra 2023) Figure 11, statistical sensitivity: the
percent of run pairs separated at p < 0.05 (Sakai's discriminative power),
(a) by a paired test corrected with Holm-Bonferroni over all pairs (the
binomial sign test for lexirecall, Student's t for the metrics) and (b) by
Tukey's HSD (randomized, Carterette 2012; here 10,000 permutations, seed 0).
Measures: lexirecall (sgnLR) against the recall metrics R@1000 and RP, with
AP, nDCG, RR and nDCG@10 "for reference" (section 6.2.3, Fig. 8).

Data: DL 2019 passage at grade >= 1 (the paper's Table 5 counts 95.40
relevant per request for deep-pass 2019: that is grade >= 1; at grade >= 2 it
is 58.16) and Robust 2003 (not in the paper; Robust 2004 is), each at full
depth (1000: the paper's "standard" group) and cut at depth 100 (its
"shallow" group, n~ <= 100), so that the effect of depth the paper reads off
its datasets is seen on one collection.

The figure prints no numbers. Its reading (section 6.2.3): (a) lexirecall
is slightly better than the recall metrics at deeper retrievals; (b) under
HSD it is clearly more discriminative than the recall metrics for deep
retrievals, and loses this power as the depth decreases.

Anchors (tests/test_meta_power.py): on DL 2019 at grade >= 1 the HSD
percentages of RR and nDCG are RPP (Diaz & Ferraro 2022) Table 3's printed
6.76 and 26.73 (same data, same test); at grade >= 2 the paired RR is
lexiprecision Table 3's 10.36.
Command: python experiments/lexirecall_fig11.py -> lexirecall_fig11.png
(irpref significance QRELS RUNS -m sgnLR R@1000 Rprec AP nDCG RR nDCG@10
 --rel 1 --summary, and --test hsd)
Usage: python lexirecall_fig11.py [--collection NAME ...] [--rel GRADE] [--no-plot]
(default collections: dl19-passage robust03; levels: paper_rows.REL)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd
from _common import figure_name, hsd_percent_se, parse, parser, pyplot, rel, report, save

import irpref
from irpref.evaluate import judge_inputs
from irpref.meta.pairwise import pairwise, power_percent, stats_pairwise

MEASURES = ["sgnLR", "R@1000", "Rprec", "AP", "nDCG", "RR", "nDCG@10"]
RECALL = ["R@1000", "Rprec"]
PERMUTATIONS = 10_000
DEFAULT = ("dl19-passage", "robust03")


def power(qrels, runs, *, level: int, depth: int | None) -> pd.DataFrame:
    """``measure, paired, hsd, hsd_se``: percent of run pairs significant at 0.05
    (``hsd_se``: the permutation standard error of ``hsd``)."""
    judged = judge_inputs(qrels, runs, rel=level, depth=depth)
    pw = pairwise(judged, MEASURES)
    paired = power_percent(pw, alpha=0.05, test="paired")
    res = irpref.significance([stats_pairwise(pw, n) for n in MEASURES], test="hsd",
                              permutations=PERMUTATIONS, seed=0, bootstrap=0)
    hsd = irpref.discriminative_power(res, alpha=0.05)
    se = hsd_percent_se(res, PERMUTATIONS)
    return pd.DataFrame({"measure": MEASURES, "paired": paired,
                         "hsd": hsd.set_index("measure")["percent"].reindex(MEASURES).values,
                         "hsd_se": [se[m] for m in MEASURES]})


def reading(name: str, full: pd.DataFrame, shallow: pd.DataFrame) -> None:
    f, s = full.set_index("measure"), shallow.set_index("measure")
    for test, claim in (("paired", "(a) paired: sgnLR >= the recall metrics at depth 1000"),
                        ("hsd", "(b) HSD: sgnLR > the recall metrics at depth 1000")):
        lr, best = f.loc["sgnLR", test], f.loc[RECALL, test].max()
        ok = lr >= best if test == "paired" else lr > best
        print(f"  {name} {claim}: {lr:.2f} vs {best:.2f} -> {'holds' if ok else 'does not'}")
    for test in ("paired", "hsd"):
        lo, hi = s.loc["sgnLR", test], f.loc["sgnLR", test]
        gap_f = hi - f.loc[RECALL, test].max()
        gap_s = lo - s.loc[RECALL, test].max()
        print(f"  {name} {test}: sgnLR {hi:.2f} (1000) -> {lo:.2f} (100); lead over the "
              f"recall metrics {gap_f:+.2f} -> {gap_s:+.2f} -> "
              f"{'loses power with depth' if lo < hi else 'does not lose power'}")


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(parser(__file__, __doc__, default=DEFAULT), argv)
    tables = {}
    for coll in args.collections:
        level = rel(args, "lexirecall", coll)
        for depth in (None, 100):
            t = power(coll.qrels, coll.runs, level=level, depth=depth)
            tables[coll.name, depth or 1000] = t
            print(f"{coll.name}, grade >= {level}, depth {depth or 1000}: percent of run "
                  "pairs significant at 0.05")
            print(t.drop(columns="hsd_se").round(2).to_string(index=False))
    print("\nThe paper's reading (no numbers printed):")
    for coll in args.collections:
        reading(coll.name, tables[coll.name, 1000], tables[coll.name, 100])
    print("\nAnchors (same data and test as the papers' printed tables):")
    for coll in args.collections:
        anchors(args, coll, tables[coll.name, 1000])
    if args.plot:
        plot(tables, figure_name("lexirecall_fig11.png", args.collections, DEFAULT))


def anchors(args, coll, full: pd.DataFrame) -> None:
    """RPP Table 3(a) (HSD) RR and NDCG and lexiprecision Table 3(b) (paired) RR,
    each at its paper's level for the collection."""
    level = rel(args, "rpp", coll)
    if level == rel(args, "lexirecall", coll):
        f = full.set_index("measure")
        se = {m: math.sqrt(2) * f.loc[m, "hsd_se"] for m in ("RR", "nDCG")}  # both Monte Carlo
        report("rpp", "Table 3a", coll.name, {"RR": f.loc["RR", "hsd"],
                                              "nDCG": f.loc["nDCG", "hsd"]},
               se=se, note=f" (HSD, grade >= {level})")
    lp = rel(args, "lexiprecision", coll)
    rr = power_percent(pairwise(judge_inputs(coll.qrels, coll.runs, rel=lp), ["RR"]))[0]
    report("lexiprecision", "Table 3b", coll.name, {"RR": rr},
           note=f" (t, Holm, grade >= {lp})")


def plot(tables: dict, figure: str) -> None:
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2), sharey=True)
    groups = list(tables)
    width = 0.8 / len(MEASURES)
    for ax, test, title in ((axes[0], "paired", "(a) Paired test (sign / t, Holm)"),
                            (axes[1], "hsd", "(b) HSD (10,000 permutations)")):
        for k, m in enumerate(MEASURES):
            vals = [tables[g].set_index("measure").loc[m, test] / 100 for g in groups]
            ax.bar([i + (k - len(MEASURES) / 2 + 0.5) * width for i in range(len(groups))],
                   vals, width=width, label=m)
        ax.set_xticks(range(len(groups)), [f"{n}\ndepth {d}" for n, d in groups], fontsize=8)
        ax.set_title(title)
    axes[0].set_ylabel("fraction of run pairs with p < 0.05")
    axes[1].legend(fontsize=8, ncol=2)
    save(fig, figure)


if __name__ == "__main__":
    main()
