"""The optional C helpers of irpref._native.strings and the document numbering built on them.

Every result is checked against plain Python or against Arrow's numbering
(``_sorted_codes``), which the helpers replace for ids without packed keys.
"""

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irpref.io.hashing import string_buffers
from irpref.judging import doc_keys

try:
    from irpref._native import strings as _strings
except ImportError as exc:  # optional for users; the test suite insists on it
    pytest.fail(f"irpref._native.strings is not built ({exc}); reinstall with a C compiler",
                pytrace=False)

ids = st.lists(
    st.one_of(
        st.binary(max_size=40),
        st.sampled_from([b"", b"a", b"ab", b"abc\x00", b"msmarco_passage_00_1", b"\xff\xfe"]),
        st.builds(lambda p, n: p + str(n).encode(), st.sampled_from([b"doc", b"https://site/x/"]),
                  st.integers(0, 10**12)),
    ),
    max_size=80,
)


def _array(values: list[bytes]) -> pa.Array:
    return pa.array(values, pa.binary())


@settings(max_examples=150, deadline=None)
@given(ids)
def test_sort_strings_is_byte_order_then_index(values):
    offsets, data = string_buffers(_array(values), widen=False)
    order = np.empty(len(values), np.int64)
    _strings.sort_strings(offsets, data, order)
    assert order.tolist() == sorted(range(len(values)), key=lambda i: (values[i], i))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 6), max_size=60), st.integers(1, 4))
def test_number64_numbers_in_order_of_first_occurrence(keys, pieces):
    keys = np.array(keys, np.uint64)
    n = len(keys)
    cuts = sorted({0, n, *(np.linspace(0, n, pieces + 1).astype(int).tolist())})
    ranges = np.array(list(zip(cuts[:-1], cuts[1:])), np.int64)[::-1].copy()  # last block first
    codes = np.empty(n, np.int32)
    first = np.frombuffer(_strings.number64(keys, ranges, codes), np.int64)
    visit = [row for lo, hi in ranges for row in range(lo, hi)]
    seen: dict[int, int] = {}
    for row in visit:
        seen.setdefault(int(keys[row]), row)
    expected_first = list(seen.values())
    assert first.tolist() == expected_first
    code_of = {int(keys[row]): c for c, row in enumerate(expected_first)}
    assert codes.tolist() == [code_of[int(k)] for k in keys]


def test_number64_refuses_ranges_that_do_not_cover_the_keys():
    keys = np.arange(4, dtype=np.uint64)
    codes = np.empty(4, np.int32)
    with pytest.raises(ValueError, match="cover"):
        _strings.number64(keys, np.array([[0, 3]], np.int64), codes)
    with pytest.raises(ValueError, match="outside"):
        _strings.number64(keys, np.array([[0, 5]], np.int64), codes)


def test_first_mismatch_finds_the_first_differing_string():
    values = _array([b"a", b"bb", b"c"])
    ref = _array([b"a", b"bb", b"cc"])
    args = (*string_buffers(values, widen=False), *string_buffers(ref, widen=False))
    assert _strings.first_mismatch(*args, np.array([0, 1, 2], np.int32)) == 2
    assert _strings.first_mismatch(*args, np.array([0, 1, 0], np.int64)) == 2
    assert _strings.first_mismatch(*args[:2], *args[:2], np.array([0, 1, 2], np.int32)) == -1
    with pytest.raises(IndexError):
        _strings.first_mismatch(*args, np.array([0, 1, 3], np.int32))


def test_hash64_reads_sliced_arrays_and_hashes_equal_strings_equally():
    arr = pa.array(["x", "doc-1", "doc-22", "doc-1", "doc-22"]).slice(1)
    offsets, data = string_buffers(arr, widen=False)
    out = np.empty(len(arr), np.uint64)
    _strings.hash64(offsets, data, out)
    assert out[0] == out[2] and out[1] == out[3] and out[0] != out[1]
    with pytest.raises(ValueError):
        _strings.hash64(offsets, data, np.empty(len(arr) + 1, np.uint64))


def _split(values: list[str], pieces: int) -> list[pa.Array]:
    cuts = np.linspace(0, len(values), pieces + 1).astype(int)
    return [pa.array(values[a:b], pa.string()) for a, b in zip(cuts[:-1], cuts[1:])]


def _arrow_numbering(arrays):
    codes, strings = doc_keys.sorted_codes(pa.chunked_array(arrays, pa.string()))
    return codes.tolist(), strings.to_pylist()


texts = st.lists(
    st.one_of(st.text(max_size=12), st.sampled_from(["FBIS3-10082", "LA010189-0001", ""])),
    max_size=60,
)


@settings(max_examples=150, deadline=None)
@given(texts, st.integers(1, 4))
def test_numbered_strings_equal_arrow_numbering(values, pieces):
    arrays = _split(values, pieces)
    n = len(values)
    blocks = (lambda: np.array([[n // 2, n], [0, n // 2]], np.int64)) if n > 1 else None
    codes, strings = doc_keys.numbered_strings(arrays, blocks)
    assert (codes.tolist(), strings.to_pylist()) == _arrow_numbering(arrays)


class _Colliding:
    """The C helpers with a hash that maps every string to 0."""

    def __getattr__(self, name):
        return getattr(_strings, name)

    @staticmethod
    def hash64(offsets, data, out):
        out[:] = 0


def test_a_hash_collision_falls_back_to_arrow(monkeypatch):
    arrays = _split(["b", "a", "c", "a", "b"], 2)
    monkeypatch.setattr(doc_keys, "native", lambda name: _Colliding())
    assert doc_keys.numbered_strings(arrays) is None
    ids = doc_keys.document_ids(arrays)  # falls back: still exact
    codes, strings = _arrow_numbering(arrays)
    assert ids.keys.tolist() == codes and ids.strings.to_pylist() == strings


@pytest.mark.parametrize("helpers", ["c", "none"])
def test_document_ids_of_unpackable_ids_are_the_same_with_and_without_helpers(
    monkeypatch, helpers
):
    values = [f"https://www.site{i % 7}.example.com/doc{i * 7919 % 1000}" for i in range(500)]
    arrays = _split(values, 3)
    if helpers == "none":
        monkeypatch.setattr(doc_keys, "native", lambda name: None)
    ids = doc_keys.document_ids(arrays)
    codes, strings = _arrow_numbering(arrays)
    assert ids.keys.tolist() == codes and ids.strings.to_pylist() == strings
