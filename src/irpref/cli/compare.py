"""``irpref compare QRELS RUN... -m PREF...``: pairwise preferences and system orderings."""

from __future__ import annotations

import argparse
import io
import itertools

import numpy as np
import pandas as pd

from irpref import params
from irpref.cli.common import (
    add_dask,
    add_depth,
    add_format,
    add_inputs,
    add_measures,
    add_missing,
    add_output,
    add_rel,
    as_usage,
    checked,
    load_judged_file,
    once,
    open_output,
    settings_from_args,
)
from irpref.compare import compare_matrices
from irpref.errors import UsageError
from irpref.preferences import DEFAULT_PREFERENCES, PREFERENCES
from irpref.preferences.aggregate import win_rate_orderings
from irpref.report.formats import render_text, write_table
from irpref.report.records import natural_key

WIN_RATE_NOTE = ("win rate (Diaz & Ferraro 2022, Eq. 7): the mean over queries of a run's "
                 "preferences summed over the other runs (with every query: the row sum of "
                 "the matrix above)")
SKIP_NOTE = ("; here each run's mean is over the queries it has, each sum over the runs "
             "that have the query, so it is not a row sum of the matrix; MC4 and Borda "
             "leave the missing pairs out")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_inputs(parser)
    add_measures(parser, f"preferences: {', '.join(PREFERENCES)}, e.g. 'RPP(p=dcg)' "
                         f"(default: {' '.join(DEFAULT_PREFERENCES)})", metavar="PREF")
    add_rel(parser)
    add_depth(parser)
    add_missing(parser)
    parser.add_argument("--ties", **checked(params.check_ordering_ties), default="docid",
                        metavar="{" + ",".join(params.ORDERING_TIES) + "}",
                        help="tie policy: docid (trec_eval: score desc, docid desc) or input")
    parser.add_argument("--subtopics", **once(), metavar="FILE", default=None,
                        help="ndeval-format subtopic qrels (topic subtopic docid grade) for "
                             "ST-RPP; default: read QRELS in that format when ST-RPP is asked")
    parser.add_argument("--per-query", action="store_true", help="also print per-query values")
    parser.add_argument("--teleport", **checked(params.check_teleport), default=0.05,
                        metavar="T",
                        help="MC4 random-jump probability in [0, 1) (default 0.05; 0 = plain "
                             "chain)")
    add_dask(parser)
    add_format(parser, binary=True)
    add_output(parser)


def run(args: argparse.Namespace) -> int:
    from irpref.preferences import parse_preferences

    settings = settings_from_args(args)
    if args.measures is not None:  # refused before reading (exit 2)
        as_usage(lambda: parse_preferences(args.measures, judged_only=settings.judged_only))
    if args.dask:  # read, judged and compared on Dask (irpref.distributed)
        return _on_dask(args, settings)
    from irpref.judging.store import is_judged_file

    judged = load_judged_file(args, settings) if is_judged_file(args.qrels) else None
    comp = compare_matrices(args.qrels, args.runs, args.measures, settings=settings,
                            subtopics=args.subtopics, judged=judged)
    del judged  # the comparison holds what it reads
    return write(comp, args)


def write(comp, args: argparse.Namespace) -> int:
    """Print the comparison: means (and per-query rows) as TSV, JSON or Parquet,
    streamed by blocks of pairs and queries, or the readable report."""
    means = comp.means()
    if args.format != "table":
        keys = ["run_a", "run_b", "measure"]
        table = comp.tidy_means(means)
        if args.per_query:  # per-query rows, then the means with an empty / null query
            keys = ["run_a", "run_b", "query", "measure"]
            queries = comp.all_queries()
            order = sorted(range(len(queries)), key=lambda i: (natural_key(queries[i]), i))
            table = itertools.chain(comp.tidy_frames(order), [table])
        with open_output(args.output) as out:
            write_table(table, keys, args.format, out)
        return 0
    text = io.StringIO()  # the whole report is built before a line is printed
    if args.per_query:  # the terminal's wide view: the per-query table is built whole
        write_table(comp.tidy(), ["run_a", "run_b", "query", "measure"], "table", text)
        text.write("\n")
    _write_readable(comp, means, args.teleport, text)
    with open_output(args.output) as out:
        out.write(text.getvalue())
    return 0


