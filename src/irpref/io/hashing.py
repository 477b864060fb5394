"""Vectorised 64-bit hashing: of strings, of (query, key) pairs, and an
exact lookup table of pairs.

Hashes here only ever *propose*: equal values hash equally, and every caller
that needs exactness confirms a hash match by comparing the values
themselves, so a collision costs time, never a wrong result.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["PairIndex", "hash_strings", "mix", "query_keys", "string_buffers"]

_K0 = np.uint64(0x9E3779B97F4A7C15)
_K1 = np.uint64(0xBF58476D1CE4E5B9)
_K2 = np.uint64(0x94D049BB133111EB)


def mix(h: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser, in place on a uint64 array."""
    h ^= h >> np.uint64(30)
    h *= _K1
    h ^= h >> np.uint64(27)
    h *= _K2
    h ^= h >> np.uint64(31)
    return h


def string_buffers(arr: pa.Array, *, widen: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, value bytes) of a string array without copying the bytes;
    offsets as int64 if ``widen``, else in the array's own type (no copy)."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if arr.type not in (pa.string(), pa.large_string(), pa.binary(), pa.large_binary()):
        raise TypeError(f"expected a string array, got {arr.type}")
    wide = arr.type in (pa.large_string(), pa.large_binary())
    off_t = np.dtype(np.int64 if wide else np.int32)
    _, obuf, vbuf = arr.buffers()[:3]
    n = len(arr)
    offsets = np.frombuffer(obuf, off_t, n + 1, arr.offset * off_t.itemsize)
    values = np.frombuffer(vbuf, np.uint8) if vbuf is not None else np.zeros(0, np.uint8)
    return (offsets.astype(np.int64) if widen else offsets), values


def hash_strings(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """64-bit hash (uint64) of every string of ``arr`` (nulls hash as empty strings).

    Equal strings get equal hashes; distinct strings almost surely distinct
    ones, so callers that need exactness confirm equal hashes by comparing
    the strings. Vectorised: 8 bytes of every string at a time.
    """
    offsets, values = string_buffers(arr)
    n = len(offsets) - 1
    starts = offsets[:-1]
    lengths = offsets[1:] - starts
    h = lengths.astype(np.uint64) * _K0
    if n == 0:
        return h
    width = int(lengths[0])
    end = int(offsets[-1])
    if width > 0 and end - int(starts[0]) == n * width and (lengths == width).all():
        # fixed width, contiguous (typical document ids): word j of every
        # string read in place by a strided view (no padded copy); a final
        # partial word is read across into the next string and masked, the
        # last string's from a zero-padded copy
        base = values[int(starts[0]) : end]
        if width < 8:  # a word would reach past the next string: padded copy
            padded = np.zeros((n, 8), np.uint8)
            padded[:, :width] = base.reshape(n, width)
            return mix(h ^ padded.view("<u8")[:, 0])
        for j in range(0, width, 8):
            if j + 8 <= width:
                h = mix(h ^ np.ndarray((n,), "<u8", base, j, (width,)))
                continue
            w = np.empty(n, np.uint64)
            if n > 1:
                w[:-1] = np.ndarray((n - 1,), "<u8", base, j, (width,))
            last = np.zeros(8, np.uint8)
            last[: width - j] = base[(n - 1) * width + j :]
            w[-1] = last.view("<u8")[0]
            w &= np.uint64((1 << (8 * (width - j))) - 1)
            h = mix(h ^ w)
        return h
    padded = np.zeros(len(values) + 8, np.uint8)
    padded[: len(values)] = values
    # every unaligned 8-byte word of the buffer: words[p] = bytes p..p+7
    words = np.ndarray((len(padded) - 7,), "<u8", padded, 0, (1,))
    last = len(words) - 1
    for j in range(0, int(lengths.max()), 8):
        rem = lengths - j
        w = words[np.minimum(starts + j, last)]
        short = rem < 8
        if short.any():
            bits = (np.clip(rem[short], 0, 8) * 8).astype(np.uint64)
            w[short] &= (np.uint64(1) << bits) - np.uint64(1)
        # a string of k words is mixed k times, whatever the longest string
        h = np.where(rem > 0, mix(h ^ w), h)
    return h


def query_keys(query: pa.Array) -> np.ndarray:
    """A uint64 per row, equal for equal queries: the mixed query code."""
    encoded = pc.dictionary_encode(query)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.uint64)
    return mix(codes * _K1 + _K2)



class PairIndex:
    """Exact lookup of (query, key) pairs in a fixed set of distinct pairs.

    An open-addressing hash table with linear probing, built and probed with
    whole-array NumPy operations: slot ``home(q, k) + d`` at probe ``d``,
    ``home`` the top bits of ``(k ^ q * K0) * K1`` (multiplicative hashing).
    At most one pair in 8 slots keeps probes short; a slot once filled stays
    filled, so a probe that meets an empty slot proves the pair absent.
    """

    def __init__(self, query: np.ndarray, key: np.ndarray):
        self.query = np.asarray(query, np.int64)
        self.key = np.asarray(key, np.uint64)
        n = len(self.key)
        self.bits = max(4, (8 * n).bit_length())
        size = 1 << self.bits
        table = np.full(size, -1, np.int32 if n < 2**31 else np.int64)
        home = self._home(self.query, self.key)
        pending = np.arange(n)
        probe = 0
        while len(pending):  # round d: every unplaced pair tries home + d
            slot = (home[pending] + probe) & (size - 1)
            free = np.flatnonzero(table[slot] < 0)
            taken, first = np.unique(slot[free], return_index=True)
            table[taken] = pending[free[first]]
            placed = np.zeros(len(pending), bool)
            placed[free[first]] = True
            pending = pending[~placed]
            probe += 1
        self.table, self.probes = table, probe

    def _home(self, query: np.ndarray, key: np.ndarray) -> np.ndarray:
        h = query.astype(np.uint64)
        h *= _K0
        h ^= key
        h *= _K1
        h >>= np.uint64(64 - self.bits)
        return h.astype(np.int64)

    def find(self, query: np.ndarray, key: np.ndarray) -> np.ndarray:
        """Index of each (query[i], key[i]) in the set (int64), -1 if absent."""
        out = np.full(len(key), -1, np.int64)
        slot = self._home(query, key)
        todo = None  # items still probing (None: all)
        mask = len(self.table) - 1
        for _ in range(self.probes):
            row = self.table[slot]
            busy = np.flatnonzero(row >= 0)
            row = row[busy].astype(np.int64)
            idx = busy if todo is None else todo[busy]
            same = (self.key[row] == key[idx]) & (self.query[row] == query[idx])
            out[idx[same]] = row[same]
            todo = idx[~same]
            if not len(todo):
                break
            slot = (slot[busy[~same]] + 1) & mask
        return out
