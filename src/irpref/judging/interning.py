"""Document and query ids interned once: the integers every later step reads.

``intern`` maps the string ids of the qrels and of all runs to integers once:
queries are numbered in byte order, documents get 64-bit keys that are
injective and ordered as the strings (so comparing keys compares ids as
``strcmp`` does); dense document numbers are computed only on demand
(:class:`DocumentIds`). The result, a :class:`Collection`, is what
:func:`irpref.judging.ranking.judge` ranks and joins with the qrels.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import irpref.runtime.threads as threads
from irpref.io.hashing import mix
from irpref.io.lines import check_unique_pairs, read_bytes
from irpref.io.records import Qrels, Run
from irpref.io.tables import row_line
from irpref.judging.doc_keys import DocumentIds, document_ids, sorted_codes

__all__ = [
    "Collection",
    "Deferred",
    "Documents",
    "DocumentIds",
    "intern",
    "merge_docs",
    "qrels_collection",
    "refuse_repeated_names",
]


class Deferred:
    """A frozen dataclass some of whose fields are computed when first read.

    A subclass declares those fields as ``deferred_field(name)`` (cached
    properties); :meth:`deferred` makes an instance from the other fields'
    values and a function per deferred field. Read, a deferred field is
    computed once and kept; :func:`dataclasses.replace` and pickling read
    every field, so a copy holds them all. Used where a field is costly and
    most callers never read it: the query strings and document keys of qrels
    read from a file by the C pass (:func:`qrels_collection`), and of the
    compact rankings judged against them (:mod:`irpref.judging.ranking`).
    """

    @classmethod
    def deferred(cls, values: dict[str, Any], compute: dict[str, Callable[[], Any]]):
        """An instance with the fields ``values`` set and ``compute[name]()`` the
        value of each deferred field ``name``; a field in neither takes its default."""
        values = dict(values)
        for f in dataclasses.fields(cls):
            if f.name in values or f.name in compute:
                continue
            if f.default is not dataclasses.MISSING:
                values[f.name] = f.default
            elif f.default_factory is not dataclasses.MISSING:
                values[f.name] = f.default_factory()
            else:
                raise TypeError(f"{cls.__name__}: no value for the field {f.name}")
        obj = object.__new__(cls)
        vars(obj).update(values, _compute=compute)
        return obj

    def __getstate__(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


def deferred_field(name: str, fallback: Callable[[Any], Any] | None = None) -> cached_property:
    """The deferred field ``name`` of a :class:`Deferred` subclass (``fallback``:
    how to compute it for an instance made without a function for it, e.g. a
    copy by :func:`dataclasses.replace`, for a value that is not a field)."""

    def compute(self) -> Any:
        function = vars(self).get("_compute", {}).get(name)
        return function() if function is not None else fallback(self)

    compute.__name__ = name
    return cached_property(compute)


def once(function: Callable[[], Any]) -> Callable[[], Any]:
    """``function`` called at most once (its result kept for later calls)."""
    kept: list = []

    def call() -> Any:
        if not kept:
            kept.append(function())
        return kept[0]

    return call


class Documents:
    """Documents of the qrels and all runs, for classes holding ``doc_ids``
    and ``qrels_doc_key``: their count, strings and dense codes on demand."""

    doc_ids: DocumentIds
    qrels_doc_key: np.ndarray

    @property
    def n_docs(self) -> int:
        """Distinct documents in the qrels and all runs (before any depth cut)."""
        return len(self.doc_ids)

    @property
    def docs(self) -> pa.Array:
        """Every document named anywhere, by dense code (byte order)."""
        return self.doc_ids.strings

    @cached_property
    def qrels_doc(self) -> np.ndarray:
        """Dense document code of each qrels row (int32)."""
        return self.doc_ids.codes(self.qrels_doc_key)


@dataclass(frozen=True, eq=False)
class Collection(Documents):
    """Qrels and runs with query ids interned and document ids keyed once (`intern`).

    The step between reading and judging; `judge` ranks it. Arrays are
    flat: the judged documents of query q are at ``qrels_offsets[q] :
    qrels_offsets[q + 1]``, the rows of run r at ``run_offsets[r] :
    run_offsets[r + 1]``.

    Parameters
    ----------
    queries : numpy.ndarray
        (Q,) the qrels' query ids, sorted.
    qrels_offsets : numpy.ndarray
        (Q+1,) where each query's judgments start.
    qrels_doc_key : numpy.ndarray
        uint64 document key of each judgment, ascending within each query.
    qrels_grade : numpy.ndarray
        int32 grade of each judgment.
    run_names : list of str
        The runs' names.
    run_offsets : numpy.ndarray
        (R+1,) where each run's rows start.
    run_query : numpy.ndarray
        int32 query of each run row; -1 where the qrels lack the query.
    run_doc_key : numpy.ndarray
        uint64 document key of each run row.
    run_score : numpy.ndarray
        float64 score of each run row.
    doc_ids : DocumentIds
        Document keys to dense codes and back to strings.
    unjudged_queries : dict, optional
        Per run, the run queries the qrels lack.

    Examples
    --------
    >>> import irpref
    >>> from irpref import examples
    >>> coll = irpref.intern(irpref.read_qrels(examples.qrels_path()),
    ...                      [irpref.read_run(examples.run_paths()[0])])
    >>> coll.n_runs, coll.n_queries, len(coll.run_score)
    (1, 43, 4142)
    """

    queries: np.ndarray  # (Q,) str, sorted: the qrels' queries
    qrels_offsets: np.ndarray  # (Q+1,) judged docs of query q at [off[q], off[q+1])
    qrels_doc_key: np.ndarray  # uint64 document key, ascending within each query
    qrels_grade: np.ndarray  # int32
    run_names: list[str]
    run_offsets: np.ndarray  # (R+1,) rows of run r at [off[r], off[r+1])
    run_query: np.ndarray  # int32 per row; -1 where the qrels lack the query
    run_doc_key: np.ndarray  # uint64 document key per row
    run_score: np.ndarray  # float64 per row
    doc_ids: DocumentIds
    unjudged_queries: dict[str, list[str]] = field(default_factory=dict)

    @property
    def n_queries(self) -> int:
        return len(self.queries)

    @property
    def n_runs(self) -> int:
        return len(self.run_names)

    @cached_property
    def run_doc(self) -> np.ndarray:
        """Dense document code of each run row (int32)."""
        return self.doc_ids.codes(self.run_doc_key)

    @cached_property
    def query_ids(self) -> pa.Array:
        """The queries as an Arrow string array."""
        return pa.array(list(self.queries), pa.string())

    def as_qrels(self, source: str = "<qrels>") -> Qrels:
        """The qrels of this collection as :class:`Qrels` (rows in its order)."""
        rows = np.diff(self.qrels_offsets)
        query = self.query_ids.take(pa.array(np.repeat(np.arange(len(rows)), rows)))
        doc = self.doc_ids.strings.take(pa.array(self.qrels_doc))
        return Qrels(query, doc, self.qrels_grade.astype(np.int64), source)


class _DeferredCollection(Deferred, Collection):
    """A :class:`Collection` whose query strings and document keys wait until
    read (:func:`qrels_collection`)."""

    queries = deferred_field("queries")
    query_ids = deferred_field("query_ids", Collection.query_ids.func)
    qrels_doc_key = deferred_field("qrels_doc_key")
    doc_ids = deferred_field("doc_ids")


_BLOCK_QUERIES = 16  # queries per block of the interning order
_MAX_BLOCKS = 1 << 14


def _query_blocks(
    run_query: np.ndarray, run_offsets: np.ndarray, n_queries: int, n_qrels: int
) -> np.ndarray | None:
    """Row ranges of (qrels, then) the runs, query block by query block.

    Rows of the same query across runs share most documents; hashing them
    together keeps the hash table's working set small (measured 1.5 -> 0.6 s
    for 25 M rows of 250 queries). Block ``b`` holds queries
    ``[16 b, 16 b + 16)`` of every run whose rows are sorted by query code;
    a run that is not (or unknown queries) stays one range, in the first
    block. ``None`` for small inputs.
    """
    n_runs = len(run_offsets) - 1
    n = int(run_offsets[-1])
    n_blocks = min(-(-n_queries // _BLOCK_QUERIES), max(1, _MAX_BLOCKS // max(n_runs, 1)))
    if n < threads.PARALLEL_MIN or n_blocks < 2 or n_runs == 0:
        return None
    starts, stops = run_offsets[:-1], run_offsets[1:]
    # runs in which a query code falls (not counting the step between runs)
    down = np.flatnonzero(run_query[1:] < run_query[:-1]) + 1
    down = down[~np.isin(down, starts)]
    unsorted = np.zeros(n_runs, bool)
    unsorted[np.searchsorted(run_offsets, down, side="right") - 1] = True
    edges = np.linspace(0, n_queries, n_blocks + 1).astype(np.int64)
    # cut[r, b]: first row of run r with query code >= edges[b] (b = 1..B-1)
    cut = np.empty((n_runs, n_blocks + 1), np.int64)
    cut[:, 0], cut[:, -1] = starts, stops
    for r in range(n_runs):
        if unsorted[r]:
            cut[r, 1:-1] = stops[r]
        else:
            rq = run_query[starts[r] : stops[r]]
            cut[r, 1:-1] = starts[r] + np.searchsorted(rq, edges[1:-1])
    lo = cut[:, :-1].T.ravel() + n_qrels  # block-major: block b of every run
    hi = cut[:, 1:].T.ravel() + n_qrels
    keep = hi > lo
    ranges = np.column_stack([lo[keep], hi[keep]])
    return np.vstack([[[0, n_qrels]], ranges]) if n_qrels else ranges


def qrels_collection(
    queries: pa.Array, qrels_offsets: np.ndarray, docs: pa.Array | Callable[[], pa.Array],
    grade: np.ndarray,
) -> Collection:
    """The collection :func:`intern` makes of qrels with no runs, from qrels
    already in its order: ``queries`` distinct and in byte order, the rows of
    query ``q`` at ``[qrels_offsets[q], qrels_offsets[q + 1])``, ordered by
    document id (byte order) within a query, ``docs[i]`` the document of row
    ``i`` (``docs`` may be the function giving them when first needed), as
    :func:`irpref.judging.scan.qrels_index` reads a file.

    The query strings (``queries``, a NumPy array of Python strings) and the
    document keys (``qrels_doc_key``, ``doc_ids``) are made when first read
    (:class:`Deferred`): runs judged by the C pass read neither, so 500,000
    users cost no Python string and no key until something asks for them."""
    empty = np.zeros(0, np.int64)
    keys = once(lambda: document_ids([docs() if callable(docs) else docs]))
    values = dict(
        qrels_offsets=np.asarray(qrels_offsets, np.int64),
        qrels_grade=np.asarray(grade, np.int32),
        run_names=[],
        run_offsets=np.zeros(1, np.int64),
        run_query=empty.astype(np.int32),
        run_doc_key=empty.astype(np.uint64),
        run_score=empty.astype(np.float64),
    )
    compute = {"queries": lambda: np.array(queries.to_pylist(), dtype=object),  # no pandas
               "query_ids": lambda: queries,
               "qrels_doc_key": lambda: keys().keys,
               "doc_ids": keys}
    return _DeferredCollection.deferred(values, compute)


def intern(qrels: Qrels, runs: Sequence[Run]) -> Collection:
    """Intern the query ids of qrels and runs and key their document ids once.

    The first step of every evaluation: query ids become integers (the qrels'
    queries, sorted), document ids 64-bit keys that compare as the strings do.
    A document retrieved twice for one query of a run is refused, naming the
    file and line (as trec_eval does).

    Parameters
    ----------
    qrels : Qrels
        The relevance judgments (`read_qrels`).
    runs : sequence of Run
        The runs (`read_run`); their names must be distinct.

    Returns
    -------
    Collection
        Qrels and runs in interned form, ready for `judge`.

    Raises
    ------
    InputError
        A document twice in one query of a run, or two runs with one name.

    Examples
    --------
    >>> import irpref
    >>> from irpref import examples
    >>> qrels = irpref.read_qrels(examples.qrels_path())
    >>> run = irpref.read_run(examples.run_paths()[0])
    >>> coll = irpref.intern(qrels, [run])
    >>> coll.run_names, coll.n_queries
    (['TUA1-1'], 43)
    """
    names = [run.name for run in runs]
    refuse_repeated_names(names)
    q_codes, queries = sorted_codes(qrels.query)
    n_q = len(queries)

    qrels_offsets = np.zeros(n_q + 1, np.int64)
    np.cumsum(np.bincount(q_codes, minlength=n_q), out=qrels_offsets[1:])

    run_offsets = np.zeros(len(runs) + 1, np.int64)
    np.cumsum([len(run) for run in runs], out=run_offsets[1:])
    run_query = np.empty(run_offsets[-1], np.int32)
    run_score = np.empty(run_offsets[-1], np.float64)

    def columns(r: int) -> list[str]:
        """Fill run r's query codes and scores; its queries the qrels lack."""
        lo, hi, run = run_offsets[r], run_offsets[r + 1], runs[r]
        idx = pc.index_in(run.query, value_set=queries)
        run_query[lo:hi] = idx.fill_null(-1).to_numpy(zero_copy_only=False)
        run_score[lo:hi] = run.score
        if not idx.null_count:
            return []
        return sorted(pc.unique(run.query.filter(pc.is_null(idx))).to_pylist())

    missing = threads.in_threads(columns, range(len(runs)), weight=[run_offsets[-1]])
    unjudged = {run.name: qs for run, qs in zip(runs, missing) if qs}
    blocks = partial(_query_blocks, run_query, run_offsets, n_q, len(qrels))
    doc_ids = document_ids([qrels.doc, *(run.doc for run in runs)], blocks)
    run_doc_key = doc_ids.keys[len(qrels) :]
    _refuse_repeated_documents(runs, run_offsets, run_query, run_doc_key)
    qrels_key = doc_ids.keys[: len(qrels)]
    order = np.lexsort((qrels_key, q_codes))
    return Collection(
        queries=np.asarray(queries.to_pylist(), dtype=object),
        qrels_offsets=qrels_offsets,
        qrels_doc_key=qrels_key[order],
        qrels_grade=qrels.grade[order].astype(np.int32),
        run_names=names,
        run_offsets=run_offsets,
        run_query=run_query,
        run_doc_key=run_doc_key,
        run_score=run_score,
        doc_ids=doc_ids,
        unjudged_queries=unjudged,
    )


