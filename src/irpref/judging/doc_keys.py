"""Document ids as 64-bit keys: injective, and ordered as the strings are.

:func:`document_ids` gives every row of the qrels and the runs a key that
compares as the ids do (byte order, as ``strcmp``): the ids packed into 64
bits where they fit exactly (:func:`packed_keys`: short ids, and ids of one
width differing in a few columns, by a mixed radix), else dense numbers of the
distinct strings (:func:`numbered_strings`: hashed, numbered and checked byte
for byte by the C helpers; :func:`sorted_codes` by Arrow otherwise).
:class:`DocumentIds` holds the keys, with dense codes and the strings on
demand. :mod:`irpref.judging.interning` interns whole collections with it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import irpref.runtime.threads as threads
from irpref.io.hashing import string_buffers
from irpref.runtime.native import native

__all__ = ["DocumentIds", "document_ids", "numbered_strings", "packed_keys", "runs_of",
           "sorted_codes"]


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
        import pandas as pd

        if self.dense is not None:
            return keys.astype(np.int32)
        return pd.Index(self.distinct).get_indexer(keys).astype(np.int32)


def sorted_codes(values: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Integer codes of ``values`` numbered in byte order of the strings."""
    encoded = pc.dictionary_encode(values)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks() if encoded.num_chunks != 1 else encoded.chunk(0)
    dictionary = encoded.dictionary
    order = pc.sort_indices(dictionary).to_numpy()
    rank = np.empty(len(order), np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    return rank[encoded.indices.to_numpy()], dictionary.take(pa.array(order))


def packed_keys(arrays: Sequence[pa.Array]) -> tuple[np.ndarray | None, object]:
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
    width, lo, hi = _common_width(parts)
    total = sum(len(o) - 1 for o, _ in parts)
    if width is None:
        return _short_keys(parts), _decode_short_keys
    if width < 0:  # no string at all
        return None, None
    if width == 0:
        return np.zeros(total, np.uint64), lambda k: pa.array([""] * len(k), pa.string())
    span = hi - lo + 1
    if np.prod([int(x) for x in span], dtype=object) > 2**64:
        return (_short_keys(parts), _decode_short_keys) if width <= 8 else (None, None)
    varying = [(j, np.uint64(span[j]), np.uint8(lo[j])) for j in np.flatnonzero(span > 1)]
    return _mixed_radix_keys(parts, width, varying), _mixed_radix_decoder(width, lo, varying)


def _common_width(parts) -> tuple[int | None, np.ndarray | None, np.ndarray | None]:
    """``(W, lo, hi)`` when every string of ``parts`` has ``W`` bytes, with the
    per-position byte range over all of them (``lo``, ``hi`` None when W is
    0); ``(None, None, None)`` for mixed widths, ``(-1, None, None)`` when
    there is no string."""

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

    scanned = [r for r in threads.in_threads(scan, range(len(parts)), [len(o) for o, _ in parts])
               if r[0] != -1]
    widths = {w for w, _ in scanned}
    if None in widths or len(widths) > 1:
        return None, None, None
    if not widths:
        return -1, None, None
    (width,) = widths
    if width == 0:
        return 0, None, None
    lo = np.min([r[0] for _, r in scanned], axis=0).astype(np.int64)
    hi = np.max([r[1] for _, r in scanned], axis=0).astype(np.int64)
    return width, lo, hi


def _mixed_radix_keys(parts, width: int, varying: list) -> np.ndarray:
    """The mixed-radix number of every string of ``parts`` (all ``width``
    bytes): the digits are its bytes at the ``varying`` positions ``(j,
    radix, low)``, minus ``low``."""
    total = sum(len(o) - 1 for o, _ in parts)
    keys = np.zeros(total, np.uint64) if not varying else np.empty(total, np.uint64)
    if not varying:
        return keys
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

    threads.in_threads(fill, range(len(parts)), weight=[len(o) for o, _ in parts])
    return keys


def _mixed_radix_decoder(width: int, lo: np.ndarray, varying: list):
    """The function mapping mixed-radix keys back to their strings."""

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

    return decode


def _decode_short_keys(k: np.ndarray) -> pa.Array:
    """The strings of big-endian zero-padded keys (no NUL byte in the strings:
    the non-zero bytes of a key are its string)."""
    rows = k.astype(">u8").view(np.uint8).reshape(-1, 8)
    used = rows != 0
    offsets = np.zeros(len(k) + 1, np.int32)
    np.cumsum(used.sum(axis=1), out=offsets[1:])
    data = rows[used]
    return pa.StringArray.from_buffers(len(k), pa.py_buffer(offsets), pa.py_buffer(data))


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
    strings = native("strings")
    for offsets, values in parts:
        n = len(offsets) - 1
        if strings is not None:
            if not strings.short_keys(offsets, values, keys[start : start + n]):
                return None
            start += n
            continue
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
        keys[start : start + n] = padded.view(">u8").ravel()
        start += n
    return keys


def document_ids(
    arrays: Sequence[pa.Array], blocks: Callable[[], np.ndarray | None] | None = None
) -> DocumentIds:
    """Order-preserving injective keys of the strings of all ``arrays``
    (concatenated).

    When the strings have packed 64-bit keys (:func:`packed_keys`,
    exact: no hashing of strings) those are the keys, and dense codes wait
    until asked for. Otherwise the strings are numbered at once
    (:func:`sorted_codes`) and the codes are the keys.
    """
    arrays = [a.combine_chunks() if isinstance(a, pa.ChunkedArray) else a for a in arrays]
    arrays = [a.cast(pa.string()) if a.type != pa.string() else a for a in arrays]
    keys, decode = (
        (None, None) if any(a.null_count for a in arrays) else packed_keys(arrays)
    )
    if keys is None or not len(keys):
        numbered = None if any(a.null_count for a in arrays) else numbered_strings(arrays, blocks)
        if numbered is None:
            numbered = sorted_codes(pa.chunked_array(arrays, type=pa.string()))
        codes, strings = numbered
        return DocumentIds(codes.astype(np.uint64), strings.take, dense=strings)
    return DocumentIds(keys, decode, blocks)


def numbered_strings(
    arrays: Sequence[pa.Array], blocks: Callable[[], np.ndarray | None] | None = None
) -> tuple[np.ndarray, pa.Array] | None:
    """What :func:`sorted_codes` returns (codes of the strings of all ``arrays``,
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
    strings = native("strings")
    if strings is None:
        return None
    parts = [string_buffers(a, widen=False) for a in arrays]
    sizes = [len(o) - 1 for o, _ in parts]
    starts = np.cumsum([0, *sizes])
    total = int(starts[-1])
    hashes = np.empty(total, np.uint64)

    def hash_part(k: int) -> None:
        strings.hash64(*parts[k], hashes[starts[k] : starts[k + 1]])

    threads.in_threads(hash_part, range(len(parts)), weight=sizes)
    ranges = blocks() if blocks is not None else None
    if ranges is None:
        ranges = np.array([[0, total]], np.int64)
    codes = np.empty(total, np.int32)
    first = np.frombuffer(
        strings.number64(hashes, np.ascontiguousarray(ranges, np.int64), codes), np.int64
    )
    hashes = None  # free it
    # the first string of every number, in number order
    part = np.searchsorted(starts, first, side="right") - 1
    grouped = np.argsort(part, kind="stable")
    pieces = [
        arrays[k].take(pa.array(first[grouped[lo:hi]] - starts[k]))
        for k, lo, hi in zip(*runs_of(part[grouped]))
    ]
    inverse = np.empty(len(first), np.int64)
    inverse[grouped] = np.arange(len(first))
    firsts = pa.concat_arrays(pieces).take(pa.array(inverse)) if pieces else pa.array([], "string")
    ref = string_buffers(firsts, widen=False)

    def collides(k: int) -> bool:
        return strings.first_mismatch(*parts[k], *ref, codes[starts[k] : starts[k + 1]]) >= 0

    if any(threads.in_threads(collides, range(len(parts)), weight=sizes)):
        return None
    order = np.empty(len(first), np.int64)
    strings.sort_strings(*ref, order)
    rank = np.empty(len(order), np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    return rank[codes], firsts.take(pa.array(order))


def runs_of(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
    parallel = rows[-1] >= threads.PARALLEL_MIN and len(blocks) > 1
    n_groups = threads.worker_count(threads.IO_CAP) if parallel else 1
    cuts = np.searchsorted(rows, rows[-1] * np.arange(1, n_groups) / n_groups)
    cuts = np.unique(np.concatenate([[0], cuts + 1, [len(blocks)]]).clip(0, len(blocks)))

    def distinct(g: int) -> np.ndarray:
        chunks = [pa.array(keys[a:b]) for a, b in blocks[cuts[g] : cuts[g + 1]]]
        return pc.unique(pa.chunked_array(chunks, pa.uint64())).to_numpy()

    return np.unique(np.concatenate(threads.in_threads(distinct, range(len(cuts) - 1))))
