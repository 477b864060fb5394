"""``irpref trec_eval [-q] [-c] [-n] [-l N] [-M N] [-N N] [-m MEASURE[.PARAMS]]... QRELS RUN``

A drop-in for trec_eval 10.0: the same flags (short, glued such as ``-M100``,
``-l2``, ``-mP.5,10``, clustered such as ``-qc``, and the GNU long forms),
the same measure names and nicknames (``official``, ``all_trec``, ``set``,
``all_prefs``, ``prefs``, ``qrels_jg``), the same judgment formats (``-R qrels``,
``prefs``, ``qrels_prefs``, ``qrels_jg``), the same output, byte for byte, and
the same tie-breaks (score descending, then docid descending; for
preferences, docid ascending, as form_prefs_counts.c does). trec_eval's flag
syntax is parsed here (the command dispatcher hands the raw arguments to
:func:`run_raw`).
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import tempfile
import warnings
import zlib
from dataclasses import dataclass, field

import numpy as np

from irpref.condense import condense
from irpref.errors import InputError
from irpref.interning import intern
from irpref.io.prefs import read_prefs, read_qrels_jg, read_qrels_prefs
from irpref.io.records import TrecFormatError
from irpref.io.trec import read_qrels, read_run
from irpref.ranking import judge
from irpref.trec_eval_format import (
    NICKNAMES,
    TREC_MEASURES,
    TrecEvalError,
    format_trec_eval,
    refuse_ambiguous_gains,
    render_trec_eval,
    resolve_measures,
)
from irpref.trec_eval_judgments import jg_trec_values, prefs_trec_values
from irpref.trec_eval_zscores import read_zscores

PARSER_KWARGS = {"add_help": False}

USAGE = """\
Usage: irpref trec_eval [-h] [-q] [-c] [-n] [-J] [-l <num>] [-M <num>] [-N <num>]
                        [-R rel_format] [-Z zmean_file] {-m measure[.params]}*
                        rel_info_file results_file
