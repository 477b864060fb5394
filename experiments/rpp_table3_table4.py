"""RPP (Diaz & Ferraro 2022) Tables 3-4 (a) on a collection's runs: percent of
the run pairs separated at p < 0.05 by randomized Tukey HSD (Table 3; 10,000
permutations, seed 0: Monte Carlo, so "within noise" is judged against the
permutation standard error of both numbers) and by Student's t with
Bonferroni (Table 4); and the collection's Table 1 facts (requests, runs,
relevant per request at the paper's level: this is what shows which grade the
paper counted as relevant). Relevance: paper_rows.REL (grade >= 1 on DL
passage, where the preference columns reproduce).
Command: irpref significance QRELS RUNS -m RPP RPP(p=dcg) RPP(p=inverse) AP nDCG RR
    --rel 1 --test t --correction bonferroni --summary
Usage: python rpp_table3_table4.py [--collection NAME ...] [--rel GRADE]
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from _common import dataset_facts, hsd_percent_se, parse, parser, rel, report

import irpref
from irpref.evaluate import judge_inputs

PAPER = "rpp"
NAMES = ["RPP", "RPP(p=dcg)", "RPP(p=inverse)", "AP", "nDCG", "RR"]
PERMUTATIONS = 10_000


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(parser(__file__, __doc__, plot=False), argv)
    for coll in args.collections:
        level = rel(args, PAPER, coll)
        judged = judge_inputs(coll.qrels, coll.runs, rel=level)
        facts = dataset_facts(judged)
        report(PAPER, "Table 1", coll.name, {k: facts[k] for k in ("requests", "runs",
                                                                   "rel/request")},
               note=f" (grade >= {level})")
        met = irpref.evaluate(None, None, ["AP", "nDCG", "RR"], judged=judged)
        pref = irpref.compare(coll.qrels, coll.runs, NAMES[:3], rel=level)
        for table, kw in (
            ("Table 4a", dict(test="t", correction="bonferroni")),
            ("Table 3a", dict(test="hsd", permutations=PERMUTATIONS, seed=0)),
        ):
            res = irpref.significance([pref, met], bootstrap=0, **kw)
            power = irpref.discriminative_power(res).set_index("measure")["percent"]
            se = None
            if kw["test"] == "hsd":  # both the paper's and irpref's percent are Monte Carlo
                se = {m: math.sqrt(2) * s for m, s in hsd_percent_se(res, PERMUTATIONS).items()}
            report(PAPER, table, coll.name, {n: power[n] for n in NAMES}, se=se,
                   note=f" (grade >= {level})")


if __name__ == "__main__":
    main()
