"""``irpref trec_eval [-q] [-c] [-n] [-l N] [-M N] [-N N] [-m MEASURE[.PARAMS]]... QRELS RUN``

A drop-in for trec_eval 10.0: the same flags (short, glued such as ``-M100``,
``-l2``, ``-mP.5,10``, clustered such as ``-qc``, and the GNU long forms),
the same measure names and nicknames (``official``, ``all_trec``, ``set``),
the same output, byte for byte, and the same tie-break (score descending,
then docid descending). trec_eval's flag syntax is parsed here (the command
dispatcher hands the raw arguments to :func:`run_raw`).
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import tempfile
import warnings
import zlib

import numpy as np

from irpref.condense import condense
from irpref.errors import InputError
from irpref.interning import intern
from irpref.io.records import TrecFormatError
from irpref.io.trec import read_qrels, read_run
from irpref.ranking import judge
from irpref.trec_eval_format import (
    NICKNAMES,
    TREC_MEASURES,
    UNSUPPORTED,
    TrecEvalError,
    format_trec_eval,
    read_zscores,
    refuse_ambiguous_gains,
    resolve_measures,
)

PARSER_KWARGS = {"add_help": False}

USAGE = """\
Usage: irpref trec_eval [-h] [-q] [-c] [-n] [-J] [-l <num>] [-M <num>] [-N <num>]
                        [-Z zmean_file] {-m measure[.params]}* rel_info_file results_file
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
 -R / -T                         only the default formats (qrels, trec_results)
 A run that lacks a query of the qrels is refused (exit 1, nothing printed)
 unless -c is given: trec_eval 10.0 has no correct output for it.
Not supported: preference measures (-R prefs, qrels_prefs, qrels_jg).

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
        "{nicknames}", ", ".join(k for k in NICKNAMES if k not in ("all_prefs", "prefs",
                                                                   "qrels_jg")))


def main(argv: list[str]) -> int:
    try:
        opts, args = parse_argv(argv)
    except UsageError as exc:
        print(f"irpref trec_eval: {exc}", file=sys.stderr)
        sys.stderr.write(USAGE)
        return 2
    marks: list[str] = []
    query_flag = complete = judged_only = False
    zscore_file: str | None = None
    summary = True
    rel, depth, corpus = 1, None, 0
    for opt, val in opts:
        if opt == "h":
            sys.stdout.write(_help_text())
            return 0
        if opt == "v":
            from irpref import __version__

            print(f"irpref trec_eval {__version__} (trec_eval 10.0 compatible)", file=sys.stderr)
            return 0
        if opt == "q":
            query_flag = True
        elif opt == "m":
            marks.append(val)
        elif opt == "c":
            complete = True
        elif opt == "l":
            rel = _atol(val)
        elif opt == "n":
            summary = False
        elif opt == "N":
            corpus = _atol(val)
        elif opt == "M":
            depth = _atol(val)
        elif opt == "R" and val != "qrels":
            print(f"irpref trec_eval: rel_info format '{val}' is not supported", file=sys.stderr)
            return 2
        elif opt == "T" and val != "trec_results":
            print(f"irpref trec_eval: results format '{val}' is not supported", file=sys.stderr)
            return 2
        elif opt == "J":
            judged_only = True
        elif opt == "Z":
            zscore_file = val
    if len(args) != 2:
        sys.stderr.write(USAGE)
        return 2
    try:
        requested = resolve_measures(marks)
    except TrecEvalError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    if rel < 0:
        print(f"irpref trec_eval: -l {rel}: must be >= 0", file=sys.stderr)
        return 2
    if depth is not None and depth < 1:
        print(f"irpref trec_eval: -M {depth}: must be >= 1", file=sys.stderr)
        return 2
    try:
        qrels = read_qrels(args[0])
        run, runid = _read_run(args[1])
        zscores = read_zscores(zscore_file) if zscore_file is not None else None
        grades = np.asarray(qrels.grade)
        refuse_ambiguous_gains(requested, int(grades.max(initial=0)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            judged = judge(intern(qrels, [run]), depth=depth, rel=rel,
                           corpus_size=corpus or None)
        if judged_only:  # -J: after the -M cut, as trec_eval (form_res_rels.c)
            judged = condense(judged)
        # -c: trec_eval's num_rel summary counts every qrels line with grade > 0 over
        # all qrels queries, whatever -l and -M say (m_num_rel.c, te_calc_avg_num_rel)
        complete_num_rel = int(np.count_nonzero(np.asarray(qrels.grade) > 0))
        text = format_trec_eval(judged, requested, runid=runid, query_flag=query_flag,
                                summary_flag=summary, complete=complete,
                                complete_num_rel=complete_num_rel, zscores=zscores)
    except TrecEvalError as exc:
        print(str(exc), file=sys.stderr)
        return 2 if exc.usage else 1
    except (TrecFormatError, InputError) as exc:
        print(f"irpref trec_eval: error: {exc}", file=sys.stderr)
        return 1
    if not complete and _refuse_missing(judged.queries, judged.present[0]):
        return 1
    sys.stdout.write(text)
    sys.stdout.flush()
    return 0


def _refuse_missing(queries: np.ndarray, present: np.ndarray) -> bool:
    """Refuse a run that lacks queries of the qrels when ``-c`` is not given:
    one stderr line naming the first missing query and suggesting ``-c``;
    True when refused (nothing is printed on stdout).

    trec_eval's help says such queries are ignored, and trec_eval 9 averaged
    over the queries the run has; trec_eval 10.0's main loop (trec_eval.c,
    ``main``) no longer skips them: it keeps the results pointer of the
    previous query, so form_res_rels.c returns that query's cached ranking,
    printed and averaged a second time under the missing query's id, and before
    any query was found the pointer is uninitialised (a crash, or "Can't
    calculate measure", exit 4). trec_eval 10.0 therefore never prints a
    correct evaluation of such a run; irpref refuses it rather than guess which
    of the two meanings the user relies on: ``-c`` averages over every query of
    the qrels (missing ones score 0), and ``irpref evaluate`` averages over the
    queries the run has, with a warning.
    """
    missing = queries[~present]
    if not len(missing):
        return False
    n = len(missing)
    which = "query" if n == 1 else "queries"
    print(f"irpref trec_eval: error: the run has no results for {n} {which} of the qrels "
          f"(first: {missing[0]}); trec_eval 10.0 gives no correct output for such a run "
          "without -c: pass -c to average over every query of the qrels (missing queries "
          "score 0)", file=sys.stderr)
    return True


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


__all__ = ["UNSUPPORTED", "add_arguments", "main", "parse_argv", "run", "run_raw"]
