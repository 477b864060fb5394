"""Reading TREC qrels and runs, fast, with errors that name the file and line.

Formats
-------
qrels: ``qid iter docid grade``; run: ``qid Q0 docid rank score [tag]``.
Files named ``.csv``, ``.tsv`` (with a header), ``.jsonl`` or ``.parquet``
(optionally ``.gz``) are read by :mod:`irpref.io.tables`; everything else is
TREC whitespace format. The input rules (all enforced here, with the file and
line of the first offence):

- fields are separated by runs of spaces, tabs or CRs; blank lines are
  skipped; a line whose first non-blank character is ``#`` is a comment (qrels
  and runs alike); a UTF-8 byte order mark is skipped; ``.gz`` is inflated
  (a truncated or corrupt stream is refused);
- a run has 6 fields on every line, or 5 on every line (no tag); qrels 4;
- a score is a C float: ``[+-]`` digits with optional ``.`` and exponent, or
  ``inf``/``infinity`` (any case; an overflowing value like ``1e999`` is
  ``inf``, as C's ``strtod``); ``nan`` is refused;
- a grade is a plain decimal integer (``-?[0-9]+``: no ``+``, ``_``, hex or
  ``.``) with ``|grade| <= 2**31 - 1`` (:data:`GRADE_MAX`);
- query ids, document ids (and the tag when it names the run) must be valid
  UTF-8; the ignored columns (iter, Q0, rank, an unused tag) are not read.

The rank column of a run is ignored (documents are ranked by score).

Fast path: the bytes are normalised (one space between fields) with NumPy and
parsed by pyarrow's multi-threaded CSV reader; vectorized checks follow.
Whenever one fails, a careful line-by-line parser re-reads the file only to
raise a :class:`TrecFormatError` naming the first bad line, so a broken file
never yields a number; if it finds nothing, the error still names the file.

Evaluating run files does not go through :class:`Run` at all when the C
extension is built: :mod:`irpref.scan` checks each file by these same rules
while judging it in one pass, and hands any file it refuses back to this
reader, which names the problem.
"""

from __future__ import annotations

import gzip
import mmap
import os
import re
import stat
import zlib
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from irpref.errors import InputError
from irpref.hashing import hash_strings, query_keys

__all__ = [
    "GRADE_MAX",
    "Qrels",
    "Run",
    "TrecFormatError",
    "read_qrels",
    "read_run",
    "read_runs",
    "run_name_from_path",
]

PathLike = str | os.PathLike

GRADE_MAX = 2**31 - 1
"""Largest |grade| accepted: grades are judged as 32-bit integers (one value,
-2**31, is reserved for "not in the qrels"), so a larger grade is refused
rather than wrapped."""

_SCORE = re.compile(
    rb"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?)\Z"
)
_NAN = re.compile(rb"[+-]?[nN][aA][nN]\Z")
_GRADE = re.compile(rb"-?[0-9]+\Z")
_TOKEN = re.compile(rb"[^ \t\r]+")
_BOM = b"\xef\xbb\xbf"


class TrecFormatError(InputError):
    """A TREC file that cannot be read: names the file, the line and the problem."""


@dataclass(frozen=True)
class Qrels:
    """Relevance judgements: one row per judged (query, document)."""

    query: pa.Array  # string
    doc: pa.Array  # string
    grade: np.ndarray  # int64
    source: str = "<qrels>"

    def __len__(self) -> int:
        return len(self.grade)


@dataclass(frozen=True)
class Run:
    """A ranked run: one row per retrieved (query, document, score), in file order."""

    name: str
    query: pa.Array  # string
    doc: pa.Array  # string
    score: np.ndarray  # float64
    source: str = "<run>"
    tag: str | None = field(default=None)

    def __len__(self) -> int:
        return len(self.score)


_RUN_SUFFIXES = (".gz", ".txt", ".run", ".trec", ".tsv")


def run_name_from_path(path: PathLike) -> str:
    """Run name: file name without directory, ``input.`` prefix and TREC suffixes."""
    name = Path(path).name
    changed = True
    while changed:
        changed = False
        for suffix in _RUN_SUFFIXES:
            if name.endswith(suffix) and len(name) > len(suffix):
                name, changed = name[: -len(suffix)], True
    if name.startswith("input.") and len(name) > len("input."):
        name = name[len("input.") :]
    return name