def _on_dask(args: argparse.Namespace, settings) -> int:
    """``--dask``: QRELS RUN... read, judged and compared on a Dask cluster, the
    blocks of run pairs computed there while the output is written."""
    from irpref.distributed import client_for, close
    from irpref.judging.store import is_judged_file

    if is_judged_file(args.qrels):
        raise UsageError("--dask reads QRELS RUN...; a saved judged file is compared "
                         "without --dask")
    if args.subtopics:
        raise UsageError("--dask does not compute ST-RPP (--subtopics): it matches every "
                         "judged document id; compare it without --dask")
    if not args.runs:
        raise UsageError("no RUN file given")
    client = client_for(args.dask)
    try:
        return write(compare_matrices(args.qrels, args.runs, args.measures,
                                      settings=settings, client=client), args)
    finally:
        close(client)


def _population(comp, name: str, perm: list[int], runs: list[str]) -> tuple[str, str]:
    """(what each mean is taken over, a note naming the runs that lack queries)."""
    total = comp.n_queries(name)
    if not hasattr(comp, "pairs_n"):  # every run has every query, or --missing zero
        return f"mean over {total} queries", ""
    n = comp.pairs_n(name)[perm][:, perm]
    has = np.diagonal(n)  # queries each run has (of those with a relevant item)
    short = [f"{runs[i]} lacks {total - has[i]}" for i in range(len(runs)) if has[i] < total]
    off = n[~np.eye(len(runs), dtype=bool)]
    if off.size == 0:
        return f"mean over {total} queries", ""
    span = f"{off.min()}" if off.min() == off.max() else f"{off.min()}-{off.max()}"
    return (f"mean over the queries both runs of a pair have ({span} of {total})",
            f"-- {'; '.join(short)} of the {total} queries (--missing skip): each pair is "
            f"compared on the queries both runs have --\n")


def _write_readable(comp, means: dict, teleport: float, out) -> None:
    """Per preference: the mean matrix and the system orderings, runs in natural
    order (``run2`` before ``run10``, as every terminal table)."""
    perm = sorted(range(len(comp.runs)), key=lambda i: natural_key(comp.runs[i]))
    runs = [comp.runs[i] for i in perm]
    labels = [f"{i + 1:>{len(str(len(runs)))}} {name}" for i, name in enumerate(runs)]
    cols = [str(i + 1) for i in range(len(runs))]
    for name in comp.names:
        kind = PREFERENCES[comp.preferences[comp.names.index(name)].name].kind
        over, note = _population(comp, name, perm, runs)
        out.write(f"== {name} ({kind}): {over}; row run preferred to column run when > 0 ==\n")
        out.write(note)
        mean = comp.mean(name, means[name])[perm][:, perm] + 0.0  # + 0.0: no "-0.0000"
        mat = pd.DataFrame(mean, index=labels, columns=cols)
        out.write(render_text(mat, index=True, float_format=lambda v: f"{v:+.4f}",
                              width=10_000) + "\n")
        if comp.n_queries(name) == 0:
            out.write("(no query with a relevant item)\n\n")
            continue
        orders = win_rate_orderings(comp.win_rates(name, perm), runs, teleport=teleport)
        wide = pd.DataFrame({"rank": np.arange(1, len(runs) + 1)})
        titles = {"win_rate": "win rate (Eq. 7)", "mc4": "MC4", "borda": "Borda"}
        for method, group in orders.groupby("method", sort=False):
            fmt = "{:.4f}" if method != "borda" else "{:.1f}"
            wide[titles[method]] = [
                f"{r} ({fmt.format(s)})" for r, s in zip(group["run"], group["score"])
            ]
        out.write(f"-- {name}: system orderings --\n")
        out.write(render_text(wide, width=10_000) + "\n")
        out.write(WIN_RATE_NOTE + ("" if not note else SKIP_NOTE) + "\n\n")
