"""Judged rankings: the one picture every measure and preference reads.

``intern`` maps the string ids of the qrels and of all runs to integers once:
queries are numbered in byte order, documents get 64-bit keys that are
injective and ordered as the strings (so comparing keys compares ids as
``strcmp`` does); dense document numbers are computed only on demand
(:class:`DocumentIds`). ``judge`` then ranks every run under a tie
policy, cuts it at a depth and joins it with the qrels, producing a
:class:`JudgedRankings`: for every run x query *segment*, the retrieved items
in rank order with their document, score and grade, in flat arrays covering
all runs and queries at once (segment ``s = r * n_queries + q`` holds items
``offsets[s]:offsets[s + 1]``).

Grades follow trec_eval (form_res_rels.c): a retrieved document absent from
the qrels has grade :data:`NONPOOL`; a negative qrels grade means "in the
pool, unjudged" for trec_eval's judged-only measures and simply non-relevant
for every other measure. An item is relevant when ``grade >= rel``.

Two layouts hold the same rankings. The *full* one (:func:`judge`) keeps every
retrieved item. The *compact* one (:func:`judge_block` on a few runs at a
time, :func:`concat_blocks`; ``judge_inputs(..., layout="compact")``) keeps
only the items the qrels mention (any grade) with their explicit ``rank``,
per segment the number retrieved (:attr:`JudgedRankings.num_ret`) and, under
``ties="expected"``, each item's tie group (:meth:`JudgedRankings.tie_group`):
what every measure and preference declaring it reads
(``Family.compact``), with the same numbers. Asking compact rankings for
what only the full layout holds raises :class:`LayoutError`. Run *files*
reach the compact layout without interning at all: :mod:`irpref.scan` reads
each one in a single C pass that produces its :class:`CompactBlock` directly
(this module's path remains for in-memory runs, the full layout, and files
that pass refuses).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from irpref.hashing import PairIndex, mix, string_buffers

try:  # optional C helpers (setup.py); without them Arrow numbers the strings
    from irpref import _strings
except ImportError:  # pragma: no cover - depends on the build
    _strings = None
from irpref.io.trec import Qrels, Run, _check_unique_pairs, _read_bytes

__all__ = [
    "LAYOUTS",
    "NONPOOL",
    "LayoutError",
    "TIES",
    "Collection",
    "DocumentIds",
    "Items",
    "JudgedRankings",
    "intern",
    "judge",
]

class LayoutError(ValueError):
    """A computation asked compact judged rankings for something only the
    full layout holds (unjudged items, their documents, tie groups)."""


LAYOUTS = ("full", "compact")
"""Layouts of :class:`JudgedRankings`: every retrieved item, or only those
the qrels mention (see :func:`judge_block`)."""

NONPOOL = np.iinfo(np.int32).min
"""Grade of a retrieved document that the qrels do not mention."""

TIES = ("docid", "input", "expected")
"""Tie policies: ``docid`` (trec_eval: score desc, then docid desc), ``input``
(file order among equal scores), ``expected`` (mean over all orderings of
tied items; kernels read :attr:`JudgedRankings.tie_offsets`)."""


@dataclass(eq=False)
class DocumentIds:
    """Document ids as 64-bit keys that are injective and compare as the
    strings do (byte order), with dense codes and the strings on demand.

    ``keys`` holds one key per row of the qrels and then of every run (the
    order of :func:`intern`'s input). Ranking, tie-breaking and the qrels
    join read keys only; numbering the distinct documents densely costs a
    hash pass over every row and is paid only by the callers that need
    codes or strings (per-document tables, subtopic populations, the count
    of distinct documents).
    """

    keys: np.ndarray  # uint64 per row
    decode: Callable[[np.ndarray], pa.Array]  # sorted distinct keys -> their strings
    # hashing order (see _query_blocks), computed when first needed
    blocks: Callable[[], np.ndarray | None] | None = None
    dense: pa.Array | None = None  # keys are already codes of these sorted strings

    @cached_property
    def distinct(self) -> np.ndarray:
        """The distinct keys, ascending (code ``c`` is ``distinct[c]``)."""
        if self.dense is not None:
            return np.arange(len(self.dense), dtype=np.uint64)
        return _distinct_keys(self.keys, self.blocks() if self.blocks else None)

    @cached_property
    def strings(self) -> pa.Array:
        """The distinct document ids in byte order (code -> string)."""
        return self.dense if self.dense is not None else self.decode(self.distinct)

    def __len__(self) -> int:
        return len(self.dense) if self.dense is not None else len(self.distinct)

    def codes(self, keys: np.ndarray) -> np.ndarray:
        """Dense codes (int32, in byte order of the strings) of known keys."""
        if self.dense is not None:
            return keys.astype(np.int32)
        return pd.Index(self.distinct).get_indexer(keys).astype(np.int32)


class _Documents:
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
class Collection(_Documents):
    """Qrels and runs with query ids interned and document ids keyed once."""

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


def _sorted_codes(values: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Integer codes of ``values`` numbered in byte order of the strings."""
    encoded = pc.dictionary_encode(values)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks() if encoded.num_chunks != 1 else encoded.chunk(0)
    dictionary = encoded.dictionary
    order = pc.sort_indices(dictionary).to_numpy()
    rank = np.empty(len(order), np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    return rank[encoded.indices.to_numpy()], dictionary.take(pa.array(order))


def _packed_keys_decoder(arrays: Sequence[pa.Array]) -> tuple[np.ndarray | None, object]:
    """Order-preserving injective uint64 keys of the strings (of all arrays,
    concatenated), if they exist cheaply.

    - all strings of one width W: byte ``j`` ranges over ``[lo_j, hi_j]`` (over
      all arrays); the mixed-radix number of the ``byte_j - lo_j`` is a key if
      the product of the ranges fits in 64 bits (document ids: most positions
      are constant or digits, e.g. ``clueweb12-0107wb-42-18933`` needs 50 bits);
    - strings of at most 8 bytes without NUL: the bytes, big-endian, zero-padded.

    Keys compare as the strings do (byte order). Returns the keys and a
    function mapping (distinct) keys back to their strings; ``(None, None)``
    when neither applies.
    """
    parts = [string_buffers(a, widen=False) for a in arrays]

    def scan(k: int) -> tuple[int | None, tuple | None]:
        """(common width or None, per-position byte range) of part k."""
        offsets, values = parts[k]
        n = len(offsets) - 1
        if n == 0:
            return -1, None
        width = int(offsets[1] - offsets[0])
        if int(offsets[-1] - offsets[0]) != n * width or np.any(np.diff(offsets) != width):
            return None, None
        if width == 0:
            return 0, None
        return width, _column_range(values[offsets[0] : offsets[-1]], width)

    scanned = [r for r in _in_threads(scan, range(len(parts)), [len(o) for o, _ in parts])
               if r[0] != -1]
    widths = {w for w, _ in scanned}
    if None in widths or len(widths) > 1:
        return _short_keys(parts), _decode_short_keys
    if not widths:
        return None, None
    (width,) = widths
    total = sum(len(o) - 1 for o, _ in parts)
    if width == 0:
        return np.zeros(total, np.uint64), lambda k: pa.array([""] * len(k), pa.string())
    lo = np.min([r[0] for _, r in scanned], axis=0).astype(np.int64)
    hi = np.max([r[1] for _, r in scanned], axis=0).astype(np.int64)
    span = hi - lo + 1
    if np.prod([int(x) for x in span], dtype=object) > 2**64:
        return (_short_keys(parts), _decode_short_keys) if width <= 8 else (None, None)
    varying = [(j, np.uint64(span[j]), np.uint8(lo[j])) for j in np.flatnonzero(span > 1)]
    keys = np.zeros(total, np.uint64) if not varying else np.empty(total, np.uint64)
    # Horner over the raw bytes: sum_j byte_j * W_j, minus the constant
    # sum_j lo_j * W_j at the end (exact modulo 2**64, as the key fits)
    offset = 0
    for _, radix, low in varying:
        offset = (offset * int(radix) + int(low)) % 2**64
    offset = np.uint64(offset)
    starts = np.cumsum([0, *(len(o) - 1 for o, _ in parts)])
    block = 1 << 16  # rows per step: temporaries stay in cache

    def fill(k: int) -> None:
        o, v = parts[k]
        m = v[o[0] : o[-1]].reshape(-1, width)
        start = starts[k]
        for i in range(0, len(m), block):
            rows = m[i : i + block]
            key = keys[start + i : start + i + len(rows)]
            for n, (j, radix, _) in enumerate(varying):
                if n:
                    key *= radix
                    key += rows[:, j]
                else:
                    key[:] = rows[:, j]
            key -= offset

    if varying:
        _in_threads(fill, range(len(parts)), weight=[len(o) for o, _ in parts])

    def decode(k: np.ndarray) -> pa.Array:
        """The strings of mixed-radix keys ``k``: digits peeled off from the
        last varying byte position; constant positions are their one byte."""
        n = len(k)
        if n * width >= 2**31:
            raise OverflowError("too many bytes for a string array")
        rows = np.empty((n, width), np.uint8)
        rows[:] = lo.astype(np.uint8)
        rest = k.copy()
        for j, radix, low in reversed(varying):
            digit = rest % radix
            rest //= radix
            rows[:, j] = digit.astype(np.uint8) + low
        offsets = np.arange(0, (n + 1) * width, width, dtype=np.int32)
        return pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(rows))

    return keys, decode


def _decode_short_keys(k: np.ndarray) -> pa.Array:
    """The strings of big-endian zero-padded keys (no NUL byte in the strings:
    the non-zero bytes of a key are its string)."""
    rows = k.astype(">u8").view(np.uint8).reshape(-1, 8)
    used = rows != 0
    offsets = np.zeros(len(k) + 1, np.int32)
    np.cumsum(used.sum(axis=1), out=offsets[1:])
    data = rows[used]
    return pa.StringArray.from_buffers(len(k), pa.py_buffer(offsets), pa.py_buffer(data))


_PARALLEL_MIN = 1 << 20  # rows from which interning and tie sorting use threads


def _threads() -> int:
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        n = os.cpu_count() or 1
    return max(1, min(n, 4))


def _in_threads(func, tasks, weight=None) -> list:
    """``[func(t) for t in tasks]``, on a pool of threads when the total
    ``weight`` (rows) is large: NumPy and Arrow kernels release the GIL."""
    tasks = list(tasks)
    n = _threads()
    if n == 1 or len(tasks) < 2 or (weight is not None and sum(weight) < _PARALLEL_MIN):
        return [func(t) for t in tasks]
    with ThreadPoolExecutor(min(n, len(tasks)), thread_name_prefix="irpref-intern") as pool:
        return list(pool.map(func, tasks))


def _column_range(values: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-position (min, max) byte of ``values`` holding strings of ``width`` bytes."""
    # reduce rows of 8 strings at a time: a longer inner loop vectorises better
    n = len(values) // width
    head = values[: n // 8 * 8 * width].reshape(-1, 8 * width)
    tail = values[n // 8 * 8 * width :].reshape(-1, width)
    lo, hi = [], []
    if len(head):
        lo.append(head.min(axis=0).reshape(-1, width).min(axis=0))
        hi.append(head.max(axis=0).reshape(-1, width).max(axis=0))
    if len(tail):
        lo.append(tail.min(axis=0))
        hi.append(tail.max(axis=0))
    return np.min(lo, axis=0), np.max(hi, axis=0)


def _short_keys(parts) -> np.ndarray | None:
    """Big-endian zero-padded bytes of strings of at most 8 bytes, no NUL byte."""
    keys = np.zeros(sum(len(o) - 1 for o, _ in parts), np.uint64)
    start = 0
    for offsets, values in parts:
        lengths = np.diff(offsets)
        if len(lengths) and lengths.max() > 8:
            return None
        used = values[offsets[0] : offsets[-1]]
        if (used == 0).any():
            return None
        padded = np.zeros((len(lengths), 8), np.uint8)
        row = np.repeat(np.arange(len(lengths)), lengths)
        col = np.arange(len(used)) - np.repeat(offsets[:-1] - offsets[0], lengths)
        padded[row, col] = used
        keys[start : start + len(lengths)] = padded.view(">u8").ravel()
        start += len(lengths)
    return keys


def _document_ids(
    arrays: Sequence[pa.Array], blocks: Callable[[], np.ndarray | None] | None = None
) -> DocumentIds:
    """Order-preserving injective keys of the strings of all ``arrays``
    (concatenated).

    When the strings have packed 64-bit keys (:func:`_packed_keys_decoder`,
    exact: no hashing of strings) those are the keys, and dense codes wait
    until asked for. Otherwise the strings are numbered at once
    (:func:`_sorted_codes`) and the codes are the keys.
    """
    arrays = [a.combine_chunks() if isinstance(a, pa.ChunkedArray) else a for a in arrays]
    arrays = [a.cast(pa.string()) if a.type != pa.string() else a for a in arrays]
    keys, decode = (
        (None, None) if any(a.null_count for a in arrays) else _packed_keys_decoder(arrays)
    )
    if keys is None or not len(keys):
        numbered = None if any(a.null_count for a in arrays) else _numbered_strings(arrays, blocks)
        if numbered is None:
            numbered = _sorted_codes(pa.chunked_array(arrays, type=pa.string()))
        codes, strings = numbered
        return DocumentIds(codes.astype(np.uint64), strings.take, dense=strings)
    return DocumentIds(keys, decode, blocks)


def _numbered_strings(
    arrays: Sequence[pa.Array], blocks: Callable[[], np.ndarray | None] | None = None
) -> tuple[np.ndarray, pa.Array] | None:
    """What :func:`_sorted_codes` returns (codes of the strings of all ``arrays``,
    numbered in byte order, and the sorted distinct strings), by the C helpers.

    Every string is hashed to 64 bits, the hashes are numbered by an open
    addressing table (rows visited query block by query block, see
    :func:`_query_blocks`, so recurring documents stay in cache), and every
    string is then compared byte for byte with the first string of its
    number: numbers are trusted only when no two distinct strings share a
    hash. The distinct strings are sorted by an 8-byte radix order. ``None``
    without the C helpers or when two strings collide (the caller then asks
    Arrow, exact either way).
    """
    if _strings is None:
        return None
    parts = [string_buffers(a, widen=False) for a in arrays]
    sizes = [len(o) - 1 for o, _ in parts]
    starts = np.cumsum([0, *sizes])
    total = int(starts[-1])
    hashes = np.empty(total, np.uint64)

    def hash_part(k: int) -> None:
        _strings.hash64(*parts[k], hashes[starts[k] : starts[k + 1]])

    _in_threads(hash_part, range(len(parts)), weight=sizes)
    ranges = blocks() if blocks is not None else None
    if ranges is None:
        ranges = np.array([[0, total]], np.int64)
    codes = np.empty(total, np.int32)
    first = np.frombuffer(
        _strings.number64(hashes, np.ascontiguousarray(ranges, np.int64), codes), np.int64
    )
    hashes = None  # free it
    # the first string of every number, in number order
    part = np.searchsorted(starts, first, side="right") - 1
    grouped = np.argsort(part, kind="stable")
    pieces = [
        arrays[k].take(pa.array(first[grouped[lo:hi]] - starts[k]))
        for k, lo, hi in zip(*_runs_of(part[grouped]))
    ]
    inverse = np.empty(len(first), np.int64)
    inverse[grouped] = np.arange(len(first))
    firsts = pa.concat_arrays(pieces).take(pa.array(inverse)) if pieces else pa.array([], "string")
    ref = string_buffers(firsts, widen=False)

    def collides(k: int) -> bool:
        return _strings.first_mismatch(*parts[k], *ref, codes[starts[k] : starts[k + 1]]) >= 0

    if any(_in_threads(collides, range(len(parts)), weight=sizes)):
        return None
    order = np.empty(len(first), np.int64)
    _strings.sort_strings(*ref, order)
    rank = np.empty(len(order), np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    return rank[codes], firsts.take(pa.array(order))


def _runs_of(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(value, start, stop) of every run of equal values of a sorted array."""
    if not len(values):
        return values, values, values
    cut = np.flatnonzero(values[1:] != values[:-1]) + 1
    lo = np.concatenate([[0], cut])
    hi = np.concatenate([cut, [len(values)]])
    return values[lo], lo, hi


def _distinct_keys(keys: np.ndarray, blocks: np.ndarray | None = None) -> np.ndarray:
    """The distinct values of ``keys`` (uint64), ascending.

    Arrow's integer hash table is fed block by block in the order of
    ``blocks`` (optional ``(B, 2)`` row ranges ``[start, stop)`` covering
    every row once): grouping rows whose documents recur (one query of every
    run) keeps the table's working set in cache; arbitrary row slices are
    memory-bound and their tables all overlap. The blocks are cut into one
    group per thread (consecutive blocks: different queries, mostly
    different documents, so the groups' tables are nearly disjoint), and
    the groups' distinct keys merged by one sort.
    """
    if blocks is None or len(blocks) < 2:
        blocks = np.array([[0, len(keys)]], np.int64)
    rows = np.cumsum(blocks[:, 1] - blocks[:, 0])
    n_groups = _threads() if rows[-1] >= _PARALLEL_MIN and len(blocks) > 1 else 1
    cuts = np.searchsorted(rows, rows[-1] * np.arange(1, n_groups) / n_groups)
    cuts = np.unique(np.concatenate([[0], cuts + 1, [len(blocks)]]).clip(0, len(blocks)))

    def distinct(g: int) -> np.ndarray:
        chunks = [pa.array(keys[a:b]) for a, b in blocks[cuts[g] : cuts[g + 1]]]
        return pc.unique(pa.chunked_array(chunks, pa.uint64())).to_numpy()

    return np.unique(np.concatenate(_in_threads(distinct, range(len(cuts) - 1))))


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
    if n < _PARALLEL_MIN or n_blocks < 2 or n_runs == 0:
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


def intern(qrels: Qrels, runs: Sequence[Run]) -> Collection:
    """Intern the query ids of ``qrels`` and ``runs`` (names must be distinct)
    and key their document ids; refuse a document retrieved twice for one
    query of a run (as trec_eval does), naming the file and line."""
    names = [run.name for run in runs]
    refuse_repeated_names(names)
    q_codes, queries = _sorted_codes(qrels.query)
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

    missing = _in_threads(columns, range(len(runs)), weight=[run_offsets[-1]])
    unjudged = {run.name: qs for run, qs in zip(runs, missing) if qs}
    blocks = partial(_query_blocks, run_query, run_offsets, n_q, len(qrels))
    doc_ids = _document_ids([qrels.doc, *(run.doc for run in runs)], blocks)
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

    for r in np.flatnonzero(_in_threads(suspect, range(len(runs)), weight=np.diff(run_offsets))):
        run = runs[r]
        raw = _read_bytes(run.source) if os.path.isfile(run.source) else None
        _check_unique_pairs(
            run.query, run.doc, run.source, raw, comments=False, what="retrieved twice"
        )


def _docid_desc_in_ties(
    tied: np.ndarray, wrong: np.ndarray, doc: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Positions of the tie groups that are not in docid-descending order, and
    their document keys in that order.

    ``tied[i]``: items ``i`` and ``i + 1`` form part of one tie group (same
    segment, same score); ``wrong[i]``: and ``doc[i] < doc[i + 1]`` (``doc``:
    uint64 keys, ordered as the ids). Works on the tied pairs only, and sorts
    the bad groups by packed 64-bit keys (group label, key descending)
    instead of a two-key lexsort: as many groups per sort as the labels'
    spare bits allow.
    """
    t = np.flatnonzero(tied)  # pair k joins items t[k] and t[k] + 1
    first = np.ones(len(t), bool)
    np.not_equal(t[1:], t[:-1] + 1, out=first[1:])
    group = np.cumsum(first) - 1
    bad = np.zeros(int(group[-1]) + 1, bool)
    bad[group[wrong[t]]] = True
    head = np.flatnonzero(first)
    tail = np.append(head[1:], len(t)) - 1
    lo, hi = t[head[bad]], t[tail[bad]] + 1  # item range of every bad group
    length = hi - lo + 1
    # positions and group labels of the items, by cumulative sums (np.repeat
    # with many small counts is several times slower)
    begin = (np.cumsum(length) - length)[1:]
    label = np.zeros(int(length.sum()), np.int64)
    label[begin] = 1
    np.cumsum(label, out=label)
    sel = np.ones(len(label), np.int64)
    sel[0] = lo[0]
    sel[begin] = lo[1:] - hi[:-1]
    np.cumsum(sel, out=sel)
    key = doc[sel]
    low, span = key.min(), int(key.max() - key.min())
    bits = max(span.bit_length(), 1)
    if bits > 53:  # too wide to pack with a useful number of labels
        return sel, key[np.lexsort((~key, label))]
    # descending key within [0, span], then (label, desc) in 63 bits, sorted
    # chunk by chunk of 2**(63 - bits) consecutive labels
    desc = (np.uint64(span) - (key - low)).view(np.int64)
    per = 1 << (63 - bits)
    chunks = int(label[-1]) // per + 1
    cuts = [0, *np.searchsorted(label, np.arange(1, chunks, dtype=np.int64) * per), len(key)]
    values = np.empty(len(key), np.uint64)
    for a, b in zip(cuts[:-1], cuts[1:]):
        if b > a:
            packed = ((label[a:b] - label[a]) << bits) | desc[a:b]
            packed.sort()
            packed &= (1 << bits) - 1
            values[a:b] = (np.uint64(span) - packed.view(np.uint64)) + low
    return sel, values


def _rank_order(
    coll: Collection, ties: str, in_place: bool = False
) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """The judged-query rows in (run, query, rank) order.

    Returns the permutation of the rows (``None``: the identity, every row
    kept in file order), the segment offsets (segment ``s = r * Q + q`` holds
    permuted rows ``offsets[s]:offsets[s + 1]``) and the documents of the
    permuted rows (docid-descending within tie groups unless ``ties ==
    "input"``). Documents are their uint64 keys (:class:`DocumentIds`).

    Sorting cost is paid only where a file is not already in the required
    order, and then only on the segments or tie groups that are out of order;
    a tie group's score and query are equal, so only its documents are
    reordered. When every run lists its queries in order and every query is
    judged (the usual case), no per-row array is built: the segments are
    found by binary search in each run and the tie groups fixed block by
    block. ``in_place``: tie groups may be reordered in the collection's own
    key array (no copy).
    """
    offsets = _segment_offsets(coll)
    if offsets is not None:
        doc = _docid_ties(coll.run_score, coll.run_doc_key, offsets, ties, in_place)
        if doc is not None:
            return None, offsets, doc
    return _rank_order_general(coll, ties)


def _segment_offsets(coll: Collection) -> np.ndarray | None:
    """Segment offsets over the rows in file order, if every row's query is
    judged and every run lists its queries in ascending code order (else
    ``None``)."""
    q, bounds, n_q = coll.run_query, coll.run_offsets, coll.n_queries
    if len(q) == 0 or q.min() < 0:
        return None if len(q) else np.zeros(coll.n_runs * n_q + 1, np.int64)

    def run_offsets(r: int) -> np.ndarray | None:
        rq = q[bounds[r] : bounds[r + 1]]
        if np.any(rq[1:] < rq[:-1]):
            return None
        return bounds[r] + np.searchsorted(rq, np.arange(n_q), side="left")

    parts = _in_threads(run_offsets, range(coll.n_runs), weight=[len(q)])
    if any(p is None for p in parts):
        return None
    return np.append(np.concatenate(parts), len(q)).astype(np.int64)


def _docid_ties(
    score: np.ndarray, doc: np.ndarray, offsets: np.ndarray, ties: str, in_place: bool
) -> np.ndarray | None:
    """``doc`` with every tie group in docid-descending order (``ties ==
    "docid"``), or ``doc`` itself when nothing is out of order or ``ties ==
    "input"``; ``None`` if some segment's scores are not descending.

    Block by block on a pool of threads (blocks start at segment starts, as
    tie groups never span segments; their temporaries stay in cache). The
    result is a new array unless ``in_place``.
    """
    n = len(doc)
    if n < 2:
        return doc
    cut = offsets[np.searchsorted(offsets, np.arange(0, n, _TIE_BLOCK))]
    bounds = np.unique(np.append(cut, n))
    blocks = range(len(bounds) - 1)

    def check(b: int) -> tuple[np.ndarray, np.ndarray] | bool | None:
        """False: scores rise somewhere; else the block's fix (or None)."""
        lo, hi = bounds[b], bounds[b + 1]
        starts = offsets[np.searchsorted(offsets, lo, "right") : np.searchsorted(offsets, hi)]
        same = np.ones(hi - lo - 1, bool)
        same[starts - lo - 1] = False  # the first item of a segment
        s, d = score[lo:hi], doc[lo:hi]
        if np.any(same & (s[1:] > s[:-1])):
            return False
        if ties == "input":
            return None
        tied = same & (s[1:] == s[:-1])
        wrong = tied & (d[1:] > d[:-1])
        return _docid_desc_in_ties(tied, wrong, d) if wrong.any() else None

    fixes = _in_threads(check, blocks, weight=[n])
    if any(f is False for f in fixes):
        return None
    if all(f is None for f in fixes):
        return doc
    out = doc if in_place else np.empty_like(doc)

    def apply(b: int) -> None:
        lo, hi = bounds[b], bounds[b + 1]
        if out is not doc:
            out[lo:hi] = doc[lo:hi]
        if fixes[b] is not None:
            sel, values = fixes[b]
            out[lo:hi][sel] = values

    _in_threads(apply, blocks, weight=[n])
    return out


def _rank_order_general(
    coll: Collection, ties: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_rank_order` for any file order: rows of unjudged queries
    dropped, rows sorted by segment (stable), segments whose scores are not
    descending sorted by score (stable), then the docid tie-break."""
    n_seg = coll.n_runs * coll.n_queries
    dtype = np.int32 if n_seg < 2**31 else np.int64
    seg = coll.run_query.astype(dtype)  # a copy: + run * n_queries, run by run
    for r in range(1, coll.n_runs):
        seg[coll.run_offsets[r] : coll.run_offsets[r + 1]] += r * coll.n_queries
    rows = np.flatnonzero(coll.run_query >= 0)
    seg = seg[rows]
    if len(seg) > 1 and np.any(seg[1:] < seg[:-1]):
        order = np.argsort(seg, kind="stable")
        rows, seg = rows[order], seg[order]
    score = coll.run_score[rows]
    # score descending within each segment (stable: keeps file order on ties)
    rising = (seg[1:] == seg[:-1]) & (score[1:] > score[:-1])
    if rising.any():
        bad = np.zeros(n_seg, bool)
        bad[seg[1:][rising]] = True
        sel = np.flatnonzero(bad[seg])
        rows[sel] = rows[sel][np.lexsort((-score[sel], seg[sel]))]
        score = coll.run_score[rows]
    offsets = np.searchsorted(seg, np.arange(n_seg + 1, dtype=seg.dtype)).astype(np.int64)
    doc = _docid_ties(score, coll.run_doc_key[rows], offsets, ties, in_place=True)
    return rows, offsets, doc


_TIE_BLOCK = 1 << 18  # items per block of the tie sort (cut at segment starts)


def _join_grades(
    coll: Collection, query: np.ndarray, doc_key: np.ndarray, rows: bool = False
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Grade of every (query, document key) item in the qrels, :data:`NONPOOL`
    if absent: one probe of a hash table of the judged pairs (small: it stays
    in cache) per item, block by block on a pool of threads. ``rows=True``:
    also the qrels row of each item (int32, -1 if absent)."""
    if len(doc_key) == 0 or len(coll.qrels_doc_key) == 0:
        grade = np.full(len(doc_key), NONPOOL, np.int32)
        return (grade, np.full(len(doc_key), -1, np.int32)) if rows else grade
    grade = np.empty(len(doc_key), np.int32)  # written block by block, in parallel
    row_type = np.int32 if len(coll.qrels_doc_key) < 2**31 else np.int64
    where = np.empty(len(doc_key), row_type) if rows else None
    qrels_q = np.repeat(np.arange(coll.n_queries), np.diff(coll.qrels_offsets))
    index = PairIndex(qrels_q, coll.qrels_doc_key)
    # blocks of 2**18 items: the temporaries stay in cache (no page faults)
    block = 1 << 18

    def join(lo: int) -> None:
        hi = min(lo + block, len(doc_key))
        row = index.find(query[lo:hi], doc_key[lo:hi])
        found = row >= 0
        out = grade[lo:hi]
        out[:] = NONPOOL
        out[found] = coll.qrels_grade[row[found]]
        if where is not None:
            where[lo:hi] = row

    _in_threads(join, range(0, len(doc_key), block), weight=[len(doc_key)])
    return (grade, where) if rows else grade


class Items(NamedTuple):
    """A subset of the items (e.g. the relevant ones), in item order.

    ``index``: flat item index; ``offsets`` (S+1,): the subset's items of
    segment s are ``index[offsets[s]:offsets[s + 1]]``; ``segment`` and
    ``rank`` (0-based rank in the whole ranking) of each; ``nth``: 0-based
    position of each among the subset's items of its segment.
    """

    index: np.ndarray
    offsets: np.ndarray
    segment: np.ndarray
    rank: np.ndarray

    @property
    def nth(self) -> np.ndarray:
        return np.arange(len(self.index), dtype=np.int64) - self.offsets[:-1][self.segment]


@dataclass(frozen=True, eq=False)
class JudgedRankings(_Documents):
    """Every run x query ranking, ranked, cut and joined with the qrels.

    Item arrays are flat over all segments; segment ``s = r * n_queries + q``.
    """

    run_names: list[str]
    queries: np.ndarray  # (Q,) str
    offsets: np.ndarray  # (R*Q+1,) int64
    doc_key: np.ndarray  # uint64 document key per item (see DocumentIds)
    score: np.ndarray  # float64 per item
    grade: np.ndarray  # int32 per item; NONPOOL if not in the qrels
    present: np.ndarray  # (R, Q) bool: the run retrieved something for q
    qrels_offsets: np.ndarray  # (Q+1,)
    qrels_doc_key: np.ndarray  # uint64, ascending within each query
    qrels_grade: np.ndarray  # int32
    doc_ids: DocumentIds  # keys -> dense codes and strings
    rel: int = 1
    ties: str = "docid"
    depth: int | None = None
    corpus_size: int | None = None  # documents in the corpus, if known (--corpus-size)
    # ---- the compact layout (layout="compact", see judge_block) -----------
    # items are only those the qrels mention (any grade): their rank is
    # explicit, the number retrieved is per segment, unjudged items are gone
    layout: str = "full"  # "full" | "compact"
    item_rank: np.ndarray | None = None  # int64 0-based rank per item (compact)
    seg_num_ret: np.ndarray | None = None  # (S,) int64 number retrieved (compact)
    tie_first: np.ndarray | None = None  # int64 rank of the item's tie group start
    tie_size: np.ndarray | None = None  # int64 size of the item's tie group
    distinct_docs: int | None = None  # documents in the qrels and all runs (compact)

    @property
    def compact(self) -> bool:
        """True for the compact layout (only items the qrels mention)."""
        return self.layout == "compact"

    def _full_only(self, what: str) -> None:
        if self.layout != "full":
            raise LayoutError(
                f"{what} needs every retrieved item (the full layout); these judged "
                "rankings are compact (only the items the qrels mention)"
            )

    # ---- shape -----------------------------------------------------------
    @property
    def n_runs(self) -> int:
        return len(self.run_names)

    @property
    def n_queries(self) -> int:
        return len(self.queries)

    @property
    def n_segments(self) -> int:
        return len(self.offsets) - 1

    @property
    def n_items(self) -> int:
        """Items in the item arrays (compact layout: only those the qrels mention)."""
        return len(self.grade)

    @cached_property
    def doc(self) -> np.ndarray:
        """Dense document code of each item (int32; codes ascend with the ids)."""
        self._full_only("dense document codes of the retrieved items")
        return self.doc_ids.codes(self.doc_key)

    @property
    def n_docs(self) -> int:
        """Distinct documents in the qrels and all runs (before any depth cut)."""
        if self.layout == "full":
            return len(self.doc_ids)
        if self.distinct_docs is None:
            raise LayoutError(
                "the number of distinct documents was not counted for these compact "
                "judged rankings (judge them with count_docs=True, or pass corpus_size)"
            )
        return self.distinct_docs

    @property
    def docs(self) -> pa.Array:
        """Every document named anywhere, by dense code (byte order)."""
        self._full_only("the strings of every retrieved document")
        return self.doc_ids.strings

    # ---- per item --------------------------------------------------------
    @cached_property
    def segment(self) -> np.ndarray:
        """Segment id of each item (int64)."""
        return np.repeat(np.arange(self.n_segments, dtype=np.int64), np.diff(self.offsets))

    @cached_property
    def rank(self) -> np.ndarray:
        """0-based rank of each item within its segment (int64)."""
        if self.item_rank is not None:
            return self.item_rank
        return np.arange(self.n_items, dtype=np.int64) - self.offsets[:-1][self.segment]

    def rank_of(self, index: np.ndarray, segment: np.ndarray) -> np.ndarray:
        """0-based rank of the items ``index`` (of segments ``segment``)."""
        if self.item_rank is not None:
            return self.item_rank[index]
        return index - self.offsets[:-1][segment]

    @cached_property
    def query_of_item(self) -> np.ndarray:
        return self.segment % self.n_queries

    def relevant(self, rel: int | None = None) -> np.ndarray:
        """Boolean per item: ``grade >= rel`` (default: the judging level)."""
        return self.grade >= (self.rel if rel is None else rel)

    @cached_property
    def _items_cache(self) -> dict:
        return {}

    def items_with_grade(self, at_least: int | None = None) -> Items:
        """The items with ``grade >= at_least`` (default: the judging level),
        as a sparse :class:`Items` view (cached per level).

        Measures that only read relevant items work on these instead of on
        every item: about a tenth of the items, and no full-size temporaries.
        """
        level = self.rel if at_least is None else int(at_least)
        cached = self._items_cache.get(level)
        if cached is None:
            index = np.flatnonzero(self.grade >= level)
            offsets = np.searchsorted(index, self.offsets).astype(np.int64)
            counts = np.diff(offsets)
            segment = np.zeros(len(index), np.int64)
            starts = offsets[:-1][counts > 0]
            if len(index):
                # segment ids by a cumulative sum of steps at segment starts
                nonempty = np.flatnonzero(counts > 0)
                segment[starts[1:]] = np.diff(nonempty)
                segment[0] = nonempty[0]
                np.cumsum(segment, out=segment)
            rank = self.rank_of(index, segment)
            cached = self._items_cache[level] = Items(index, offsets, segment, rank)
        return cached

    @cached_property
    def judged(self) -> np.ndarray:
        """Boolean per item: judged with a grade >= 0 (trec_eval's notion)."""
        return self.grade >= 0

    # ---- tie groups (items of equal score within a segment) --------------
    @cached_property
    def tie_start(self) -> np.ndarray:
        """(n_items + 1,) bool: item i starts a tie group (the last entry,
        the end, is True too).

        A tie group is a maximal run of equal scores within a segment; with
        depth cut-offs only retrieved (kept) items belong to groups. Full
        layout only (the compact one keeps :meth:`tie_group` per item).
        """
        self._full_only("tie groups over every item")
        starts = np.ones(self.n_items + 1, bool)
        if self.n_items:
            np.not_equal(self.score[1:], self.score[:-1], out=starts[1:-1])
            starts[self.offsets[:-1][np.diff(self.offsets) > 0]] = True
        return starts

    @cached_property
    def tie_offsets(self) -> np.ndarray:
        """Start of every tie group in the item arrays, plus the end (int64)."""
        return np.flatnonzero(self.tie_start).astype(np.int64, copy=False)

    @cached_property
    def tie_segment(self) -> np.ndarray:
        """Segment id of each tie group."""
        return self.segment[self.tie_offsets[:-1]]

    def tie_group(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(0-based rank of the first item, size) of the tie group holding each
        item of ``index`` (ascending item indices), in both layouts."""
        if self.layout == "compact":
            if self.tie_first is None:
                raise LayoutError("tie groups are kept in compact judged rankings only "
                                  "under ties='expected'")
            return self.tie_first[index], self.tie_size[index]
        bounds = self.tie_offsets
        # most items are untied (a group of their own): binary search the others
        is_start = self.tie_start
        first, end = index.copy(), index + 1
        tied = np.flatnonzero(~(is_start[index] & is_start[index + 1]))
        gid = np.searchsorted(bounds, index[tied], side="right") - 1
        first[tied], end[tied] = bounds[gid], bounds[gid + 1]
        seg = np.searchsorted(self.offsets, index, side="right") - 1
        return first - self.offsets[seg], end - first

    # ---- per segment / per query -----------------------------------------
    @cached_property
    def n_retrieved(self) -> np.ndarray:
        """(S,) number of retrieved items of each segment (after the depth cut)."""
        if self.seg_num_ret is not None:
            return self.seg_num_ret
        return np.diff(self.offsets)

    @cached_property
    def num_ret(self) -> np.ndarray:
        """(R, Q) number of retrieved items (after the depth cut)."""
        return self.n_retrieved.reshape(self.n_runs, self.n_queries)

    def segment_sum(self, values: np.ndarray) -> np.ndarray:
        """(R, Q) sum of a per-item array within each segment."""
        sums = np.bincount(self.segment, weights=values, minlength=self.n_segments)
        return sums.reshape(self.n_runs, self.n_queries)

    def segment_count(self, mask: np.ndarray) -> np.ndarray:
        """(R, Q) number of items where ``mask`` is true."""
        counts = np.bincount(self.segment[mask], minlength=self.n_segments)
        return counts.reshape(self.n_runs, self.n_queries)

    def num_rel(self, rel: int | None = None) -> np.ndarray:
        """(Q,) number of judged documents with ``grade >= rel``."""
        rel = self.rel if rel is None else rel
        q = np.repeat(np.arange(self.n_queries), np.diff(self.qrels_offsets))
        return np.bincount(q[self.qrels_grade >= rel], minlength=self.n_queries)

    @cached_property
    def qrels_query(self) -> np.ndarray:
        """Query id of each qrels row."""
        return np.repeat(np.arange(self.n_queries, dtype=np.int64), np.diff(self.qrels_offsets))

    def ideal_grades(self, rel: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Judged grades ``>= rel`` of each query, sorted descending, as (offsets, grades)."""
        rel = self.rel if rel is None else rel
        keep = self.qrels_grade >= rel
        q = self.qrels_query[keep]
        g = self.qrels_grade[keep]
        order = np.lexsort((-g, q))
        offsets = np.zeros(self.n_queries + 1, np.int64)
        np.cumsum(np.bincount(q, minlength=self.n_queries), out=offsets[1:])
        return offsets, g[order]

    def query_mask(self, missing: str = "skip") -> np.ndarray:
        """(R, Q) which run x query values enter means: ``skip`` -> queries the
        run retrieved; ``zero`` -> every qrels query (trec_eval ``-c``)."""
        if missing == "skip":
            return self.present
        if missing == "zero":
            return np.ones_like(self.present)
        raise ValueError(f"missing must be 'skip' or 'zero', not {missing!r}")


def judge(
    coll: Collection,
    *,
    ties: str = "docid",
    depth: int | None = None,
    rel: int = 1,
    corpus_size: int | None = None,
    in_place: bool = False,
) -> JudgedRankings:
    """Rank every run (``ties`` policy), cut at ``depth`` (trec_eval -M) and
    join with the qrels; ``rel`` is the default relevance level (trec_eval -l);
    ``corpus_size`` is the number of documents in the collection, for measures
    that impute unretrieved relevant documents at its bottom.

    ``in_place=True`` lets the docid tie-break reorder documents within tie
    groups in ``coll`` itself instead of a copy (for a collection judged
    once: afterwards it no longer keeps file order among tied documents, so
    ``ties="input"`` would see docid order)."""
    offsets, doc, score, query, present = _ranked(coll, ties, depth, in_place)
    grade = _join_grades(coll, query, doc)
    return JudgedRankings(
        run_names=list(coll.run_names),
        queries=coll.queries,
        offsets=offsets,
        doc_key=doc,
        score=score,
        grade=grade,
        present=present,
        qrels_offsets=coll.qrels_offsets,
        qrels_doc_key=coll.qrels_doc_key,
        qrels_grade=coll.qrels_grade,
        doc_ids=coll.doc_ids,
        rel=rel,
        ties=ties,
        depth=depth,
        corpus_size=corpus_size,
    )


def _ranked(
    coll: Collection, ties: str, depth: int | None, in_place: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every run ranked (``ties``) and cut at ``depth``: segment offsets and
    the documents, scores and query codes of the items; ``present`` (R, Q)."""
    if ties not in TIES:
        raise ValueError(f"ties must be one of {', '.join(TIES)}; got {ties!r}")
    refuse_bad_depth(depth)
    rows, offsets, doc = _rank_order(coll, "input" if ties == "input" else "docid", in_place)
    if rows is None:  # files already in rank order: no gather
        score, query = coll.run_score, coll.run_query
    else:
        score, query = coll.run_score[rows], coll.run_query[rows]
    counts = np.diff(offsets)
    present = (counts > 0).reshape(coll.n_runs, coll.n_queries)
    if depth is not None and counts.max(initial=0) > depth:
        # keep the first `depth` items of every segment: +1 at its start,
        # -1 after its last kept item, summed
        kept = np.minimum(counts, depth)
        step = np.zeros(len(doc) + 1, np.int32)
        np.add.at(step, offsets[:-1], 1)
        np.add.at(step, offsets[:-1] + kept, -1)
        keep = np.cumsum(step[:-1], dtype=np.int32) > 0
        doc, score, query = doc[keep], score[keep], query[keep]
        offsets = np.zeros(len(counts) + 1, np.int64)
        np.cumsum(kept, out=offsets[1:])
    return offsets, doc, score, query, present


def refuse_repeated_names(names: Sequence[str]) -> None:
    """Refuse run names that are not distinct (ValueError naming the repeats)."""
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"run names must be distinct; repeated: {', '.join(dup)}")


def refuse_bad_depth(depth) -> None:
    """Refuse a depth that is not None or a positive integer (ValueError)."""
    if depth is not None and (
        isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1
    ):
        raise ValueError(f"depth must be a positive integer, not {depth}")


class CompactBlock(NamedTuple):
    """Some runs judged and reduced to what the compact layout keeps (see
    :func:`judge_compact`): per segment the number retrieved; per item the
    qrels mention, its rank, grade, qrels row and (``ties="expected"``) tie group."""

    run_names: list[str]
    present: np.ndarray  # (R_b, Q) bool
    num_ret: np.ndarray  # (R_b * Q,) int64
    counts: np.ndarray  # (R_b * Q,) int64 kept items per segment
    rank: np.ndarray  # int64 per kept item
    grade: np.ndarray  # int32
    row: np.ndarray  # int32/int64: row of the (query, document) in the sorted qrels
    tie_first: np.ndarray | None  # int64 rank of the first item of the item's tie group
    tie_size: np.ndarray | None  # int64 size of that group (unjudged members counted)
    docs: pa.Array | None  # distinct document ids of the qrels and runs (count_docs)


def judge_block(
    coll: Collection, *, ties: str = "docid", depth: int | None = None, count_docs: bool = False
) -> CompactBlock:
    """:func:`judge` ``coll`` and keep only what the compact layout needs:
    the items the qrels mention (any grade), with their rank, grade, qrels
    row and tie group, and per segment the number retrieved. The ranking is
    the one :func:`judge` computes (same tie-break, same depth cut), so every
    kept item has the rank it has in the full layout."""
    offsets, doc, score, query, present = _ranked(coll, ties, depth, in_place=True)
    grade, row = _join_grades(coll, query, doc, rows=True)
    keep = np.flatnonzero(row >= 0)
    num_ret = np.diff(offsets)
    counts = np.diff(np.searchsorted(keep, offsets))
    seg = np.repeat(np.arange(len(num_ret), dtype=np.int64), counts)
    rank = keep - offsets[:-1][seg]
    tie_first = tie_size = None
    if ties == "expected":
        starts = np.ones(len(score) + 1, bool)
        if len(score):
            np.not_equal(score[1:], score[:-1], out=starts[1:-1])
            starts[offsets[:-1][num_ret > 0]] = True
        bounds = np.flatnonzero(starts)
        g = np.searchsorted(bounds, keep, side="right") - 1
        tie_first = bounds[g] - offsets[:-1][seg]
        tie_size = bounds[g + 1] - bounds[g]
    docs = coll.doc_ids.strings if count_docs else None
    return CompactBlock(
        run_names=list(coll.run_names), present=present, num_ret=num_ret, counts=counts,
        rank=rank, grade=grade[keep], row=row[keep], tie_first=tie_first, tie_size=tie_size,
        docs=docs,
    )


def concat_blocks(
    blocks: Sequence[CompactBlock],
    qrels: Qrels | Collection,
    *,
    rel: int = 1,
    ties: str = "docid",
    depth: int | None = None,
    corpus_size: int | None = None,
    distinct_docs: int | None = None,
) -> JudgedRankings:
    """The compact :class:`JudgedRankings` of all ``blocks`` (in order);
    ``qrels`` may be given already interned (``intern(qrels, [])``)."""
    qrels_coll = qrels if isinstance(qrels, Collection) else intern(qrels, [])
    names = [n for b in blocks for n in b.run_names]
    refuse_repeated_names(names)
    n_q = qrels_coll.n_queries
    counts = np.concatenate([b.counts for b in blocks]) if blocks else np.zeros(0, np.int64)
    offsets = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])

    def cat(field: str, dtype) -> np.ndarray:
        parts = [getattr(b, field) for b in blocks]
        return np.concatenate(parts).astype(dtype, copy=False) if parts else np.zeros(0, dtype)

    row = cat("row", np.int64)
    expected = ties == "expected"
    return JudgedRankings(
        run_names=names,
        queries=qrels_coll.queries,
        offsets=offsets,
        doc_key=qrels_coll.qrels_doc_key[row],
        score=np.zeros(0, np.float64),
        grade=cat("grade", np.int32),
        present=np.concatenate([b.present for b in blocks]) if blocks
        else np.zeros((0, n_q), bool),
        qrels_offsets=qrels_coll.qrels_offsets,
        qrels_doc_key=qrels_coll.qrels_doc_key,
        qrels_grade=qrels_coll.qrels_grade,
        doc_ids=qrels_coll.doc_ids,
        rel=rel,
        ties=ties,
        depth=depth,
        corpus_size=corpus_size,
        layout="compact",
        item_rank=cat("rank", np.int64),
        seg_num_ret=cat("num_ret", np.int64),
        tie_first=cat("tie_first", np.int64) if expected else None,
        tie_size=cat("tie_size", np.int64) if expected else None,
        distinct_docs=distinct_docs,
    )


def merge_docs(docs: pa.Array | None, more: pa.Array) -> pa.Array:
    """The distinct strings of ``docs`` and ``more`` (for counting documents
    block by block)."""
    more = more.cast(pa.large_string())
    if docs is None:
        return more
    return pc.unique(pa.chunked_array([docs, more], pa.large_string()))


def _save(self: JudgedRankings, path, **inputs) -> None:
    """Write to Parquet (:func:`irpref.store.save`; ``qrels=``/``runs=``: input files)."""
    from irpref.store import save

    save(self, path, **inputs)


def _load(path, **expected) -> JudgedRankings:
    """Read a file written by :meth:`save`, refused when stale (:func:`irpref.store.load`)."""
    from irpref.store import load

    return load(path, **expected)


JudgedRankings.save = _save
JudgedRankings.load = staticmethod(_load)


def matching_rows(sorted_keys: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every match of ``keys`` in ``sorted_keys`` (ascending, repeats allowed):
    ``(i, j)`` with ``keys[i] == sorted_keys[j]``, in order of ``i`` then ``j``."""
    lo = np.searchsorted(sorted_keys, keys, side="left")
    count = np.searchsorted(sorted_keys, keys, side="right") - lo
    found = np.flatnonzero(count)
    count = count[found]
    i = np.repeat(found, count)
    within = np.arange(len(i)) - np.repeat(np.cumsum(count) - count, count)
    return i, np.repeat(lo[found], count) + within
