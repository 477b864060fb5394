"""trec_eval 10.0's main loop (``trec_eval.c``, ``main``) over the judged queries.

trec_eval reads the judgments and the run, then walks the judged queries in
byte order (``-D 0.QID``: only QID, trec_eval.c:371-373):

- a query the run lacks is, with ``-c``, evaluated on a *bogus ranking*, one
  unjudged document ``ceci_nest_pas_un_docno`` of score 1.0
  (trec_eval.c:153-156, 383-387), after which the values named exactly
  ``num_ret``, ``utility``, ``relstring``, ``rbp_resid`` or starting ``unj``
  are reset (trec_eval.c:416-431): ``utility.2,-1,0,0`` and ``relstring.5``
  keep the bogus document's values; without ``-c`` trec_eval stops there:
  ``result qid 'Q' not found in qrels`` (trec_eval.c:389-393), after the
  ``-q`` lines of the queries before it;
- the summary divides by the number of queries evaluated, or with ``-c`` by
  the number of judged queries (meas_avg.c, te_calc_avg_meas_s), ``-D``
  included.

:func:`evaluate` does the same over whole arrays: the values of every judged
query at once (:mod:`irpref.trec_eval.format`, :mod:`irpref.trec_eval.judgments`),
then the printed lines of the evaluated ones.
"""

from __future__ import annotations

import gzip
import os
import sys
import tempfile
import warnings
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from irpref.errors import InputError
from irpref.io.records import Run, TrecFormatError
from irpref.params import Settings
from irpref.trec_eval.format import (
    Requested,
    TrecEvalError,
    empty_iprec_nan,
    evaluate_trec,
    render_trec_eval,
    reset_missing,
    zero_ideal_rndcg_nan,
)
from irpref.trec_eval.params import refuse_ambiguous_gains

__all__ = ["BOGUS_DOC", "DropInSettings", "Outcome", "Request", "evaluate", "read_trec_run"]

BOGUS_DOC = "ceci_nest_pas_un_docno"
"""The one document of trec_eval's ranking of a query the run lacks (``-c``)."""


class DropInSettings(Settings):
    """The judging settings of the drop-in: as :class:`~irpref.params.Settings`, and
    ``-l 0`` taken as trec_eval takes it (every judged document relevant, grade 0
    included: form_res_rels.c:228); irpref's own commands refuse ``rel=0``."""

    REL_FLOOR = 0


@dataclass(frozen=True)
class Request:
    """What the command line asks of the main loop (trec_eval's ``EPI``)."""

    rel_format: str = "qrels"
    rel: int = 1
    depth: int | None = None  # -M; 0: every ranking empty
    corpus: int = 0  # -N; 0: unknown
    judged_only: bool = False
    complete: bool = False
    query_flag: bool = False
    summary: bool = True
    debug_query: str | None = None  # -D LEVEL.QID
    zscore_file: str | None = None

    def settings(self) -> DropInSettings:
        return DropInSettings(rel=self.rel, depth=self.depth or None,
                              corpus_size=self.corpus or None)


@dataclass
class Outcome:
    """The printed lines, and the error that stopped trec_eval's loop (or None)."""

    text: str
    error: str | None = None


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


def read_trec_run(path: str) -> tuple[Run, str]:
    """The run as trec_eval reads it (fields after the 6th ignored) and its runid."""
    from irpref.io.trec import read_run

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


def _with_rows(run: Run, queries: np.ndarray, keep_rows: bool) -> Run:
    """``run`` (or none of its rows) plus one bogus document for each of ``queries``."""
    import pyarrow as pa

    kept = (run.query, run.doc, run.score) if keep_rows else (
        run.query.slice(0, 0), run.doc.slice(0, 0), run.score[:0])
    extra = (pa.array([str(q) for q in queries], pa.string()),
             pa.array([BOGUS_DOC] * len(queries), pa.string()), np.ones(len(queries)))
    return Run(run.name, pa.concat_arrays([kept[0], extra[0]]),
               pa.concat_arrays([kept[1], extra[1]]), np.concatenate([kept[2], extra[2]]),
               run.source, run.tag)


def _run_queries(run: Run) -> np.ndarray:
    import pyarrow.compute as pc

    return np.asarray(pc.unique(run.query).to_pylist(), dtype=object)


