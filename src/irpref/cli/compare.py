"""``irpref compare QRELS RUN... -m PREF...``: pairwise preferences and system orderings."""

from __future__ import annotations

import argparse
import io

import numpy as np
import pandas as pd

from irpref import params
from irpref.aggregate import orderings_of
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
    once,
    open_output,
)
from irpref.compare import compare_matrices
from irpref.preferences import DEFAULT_PREFERENCES, PREFERENCES
from irpref.report.formats import render_text, write_table
from irpref.report.records import natural_key


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
    add_format(parser)
    add_output(parser)


def run(args: argparse.Namespace) -> int:
    from irpref.preferences import parse_preferences

    if args.measures is not None:
        as_usage(lambda: parse_preferences(args.measures))  # refused before reading (exit 2)
    from irpref.store import is_judged_file, load_for_args

    if args.dask:  # read, judged and compared on Dask (irpref.distributed)
        from irpref.distributed import compare_args

        comp = compare_args(args)
        if args.missing != "zero":  # the pairing rule, from a second pass over the runs
            from irpref.compare import paired, presence_on_dask
            from irpref.distributed import client_for, close

            client = client_for(args.dask)
            try:
                queries, mask = presence_on_dask(client, args.qrels, args.runs, args.missing,
                                                  dict(rel=args.rel, depth=args.depth,
                                                       ties=args.ties, use_tag=args.tag_names))
            finally:
                close(client)
            comp = paired(comp, queries, mask)
    else:
        judged = load_for_args(args) if is_judged_file(args.qrels) else None
        comp = compare_matrices(
            args.qrels, args.runs, args.measures, rel=args.rel, depth=args.depth,
            ties=args.ties, subtopics=args.subtopics, use_tag=args.tag_names, judged=judged,
            missing=args.missing,
        )
    means = comp.tidy_means()
    if args.format != "table":
        keys = ["run_a", "run_b", "measure"]
        table = means
        if args.per_query:  # per-query rows, then the means with an empty / null query
            keys = ["run_a", "run_b", "query", "measure"]
            table = [comp.tidy(), means]
        with open_output(args.output) as out:
            write_table(table, keys, args.format, out)
        return 0
    text = io.StringIO()  # the whole report is built before a line is printed
    if args.per_query:
        write_table(comp.tidy(), ["run_a", "run_b", "query", "measure"], "table", text)
        text.write("\n")
    _write_readable(comp, args.teleport, text)
    with open_output(args.output) as out:
        out.write(text.getvalue())
    return 0


def _pairing_note(comp, name: str, perm: list[int], runs: list[str]) -> str:
    """Which runs lack queries and on how many queries each pair is compared."""
    n = comp.pairs_n(name)[perm][:, perm]
    has = np.diagonal(n)  # queries each run has (of those with a relevant item)
    total = len(comp.values[name])
    short = [f"{runs[i]} lacks {total - has[i]}" for i in range(len(runs)) if has[i] < total]
    off = n[~np.eye(len(runs), dtype=bool)]
    if off.size == 0:
        return ""
    span = f"{off.min()}" if off.min() == off.max() else f"{off.min()}-{off.max()}"
    return (f"-- {'; '.join(short)} of the {total} queries (--missing skip): each pair is "
            f"compared on the queries both runs have (n = {span} per pair) --\n")


def _write_readable(comp, teleport: float, out) -> None:
    """Per preference: the mean matrix and the system orderings, runs in natural
    order (``run2`` before ``run10``, as every terminal table)."""
    perm = sorted(range(len(comp.runs)), key=lambda i: natural_key(comp.runs[i]))
    runs = [comp.runs[i] for i in perm]
    labels = [f"{i + 1:>{len(str(len(runs)))}} {name}" for i, name in enumerate(runs)]
    cols = [str(i + 1) for i in range(len(runs))]
    for name in comp.names:
        values = comp.values[name][:, perm][:, :, perm]
        kind = PREFERENCES[comp.preferences[comp.names.index(name)].name].kind
        out.write(
            f"== {name} ({kind}): mean over {len(values)} queries; row run preferred to "
            f"column run when > 0 ==\n"
        )
        if hasattr(comp, "pairs_n"):  # runs lacking queries (--missing skip)
            out.write(_pairing_note(comp, name, perm, runs))
        mean = comp.mean(name)[perm][:, perm] + 0.0  # + 0.0: no "-0.0000" for a tie
        mat = pd.DataFrame(mean, index=labels, columns=cols)
        out.write(render_text(mat, index=True, float_format=lambda v: f"{v:+.4f}",
                              width=10_000) + "\n")
        if len(values) == 0:
            out.write("(no query with a relevant item)\n\n")
            continue
        orders = orderings_of(values, runs, teleport=teleport)
        wide = pd.DataFrame({"rank": np.arange(1, len(runs) + 1)})
        titles = {"win_rate": "win rate (Eq. 7)", "mc4": "MC4", "borda": "Borda"}
        for method, group in orders.groupby("method", sort=False):
            fmt = "{:.4f}" if method != "borda" else "{:.1f}"
            wide[titles[method]] = [
                f"{r} ({fmt.format(s)})" for r, s in zip(group["run"], group["score"])
            ]
        out.write(f"-- {name}: system orderings --\n")
        out.write(render_text(wide, width=10_000) + "\n\n")
