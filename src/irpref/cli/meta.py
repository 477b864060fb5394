"""``irpref meta EXPERIMENT``: the meta experiments of :mod:`irpref.meta.catalog`,
one subcommand per record, parsed and run by one generic driver.

An experiment on real runs reads its inputs as every other command does
(:mod:`irpref.cli.common`: QRELS RUN... or a file saved by ``irpref judge``,
``--rel``, ``--depth``, ``--corpus-size``, ``--ties``, ``--missing``,
``--tag-names``); every subcommand prints one tidy table with the package's
table writer (:func:`irpref.report.formats.write_frame`: ``tsv`` by default,
full precision; ``json``; ``table``; ``markdown``/``latex``/``html``).

Every option is given once, except the lists (``-m/--measure``, ``--model``,
``--discounts``: each occurrence adds to the list); an option given twice is
refused (exit 2), never silently overwritten.
"""

from __future__ import annotations

import argparse
import dataclasses
from types import SimpleNamespace

import numpy as np

from irpref import params
from irpref.cli.common import (
    add_global_flags,
    add_inputs,
    add_judging,
    add_missing,
    add_output,
    checked,
    judge_args,
    open_output,
    settings_from_args,
)
from irpref.errors import UsageError
from irpref.meta.catalog import EXPERIMENTS, Experiment, Option
from irpref.report.formats import FORMATS, write_frame


def add_arguments(parser: argparse.ArgumentParser) -> None:

    sub = parser.add_subparsers(dest="meta_command", metavar="EXPERIMENT")
    sub.required = True
    for exp in EXPERIMENTS:
        p = sub.add_parser(exp.name, help=exp.help, description=exp.description or exp.help,
                           argv=getattr(parser, "argv", []))
        _add_experiment(p, exp)
        add_global_flags(p)  # --quiet/--debug after the experiment too
        p.set_defaults(meta_parser=p, experiment=exp)


def _add_experiment(p: argparse.ArgumentParser, exp: Experiment) -> None:
    if exp.reads_runs:
        add_inputs(p)
    if exp.measures != "none":
        p.add_argument("-m", "--measure", dest="measures", nargs="+", action="extend",
                       required=exp.measures == "required", default=None,
                       metavar=exp.measure_metavar, help=exp.measure_help)
    if exp.reads_runs:
        add_judging(p, ties=False)  # --rel, --depth, --corpus-size
        p.add_argument("--ties", **checked(params.check_ordering_ties), default="docid",
                       metavar="{" + ",".join(params.ORDERING_TIES) + "}",
                       help="tie policy: docid (trec_eval: score desc, docid desc) or input")
        add_missing(p)
    if exp.subtopics:
        p.add_argument("--subtopics", metavar="FILE", default=None,
                       help="ndeval-format subtopic qrels (topic subtopic docid grade) for "
                       "MAP-IA, ERR-IA@k, S-recall@k, alpha-nDCG@k and ST-RPP; QRELS may be "
                       "the same file (then collapsed: max grade over subtopics)")
    if exp.aggregate:
        p.add_argument("--aggregate", choices=("winrate", "mc4", "borda"), default="winrate",
                       help="how preferences order the systems (metrics: mean; default winrate)")
    groups: dict[str, argparse._MutuallyExclusiveGroup] = {}
    for opt in exp.options:
        target = p
        if opt.group is not None:
            if opt.group not in groups:
                groups[opt.group] = p.add_mutually_exclusive_group()
            target = groups[opt.group]
        _add_option(target, opt)
    p.add_argument("--format", choices=FORMATS, default="tsv",
                   help="output format (default tsv: full precision)")
    add_output(p)


def _add_option(p, opt: Option) -> None:
    kwargs: dict = {"help": opt.help}
    if opt.dest is not None:
        kwargs["dest"] = opt.dest
    if opt.kind == "flag":
        p.add_argument(*opt.flags, action="store_true", **kwargs)
        return
    kwargs.update(default=opt.default, required=opt.required)
    if opt.metavar is not None:
        kwargs["metavar"] = opt.metavar
    if opt.choices is not None:
        kwargs["choices"] = opt.choices
    if opt.kind == "list":
        p.add_argument(*opt.flags, nargs="+", action="extend", **kwargs)
    elif opt.check is not None:
        p.add_argument(*opt.flags, **checked(opt.check), **kwargs)
    else:
        p.add_argument(*opt.flags, **kwargs)


def run(args: argparse.Namespace) -> int:
    exp: Experiment = args.experiment
    judged = sub = None
    options = experiment_options(args)
    try:
        if exp.reads_runs:
            judged, sub = _inputs(args, options, exp)
        elif exp.check is not None:
            exp.check(options)
        frame = exp.run(options, judged, sub)
        if any(opt.flags == ("--seed",) for opt in exp.options):  # randomized: say its seed
            frame = frame.assign(seed=options.seed)
    except UsageError as exc:
        args.meta_parser.error(str(exc))  # the experiment's usage line, exit 2
    with open_output(args.output) as out:
        write_frame(frame, args.format, out)
    return 0


def experiment_options(args: argparse.Namespace) -> SimpleNamespace:
    """The experiment's option values as a plain value (what the runners of
    :mod:`irpref.meta.catalog` read: no argparse below the CLI)."""
    skip = {"experiment", "meta_parser", "meta_command", "command", "debug", "quiet"}
    return SimpleNamespace(**{k: v for k, v in vars(args).items()
                              if not k.startswith("_") and k not in skip})


def _inputs(args: argparse.Namespace, options: SimpleNamespace, exp: Experiment):
    """The judged collection (from QRELS RUN... or a saved ``irpref judge`` file) and
    the subtopic qrels; every name and option is checked before any file is read;
    the runs lacking judged queries are announced (``--missing``, one line each)."""
    from irpref.evaluate import announce_missing
    from irpref.judging.store import is_judged_file
    from irpref.measures.subtopic_judgments import use_subtopics
    from irpref.meta.pairwise import check_measures

    settings = settings_from_args(args)
    subtopics = getattr(args, "subtopics", None)
    kinds = {}
    if getattr(args, "measures", None) is not None:
        kinds = check_measures(args.measures, subtopics=subtopics is not None)
    if exp.check is not None:
        exp.check(options)
    metrics = [n for n, k in kinds.items() if k == "metric"]
    prefs = [n for n, k in kinds.items() if k == "preference"]
    args.qrels, sub = use_subtopics(args.qrels, subtopics)
    saved = is_judged_file(args.qrels)
    # files: judged in full, as always; a saved file: any layout the measures read
    judged = judge_args(args, settings, measures=metrics, preferences=prefs, subtopics=sub,
                        layout=None if saved else "full")
    announce_missing(judged, settings.missing)
    if judged.compact and exp.needs_full:
        raise UsageError(f"{args.qrels} holds compact judged rankings (only the items the "
                         f"qrels mention); meta {exp.name} needs every retrieved item "
                         f"({exp.why_full}): re-run irpref judge --layout full")
    if args.missing == "zero":  # a query a run lacks is an empty ranking (trec_eval -c)
        judged = dataclasses.replace(judged, present=np.ones_like(judged.present))
    return judged, sub
