"""Benchmark: judged-only evaluation (``X(judged_only=true)``) beside the plain measure.

The target: judged-only evaluation costs at most 1.3x the plain
measure. A judged-only measure reads the condensed lists
(:func:`irpref.judging.condense.condense`), built once per judged rankings however
many measures ask, so its extra cost is one pass over the items. On seeded
synthetic collections (``--runs`` runs; queries, depth and the share of
retrieved documents left unjudged varied; scores rounded so ties occur), this
script prints, per shape, the median of ``--repeats`` (plain and judged-only
timed alternately within each repeat, so load on the machine hits both):

- ``judge``: reading the run frames, sorting and joining with the qrels (what
  every evaluation pays first, plain or not);
- ``plain`` / ``judged_only``: computing the measures on fresh judged rankings
  (no cached views: the judged-only time includes condensing), and their
  ratio ``kernels x``;
- ``condense``: :func:`irpref.judging.condense.condense` alone; ``AP`` the first
  measure alone, plain, and ``one x`` its judged-only time over it (the
  in-memory single-measure case);
- ``total x``: (judge + judged_only) / (judge + plain), the cost of an
  evaluation from the runs.

``--parts`` adds, per shape, the parts of condensing (the judged items, i.e.
``flatnonzero(grade >= 0)``, the grades taken at them, the new offsets) and
the first measure on the condensed lists, each over the plain measure: what a
judged-only measure costs beyond the plain one.

Document ids (``--ids``): ``short`` (``d17``, 8 bytes at most), ``long``
(``clueweb12-0000tw-00-00017``) or ``numeric`` (``17``); ``--decimals``
rounds the scores (2: many ties; 0 disables rounding); ``--ties`` the tie
policy; ``--shapes`` picks shapes by their index in ``SHAPES``.

Usage::

    python benchmarks/bench_judged_only.py [--repeats 5] [--runs 20] [-m AP nDCG@10 ...]
        [--ids short|long|numeric] [--decimals 2] [--ties docid|expected]
        [--layout full|compact] [--shapes 0 3 ...] [--parts]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
import warnings

import numpy as np
import pandas as pd

from irpref.evaluate import judge_inputs
from irpref.judging.condense import _judged_items, condense
from irpref.measures import parse_measure
from irpref.measures.base import reads_compact, with_params

MEASURES = ["AP", "nDCG@10", "P@10", "RR", "Bpref"]
SHAPES = [  # (queries, depth, share of retrieved documents unjudged)
    (50, 100, 0.1), (50, 100, 0.9), (250, 100, 0.1), (250, 100, 0.9),
    (50, 1000, 0.1), (50, 1000, 0.9), (250, 1000, 0.1), (250, 1000, 0.9),
]


ID_STYLES = {"short": "d{}", "long": "clueweb12-0000tw-00-{:05d}", "numeric": "{}"}


def collection(n_runs: int, n_q: int, depth: int, unjudged: float, seed: int = 1,
               ids: str = "short", decimals: int = 2):
    """Seeded qrels and run frames: each query's corpus holds 2 * depth documents, a
    share ``1 - unjudged`` of them judged (grade 0 mostly, 1 and 2 rarer); each run
    retrieves ``depth`` of them with scores rounded to ``decimals`` (ties; 0: not
    rounded); documents named in the style ``ids`` of :data:`ID_STYLES`."""
    rng = np.random.default_rng(seed)
    n_docs = 2 * depth
    q = np.repeat(np.arange(n_q), n_docs)
    d = np.tile(np.arange(n_docs), n_q)
    judged = rng.random(len(q)) >= unjudged
    grade = rng.choice([0, 1, 2], size=len(q), p=[0.8, 0.15, 0.05])
    dnames = np.array([ID_STYLES[ids].format(i) for i in range(n_docs)], dtype=object)
    qrels = pd.DataFrame({"query_id": [f"q{i}" for i in q[judged]],
                          "doc_id": dnames[d[judged]], "relevance": grade[judged]})
    qnames = np.array([f"q{i}" for i in range(n_q)], dtype=object)
    runs = {}
    for r in range(n_runs):
        picks = np.argsort(rng.random((n_q, n_docs)), axis=1)[:, :depth]
        scores = np.sort(rng.random((n_q, depth)), axis=1)[:, ::-1]
        if decimals:
            scores = np.round(scores, decimals)
        runs[f"run{r}"] = pd.DataFrame({"query_id": np.repeat(qnames, depth),
                                        "doc_id": dnames[picks.ravel()],
                                        "score": scores.ravel()})
    return qrels, runs


def fresh(judged):
    """The same judged rankings without any cached view (condensed lists included)."""
    return dataclasses.replace(judged)


def timed(func) -> float:
    start = time.perf_counter()
    func()
    return time.perf_counter() - start


def parts(judged, measure, repeats: int) -> str:
    """The steps of :func:`irpref.judging.condense.condense` and the measure on the
    condensed lists, each as a multiple of the plain measure's time."""
    grade = judged.grade
    kept = _judged_items(judged)
    condensed_lists = fresh(condense(judged))  # every field set: no cached view
    steps = {
        "judged items": lambda j: _judged_items(j),
        "take grade": lambda _: grade.take(kept),
        "offsets": lambda _: np.searchsorted(kept, judged.offsets),
        "on condensed": lambda c: measure.compute(c),
        "plain": lambda j: measure.compute(j),
    }
    times = {k: [] for k in steps}
    for _ in range(repeats):
        for k, f in steps.items():
            arg = fresh(condensed_lists if k == "on condensed" else judged)
            times[k].append(timed(lambda f=f, arg=arg: f(arg)))
    base = statistics.median(times.pop("plain"))
    return "  ".join(f"{k} {statistics.median(t) / base:.2f}" for k, t in times.items())


