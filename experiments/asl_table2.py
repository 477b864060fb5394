"""Atomized search length (Alex, Hall & Metzler) Tables 1-2 and Appendix A.1
on the collections given (default: Robust 2003 and DL 2019 passage).

Table 2 and A.1 report ranges (mean ± sd) over 76 TREC tracks, not rows per
collection: each collection's numbers are marked in / out of the range.
Table 2's columns are printed in the text as "Kendall, ΔValue, ΔSort" but the
values read as ΔSort (%), Kendall, ΔValue (x); we use that reading.
Table 1 (the best BM25 and the best neural run of the 2020 DL tracks) needs
the two runs: the paper does not name them, so give them with --table1.
Commands: irpref meta asl-reorder QRELS RUNS [--share]
Usage: python asl_table2.py [--collection NAME ...] [--rel GRADE] [--table1 BM25 NEURAL]
"""

from __future__ import annotations

from collections.abc import Sequence

import paper_rows
from _common import fail, parse, parser, rel, report

import irpref
from irpref.asl import rrie, search_lengths
from irpref.evaluate import judge_inputs
from irpref.meta.asl_reorder import asl_effective_share, asl_reordering

PAPER = "asl"
TABLE1 = {"P@20": "P@20", "ASL@g1-10": "ASL(golds=10)", "MAP": "AP", "ASL": "ASL"}


def _in(x, lo: str, hi: str) -> str:
    return "in" if float(lo) <= x <= float(hi) else "out"


def table2(coll, level: int) -> None:
    t = search_lengths(judged=judge_inputs(coll.qrels, coll.runs, rel=level))
    r = asl_reordering(table=t)
    ranges = paper_rows.PAPERS[PAPER]["Table 2"]
    print(f"{paper_rows.source(PAPER, 'Table 2')}, {coll.name} (grade >= {level}): paper "
          f"reports no row for {coll.name}, only ranges over 76 TREC tracks")
    for row in r.itertuples():
        cells = []
        for name, x, fmt in (("ΔSort %", row.delta_sort_max, "6.1f"),
                             ("tau", row.kendall_tau, ".2f"),
                             ("ΔValue x", row.delta_value, ".3f")):
            lo, hi = ranges[f"{name} low"][row.step], ranges[f"{name} high"][row.step]
            cells.append(f"{name} {x:{fmt}} paper {lo}-{hi} {_in(x, lo, hi)}")
        print(f"  {row.step:<26} " + " | ".join(cells))
    s = asl_effective_share(table=t)
    print(f"  MAP effective share: {100 * s.effective_share.mean():.0f} % ± "
          f"{100 * s.effective_share.std():.0f} over runs (paper: 57 % ± 16 over tracks)")


def table1(coll, level: int, bm25: str, neural: str) -> None:
    judged = judge_inputs(coll.qrels, coll.runs, rel=level)
    s = irpref.summarize(irpref.evaluate(None, None, list(TABLE1.values()), judged=judged))
    v = s.set_index(["measure", "run"])["value"]
    values = {}
    for label, measure in TABLE1.items():
        base, new = v[measure, bm25], v[measure, neural]
        values[f"{label} BM25"], values[f"{label} neural"] = base, new
        values[f"{label} RRIE %"] = 100 * rrie(base, new)
    report(PAPER, "Table 1", coll.name, values,
           note=f" (grade >= {level}; BM25 {bm25}, neural {neural})")


def main(argv: Sequence[str] | None = None) -> None:
    p = parser(__file__, __doc__, default=("robust03", "dl19-passage"), plot=False)
    p.add_argument("--table1", nargs=2, metavar=("BM25", "NEURAL"),
                   help="Table 1: the names of the best BM25 and the best neural run")
    args = parse(p, argv)
    for coll in args.collections if args.table1 else ():
        names = {r.name.removesuffix(".gz") for r in coll.runs}
        for run in args.table1:
            if run not in names:
                fail(p, f"--table1: no run {run!r} in {coll.name} (no runs/{run}.gz)")
    for coll in args.collections:
        level = rel(args, PAPER, coll)
        if args.table1:
            table1(coll, level, *args.table1)
        table2(coll, level)


if __name__ == "__main__":
    main()
