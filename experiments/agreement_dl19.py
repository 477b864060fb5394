"""Agreement between measures on a collection (default DL 2019 passage, at
the papers' level, grade >= 1 there: both papers' dataset tables give
deep-pass 2019 95.40 relevant per request: grade >= 1; grade >= 2 gives 58.16):
RPP (Diaz & Ferraro 2022) Table 2(a) (Kendall's τ between system orderings;
the paper averages over 12 datasets, irpref shows DL 2019 passage alone) and
lexirecall (Diaz & Mitra 2023) Figures 8-9 (Fig. 8: given a metric
difference, the share of ranking pairs where lexirecall prefers the same run;
Fig. 9: τ with lexirecall aggregated by MC4). Preferences order systems by
MC4 (RPP section 5.4, lexirecall section 6.2.1).
Commands: irpref meta agreement QRELS RUNS -m RR RPP(p=inverse) RPP RPP(p=dcg) AP nDCG \
              --rel 1 --aggregate mc4
          irpref meta agreement QRELS RUNS -m sgnLR RR nDCG@10 R@1000 Rprec AP nDCG \
              --rel 1 --aggregate mc4            (Fig. 9)
          irpref meta agreement ... --conditional   (Fig. 8)
Usage: python agreement_dl19.py [--collection NAME ...] [--rel GRADE]
"""

from __future__ import annotations

from collections.abc import Sequence

import paper_rows
from _common import parse, parser, rel

from irpref.meta import agreement, conditional_agreement

# RPP Table 2(a), averaged over all its datasets (no row per collection)
TABLE2A = paper_rows.PAPERS["rpp"]["Table 2a"]["mean over datasets"]


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(parser(__file__, __doc__, plot=False), argv)
    for coll in args.collections:
        run(coll.name, coll.qrels, coll.runs, rel(args, "rpp", coll),
            rel(args, "lexirecall", coll))


def run(name: str, qrels, runs, rel_rpp: int, rel_lr: int) -> None:
    t = agreement(qrels, runs, ["RR", "RPP(p=inverse)", "RPP", "RPP(p=dcg)", "AP", "nDCG"],
                  rel=rel_rpp, aggregate="mc4")
    print(f"{paper_rows.source('rpp', 'Table 2a')}: τ, grade >= {rel_rpp} (paper reports no "
          f"row for {name}: it prints the mean over its datasets, shown beside irpref's)")
    for r in t.itertuples():
        paper = TABLE2A.get(f"{r.measure_a}/{r.measure_b}")
        print(f"  {r.measure_a:>15} vs {r.measure_b:<15} paper {paper}  irpref "
              f"{r.kendall_tau:.2f}")
    lr = agreement(qrels, runs, ["sgnLR", "RR", "nDCG@10", "R@1000", "Rprec", "AP", "nDCG"],
                   rel=rel_lr, aggregate="mc4")
    print(f"lexirecall Fig. 9 ({name}, grade >= {rel_lr}): lexirecall (MC4) vs metric")
    print(lr[lr.measure_a == "sgnLR"].round(3).to_string(index=False))
    c = conditional_agreement(qrels, runs, ["sgnLR", "RR", "nDCG@10", "R@1000", "Rprec", "AP",
                                            "nDCG"], rel=rel_lr)
    print("lexirecall Fig. 8: share of metric differences lexirecall agrees with "
          "(paper: highest for R@1000, exactly 1 at depth <= 1000; lowest for RR, nDCG@10)")
    print(c[c.measure_a == "sgnLR"].round(4).to_string(index=False))


if __name__ == "__main__":
    main()
