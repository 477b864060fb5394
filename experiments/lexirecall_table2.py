"""Lexirecall (Diaz & Mitra 2023) Table 2: agreement with the worst-off user
(WC(pi) < WC(pi'), i.e. p_m < p'_m) over 10,000 random complete ranking pairs,
m ~ U(5, 50), for several corpus sizes; "tied" is the share of pairs tied
under WC (closed form: lexirecall Theorem D.2 averaged over m).

Both the paper's and irpref's numbers are Monte Carlo over 10,000 pairs:
differences up to ~3 standard errors of a difference (~0.02) are noise.
nDCG uses binary gains and log2(p + 1) discounts; AP is (1/m) sum_i i / p_i.
Simulated rankings, no collection: the script takes no option (--no-plot is accepted).
Usage: python lexirecall_table2.py
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import paper_rows
from _common import parse, parser, verdict

from irpref.meta import tie_probability, worst_case_agreement

COLS = ["TSE", "R@1000", "Rprec", "AP", "nDCG", "random"]
TABLE = paper_rows.PAPERS["lexirecall"]["Table 2"]  # "n=1000": {tied, TSE, ..., random}


def main(argv: Sequence[str] | None = None) -> None:
    parse(parser(__file__, __doc__, default=None, plot=False), argv)
    print(paper_rows.source("lexirecall", "Table 2"))
    for key, paper in TABLE.items():
        n = int(key.removeprefix("n="))
        t = worst_case_agreement(COLS, n, (5, 50), 10_000, seed=0).set_index("measure")
        cf = tie_probability("TSE", n, (5, 50))
        print(f"n={n}: tied paper {paper['tied']}  irpref closed form {cf:.4f} "
              f"simulated {t.tied.iloc[0]:.4f}")
        for name in COLS:
            want, digits = paper_rows.printed(paper[name])
            got, se = t.agreement[name], t.agreement_se[name]
            # both numbers are Monte Carlo over 10,000 pairs: se of the difference
            v = verdict(want, got, digits, se=math.sqrt(2) * se,
                        reason=paper_rows.reason("lexirecall", "Table 2", key, name))
            print(f"  {name:<7} paper {paper[name]}  irpref {got:.4f} (se {se:.4f})  {v}")


if __name__ == "__main__":
    main()
