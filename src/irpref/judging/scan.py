"""Run files judged in one pass: read, checked and reduced to the compact layout.

The compact layout (:func:`irpref.judging.ranking.judge_block`) keeps, per run and
query, the number of documents retrieved and, for each retrieved document the
qrels mention, its rank, qrels row and tie group. Only judged documents need
an identity, so the C extension ``irpref._native.scan`` reads a TREC run file
straight into that, one file per thread:

- every line is split and checked by the rules of :mod:`irpref.io.trec`
  (5 or 6 fields on every line, a decimal float or ``inf`` as score, UTF-8
  ids, comments, blank lines, tabs and CRs);
- every document id is hashed once: a per-query hash table of its documents
  refuses a document retrieved twice, and a per-query hash table of the
  qrels finds the judged ones (equal hashes are confirmed byte for byte);
- each query is ranked by score (files already in score order cost one
  check); a judged document's rank among tied scores follows the tie policy:
  ``docid`` compares its id with those of its tie group only, ``input``
  keeps file order, ``expected`` adds the group's first rank and size.

Nothing is interned and nothing is kept per line, so time grows with the
bytes and lines read, whatever the shape of the ids, and memory with the
judged items. A file the pass refuses (it breaks a rule, or is too large for
32-bit line numbers) is read again by the careful reader and judged by
:func:`irpref.judging.ranking.judge_block`: that names the problem with its file and
line, or, had the pass been stricter than the rules, gives the same numbers.
``IRPREF_SCAN=python`` takes that path for every file (tests compare both).
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa

import irpref.runtime.progress as progress
from irpref.io.frames import as_qrels
from irpref.io.hashing import string_buffers
from irpref.io.lines import read_buffer
from irpref.io.records import Qrels, run_name_from_path
from irpref.io.tables import table_format
from irpref.io.trec import QRELS_SOURCES, read_run
from irpref.judging.interning import Collection, intern, qrels_collection, refuse_repeated_names
from irpref.judging.ranking import CompactBlock, judge_block
from irpref.params import DEFAULT_SETTINGS, Settings
from irpref.runtime.native import SCAN_ENV, native
from irpref.runtime.threads import IO_CAP, worker_count

__all__ = ["ENV", "QrelsIndex", "enabled", "judge_files", "qrels_index", "takes"]

ENV = SCAN_ENV
"""Environment variable: ``c`` (default, when built) or ``python``
(:mod:`irpref.runtime.native`)."""

_TIE_CODES = {"docid": 0, "input": 1, "expected": 2}


def enabled() -> bool:
    """The C pass is built and not switched off (``IRPREF_SCAN=python`` or
    ``IRPREF_KERNELS=numpy``: :func:`irpref.runtime.native.native`)."""
    return native("scan") is not None


def takes(runs, columns=None) -> bool:
    """``runs`` is a list of TREC run files (not tables, by their names or
    ``columns``, not ``irds:``): :func:`judge_files` judges them one file at
    a time (by the C pass when :func:`enabled`, else by the Python reader)."""
    if not isinstance(runs, (list, tuple)) or not runs:
        return False
    return all(
        isinstance(r, (str, os.PathLike))
        and not str(r).startswith("irds:")
        and table_format(str(r), columns) is None
        for r in runs
    )


def _flat(strings: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(int64 offsets from 0, bytes) of a string array."""
    offsets, values = string_buffers(strings)
    start = int(offsets[0])
    return offsets - start, values[start : int(offsets[-1])]


class QrelsIndex:
    """The qrels, interned once (the :class:`~irpref.judging.interning.Collection`
    :func:`irpref.judging.interning.intern` makes of them with no runs) and hashed
    into one table per query for :func:`irpref._native.scan.judge`.

    Built from :class:`Qrels`, or by :func:`qrels_index` straight from a
    TREC qrels file (one C pass: no string array, no interning of strings).
    :meth:`close` frees the hash tables once every run is judged.
    """

    def __init__(self, qrels: Qrels | None, *, collection: Collection | None = None,
                 capsule=None, source: str | None = None) -> None:
        self._qrels = qrels
        self.source = qrels.source if qrels is not None else source
        if collection is not None:
            self.collection, self.capsule = collection, capsule
            return
        self.collection = intern(qrels, [])
        coll = self.collection
        queries = pa.array(list(coll.queries), pa.string())
        docs = coll.doc_ids.strings.take(pa.array(coll.qrels_doc))
        c = native("scan")
        self.capsule = (
            c.index(*_flat(queries), coll.qrels_offsets, *_flat(docs)) if c is not None else None
        )

    @property
    def qrels(self) -> Qrels:
        """The qrels as :class:`Qrels` (rebuilt from the collection when the
        index was read from a file: only the careful reader needs them)."""
        if self._qrels is None:
            self._qrels = self.collection.as_qrels(self.source)
        return self._qrels

    def close(self) -> None:
        """Free the hash tables (the collection stays)."""
        self.capsule = None


def qrels_index(qrels, *, columns=None) -> QrelsIndex:
    """The :class:`QrelsIndex` of ``qrels`` (anything :func:`irpref.io.as_qrels`
    reads). A TREC qrels file is read by the C pass when :func:`enabled`:
    checked by the rules of :mod:`irpref.io.trec`, its queries and every
    query's documents sorted in byte order, and indexed, with the same
    collection :func:`irpref.judging.interning.intern` makes; a file the pass refuses
    is read by the careful reader, which names the problem with its line."""
    if isinstance(qrels, QrelsIndex):
        return qrels
    if (enabled() and isinstance(qrels, (str, os.PathLike))
            and _is_trec_file(str(qrels), columns)):
        index = _read_qrels_file(str(qrels))
        if index is not None:
            return index
    return QrelsIndex(as_qrels(qrels, columns=columns))