@dataclass
class _Inputs:
    """The judged queries (byte order), which of them the run has, its runid, and
    ``values(bogus)``: the per-query values, with the queries ``bogus`` ranked as
    trec_eval's bogus document, and (-R qrels) each query's number retrieved and
    number relevant."""

    queries: np.ndarray
    present: np.ndarray
    runid: str
    values: Callable[[np.ndarray], tuple[dict, np.ndarray | None, np.ndarray | None]]
    complete_num_rel: int | None = None


def evaluate(req: Request, qrels_path: str, run_path: str,
             requested: list[Requested]) -> Outcome:
    """trec_eval's output for the run against the judgments (``req.rel_format``)."""
    from irpref.trec_eval.zscores import read_zscores

    inputs = _compact_inputs(req, qrels_path, run_path, requested) \
        or _full_inputs(req, qrels_path, run_path, requested)
    zscores = read_zscores(req.zscore_file) if req.zscore_file is not None else None
    queries, present = inputs.queries, inputs.present
    evaluated = np.ones(len(queries), bool) if req.debug_query is None else \
        queries == req.debug_query
    if not evaluated.any():
        raise TrecEvalError("trec_eval: No queries with both results and relevance info")
    missing = evaluated & ~present
    error = None
    if missing.any() and not req.complete:
        first = int(np.argmax(missing))
        error = (f"result qid '{queries[first]}' not found in qrels: the run has no results "
                 f"for this judged query (trec_eval 10.0 stops here too; -c scores it as "
                 "trec_eval's one-document bogus ranking)")
        evaluated &= np.arange(len(queries)) < first
    bogus = missing if req.complete else np.zeros(len(queries), bool)
    values, num_ret, num_rel = inputs.values(bogus)
    reset_missing(values, requested, bogus)
    empty = evaluated & (num_ret == 0) if num_ret is not None else None
    if empty is not None and empty.any():
        empty_iprec_nan(values, requested, empty, num_rel)
    if not evaluated.any():
        return Outcome("", error)
    text = render_trec_eval(
        values, requested, queries, evaluated, runid=inputs.runid, query_flag=req.query_flag,
        summary_flag=req.summary and error is None, divisor=len(queries) if req.complete
        else int(evaluated.sum()), complete_num_rel=inputs.complete_num_rel if req.complete
        else None, zscores=zscores)
    return Outcome(text, error)


def _full_inputs(req: Request, qrels_path: str, run_path: str,
                 requested: list[Requested]) -> _Inputs:
    """Every judgment format and flag: the run read whole (every retrieved document)."""
    run, runid = read_trec_run(run_path)
    judgments, queries = _read_judgments(req, qrels_path, requested)

    def values(bogus: np.ndarray):
        ranked = run
        if bogus.any() or req.depth == 0:  # -M 0: every ranking empty, the bogus one too
            ranked = _with_rows(run, queries[bogus] if req.depth != 0 else [], req.depth != 0)
        return _values(req, judgments, ranked, requested)

    complete = None if req.rel_format in ("prefs", "qrels_prefs") else \
        int(np.count_nonzero(np.asarray(judgments.grade) > 0))
    return _Inputs(queries, np.isin(queries, _run_queries(run)), runid, values, complete)


def _compact_inputs(req: Request, qrels_path: str, run_path: str,
                    requested: list[Requested]) -> _Inputs | None:
    """-R qrels on a run file, when every measure asked reads the compact layout (only
    the documents the qrels mention; not relstring, unj, rbp_resid, ndcg_rel, Rndcg):
    the qrels and the run each read and judged by one C pass (:mod:`irpref.judging.scan`), with
    no string of the run made in Python. None where that does not apply (the caller
    reads the run whole): another format, stdin, -M 0, a measure that needs every
    retrieved document, no C pass, or a run the pass refuses (extra fields after the
    tag, which trec_eval ignores, included)."""
    from irpref.judging import scan

    if (req.rel_format != "qrels" or run_path == "-" or req.depth == 0 or not scan.enabled()
            or not _reads_compact(requested)):
        return None
    index = scan.qrels_index(qrels_path)
    coll = index.collection
    rows = np.repeat(np.arange(coll.n_queries), np.diff(coll.qrels_offsets))
    if any(r.gains for r in requested):
        refuse_ambiguous_gains(requested, rows, coll.qrels_grade)
    try:
        block, _ = scan.judge_file(index, run_path, Settings(depth=req.depth))
    except (TrecFormatError, InputError):
        return None
    present = np.array(block.present[0], bool)

    def values(bogus: np.ndarray):
        from irpref.judging.ranking import concat_blocks

        num_ret = np.array(block.num_ret, np.int64)
        num_ret[bogus] = 1  # the bogus document: one unjudged document
        judged = concat_blocks([block._replace(present=(present | bogus)[None, :],
                                               num_ret=num_ret)], coll, req.settings())
        return _judged_values(req, judged, requested)

    return _Inputs(np.asarray(coll.queries, dtype=object), present, _runid(run_path), values,
                   int(np.count_nonzero(coll.qrels_grade > 0)))


