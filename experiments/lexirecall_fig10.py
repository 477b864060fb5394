"""Lexirecall (Diaz & Mitra 2023) Figure 10: fraction of tied (run pair,
query) comparisons on TREC runs, on the collections given (default DL 2019
passage and Robust 2003, the latter not in the paper), at the paper's level
(DL 2019 passage: grade >= 1, as its Table 5 counts 95.40 relevant per request
for deep-pass 2019; the track's grade >= 2 also printed). The collection's
Table 5 facts are checked first. The figure prints no numbers: lexirecall
should tie far less than R@1000 and RP, about as rarely as AP and nDCG.
Command: irpref meta ties QRELS RUNS -m sgnLR R@1000 Rprec AP nDCG RR --rel 1
Usage: python lexirecall_fig10.py [--collection NAME ...] [--rel GRADE] [--no-plot]
-> lexirecall_fig10.png (lexirecall_fig10.NAMES.png for other collections)
"""

from __future__ import annotations

from collections.abc import Sequence

import paper_rows
from _common import dataset_facts, figure_name, parse, parser, pyplot, rel, report, save

from irpref.evaluate import judge_inputs
from irpref.meta import tie_rates

PAPER = "lexirecall"
MEASURES = ["sgnLR", "R@1000", "Rprec", "AP", "nDCG", "RR"]
DEFAULT = ("dl19-passage", "robust03")


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(parser(__file__, __doc__, default=DEFAULT), argv)
    tied = {}
    for coll in args.collections:
        level = rel(args, PAPER, coll)
        judged = judge_inputs(coll.qrels, coll.runs, rel=level)
        report(PAPER, "Table 5", coll.name, dataset_facts(judged),
               note=f" (grade >= {level})")
        tied[coll.name] = tie_rates(measures=MEASURES, judged=judged)
        track = paper_rows.TRACK_REL.get(coll.name, 1)
        if args.rel is None and track != level:
            t = tie_rates(coll.qrels, coll.runs, MEASURES, rel=track)
            print(f"{coll.name}, grade >= {track}:",
                  dict(zip(t.measure, t.percent_tied.round(2))))
    for name, t in tied.items():
        print(f"{name}, % tied:", dict(zip(t.measure, t.percent_tied.round(2))))
    if not args.plot:
        return
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    x = range(len(MEASURES))
    width = 0.8 / len(tied)
    for k, (name, t) in enumerate(tied.items()):
        ax.bar([i + (k - len(tied) / 2 + 0.5) * width for i in x], t.percent_tied / 100,
               width=width, label=name)
    ax.set_xticks(list(x), MEASURES)
    ax.set_ylabel("fraction tied")
    ax.legend()
    save(fig, figure_name("lexirecall_fig10.png", args.collections, DEFAULT))


if __name__ == "__main__":
    main()
