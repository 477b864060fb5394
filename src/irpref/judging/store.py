"""Judged rankings saved to and loaded from Parquet, refused when stale.

``irpref judge QRELS RUN... -o judged.parquet`` (or
:meth:`JudgedRankings.save`) writes every field of a
:class:`~irpref.judging.judged.JudgedRankings` to one Parquet file: each NumPy array
field as a one-row list column (2-D arrays flattened, their shape in the
metadata), the document ids as their sorted distinct keys and strings, and the
scalar fields (``rel``, ``depth``, ``ties``, ``corpus_size``, ...) as JSON in
the schema metadata, next to a fingerprint of every input file (absolute
path, size, modification time, BLAKE2b hash of the content).

Loading refuses, with a message naming the file and the difference, never
silently reusing:

- a file written for other fields (another irpref version): an unknown or
  missing field;
- an input file that changed or vanished since (size, or, when only the
  modification time moved, content hash);
- a judging setting that differs from the one asked (``--rel``, ``--depth``,
  ``--ties``, ``--corpus-size``, ``--tag-names``: :data:`irpref.params.JUDGING`);
  ``--missing`` and ``--judged-only`` are each evaluation's own.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from irpref.errors import InputError
from irpref.judging.doc_keys import DocumentIds
from irpref.judging.judged import JudgedRankings
from irpref.params import JUDGING, Settings

__all__ = ["FORMAT", "StaleCacheError", "is_judged_file", "load", "save"]

FORMAT = "irpref.judged/3"
"""Format tag stored in the file's metadata (key ``irpref``)."""

_FLAGS = {"rel": "--rel", "depth": "--depth", "ties": "--ties",
          "corpus_size": "--corpus-size", "use_tag": "--tag-names", "columns": "--columns"}


class StaleCacheError(InputError):
    """A saved judged file that no longer matches its inputs or the options asked."""

    def __init__(self, path, problem: str):
        super().__init__(str(path), None, problem)


