"""Agreement between measures on DL 2019 passage (grade >= 2):
RPP (Diaz & Ferraro 2022) Table 2(a) (Kendall's τ between system orderings;
the paper averages over 12 datasets, irpref shows DL 2019 passage alone) and
lexirecall (Diaz & Mitra 2023) Figures 8-9 (sign agreement of lexirecall with
metrics per ranking pair; τ with lexirecall aggregated by MC4).
Commands: irpref meta agreement QRELS RUNS -m RR RPP(p=inverse) RPP RPP(p=dcg) AP nDCG --rel 2
          irpref meta agreement QRELS RUNS -m sgnLR RR nDCG@10 R@1000 Rprec AP nDCG \
              --rel 2 --aggregate mc4
"""

from __future__ import annotations

from _common import dl19

from irpref.meta import agreement

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
                  rel=2)
    print("RPP Table 2(a): τ (paper: mean over 12 datasets; irpref: DL 2019 passage)")
    for r in t.itertuples():
        paper = TABLE2A.get((r.measure_a, r.measure_b))
        print(f"  {r.measure_a:>15} vs {r.measure_b:<15} paper {paper:.2f}  irpref "
              f"{r.kendall_tau:.2f}")
    lr = agreement(qrels, runs, ["sgnLR", "RR", "nDCG@10", "R@1000", "Rprec", "AP", "nDCG"],
                   rel=2, aggregate="mc4")
    print("lexirecall Fig. 8-9 (DL 2019 passage): lexirecall vs metric")
    print(lr[lr.measure_a == "sgnLR"].round(3).to_string(index=False))


if __name__ == "__main__":
    main()
