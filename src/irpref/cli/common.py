"""Arguments shared by subcommands."""

from __future__ import annotations

import argparse

from irpref.errors import UsageError
from irpref.evaluate import judge_inputs
from irpref.judged import TIES, JudgedRankings
from irpref.report.tables import FORMATS


def add_inputs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "qrels", metavar="QRELS", help="TREC qrels file (qid iter docid grade; .gz ok), or a "
        "file saved by irpref judge (then no RUN)"
    )
    parser.add_argument("runs", metavar="RUN", nargs="*", help="TREC run files (.gz ok)")
    parser.add_argument(
        "--tag-names",
        action="store_true",
        help="name runs by their tag column instead of their file names",
    )


def add_judging(parser: argparse.ArgumentParser, *, ties: bool = True) -> None:
    parser.add_argument(
        "--rel",
        type=int,
        default=1,
        metavar="N",
        help="grade >= N is relevant (trec_eval -l; default 1)",
    )
    parser.add_argument(
        "--depth",
        type=int,
        default=None,
        metavar="N",
        help="keep the top N of each ranking after sorting (trec_eval -M)",
    )
    parser.add_argument(
        "--corpus-size",
        type=int,
        default=None,
        metavar="N",
        help="documents in the collection (for measures that impute unretrieved "
        "relevant documents at the bottom of the corpus)",
    )
    if ties:
        parser.add_argument(
            "--ties",
            choices=TIES,
            default="docid",
            help="tie policy: docid (trec_eval), input (file order), expected "
            "(mean over all orderings of tied scores)",
        )


def add_format(parser: argparse.ArgumentParser, default: str = "table") -> None:
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default=default,
        help=f"output format (default {default}); tsv keeps full precision",
    )


def add_measures(parser: argparse.ArgumentParser, help: str, metavar: str = "MEASURE") -> None:
    """``-m/--measure`` (repeatable, several per flag); unset -> ``args.measures is None``."""
    parser.add_argument("-m", "--measure", dest="measures", nargs="+", action="extend",
                        metavar=metavar, help=help)


def add_missing(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--missing", choices=("skip", "zero"), default="skip",
                        help="queries a run lacks: skip them, or score them as empty "
                             "(trec_eval -c)")


def judge_args(args: argparse.Namespace, ties: str | None = None) -> JudgedRankings:
    """Read, intern and judge the inputs named by the shared arguments
    (``ties`` overrides ``--ties``), or load the file saved by ``irpref judge``."""
    from irpref.store import is_judged_file, load_for_args

    if is_judged_file(args.qrels):
        return load_for_args(args, ties)
    if not args.runs:
        raise UsageError("no RUN file given (give QRELS RUN..., or a file saved by irpref judge)")
    return judge_inputs(
        args.qrels,
        args.runs,
        rel=args.rel,
        depth=args.depth,
        ties=ties or args.ties,
        use_tag=args.tag_names,
        corpus_size=args.corpus_size,
    )


def add_dask(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dask", metavar="ADDRESS", default=None,
                        help="run on Dask: a scheduler address (tcp://host:8786) or local:N "
                             "for N local worker processes (pip install irpref[dask])")
