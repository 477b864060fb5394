"""RPP (Diaz & Ferraro 2022) Tables 3-4, row deep-pass (2019): percent of the
666 run pairs of DL 2019 passage separated at p < 0.05, by randomized Tukey
HSD (Table 3; 10,000 permutations, seed 0) and by Student's t with Bonferroni
(Table 4). Relevance: grade >= 1 (the level at which the preference columns
reproduce). Uses irpref's discriminative power (irpref significance).
Command: irpref significance QRELS RUNS -m RPP RPP(p=dcg) RPP(p=inverse) AP nDCG RR
    --rel 1 --test t --correction bonferroni --summary
"""

from __future__ import annotations

from _common import compare, dl19

import irpref
from irpref.evaluate import judge_inputs

NAMES = ["RPP", "RPP(p=dcg)", "RPP(p=inverse)", "AP", "nDCG", "RR"]
TABLE3 = [42.34, 42.19, 36.34, 30.03, 26.73, 6.76]
TABLE4 = [43.99, 45.05, 42.34, 24.17, 23.72, 1.65]


def main() -> None:
    qrels, runs = dl19()
    judged = judge_inputs(qrels, runs, rel=1)
    met = irpref.evaluate(None, None, ["AP", "nDCG", "RR"], judged=judged)
    pref = irpref.compare(qrels, runs, NAMES[:3], rel=1)
    for title, paper, kw in (
        ("Table 4 (t, Bonferroni)", TABLE4, dict(test="t", correction="bonferroni")),
        ("Table 3 (randomized Tukey HSD, 10,000 permutations)", TABLE3,
         dict(test="hsd", permutations=10_000, seed=0)),
    ):
        res = irpref.significance([pref, met], bootstrap=0, **kw)
        power = irpref.discriminative_power(res).set_index("measure")["percent"]
        print(title)
        for name, want in zip(NAMES, paper):
            print(compare(f"  {name}", want, power[name]))


if __name__ == "__main__":
    main()