"""

HELP = USAGE + """
Drop-in replacement for trec_eval 10.0 (same flags, measures and output).

 -h, --help                      print this help and exit
 -v, --version                   print the version and exit
 -q, --query_eval_wanted         also print the value of every query
 -m, --measure name[.params]     add a measure or nickname (official [default],
                                 all_trec, set); parameters as in trec_eval,
                                 e.g. -m P.5,10  -m ndcg_cut.10  -m rbp.p=0.8
 -c, --complete_rel_info_wanted  average over every query of the qrels (a
                                 query the run lacks scores as an empty ranking)
 -l, --level_for_rel <num>       grade >= num is relevant (default 1)
 -n, --nosummary                 do not print the summary
 -M, --Max_retrieved_per_topic <num>  keep the top num of each ranking
 -N, --Number_docs_in_coll <num> documents in the collection (utility's d)
 -J, --Judged_docs_only          drop unjudged documents from every ranking
                                 (after -M) and rank the judged ones 1, 2, ...
 -Z, --Zscore <file>             print z-scores (value - mean) / stddev, the
                                 mean and stddev of each query and measure
                                 read from lines 'qid measure mean stddev'
 -D, --Debug_level <num>         accepted and ignored
 -R, --Rel_info_format <format>  qrels [default]; prefs ('qid jg jsg docid level':
                                 preferences, measures prefs_*, -m all_prefs);
                                 qrels_prefs (qrels read as preferences, the
                                 iter field naming the judgment group);
                                 qrels_jg ('qid judge docid grade': several
                                 judges, measures *_avgjg, -m qrels_jg)
 -T, --Results_format <format>   trec_results only
 A run that lacks a query of the judgments is refused (exit 1, nothing
 printed) unless -c is given: trec_eval 10.0 has no correct output for it.

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


def _atol(text: str) -> int:
    """C ``atol``: leading integer, 0 if none."""
    import re

    m = re.match(r"\s*[+-]?\d+", text)
    return int(m.group(0)) if m else 0


def _last_tag(data: bytes) -> str:
    """The 6th field of the last non-blank, non-comment line (trec_eval's run_id)."""
    end = len(data)
    while end > 0:
        start = data.rfind(b"\n", 0, end) + 1
        fields = data[start:end].split()
        if fields and not fields[0].startswith(b"#"):
            return fields[5].decode("utf-8", "replace") if len(fields) >= 6 else "-"
        end = start - 1
    return "-"


def _read_run(path: str):
    """The run as trec_eval reads it (fields after the 6th ignored) and its runid."""
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        with open(path, "rb") as handle:
            data = handle.read()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (EOFError, OSError, zlib.error) as exc:
            raise InputError(path, None, f"truncated or corrupt gzip data ({exc})") from None
    runid = _last_tag(data)
    if path != "-":
        try:
            return read_run(path, name="run"), runid
        except TrecFormatError:
            pass  # maybe extra fields after the tag: trim them below
    lines = [ln.split()[:6] for ln in data.split(b"\n")]
    trimmed = b"\n".join(b" ".join(f) for f in lines if f and not f[0].startswith(b"#"))
    with tempfile.NamedTemporaryFile(suffix=".run", delete=False) as tmp:
        tmp.write(trimmed + b"\n")
        name = tmp.name
    try:
        run = read_run(name, name="run")
    except TrecFormatError as exc:
        raise TrecFormatError(path, exc.line, exc.problem, exc.text) from None
    finally:
        os.unlink(name)
    return run, runid


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
        o.rel = _atol(val)
    elif opt == "n":
        o.summary = False
    elif opt == "N":
        o.corpus = _atol(val)
    elif opt == "M":
        o.depth = _atol(val)
    elif opt == "R":
        o.rel_format = val
    elif opt == "J":
        o.judged_only = True
    elif opt == "Z":
        o.zscore_file = val


def check_request(o: Options, requested: list) -> str | None:
    """Why the request cannot be evaluated, or None."""
    if o.rel < 0:
        return f"irpref trec_eval: -l {o.rel}: must be >= 0"
    if o.depth is not None and o.depth < 1:
        return f"irpref trec_eval: -M {o.depth}: must be >= 1"
    kind = REL_FORMATS[o.rel_format]
    for req in requested:
        need = req.spec.judgments
        if need not in ("any", kind):
            formats = " or ".join(f"-R {f}" for f, k in REL_FORMATS.items() if k == need)
            return (f"irpref trec_eval: measure '{req.spec.name}' needs {formats} (the "
                    f"rel_info format is '{o.rel_format}'; trec_eval stops with \"Can't "
                    "calculate measure\")")
    return None


def evaluate(o: Options, qrels_path: str, run_path: str, requested: list) -> str:
    """trec_eval's output for the run against the judgments, in ``o.rel_format``."""
    run, runid = _read_run(run_path)
    zscores = read_zscores(o.zscore_file) if o.zscore_file is not None else None
    common = {"runid": runid, "query_flag": o.query_flag, "summary_flag": o.summary,
              "complete": o.complete, "zscores": zscores}
    if o.rel_format in ("prefs", "qrels_prefs"):
        prefs = (read_prefs if o.rel_format == "prefs" else read_qrels_prefs)(qrels_path)
        values, queries, present = prefs_trec_values(prefs, run, requested, depth=o.depth)
    elif o.rel_format == "qrels_jg":
        groups = read_qrels_jg(qrels_path)
        values, queries, present = jg_trec_values(
            groups, run, requested, depth=o.depth, rel=o.rel, judged_only=o.judged_only,
            corpus_size=o.corpus or None)
    else:
        return _evaluate_qrels(o, qrels_path, run, requested, common)
    _refuse_missing(queries, present, o.complete)
    return render_trec_eval(values, requested, queries, present, **common)


def _evaluate_qrels(o: Options, qrels_path: str, run, requested: list, common: dict) -> str:
    qrels = read_qrels(qrels_path)
    refuse_ambiguous_gains(requested, int(np.asarray(qrels.grade).max(initial=0)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        judged = judge(intern(qrels, [run]), depth=o.depth, rel=o.rel,
                       corpus_size=o.corpus or None)
    if o.judged_only:  # -J: after the -M cut, as trec_eval (form_res_rels.c)
        judged = condense(judged)
    _refuse_missing(judged.queries, judged.present[0], o.complete)
    # -c: trec_eval's num_rel summary counts every qrels line with grade > 0 over
    # all qrels queries, whatever -l and -M say (m_num_rel.c, te_calc_avg_num_rel)
    complete_num_rel = int(np.count_nonzero(np.asarray(qrels.grade) > 0))
    return format_trec_eval(judged, requested, complete_num_rel=complete_num_rel,
                            judged_only=o.judged_only, **common)


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
        text = evaluate(o, args[0], args[1], requested)
    except TrecEvalError as exc:
        print(str(exc), file=sys.stderr)
        return 2 if exc.usage else 1
    except (TrecFormatError, InputError) as exc:
        print(f"irpref trec_eval: error: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(text)
    sys.stdout.flush()
    return 0


def _refuse_missing(queries: np.ndarray, present: np.ndarray, complete: bool) -> None:
    """Refuse a run that lacks queries of the judgments when ``-c`` is not
    given, naming the first missing query and suggesting ``-c``.

    trec_eval's help says such queries are ignored, and trec_eval 9 averaged
    over the queries the run has. trec_eval 10.0's main loop (trec_eval.c,
    ``main``) no longer skips them: it keeps the results of the previous query,
    so that query is evaluated, printed (under its own id) and averaged a
    second time in place of the missing one, and when the first query of the
    judgments is missing the pointer is uninitialised: trec_eval crashes
    (segmentation fault). trec_eval 10.0 therefore never prints a correct
    evaluation of such a run; irpref refuses it (exit 1) rather than guess
    which of the two meanings the user relies on: ``-c`` averages over every
    query of the judgments (missing ones score as an empty ranking), and
    ``irpref evaluate`` averages over the queries the run has, with a warning.
    """
    missing = queries[~present]
    if complete or not len(missing) or not present.any():  # none: "No queries with both ..."
        return
    n = len(missing)
    which = "query" if n == 1 else "queries"
    raise TrecEvalError(
        f"irpref trec_eval: error: the run has no results for {n} {which} of the "
        f"judgments (first: {missing[0]}); trec_eval 10.0 gives no correct output for such "
        "a run without -c (it evaluates the previous query again in its place, or crashes): "
        "pass -c to average over every query of the judgments (missing queries score as an "
        "empty ranking)")


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


__all__ = ["Options", "add_arguments", "check_request", "evaluate", "main", "parse_argv",
           "parse_options", "run", "run_raw"]
