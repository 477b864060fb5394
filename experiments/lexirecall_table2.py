"""Lexirecall (Diaz & Mitra 2023) Table 2: agreement with the worst-off user
(WC(pi) < WC(pi'), i.e. p_m < p'_m) over 10,000 random complete ranking pairs,
m ~ U(5, 50), for several corpus sizes; "tied" is the share of pairs tied
under WC (closed form: lexirecall Theorem D.2 averaged over m).

Both the paper's and irpref's numbers are Monte Carlo over 10,000 pairs:
differences up to ~3 standard errors of a difference (~0.02) are noise.
nDCG uses binary gains and log2(p + 1) discounts; AP is (1/m) sum_i i / p_i.
Command: python experiments/lexirecall_table2.py
"""

from __future__ import annotations

import math

from irpref.meta import tie_probability, worst_case_agreement

COLS = ["TSE", "R@1000", "Rprec", "AP", "nDCG", "random"]
PAPER = {  # n: tied, TSE, R@1000, RP, AP, NDCG, random
    10**3: (0.012, 1.000, 0.000, 0.285, 0.541, 0.535, 0.492),
    10**4: (0.001, 1.000, 0.420, 0.077, 0.552, 0.549, 0.497),
    10**5: (0.000, 1.000, 0.179, 0.008, 0.554, 0.555, 0.498),
    10**6: (0.000, 1.000, 0.026, 0.001, 0.547, 0.554, 0.499),
}


def main() -> None:
    for n, paper in PAPER.items():
        t = worst_case_agreement(COLS, n, (5, 50), 10_000, seed=0).set_index("measure")
        cf = tie_probability("TSE", n, (5, 50))
        print(f"n={n}: tied paper {paper[0]:.3f}  irpref closed form {cf:.4f} "
              f"simulated {t.tied.iloc[0]:.4f}")
        for name, want in zip(COLS, paper[1:]):
            got, se = t.agreement[name], t.agreement_se[name]
            z = abs(got - want) / math.sqrt(2 * se * se) if se > 0 else 0.0
            verdict = "exact" if round(got, 3) == want else (
                "MC noise" if z <= 3 else f"differs ({z:.1f} se)")
            print(f"  {name:<7} paper {want:.3f}  irpref {got:.4f} (se {se:.4f})  {verdict}")


if __name__ == "__main__":
    main()