def _is_trec_file(path: str, columns) -> bool:
    return (not any(path.startswith(p) for p in QRELS_SOURCES)
            and table_format(path, columns) is None)


def _read_qrels_file(path: str) -> QrelsIndex | None:
    """The C pass over a TREC qrels file; None when it refuses the file."""
    data = read_buffer(path)
    try:
        out = native("scan").qrels(data, isinstance(data, mmap.mmap))
    finally:
        if hasattr(data, "close"):
            data.close()
    if out[0] != 0:
        return None
    _, capsule, q_off, q_data, row_off, d_off, d_data, grade = out
    n_q = len(memoryview(q_off)) // 8 - 1
    queries = pa.LargeStringArray.from_buffers(n_q, pa.py_buffer(q_off), pa.py_buffer(q_data))
    coll = qrels_collection(queries.cast(pa.string()), np.frombuffer(row_off, np.int64),
                            _documents(np.frombuffer(d_off, np.int32), d_data),
                            np.frombuffer(grade, np.int32))
    return QrelsIndex(None, collection=coll, capsule=capsule, source=path)


def _documents(offsets: np.ndarray, data) -> Callable[[], pa.Array]:
    """The function giving the documents of the qrels rows as a string array,
    holding meanwhile their bytes and lengths in the narrowest unsigned type (a
    quarter of the offsets for ids under 256 bytes: the offsets the index reads
    go with it)."""
    n = len(offsets) - 1
    step = 1 << 20
    longest = max((int(np.diff(offsets[i : i + step + 1]).max(initial=0))
                   for i in range(0, n, step)), default=0)
    lengths = np.empty(n, np.min_scalar_type(longest))
    np.subtract(offsets[1:], offsets[:-1], out=lengths, casting="unsafe")
    del offsets

    def documents() -> pa.Array:
        offsets = np.zeros(n + 1, np.int32)
        np.cumsum(lengths, out=offsets[1:])
        return pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(data))

    return documents


def judge_file(
    index: QrelsIndex, path, settings: Settings = DEFAULT_SETTINGS
) -> tuple[CompactBlock, list[str]]:
    """The compact block of one run file ranked and cut under ``settings`` (ties,
    depth, use_tag) and the query ids the qrels lack (sorted); a file the C pass
    refuses goes through the Python reader."""
    ties, depth = settings.ties, settings.depth
    data = read_buffer(path)
    try:
        out = native("scan").judge(data, index.capsule, _TIE_CODES[ties], depth or 0,
                                   settings.use_tag, isinstance(data, mmap.mmap))
    finally:
        if hasattr(data, "close"):
            data.close()
    if out[0] != 0:
        return _judge_in_python(index, path, settings)
    _, counts, kept, rank, row, first, size, unknown, tag = out
    counts = np.frombuffer(counts, np.int64)
    name = tag.decode() if tag is not None else run_name_from_path(path)
    expected = ties == "expected"
    block = CompactBlock(
        run_names=[name],
        present=(counts > 0)[None, :],
        num_ret=counts if depth is None else np.minimum(counts, depth),
        counts=np.frombuffer(kept, np.int64),
        rank=np.frombuffer(rank, np.int32),
        row=np.frombuffer(row, np.int32),
        tie_first=np.frombuffer(first, np.int32) if expected else None,
        tie_size=np.frombuffer(size, np.int32) if expected else None,
        docs=None,
    )
    return block, sorted(q.decode() for q in unknown)


def _judge_in_python(
    index: QrelsIndex, path, settings: Settings
) -> tuple[CompactBlock, list[str]]:
    """:func:`judge_file` by the careful reader and :func:`judge_block`."""
    coll = intern(index.qrels, [read_run(path, use_tag=settings.use_tag)])
    block = judge_block(coll, settings)
    return block, next(iter(coll.unjudged_queries.values()), [])


def judge_files(
    qrels: Qrels | QrelsIndex,
    paths: Sequence,
    settings: Settings = DEFAULT_SETTINGS,
    *,
    threads: int | None = None,
) -> tuple[list[CompactBlock], dict[str, list[str]]]:
    """One compact block per run file (in the order of ``paths``), ranked and cut
    under ``settings`` (ties, depth, use_tag), and, per run
    name, the query ids the qrels lack (``qrels`` may be a :class:`QrelsIndex`
    built already, whose ``collection`` then feeds
    :func:`irpref.judging.ranking.concat_blocks`). Files are judged on ``threads``
    threads (default: the CPUs available, at most 4); the first failing file
    in the order of ``paths`` raises its error."""
    index = qrels if isinstance(qrels, QrelsIndex) else QrelsIndex(qrels)
    paths = list(paths)
    threads = max(1, min(threads or worker_count(IO_CAP), len(paths)))
    judge = judge_file if index.capsule is not None else _judge_in_python

    def one(path) -> tuple[CompactBlock, list[str]]:
        return judge(index, path, settings)

    with ThreadPoolExecutor(threads, thread_name_prefix="irpref-scan") as pool:
        futures = [pool.submit(one, p) for p in paths]
        try:
            done = [f.result() for f in progress.track(futures, len(futures), "reading runs",
                                                       "run")]
        finally:
            for f in futures:
                f.cancel()
    blocks = [b for b, _ in done]
    refuse_repeated_names([b.run_names[0] for b in blocks])  # before any warning
    unjudged = {b.run_names[0]: qs for b, qs in done if qs}
    return blocks, unjudged
