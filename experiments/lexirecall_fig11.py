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
"""

from __future__ import annotations

import pandas as pd
from _common import compare, data_dir, dl19, pyplot, save

from irpref.evaluate import judge_inputs
from irpref.meta.discriminative import discriminative_power
from irpref.meta.experiments import pairwise, power_percent, stats_pairwise

MEASURES = ["sgnLR", "R@1000", "Rprec", "AP", "nDCG", "RR", "nDCG@10"]
RECALL = ["R@1000", "Rprec"]
PERMUTATIONS = 10_000


def power(qrels, runs, *, rel: int, depth: int | None) -> pd.DataFrame:
    """``measure, paired, hsd``: percent of run pairs significant at 0.05."""
    judged = judge_inputs(qrels, runs, rel=rel, depth=depth)
    pw = pairwise(judged, MEASURES)
    paired = power_percent(pw, alpha=0.05, test="paired")
    hsd = discriminative_power([stats_pairwise(pw, n) for n in MEASURES], alpha=0.05,
                               test="hsd", permutations=PERMUTATIONS, seed=0)
    return pd.DataFrame({"measure": MEASURES, "paired": paired,
                         "hsd": hsd.set_index("measure")["percent"].reindex(MEASURES).values})


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


def main() -> None:
    qrels, runs = dl19()
    r3 = data_dir() / "robust03"
    sets = {
        "DL 2019 passage": (qrels, runs),
        "Robust 2003": (r3 / "qrels.txt", sorted((r3 / "runs").glob("*.gz"))),
    }
    tables = {}
    for name, (q, r) in sets.items():
        for depth in (None, 100):
            t = power(q, r, rel=1, depth=depth)
            tables[name, depth or 1000] = t
            print(f"{name}, grade >= 1, depth {depth or 1000}: percent of run pairs "
                  "significant at 0.05")
            print(t.round(2).to_string(index=False))
    print("\nThe paper's reading (no numbers printed):")
    for name in sets:
        reading(name, tables[name, 1000], tables[name, 100])
    print("\nAnchors (same data and test as the papers' printed tables):")
    dl = tables["DL 2019 passage", 1000].set_index("measure")
    print(compare("RPP Table 3 deep-pass 2019 RR (HSD)", 6.76, dl.loc["RR", "hsd"]))
    print(compare("RPP Table 3 deep-pass 2019 NDCG (HSD)", 26.73, dl.loc["nDCG", "hsd"]))
    rr2 = power_percent(pairwise(judge_inputs(qrels, runs, rel=2), ["RR"]))[0]
    print(compare("lexiprecision Table 3 RR (t, Holm, grade>=2)", 10.36, rr2))

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
    save(fig, "lexirecall_fig11.png")


if __name__ == "__main__":
    main()
