"""Agreement between measures on DL 2019 passage at grade >= 1 (both papers'
dataset tables give deep-pass 2019 95.40 relevant per request: grade >= 1;
grade >= 2 gives 58.16):
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
"""

from __future__ import annotations

from _common import dl19

from irpref.meta import agreement, conditional_agreement

# RPP Table 2(a), averaged over all datasets (not DL 2019 alone)
TABLE2A = {("RR", "RPP(p=inverse)"): 0.61, ("RR", "RPP"): 0.45, ("RR", "RPP(p=dcg)"): 0.49,
           ("RR", "AP"): 0.49, ("RR", "nDCG"): 0.50, ("RPP(p=inverse)", "RPP"): 0.79,
           ("RPP(p=inverse)", "RPP(p=dcg)"): 0.85, ("RPP(p=inverse)", "AP"): 0.82,
           ("RPP(p=inverse)", "nDCG"): 0.80, ("RPP", "RPP(p=dcg)"): 0.93, ("RPP", "AP"): 0.86,
           ("RPP", "nDCG"): 0.87, ("RPP(p=dcg)", "AP"): 0.88, ("RPP(p=dcg)", "nDCG"): 0.88,
           ("AP", "nDCG"): 0.89}


def main() -> None:
    qrels, runs = dl19()
    t = agreement(qrels, runs, ["RR", "RPP(p=inverse)", "RPP", "RPP(p=dcg)", "AP", "nDCG"],
                  rel=1, aggregate="mc4")
    print("RPP Table 2(a): τ (paper: mean over 12 datasets; irpref: DL 2019 passage)")
    for r in t.itertuples():
        paper = TABLE2A.get((r.measure_a, r.measure_b))
        print(f"  {r.measure_a:>15} vs {r.measure_b:<15} paper {paper:.2f}  irpref "
              f"{r.kendall_tau:.2f}")
    lr = agreement(qrels, runs, ["sgnLR", "RR", "nDCG@10", "R@1000", "Rprec", "AP", "nDCG"],
                   rel=1, aggregate="mc4")
    print("lexirecall Fig. 9 (DL 2019 passage): lexirecall (MC4) vs metric")
    print(lr[lr.measure_a == "sgnLR"].round(3).to_string(index=False))
    c = conditional_agreement(qrels, runs, ["sgnLR", "RR", "nDCG@10", "R@1000", "Rprec", "AP",
                                            "nDCG"], rel=1)
    print("lexirecall Fig. 8: share of metric differences lexirecall agrees with "
          "(paper: highest for R@1000, exactly 1 at depth <= 1000; lowest for RR, nDCG@10)")
    print(c[c.measure_a == "sgnLR"].round(4).to_string(index=False))


if __name__ == "__main__":
    main()