def is_judged_file(path) -> bool:
    """True when ``path`` is a Parquet file written by :func:`save` (False for
    anything that is not a path, e.g. qrels already read)."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        return False
    try:
        with open(path, "rb") as f:
            if f.read(4) != b"PAR1":
                return False
        meta = pq.read_schema(path).metadata or {}
    except (OSError, pa.ArrowInvalid):
        return False
    return b"irpref" in meta


# ---------------------------------------------------------------- fingerprints


def fingerprint(path) -> dict:
    """Absolute path, size, modification time (ns) and BLAKE2b hash of a file."""
    p = Path(path).resolve()
    st = p.stat()
    return {"path": str(p), "size": st.st_size, "mtime_ns": st.st_mtime_ns,
            "blake2b": _hash(p)}


def _hash(p: Path) -> str:
    h = hashlib.blake2b(digest_size=20)
    with open(p, "rb") as f:
        while chunk := f.read(1 << 22):
            h.update(chunk)
    return h.hexdigest()


def _check_input(saved: Path, fp: dict) -> None:
    p = Path(fp["path"])
    try:
        st = p.stat()
    except OSError:
        raise StaleCacheError(saved, f"input {p} is gone: cannot tell whether the saved "
                              "judgements still hold; re-run irpref judge") from None
    if st.st_size != fp["size"]:
        raise StaleCacheError(saved, f"input {p} changed since it was judged (size "
                              f"{fp['size']} -> {st.st_size} bytes); re-run irpref judge")
    if st.st_mtime_ns != fp["mtime_ns"] and _hash(p) != fp["blake2b"]:
        raise StaleCacheError(saved, f"input {p} changed since it was judged (content "
                              "differs, same size); re-run irpref judge")


# ------------------------------------------------------------------ save/load


def save(judged, path, *, qrels=None, runs: Sequence | None = None) -> None:
    """Write ``judged`` to Parquet at ``path``; ``qrels``/``runs``: the input files
    (paths) it was judged from, fingerprinted so a later load refuses changes."""
    if not isinstance(judged, JudgedRankings):
        raise TypeError(f"expected JudgedRankings, got {type(judged).__name__}")
    columns: dict[str, pa.Array] = {}
    shapes: dict[str, list[int]] = {}
    scalars: dict[str, object] = {}
    for f in dataclasses.fields(judged):
        value = getattr(judged, f.name)
        if isinstance(value, DocumentIds):
            columns[f"{f.name}.distinct"] = _column(np.asarray(value.distinct, np.uint64))
            strings = value.strings
            columns[f"{f.name}.strings"] = _list(pa.array(strings).cast(pa.large_string()))
        elif isinstance(value, Settings):
            scalars[f.name] = value.keywords()
        elif isinstance(value, np.ndarray):
            shapes[f.name] = list(value.shape)
            columns[f.name] = _column(value.ravel())
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            columns[f.name] = _list(pa.array(value, pa.large_string()))
            shapes[f.name] = ["list"]
        elif value is None or isinstance(value, (bool, int, float, str)):
            scalars[f.name] = value
        else:
            raise TypeError(f"JudgedRankings.{f.name}: cannot save a {type(value).__name__} "
                            "(store.py knows arrays, string lists, DocumentIds and scalars)")
    inputs = []
    if qrels is not None:
        inputs.append(fingerprint(qrels))
    inputs.extend(fingerprint(r) for r in (runs or []))
    meta = {"format": FORMAT, "fields": [f.name for f in dataclasses.fields(judged)],
            "shapes": shapes, "scalars": scalars, "inputs": inputs}
    table = pa.table(columns).replace_schema_metadata({"irpref": json.dumps(meta)})
    if os.path.exists(path) and not os.path.isfile(path):
        # a device or FIFO is written in place (a file renamed over it would replace
        # it), in one piece: Parquet's writer seeks, a FIFO cannot
        buffer = pa.BufferOutputStream()
        pq.write_table(table, buffer, compression="zstd", use_dictionary=False)
        with open(path, "wb") as handle:
            handle.write(buffer.getvalue().to_pybytes())
        return
    tmp = Path(f"{path}.tmp{os.getpid()}")
    pq.write_table(table, tmp, compression="zstd", use_dictionary=False)
    os.replace(tmp, path)


def _column(values: np.ndarray) -> pa.Array:
    if values.dtype == object or values.dtype.kind in "US":
        return _list(pa.array(values.tolist(), pa.large_string()))
    return _list(pa.array(values))


def _list(values: pa.Array) -> pa.Array:
    return pa.LargeListArray.from_arrays(pa.array([0, len(values)], pa.int64()), values)


def load(path, settings: Settings | None = None, *, check_inputs: bool = True):
    """Read a file written by :func:`save` into a ``JudgedRankings``.

    ``settings``: the judging settings the caller needs; a judging field
    (:data:`~irpref.params.JUDGING`) that differs from the saved one is
    refused, as is an input file that changed (``check_inputs``). The
    rankings returned carry ``settings`` (so its ``missing`` and
    ``judged_only``), or the saved settings when none is given.
    """
    if not is_judged_file(path):
        raise InputError(str(path), None, "not a judged-rankings Parquet file "
                         "(write one with irpref judge QRELS RUN... -o FILE)")
    meta = json.loads(pq.read_schema(path).metadata[b"irpref"])
    if meta.get("format") != FORMAT:
        raise StaleCacheError(path, f"written in format {meta.get('format')!r}, this irpref "
                              f"reads {FORMAT!r}; re-run irpref judge")
    names = [f.name for f in dataclasses.fields(JudgedRankings)]
    if meta["fields"] != names:
        extra = sorted(set(meta["fields"]) - set(names))
        missing = sorted(set(names) - set(meta["fields"]))
        raise StaleCacheError(path, "written by another irpref version (fields "
                              f"unknown here: {extra or 'none'}; missing: {missing or 'none'}); "
                              "re-run irpref judge")
    saved = Settings(**meta["scalars"]["settings"])
    if settings is not None:
        for key in JUDGING:
            if getattr(settings, key) != getattr(saved, key):
                raise StaleCacheError(
                    path, f"judged with {_FLAGS[key]} {_show(getattr(saved, key))}, asked "
                    f"{_FLAGS[key]} {_show(getattr(settings, key))}: pass the same option or "
                    "re-run irpref judge")
    if check_inputs:
        for fp in meta["inputs"]:
            _check_input(Path(path), fp)
    table = pq.read_table(path, use_threads=False)  # no Arrow thread outlives the read
    values = {}
    for name in names:
        if name == "settings":
            values[name] = settings or saved
            continue
        if name in meta["scalars"]:
            values[name] = meta["scalars"][name]
            continue
        if f"{name}.distinct" in table.column_names:
            distinct = _array(table, f"{name}.distinct")
            strings = table.column(f"{name}.strings").combine_chunks().flatten()
            values[name] = _document_ids(DocumentIds, distinct, strings)
            continue
        if name not in table.column_names:
            raise StaleCacheError(path, f"field {name} is not stored")
        shape = meta["shapes"][name]
        if shape == ["list"]:
            values[name] = table.column(name).combine_chunks().flatten().to_pylist()
            continue
        arr = _array(table, name)
        values[name] = arr.reshape(shape)
    return JudgedRankings(**values)


def _array(table: pa.Table, name: str) -> np.ndarray:
    flat = table.column(name).combine_chunks().flatten()
    if pa.types.is_large_string(flat.type) or pa.types.is_string(flat.type):
        return np.asarray(flat.to_pylist(), dtype=object)
    return flat.to_numpy(zero_copy_only=False).copy()


def _document_ids(cls, distinct: np.ndarray, strings: pa.Array):
    def decode(keys: np.ndarray) -> pa.Array:
        return strings.take(pa.array(np.searchsorted(distinct, keys)))

    ids = cls(keys=distinct, decode=decode)
    ids.__dict__["distinct"] = distinct  # cached_property: known already
    ids.__dict__["strings"] = strings
    return ids


def _show(v) -> str:
    return "(none)" if v is None else str(v)