def median_ms(times: list[float]) -> float:
    return 1e3 * statistics.median(times)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("-m", "--measures", nargs="+", default=MEASURES)
    parser.add_argument("--ids", choices=sorted(ID_STYLES), default="short")
    parser.add_argument("--decimals", type=int, default=2)
    parser.add_argument("--ties", choices=["docid", "expected"], default="docid")
    parser.add_argument("--layout", choices=["full", "compact"], default="full")
    parser.add_argument("--shapes", type=int, nargs="+", default=list(range(len(SHAPES))))
    parser.add_argument("--parts", action="store_true",
                        help="also time the parts of condensing, over the plain measure")
    args = parser.parse_args(argv)
    plain = [parse_measure(m) for m in args.measures]
    if args.layout == "compact":  # only the measures that read it
        skipped = [m for m in plain if not reads_compact(m, args.ties)]
        plain = [m for m in plain if reads_compact(m, args.ties)]
        if skipped:
            print(f"(not on the compact layout under ties={args.ties}: "
                  f"{' '.join(map(str, skipped))})")
    only = [with_params(m, judged_only=True) for m in plain]
    print(f"{args.runs} runs; measures {' '.join(map(str, plain))}; ids {args.ids}; scores "
          f"rounded to {args.decimals or 'no'} decimals; ties {args.ties}; layout "
          f"{args.layout}; median of {args.repeats} (milliseconds)")
    print(f"{'queries':>7} {'depth':>5} {'unjudged':>8} {'judge':>7} {'plain':>7} "
          f"{'judged_only':>11} {'kernels x':>9} {'condense':>8} {'AP':>7} {'one x':>6} "
          f"{'total x':>7}")
    for n_q, depth, unjudged in (SHAPES[i] for i in args.shapes):
        qrels, runs = collection(args.runs, n_q, depth, unjudged, ids=args.ids,
                                 decimals=args.decimals)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t_judge = [timed(lambda q=qrels, r=runs: judge_inputs(
                q, r, ties=args.ties, layout=args.layout)) for _ in range(args.repeats)]
            judged = judge_inputs(qrels, runs, ties=args.ties, layout=args.layout)
        t_plain, t_only, t_cond, t_ap, t_ap_only = [], [], [], [], []
        for _ in range(args.repeats):
            j = fresh(judged)
            t_plain.append(timed(lambda j=j: [m.compute(j) for m in plain]))
            j = fresh(judged)
            t_only.append(timed(lambda j=j: [m.compute(j) for m in only]))
            j = fresh(judged)
            t_cond.append(timed(lambda j=j: condense(j)))
            j = fresh(judged)
            t_ap.append(timed(lambda j=j: plain[0].compute(j)))
            j = fresh(judged)
            t_ap_only.append(timed(lambda j=j: only[0].compute(j)))
        condensed_lists = condense(judged)
        for m, o in zip(plain, only):  # the values differ, as they should
            assert m.compute(condensed_lists).tolist() == o.compute(judged).tolist()
        jd, pl, on, co, ap, ap_only = (median_ms(t) for t in (t_judge, t_plain, t_only,
                                                              t_cond, t_ap, t_ap_only))
        print(f"{n_q:>7} {depth:>5} {unjudged:>8.0%} {jd:>7.1f} {pl:>7.1f} {on:>11.1f} "
              f"{on / pl:>9.2f} {co:>8.1f} {ap:>7.1f} {ap_only / ap:>6.2f} "
              f"{(jd + on) / (jd + pl):>7.2f}")
        if args.parts:
            print("        parts / plain " + parts(judged, plain[0], args.repeats))


if __name__ == "__main__":
    main()
