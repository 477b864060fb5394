"""``irpref trec_eval [-q] [-c] [-n] [-J] [-l N] [-M N] [-N N] [-D 0.QID] [-R FORMAT]
[-Z FILE] [-m MEASURE[.PARAMS]]... QRELS RUN``

A drop-in for trec_eval 10.0: the same flags (short, glued such as ``-M100``,
``-l2``, ``-mP.5,10``, clustered such as ``-qc``, and the GNU long forms),
the same measure names and nicknames (``official``, ``all_trec``, ``set``,
``all_prefs``, ``prefs``, ``qrels_jg``), the same judgment formats (``-R qrels``,
``prefs``, ``qrels_prefs``, ``qrels_jg``), the same output, byte for byte, and
the same tie-breaks (score descending, then docid descending; for
preferences, docid ascending, as form_prefs_counts.c does). trec_eval's flag
syntax is parsed here (the command dispatcher hands the raw arguments to
:func:`run_raw`); :mod:`irpref.trec_eval.run` is trec_eval's main loop. Numbers
are read with C's ``atol`` as trec_eval reads them; the values for which
trec_eval's answer is not a number are refused (:func:`check_request`).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field

from irpref.errors import InputError
from irpref.io.records import TrecFormatError
from irpref.trec_eval.format import NICKNAMES, TREC_MEASURES, resolve_measures
from irpref.trec_eval.params import TrecEvalError, atol
from irpref.trec_eval.run import Request, evaluate

PARSER_KWARGS = {"add_help": False}

USAGE = """\
Usage: irpref trec_eval [-h] [-q] [-c] [-n] [-J] [-l <num>] [-M <num>] [-N <num>]
                        [-D 0.qid] [-R rel_format] [-Z zmean_file]
                        {-m measure[.params]}* rel_info_file results_file
"""

HELP = USAGE + """
Drop-in replacement for trec_eval 10.0 (same flags, measures and output).

 -h, --help                      print this help and exit
 -v, --version                   print the version and exit
 -q, --query_eval_wanted         also print the value of every query
 -m, --measure name[.params]     add a measure or nickname (official [default],
                                 all_trec, set); parameters as in trec_eval,
                                 e.g. -m P.5,10  -m ndcg_cut.10  -m rbp.p=0.8
 -c, --complete_rel_info_wanted  average over every query of the qrels (a query
                                 the run lacks is ranked as trec_eval ranks it:
                                 one unjudged document)
 -l, --level_for_rel <num>       grade >= num is relevant (default 1; 0 makes
                                 judged non-relevant documents relevant)
 -n, --nosummary                 do not print the summary
 -M, --Max_retrieved_per_topic <num>  keep the top num of each ranking (0: none)
 -N, --Number_docs_in_coll <num> documents in the collection (utility's d;
                                 default 0)
 -J, --Judged_docs_only          drop unjudged documents from every ranking
                                 (after -M) and rank the judged ones 1, 2, ...
 -Z, --Zscore <file>             print z-scores (value - mean) / stddev, the
                                 mean and stddev of each query and measure
                                 read from lines 'qid measure mean stddev'
 -D, --Debug_level 0[.qid]       evaluate only query qid (levels above 0, which
                                 make trec_eval print its debug traces, are refused)
 -R, --Rel_info_format <format>  qrels [default]; prefs ('qid jg jsg docid level':
                                 preferences, measures prefs_*, -m all_prefs);
                                 qrels_prefs (qrels read as preferences, the
                                 iter field naming the judgment group);
                                 qrels_jg ('qid judge docid grade': several
                                 judges, measures *_avgjg, -m qrels_jg)
 -T, --Results_format <format>   trec_results only
 A run that lacks a query of the judgments stops the evaluation there unless
 -c is given, as trec_eval 10.0 does: the -q lines of the queries before it,
 then an error (exit 1).