def _reads_compact(requested: list[Requested]) -> bool:
    """Every measure asked reads the compact layout (its record says so)."""
    from irpref.measures import parse_measure
    from irpref.measures.base import reads_compact

    if any(r.spec.name == "relstring" for r in requested):  # the grades of unjudged ones
        return False
    return all(reads_compact(parse_measure(text), "docid") for r in requested
               for text in r.measures)


def _runid(path: str) -> str:
    """trec_eval's runid, the tag of the run's last line, read from the end of the file."""
    with open(path, "rb") as handle:
        if handle.read(2) == b"\x1f\x8b":
            handle.seek(0)
            return _last_tag(gzip.decompress(handle.read()))
        size = handle.seek(0, os.SEEK_END)
        chunk = 1 << 16
        while True:
            start = max(size - chunk, 0)
            handle.seek(start)
            data = handle.read(size - start)
            if start > 0:  # the chunk's first line may be cut: whole lines only
                data = data[data.find(b"\n") + 1:]
            if start == 0 or _last_tag(data) != "-":
                return _last_tag(data)
            chunk *= 4


def _read_judgments(req: Request, path: str, requested: list[Requested]):
    """The judgments in ``req.rel_format`` and their queries (sorted, as trec_eval)."""
    if req.rel_format in ("prefs", "qrels_prefs"):
        from irpref.io.prefs import read_prefs, read_qrels_prefs

        prefs = (read_prefs if req.rel_format == "prefs" else read_qrels_prefs)(path)
        return prefs, np.array(sorted(set(prefs.query.tolist())), dtype=object)
    if req.rel_format == "qrels_jg":
        from irpref.io.prefs import read_qrels_jg

        groups = read_qrels_jg(path)
        return groups, np.array(sorted(set(groups.query.tolist())), dtype=object)
    import pyarrow.compute as pc

    from irpref.io.trec import read_qrels

    qrels = read_qrels(path)
    if any(req.gains for req in requested):
        refuse_ambiguous_gains(requested, qrels.query.to_numpy(zero_copy_only=False),
                               qrels.grade)
    return qrels, np.array(sorted(pc.unique(qrels.query).to_pylist()), dtype=object)


def _values(req: Request, judgments, run: Run, requested: list[Requested]):
    """Per-query values of every judged query and, for -R qrels, the number retrieved
    and the number relevant of each."""
    if req.rel_format in ("prefs", "qrels_prefs"):
        from irpref.trec_eval.judgments import prefs_trec_values

        values, queries, _ = prefs_trec_values(judgments, run, requested,
                                               depth=req.depth or None)
        return _same_queries(values, queries, judgments), None, None
    if req.rel_format == "qrels_jg":
        from irpref.trec_eval.judgments import jg_trec_values

        values, queries, _ = jg_trec_values(judgments, run, requested, req.settings(),
                                            judged_only=req.judged_only)
        return _same_queries(values, queries, judgments), None, None
    from irpref.judging.interning import intern
    from irpref.judging.ranking import judge

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        judged = judge(intern(judgments, [run]), req.settings())
    return _judged_values(req, judged, requested)


def _judged_values(req: Request, judged, requested: list[Requested]):
    """The values of judged rankings (-R qrels), after -J, with the number retrieved
    and the number relevant of each query."""
    if req.judged_only:  # -J: after the -M cut, as trec_eval (form_res_rels.c)
        from irpref.judging.condense import condense

        judged = condense(judged)
    values, num_rel = evaluate_trec(judged, requested), judged.num_rel(max(req.rel, 0))
    zero_ideal_rndcg_nan(values, requested, num_rel, judged.max_grade())
    return values, judged.num_ret[0], num_rel


def _same_queries(values: dict, queries: np.ndarray, judgments) -> dict:
    """``values``, whose queries must be those of :func:`_read_judgments` (sorted)."""
    if list(queries) != sorted(set(judgments.query.tolist())):
        raise AssertionError("judged queries out of trec_eval's order")
    return values
