"""TREC files as bytes and lines: reading, normalising, and the line checks
that name the first offending line (the rules are listed in :mod:`irpref.io.trec`).

The fast path (:func:`parse_csv`: normalised bytes parsed by pyarrow's CSV reader)
and the careful line-by-line diagnosis that runs only when it fails, plus the
check that no (query, document) pair occurs twice.
"""

from __future__ import annotations

import gzip
import mmap
import os
import re
import stat
import sys
import zlib
from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from irpref.io.hashing import hash_strings, query_keys
from irpref.io.records import GRADE_MAX, PathLike, TrecFormatError

_SCORE = re.compile(
    rb"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?)\Z"
)
_NAN = re.compile(rb"[+-]?[nN][aA][nN]\Z")
_GRADE = re.compile(rb"-?[0-9]+\Z")
_TOKEN = re.compile(rb"[^ \t\r]+")
_BOM = b"\xef\xbb\xbf"


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


def read_bytes(path: PathLike) -> bytes:
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




_MMAP_MIN = 1 << 20  # map files from 1 MB: no copy into fresh memory


def read_buffer(path: PathLike) -> bytes | mmap.mmap:
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
    return read_bytes(path)


_COMMENT = re.compile(rb"(?m)^[ \t\r]*#")


def normalise(data: bytes | mmap.mmap) -> bytes | mmap.mmap:
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


def is_empty(data: bytes) -> bool:
    """Normalised data holds no row (no copy, unlike ``not data.strip()``)."""
    return len(data) <= 1 and not data[:1].strip()


def strip_comments(data: bytes | mmap.mmap) -> bytes | mmap.mmap:
    """Drop comment lines (first non-blank character ``#``); data without a
    ``#`` byte is returned as it is, after one ``memchr`` pass."""
    if data.find(b"#") < 0 or not _COMMENT.search(data):
        return data
    return b"\n".join(
        line for line in bytes(data).split(b"\n") if not line.lstrip(b" \t\r").startswith(b"#")
    )


_BLOCK_SIZE = 1 << 22  # 4 MB: several blocks per typical run file, parsed in parallel
_WHOLE_MAX = 1 << 28  # up to 256 MB a file is one block when files are read in parallel


def parse_csv(
    buffer: bytes | mmap.mmap,
    names: list[str],
    types: dict[str, pa.DataType],
    *,
    whole: bool = False,
) -> pa.Table:
    """Parse normalised bytes. ``whole``: one block (the caller parses files
    in parallel): the columns come out as single chunks, used without a copy.

    Never on Arrow's threads (``use_threads=False``): the bytes are a Python
    object, and a block an Arrow worker still holds when the call returns is
    released on that worker, which must take the GIL; if the interpreter is
    exiting by then, the worker is ended by ``pthread_exit`` inside C++ code
    and the process aborts (``terminate called without an active
    exception``, exit 134) after printing correct output. Parsing is
    memory-bound: one thread reads a 200,000-line run in the same 27 ms."""
    block = min(len(buffer) + 1, _WHOLE_MAX) if whole else _BLOCK_SIZE
    return pcsv.read_csv(
        pa.BufferReader(pa.py_buffer(buffer)),
        read_options=pcsv.ReadOptions(
            column_names=names, block_size=max(block, 1 << 16), use_threads=False
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


def diagnose_qrels(
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


def diagnose_run(data: bytes, path: str, use_tag: bool = False) -> None:
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


def unreadable(path: str, exc: Exception) -> TrecFormatError:
    """The error when the fast parser failed but no line could be blamed:
    still names the file."""
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return TrecFormatError(path, None, f"cannot be parsed ({message})")


def line_numbers(data: bytes) -> np.ndarray:
    """1-based line number of each data row (as counted by the parsers): blank
    and comment (``#``) lines are not data rows."""
    numbers = []
    for number, line in enumerate(bytes(data).split(b"\n"), start=1):
        s = line.strip(b" \t\r")
        if s and not s.startswith(b"#"):
            numbers.append(number)
    return np.asarray(numbers, dtype=np.int64)


def parse_grades(column: pa.ChunkedArray | pa.Array) -> np.ndarray | None:
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




def _distinct(key: np.ndarray) -> bool:
    """No two keys equal: pandas' hash table where pandas is loaded already, a sort
    where it is not (pandas is imported only where it is used)."""
    pd = sys.modules.get("pandas")
    if pd is not None:
        return bool(pd.Index(key).is_unique)
    ordered = np.sort(key)
    return not bool(np.any(ordered[1:] == ordered[:-1]))


def check_unique_pairs(
    query: pa.Array, doc: pa.Array, path: str,
    line_of: Callable[[int], int | None] | None = None, *, what: str
) -> None:
    """Raise if a (query, doc) pair occurs twice, naming the second line
    (``line_of(row)``: the line of a 0-based data row, e.g.
    :func:`irpref.io.tables.row_line`; None: no line known).

    Fast path: 64-bit hashes of the pairs; equal pairs have equal hashes, so
    distinct hashes prove the pairs distinct. Only when two hashes coincide
    (a duplicate, or a hash collision) are the strings compared exactly.
    """
    if len(query) < 2:
        return
    q_hash = query_keys(query)
    if q_hash is not None:
        key = hash_strings(doc) ^ q_hash
        if _distinct(key):
            return
    q = pc.dictionary_encode(query).indices.to_numpy().astype(np.int64)
    d = pc.dictionary_encode(doc).indices.to_numpy().astype(np.int64)
    key = q * (int(d.max(initial=0)) + 1) + d
    if _distinct(key):
        return
    order = np.argsort(key, kind="stable")
    dup = np.flatnonzero(key[order][1:] == key[order][:-1])
    if len(dup) == 0:
        return
    rows = order[dup + 1]
    row = int(rows.min())
    line = line_of(row) if line_of is not None else None
    where = "" if line is not None else f"row {row}: "  # a table in memory: its row
    raise TrecFormatError(
        path,
        line,
        f"{where}document {doc[row].as_py()!r} {what} for query {query[row].as_py()!r}"
        f" ({len(dup)} duplicate pair(s) in the file)",
    )