Measures (in output order): {measures}
Nicknames: {nicknames}
"""

_SHORT_WITH_ARG = set("mlDNMRTZ")
_SHORT_FLAGS = set("hvqcnJo")
_LONG = {
    "help": ("h", False),
    "version": ("v", False),
    "query_eval_wanted": ("q", False),
    "measure": ("m", True),
    "complete_rel_info_wanted": ("c", False),
    "level_for_rel": ("l", True),
    "nosummary": ("n", False),
    "Debug_level": ("D", True),
    "Judged_docs_only": ("J", False),
    "Number_docs_in_coll": ("N", True),
    "Max_retrieved_per_topic": ("M", True),
    "Rel_info_format": ("R", True),
    "Results_format": ("T", True),
    "Output_old_results_format": ("o", True),
    "Zscore": ("Z", True),
}


class UsageError(Exception):
    """Bad command line: print the usage and exit 2 (irpref's usage code; trec_eval uses 1)."""


def parse_argv(argv: list[str]) -> tuple[list[tuple[str, str | None]], list[str]]:
    """GNU getopt_long over ``hvqm:cl:nD:JN:M:R:T:oZ:`` with argument permutation."""
    opts: list[tuple[str, str | None]] = []
    args: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        i += 1
        if a == "--":
            args.extend(argv[i:])
            break
        if a.startswith("--"):
            key, eq, val = a[2:].partition("=")
            matches = [k for k in _LONG if k.startswith(key)]
            if key in _LONG:
                matches = [key]
            if len(matches) != 1:
                raise UsageError(f"unrecognized or ambiguous option '--{key}'")
            letter, needs = _LONG[matches[0]]
            if needs and not eq:
                if i >= len(argv):
                    raise UsageError(f"option '--{matches[0]}' requires an argument")
                val, i = argv[i], i + 1
            opts.append((letter, val if needs else None))
        elif a.startswith("-") and a != "-":
            j = 1
            while j < len(a):
                c = a[j]
                if c in _SHORT_WITH_ARG:
                    val = a[j + 1 :]
                    if not val:
                        if i >= len(argv):
                            raise UsageError(f"option requires an argument -- '{c}'")
                        val, i = argv[i], i + 1
                    opts.append((c, val))
                    break
                if c not in _SHORT_FLAGS:
                    raise UsageError(f"invalid option -- '{c}'")
                opts.append((c, None))
                j += 1
        else:
            args.append(a)
    return opts, args


def _help_text() -> str:
    return HELP.replace("{measures}", " ".join(m.name for m in TREC_MEASURES)).replace(
        "{nicknames}", ", ".join(NICKNAMES))


# the -R formats: reader of the rel_info file, and the judgments its measures need
REL_FORMATS = {"qrels": "qrels", "prefs": "prefs", "qrels_prefs": "prefs",
               "qrels_jg": "qrels_jg"}


@dataclass
class Options:
    """trec_eval's settings from the command line (trec_eval.c, ``main``)."""

    marks: list[str] = field(default_factory=list)
    query_flag: bool = False
    complete: bool = False
    judged_only: bool = False
    summary: bool = True
    rel: int = 1
    depth: int | None = None
    corpus: int = 0
    rel_format: str = "qrels"
    zscore_file: str | None = None
    debug_level: int = 0
    debug_query: str | None = None

    def request(self) -> Request:
        """The evaluation's settings (everything but the measures)."""
        return Request(self.rel_format, self.rel, self.depth, self.corpus, self.judged_only,
                       self.complete, self.query_flag, self.summary, self.debug_query,
                       self.zscore_file)


def parse_options(opts: list[tuple[str, str | None]]) -> Options | int:
    """The options as settings, or an exit code (``-h``, ``-v``, a bad format)."""
    o = Options()
    for opt, val in opts:
        if opt == "h":
            sys.stdout.write(_help_text())
            return 0
        if opt == "v":
            from irpref import __version__

            print(f"irpref trec_eval {__version__} (trec_eval 10.0 compatible)", file=sys.stderr)
            return 0
        if opt == "R" and val not in REL_FORMATS:
            print(f"irpref trec_eval: rel_info format '{val}' is not one of "
                  f"{', '.join(REL_FORMATS)}", file=sys.stderr)
            return 2
        if opt == "T" and val != "trec_results":
            print(f"irpref trec_eval: results format '{val}' is not supported", file=sys.stderr)
            return 2
        _set_option(o, opt, val)
    return o


def _set_option(o: Options, opt: str, val: str | None) -> None:
    if opt == "q":
        o.query_flag = True
    elif opt == "m":
        o.marks.append(val)
    elif opt == "c":
        o.complete = True
    elif opt == "l":
        o.rel = atol(val)
    elif opt == "n":
        o.summary = False
    elif opt == "N":
        o.corpus = atol(val)
    elif opt == "M":
        o.depth = atol(val)
    elif opt == "R":
        o.rel_format = val
    elif opt == "J":
        o.judged_only = True
    elif opt == "Z":
        o.zscore_file = val
    elif opt == "D":  # LEVEL[.QID] (trec_eval.c, get_debug_level_query)
        level, dot, query = val.partition(".")
        o.debug_level, o.debug_query = atol(level), query if dot else None


def check_request(o: Options, requested: list) -> str | None:
    """Why the request cannot be evaluated, or None.

    The numbers trec_eval reads through ``atol`` are taken as it takes them,
    except where its answer is not a number: ``-l`` below 0 counts the codes of
    unjudged documents (-1, -2) as relevant in some measures and not in others
    (m_P.c:72 against form_res_rels.c:228), ``-M`` below 0 sets the number
    retrieved below 0 (form_res_rels.c:116-117: trec_eval crashes), ``-N`` below
    0 is a collection of fewer than no documents (only utility reads it,
    m_utility.c:73), and ``-D`` above 0 prints trec_eval's debug traces.
    """
    if o.rel < 0:
        return (f"irpref trec_eval: -l {o.rel}: must be >= 0 (below 0 trec_eval counts "
                "unjudged documents as relevant in some measures and not in others)")
    if o.depth is not None and o.depth < 0:
        return (f"irpref trec_eval: -M {o.depth}: must be >= 0 (below 0 trec_eval's number "
                "retrieved is negative and it crashes)")
    if o.corpus < 0:
        return f"irpref trec_eval: -N {o.corpus}: must be >= 0 (0: unknown, the default)"
    if o.debug_level > 0:
        return (f"irpref trec_eval: -D {o.debug_level}: only level 0 is supported (-D 0.qid "
                "evaluates one query; higher levels print trec_eval's internal traces)")
    kind = REL_FORMATS[o.rel_format]
    for req in requested:
        need = req.spec.judgments
        if need not in ("any", kind):
            formats = " or ".join(f"-R {f}" for f, k in REL_FORMATS.items() if k == need)
            return (f"irpref trec_eval: measure '{req.spec.name}' needs {formats} (the "
                    f"rel_info format is '{o.rel_format}'; trec_eval stops with \"Can't "
                    "calculate measure\")")
    return None


def main(argv: list[str]) -> int:
    try:
        opts, args = parse_argv(argv)
    except UsageError as exc:
        print(f"irpref trec_eval: {exc}", file=sys.stderr)
        sys.stderr.write(USAGE)
        return 2
    o = parse_options(opts)
    if isinstance(o, int):
        return o
    if len(args) != 2:
        sys.stderr.write(USAGE)
        return 2
    try:
        requested = resolve_measures(o.marks)
    except TrecEvalError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    problem = check_request(o, requested)
    if problem is not None:
        print(problem, file=sys.stderr)
        return 2
    try:
        out = evaluate(o.request(), args[0], args[1], requested)
    except TrecEvalError as exc:
        print(str(exc), file=sys.stderr)
        return 2 if exc.usage else 1
    except (TrecFormatError, InputError) as exc:
        print(f"irpref trec_eval: error: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(out.text)
    sys.stdout.flush()
    if out.error is not None:  # trec_eval stopped at a judged query the run lacks
        print(f"irpref trec_eval: error: {out.error}", file=sys.stderr)
        return 1
    return 0


def run_raw(argv: list[str]) -> int:
    """Entry point used by the ``irpref`` dispatcher with the raw arguments."""
    return main(list(argv))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """For ``irpref --help`` only: the arguments are parsed by :func:`run_raw`."""
    parser.add_argument("argv", nargs=argparse.REMAINDER,
                        help="trec_eval arguments: [-q] [-c] [-n] [-l N] [-M N] "
                             "[-m MEASURE[.PARAMS]]... QRELS RUN (see irpref trec_eval -h)")


def run(args: argparse.Namespace) -> int:
    return main(list(args.argv))


__all__ = ["Options", "add_arguments", "check_request", "main", "parse_argv", "parse_options",
           "run", "run_raw"]