def _refuse_repeated_documents(
    runs: Sequence[Run], run_offsets: np.ndarray, run_query: np.ndarray, doc_key: np.ndarray
) -> None:
    """Raise :class:`TrecFormatError` if a run retrieves a document twice for
    one query (queries the qrels lack included).

    Fast path, per run: a 64-bit hash of each (query, document key) pair;
    distinct hashes prove the pairs distinct. Only a run with two equal
    hashes (a repeat, or a collision) is checked exactly on its strings,
    which names the file and line.
    """
    import pandas as pd


    def suspect(r: int) -> bool:
        lo, hi = run_offsets[r], run_offsets[r + 1]
        if hi - lo < 2:
            return False
        q = run_query[lo:hi]
        if q.min() < 0:  # queries the qrels lack share code -1: number them apart
            encoded = pc.dictionary_encode(runs[r].query)
            if isinstance(encoded, pa.ChunkedArray):
                encoded = encoded.combine_chunks()
            q = encoded.indices.to_numpy()
        q = q.astype(np.uint64)
        q *= np.uint64(0x9E3779B97F4A7C15)
        return not pd.Index(mix(q ^ doc_key[lo:hi])).is_unique

    suspects = threads.in_threads(suspect, range(len(runs)), weight=np.diff(run_offsets))
    for r in np.flatnonzero(suspects):
        run = runs[r]
        raw = read_bytes(run.source) if os.path.isfile(run.source) else None
        check_unique_pairs(run.query, run.doc, run.source,
                            partial(row_line, run.source, raw), what="retrieved twice")



def refuse_repeated_names(names: Sequence[str]) -> None:
    """Refuse run names that are not distinct (ValueError naming the repeats)."""
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"run names must be distinct; repeated: {', '.join(dup)}")



def merge_docs(docs: pa.Array | None, more: pa.Array) -> pa.Array:
    """The distinct strings of ``docs`` and ``more`` (for counting documents
    block by block)."""
    more = more.cast(pa.large_string())
    if docs is None:
        return more
    return pc.unique(pa.chunked_array([docs, more], pa.large_string()))