def _open_error(path: PathLike, exc: OSError) -> TrecFormatError:
    """The error for a file that cannot be opened or read."""
    if isinstance(exc, FileNotFoundError):
        problem = "no such file"
    elif isinstance(exc, IsADirectoryError):
        problem = "is a directory, not a file"
    elif isinstance(exc, PermissionError):
        problem = "permission denied"
    else:
        problem = f"cannot be read ({exc.strerror or exc})"
    return TrecFormatError(str(path), None, problem)


def _read_bytes(path: PathLike) -> bytes:
    """The file's bytes: ``.gz`` inflated, UTF-8 byte order marks at the start dropped."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise _open_error(path, exc) from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise TrecFormatError(str(path), None, f"corrupt gzip data ({exc})") from None
    while data[:3] == _BOM:  # pyarrow would skip one more: skip them all, here
        data = data[3:]
    return data


read_bytes = _read_bytes  # public name: every command reads files through this


_MMAP_MIN = 1 << 20  # map files from 1 MB: no copy into fresh memory


def _read_buffer(path: PathLike) -> bytes | mmap.mmap:
    """The file's bytes: a read-only memory map for a large plain regular file
    (the page cache itself, nothing copied), else ``bytes`` (``.gz`` inflated).

    A map supports ``find``, slicing and the buffer protocol, which is all the
    fast path needs; error paths convert it with ``bytes()``.
    """
    try:
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            if stat.S_ISREG(info.st_mode) and info.st_size >= _MMAP_MIN:
                try:
                    data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
                except (OSError, ValueError):
                    data = None
                if data is not None and data[:2] != b"\x1f\x8b" and data[:3] != _BOM:
                    return data
    except OSError as exc:
        raise _open_error(path, exc) from None
    return _read_bytes(path)


_COMMENT = re.compile(rb"(?m)^[ \t\r]*#")


def _normalise(data: bytes | mmap.mmap) -> bytes | mmap.mmap:
    """One space between fields, no blank lines, no leading/trailing blanks.

    Clean input is returned as it is (a map stays a map).

    Line structure is otherwise kept, so row i of the result is the i-th
    non-blank line of the input.
    """
    clean = data.find(b"\t") < 0 and data.find(b"\r") < 0 and not _blank_pairs(data)
    if clean:
        if data[:3] == _BOM:  # a BOM after comment lines is data, as after blank lines
            data = b"\n" + bytes(data)
        return data if data[-1:] == b"\n" else bytes(data) + b"\n"
    a = np.frombuffer(data, np.uint8)
    blank = (a == 32) | (a == 9) | (a == 13)
    newline = a == 10
    token = ~(blank | newline)
    prev_token = np.zeros_like(token)
    prev_token[1:] = token[:-1]
    # keep token bytes, newlines, and the first blank after a token
    b = a[token | newline | (blank & prev_token)]
    b[(b == 9) | (b == 13)] = 32
    # drop a blank followed by a newline, then blank lines
    nxt = np.ones(len(b), bool)
    nxt[:-1] = b[1:] == 10
    b = b[~((b == 32) & nxt)]
    nl = b == 10
    prev_nl = np.ones(len(b), bool)
    prev_nl[1:] = nl[:-1]
    b = b[~(nl & prev_nl)]
    out = b.tobytes()
    if out[:3] == _BOM:  # a BOM after blank lines is data: keep pyarrow from skipping it
        out = b"\n" + out
    return out if out.endswith(b"\n") or not out else out + b"\n"


def _blank_pairs(data: bytes, step: int = 1 << 18) -> bool:
    """True if two separators (bytes <= 32) are adjacent, or the data starts with
    one, or ends with one that is not a newline.

    A file without tabs and CRs and without such pairs has exactly one space
    between fields and no blank lines: it needs no normalisation. NumPy passes
    over blocks of ``step`` bytes into reused buffers (cache-resident, no page
    faults); much cheaper than searching for each two-byte pattern.
    """
    a = np.frombuffer(data, np.uint8)
    n = len(a)
    if n == 0:
        return False
    if a[0] <= 32 or (a[-1] <= 32 and a[-1] != 10):
        return True
    sep = np.empty(min(step, n) + 1, bool)
    pair = np.empty(min(step, n), bool)
    for i in range(0, n - 1, step):
        j = min(i + step + 1, n)  # blocks overlap by one byte: no pair is missed
        s = sep[: j - i]
        np.less_equal(a[i:j], 32, out=s)
        p = pair[: j - i - 1]
        np.logical_and(s[1:], s[:-1], out=p)
        if p.any():
            return True
    return False


def _empty(data: bytes) -> bool:
    """Normalised data holds no row (no copy, unlike ``not data.strip()``)."""
    return len(data) <= 1 and not data[:1].strip()


def _strip_comments(data: bytes | mmap.mmap) -> bytes | mmap.mmap:
    """Drop comment lines (first non-blank character ``#``); data without a
    ``#`` byte is returned as it is, after one ``memchr`` pass."""
    if data.find(b"#") < 0 or not _COMMENT.search(data):
        return data
    return b"\n".join(
        line for line in bytes(data).split(b"\n") if not line.lstrip(b" \t\r").startswith(b"#")
    )


_BLOCK_SIZE = 1 << 22  # 4 MB: several blocks per typical run file, parsed in parallel
_WHOLE_MAX = 1 << 28  # up to 256 MB a file is one block when files are read in parallel


def _csv(
    buffer: bytes | mmap.mmap,
    names: list[str],
    types: dict[str, pa.DataType],
    *,
    whole: bool = False,
) -> pa.Table:
    """Parse normalised bytes. ``whole``: one block, no inner threads (the
    caller parses files in parallel): the columns come out as single chunks,
    used without a copy."""
    block = min(len(buffer) + 1, _WHOLE_MAX) if whole else _BLOCK_SIZE
    return pcsv.read_csv(
        pa.BufferReader(pa.py_buffer(buffer)),
        read_options=pcsv.ReadOptions(
            column_names=names, block_size=max(block, 1 << 16), use_threads=not whole
        ),
        parse_options=pcsv.ParseOptions(
            delimiter=" ", quote_char=False, double_quote=False, escape_char=False
        ),
        convert_options=pcsv.ConvertOptions(
            column_types=types, include_columns=list(types), strings_can_be_null=False
        ),
    )


def _lines(data: bytes | mmap.mmap):
    """Yield (line number, line, tokens) of the non-blank, non-comment lines,
    split exactly as the fast path splits: tokens are (byte offset, bytes)."""
    for number, line in enumerate(bytes(data).split(b"\n"), start=1):
        tokens = [(m.start(), m.group()) for m in _TOKEN.finditer(line)]
        if not tokens or tokens[0][1].startswith(b"#"):
            continue
        yield number, line, tokens


def _text(line: bytes) -> str:
    return line.rstrip(b"\r").decode("utf-8", errors="replace")


def _check_utf8(path: str, number: int, line: bytes, tokens, columns, names) -> None:
    """Refuse an identifier that is not UTF-8, naming the byte offset in the line."""
    for column, name in zip(columns, names):
        start, token = tokens[column]
        try:
            token.decode("utf-8")
        except UnicodeDecodeError as exc:
            offset = start + exc.start
            raise TrecFormatError(
                path,
                number,
                f"invalid UTF-8 in the {name} at byte {offset + 1} of the line"
                f" (byte 0x{line[offset]:02x})",
                _text(line),
            ) from None


_HEADER_WORDS = {b"score", b"sim", b"similarity", b"grade", b"rel", b"relevance", b"label"}


def _header_hint(token: bytes) -> str:
    if token.lower() not in _HEADER_WORDS:
        return ""
    return "; a header line? TREC files have none (name a table with a header .csv or .tsv)"


def _check_score(path: str, number: int, token: bytes, line: bytes) -> None:
    if _SCORE.match(token):
        return
    if _NAN.match(token):
        raise TrecFormatError(path, number, "score is NaN", _text(line))
    raise TrecFormatError(
        path,
        number,
        f"score {token.decode('utf-8', 'replace')!r} is not a number"
        f" (a decimal float such as 1.5, -2e-3 or inf){_header_hint(token)}",
        _text(line),
    )


def _check_grade(path: str, number: int, token: bytes, line: bytes) -> None:
    if not _GRADE.match(token):
        raise TrecFormatError(
            path,
            number,
            f"grade {token.decode('utf-8', 'replace')!r} is not an integer"
            f" (a plain decimal integer: no '+', '.', '_' or hex){_header_hint(token)}",
            _text(line),
        )
    if abs(int(token)) > GRADE_MAX:
        raise TrecFormatError(
            path,
            number,
            f"grade {int(token)} is out of range: grades lie in [-{GRADE_MAX}, {GRADE_MAX}]",
            _text(line),
        )


def _diagnose_qrels(
    data: bytes,
    path: str,
    fields_text: str = "qid iter docid grade",
    what: str = "qrels",
    ids: tuple[int, ...] = (0, 2),
) -> None:
    """Raise a precise error for the first bad line of a 4-column judgement file."""
    seen: set[tuple[bytes, ...]] = set()
    names = fields_text.split()
    for number, line, tokens in _lines(data):
        if len(tokens) != 4:
            raise TrecFormatError(
                path, number, f"expected 4 fields '{fields_text}', got {len(tokens)}", _text(line)
            )
        _check_utf8(path, number, line, tokens, ids, [names[i] for i in ids])
        _check_grade(path, number, tokens[3][1], line)
        _check_repeat(path, number, line, tokens, ids, seen, "judged twice")
    if not seen:
        raise TrecFormatError(path, None, f"empty {what} file: no judgements")


def _diagnose_run(data: bytes, path: str, use_tag: bool = False) -> None:
    """Raise a precise error for the first bad run line."""
    width = None
    seen: set[tuple[bytes, ...]] = set()
    for number, line, tokens in _lines(data):
        n = len(tokens)
        if n not in (5, 6):
            raise TrecFormatError(
                path,
                number,
                f"expected 6 fields 'qid Q0 docid rank score tag' (tag optional), got {n}",
                _text(line),
            )
        if width is None:
            width = n
        elif n != width:
            raise TrecFormatError(
                path,
                number,
                f"{n} fields where the first line has {width}:"
                " either every line has the tag or none has",
                _text(line),
            )
        ids = (0, 2, 5) if use_tag and n == 6 else (0, 2)
        names = [{0: "query id", 2: "document id", 5: "tag"}[i] for i in ids]
        _check_utf8(path, number, line, tokens, ids, names)
        _check_score(path, number, tokens[4][1], line)
        _check_repeat(path, number, line, tokens, (0, 2), seen, "retrieved twice")
    if width is None:
        raise TrecFormatError(path, None, "empty run file: no retrieved documents")


def _check_repeat(path: str, number: int, line: bytes, tokens, ids, seen, what: str) -> None:
    """Refuse the second line naming the same (query, [subtopic,] document)."""
    key = tuple(tokens[i][1] for i in ids)
    if key in seen:
        raise TrecFormatError(
            path,
            number,
            f"document {key[-1].decode()!r} {what} for query {key[0].decode()!r}",
            _text(line),
        )
    seen.add(key)


def _unreadable(path: str, exc: Exception) -> TrecFormatError:
    """The error when the fast parser failed but no line could be blamed:
    still names the file."""
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return TrecFormatError(path, None, f"cannot be parsed ({message})")


def _line_numbers(data: bytes, *, comments: bool = True) -> np.ndarray:
    """1-based line number of each data row (as counted by the parsers).

    Comment lines never count (``comments`` is kept for callers: every TREC
    file may hold comments).
    """
    numbers = []
    for number, line in enumerate(bytes(data).split(b"\n"), start=1):
        s = line.strip(b" \t\r")
        if s and not s.startswith(b"#"):
            numbers.append(number)
    return np.asarray(numbers, dtype=np.int64)


def _grades(column: pa.ChunkedArray | pa.Array) -> np.ndarray | None:
    """Grades parsed from their text, or None if one is not a plain decimal
    integer within [-GRADE_MAX, GRADE_MAX] (the caller then diagnoses)."""
    if pc.any(pc.invert(pc.match_substring_regex(column, r"^-?[0-9]+$"))).as_py():
        return None
    try:
        grade = pc.cast(column, pa.int64())
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    if isinstance(grade, pa.ChunkedArray):
        grade = grade.combine_chunks()
    grade = grade.to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    if len(grade) and (grade.max() > GRADE_MAX or grade.min() < -GRADE_MAX):
        return None
    return grade


def read_qrels(path: PathLike) -> Qrels:
    """Read TREC qrels ``qid iter docid grade`` (plain or ``.gz``), a
    ``.csv``/``.tsv``/``.jsonl``/``.parquet`` table (:mod:`irpref.io.tables`), or
    ``irds:DATASET-ID`` (qrels through ir_datasets)."""
    if isinstance(path, str) and path.startswith("irds:"):
        from irpref.interop.ir_datasets import load_qrels
        return load_qrels(path)
    path = str(path)
    from irpref.io.tables import read_table_qrels, table_format

    if table_format(path):
        return read_table_qrels(path)
    raw = _read_bytes(path)
    data = _normalise(_strip_comments(raw))
    if _empty(data):
        raise TrecFormatError(path, None, "empty qrels file: no judgements")
    try:
        table = _csv(
            data,
            ["query", "iter", "doc", "grade"],
            {"query": pa.string(), "doc": pa.string(), "grade": pa.string()},
        )
        grade = _grades(table["grade"])
        if grade is None:
            raise pa.ArrowInvalid("a grade is not a decimal integer in range")
    except pa.ArrowException as exc:
        _diagnose_qrels(raw, path)
        raise _unreadable(path, exc) from None
    qrels = Qrels(
        table["query"].combine_chunks(),
        table["doc"].combine_chunks(),
        grade,
        source=path,
    )
    _check_unique_pairs(qrels.query, qrels.doc, path, raw, comments=True, what="judged twice")
    return qrels


def _single(column: pa.ChunkedArray) -> pa.Array:
    """The column as one array (no copy when it is one chunk already)."""
    return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()


def read_run(
    path: PathLike,
    name: str | None = None,
    *,
    use_tag: bool = False,
    check_duplicates: bool = True,
) -> Run:
    """Read a TREC run ``qid Q0 docid rank score [tag]`` (plain or ``.gz``).

    The run is named ``name``, else its tag column if ``use_tag``, else
    :func:`run_name_from_path`. The same document twice in one query is an
    error, as in trec_eval; ``check_duplicates=False`` leaves that check to
    :func:`irpref.interning.intern`, which every evaluation runs (and which
    checks document keys, cheaper than strings).
    """
    return _read_run(path, name, use_tag, check_duplicates, whole=False)


def _read_run(
    path: PathLike, name: str | None, use_tag: bool, check_duplicates: bool, *, whole: bool
) -> Run:
    """:func:`read_run`; ``whole``: parse the file as one block without inner
    threads (for callers that read several files in parallel)."""
    path = str(path)
    from irpref.io.tables import read_table_run, table_format

    if table_format(path):
        return read_table_run(path, name, use_tag=use_tag, check_duplicates=check_duplicates)
    raw = _read_buffer(path)
    data = _normalise(_strip_comments(raw))
    if _empty(data):
        raise TrecFormatError(path, None, "empty run file: no retrieved documents")
    start = 1 if data[:1] == b"\n" else 0  # see _normalise: a leading BOM kept as data
    first = data[start : data.find(b"\n", start)]
    n_fields = first.count(b" ") + 1
    names = ["query", "q0", "doc", "rank", "score", "tag"][: max(5, min(n_fields, 6))]
    types = {"query": pa.string(), "doc": pa.string(), "score": pa.float64()}
    if use_tag and len(names) == 6:
        types["tag"] = pa.string()
    try:
        table = _csv(data, names, types, whole=whole)
        score = _single(table["score"]).to_numpy(zero_copy_only=False)
        if table["score"].null_count or np.isnan(score).any():
            raise pa.ArrowInvalid("NaN or missing score")
    except pa.ArrowException as exc:
        _diagnose_run(raw, path, use_tag)
        raise _unreadable(path, exc) from None
    tag = None
    if "tag" in types:
        tags = pc.unique(table["tag"]).to_pylist()
        tag = tags[0] if len(tags) == 1 else None
        if tag is None:
            row = int(np.flatnonzero(pc.not_equal(table["tag"], tags[0]).to_numpy(
                zero_copy_only=False))[0])
            numbers = _line_numbers(raw)
            raise TrecFormatError(
                path,
                int(numbers[row]) if row < len(numbers) else None,
                f"tag {table['tag'][row].as_py()!r} differs from the first line's {tags[0]!r}:"
                f" the tag column holds {len(tags)} names, not one",
            )
    run = Run(
        name=name or tag or run_name_from_path(path),
        query=_single(table["query"]),
        doc=_single(table["doc"]),
        score=score,
        source=path,
        tag=tag,
    )
    if check_duplicates:
        _check_unique_pairs(
            run.query, run.doc, path, raw, comments=False, what="retrieved twice"
        )
    return run


def read_runs(
    paths: Sequence[PathLike],
    *,
    use_tag: bool = False,
    threads: int | None = None,
    check_duplicates: bool = True,
) -> list[Run]:
    """Read several run files (each as :func:`read_run`) on a pool of threads.

    Parsing, hashing and NumPy work release the GIL, so files are read in
    parallel; ``threads`` defaults to the CPUs available (at most 4). Runs
    come back in the order of ``paths``; the first failing file in that order
    raises its error.
    """
    paths = list(paths)
    if threads is None:
        try:
            threads = len(os.sched_getaffinity(0))
        except AttributeError:  # pragma: no cover - not Linux
            threads = os.cpu_count() or 1
        threads = min(threads, 4)
    threads = max(1, min(threads, len(paths)))
    from irpref import progress

    if threads == 1:
        return [_read_run(p, None, use_tag, check_duplicates, whole=False)
                for p in progress.track(paths, len(paths), "reading runs", "run")]
    pool = ThreadPoolExecutor(threads, thread_name_prefix="irpref-read")
    futures = [
        pool.submit(_read_run, p, None, use_tag, check_duplicates, whole=True) for p in paths
    ]
    try:
        return [f.result() for f in progress.track(futures, len(futures), "reading runs", "run")]
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _check_unique_pairs(
    query: pa.Array, doc: pa.Array, path: str, raw: bytes | None, *, comments: bool, what: str
) -> None:
    """Raise if a (query, doc) pair occurs twice, naming the second line.

    Fast path: 64-bit hashes of the pairs; equal pairs have equal hashes, so
    distinct hashes prove the pairs distinct. Only when two hashes coincide
    (a duplicate, or a hash collision) are the strings compared exactly.
    """
    if len(query) < 2:
        return
    q_hash = query_keys(query)
    if q_hash is not None:
        key = hash_strings(doc) ^ q_hash
        if pd.Index(key).is_unique:
            return
    q = pc.dictionary_encode(query).indices.to_numpy().astype(np.int64)
    d = pc.dictionary_encode(doc).indices.to_numpy().astype(np.int64)
    key = q * (int(d.max(initial=0)) + 1) + d
    if pd.Index(key).is_unique:
        return
    order = np.argsort(key, kind="stable")
    dup = np.flatnonzero(key[order][1:] == key[order][:-1])
    if len(dup) == 0:
        return
    rows = order[dup + 1]
    row = int(rows.min())
    line = _row_line(path, raw, row)
    raise TrecFormatError(
        path,
        line,
        f"document {doc[row].as_py()!r} {what} for query {query[row].as_py()!r}"
        f" ({len(dup)} duplicate pair(s) in the file)",
    )


def _row_line(path: str, raw: bytes | None, row: int) -> int | None:
    """The line of data row ``row`` (0-based) of a file, if known."""
    from irpref.io.tables import row_lines, table_format

    if table_format(path):
        try:
            numbers = row_lines(path)
        except InputError:
            return None
    elif raw is not None:
        numbers = _line_numbers(raw)
    else:
        return None
    return int(numbers[row]) if row < len(numbers) else None
