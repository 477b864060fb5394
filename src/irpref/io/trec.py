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
extension is built: :mod:`irpref.judging.scan` checks each file by these same rules
while judging it in one pass, and hands any file it refuses back to this
reader, which names the problem.
"""


from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import irpref.runtime.progress as progress
from irpref.io.columns import Columns
from irpref.io.lines import (
    check_unique_pairs,
    diagnose_qrels,
    diagnose_run,
    is_empty,
    line_numbers,
    normalise,
    parse_csv,
    parse_grades,
    read_buffer,
    read_bytes,
    strip_comments,
    unreadable,
)
from irpref.io.records import PathLike, Qrels, Run, TrecFormatError, run_name_from_path
from irpref.io.tables import read_table_qrels, read_table_run, row_line, table_format
from irpref.runtime.threads import IO_CAP, worker_count

__all__ = ["QRELS_SOURCES", "read_qrels", "read_run", "read_runs"]

QRELS_SOURCES: dict[str, Callable[[str], Qrels]] = {}
"""Readers of qrels named ``PREFIX...`` rather than by a file path, by prefix.
A higher layer registers its own: :mod:`irpref.interop.ir_datasets` adds
``irds:`` (qrels through ir_datasets) when the package is imported."""


def read_qrels(path: PathLike, *, columns: Columns | None = None) -> Qrels:
    """Read relevance judgments from a file.

    TREC qrels ``qid iter docid grade`` (plain or ``.gz``), a ``.csv``,
    ``.tsv``, ``.jsonl`` or ``.parquet`` table with named columns, or
    ``irds:DATASET-ID`` (qrels through ir_datasets). A file that cannot be read
    exactly is refused naming the file, the line and the problem.

    Parameters
    ----------
    path : str or os.PathLike
        The file, or ``irds:DATASET-ID``.
    columns : dict, optional
        Which column of a table holds each role (``{"query": "user_id", "doc":
        "item_id", "grade": "rating"}``); a role left out is found by its usual
        names.

    Returns
    -------
    Qrels
        One row per judged (query, document).

    Raises
    ------
    InputError
        A malformed line, a grade that is not an integer, an empty or corrupt
        file, a missing file or column (``TrecFormatError`` for TREC files).

    Examples
    --------
    >>> import irpref
    >>> from irpref import examples
    >>> qrels = irpref.read_qrels(examples.qrels_path())
    >>> len(qrels.query), int(qrels.grade.max())
    (9260, 3)
    """
    if isinstance(path, str):
        for prefix, reader in QRELS_SOURCES.items():
            if path.startswith(prefix):
                return reader(path)
    path = str(path)
    if table_format(path, columns):
        return read_table_qrels(path, columns=columns)
    raw = read_bytes(path)
    data = normalise(strip_comments(raw))
    if is_empty(data):
        raise TrecFormatError(path, None, "empty qrels file: no judgements")
    try:
        table = parse_csv(
            data,
            ["query", "iter", "doc", "grade"],
            {"query": pa.string(), "doc": pa.string(), "grade": pa.string()},
        )
        grade = parse_grades(table["grade"])
        if grade is None:
            raise pa.ArrowInvalid("a grade is not a decimal integer in range")
    except pa.ArrowException as exc:
        diagnose_qrels(raw, path)
        raise unreadable(path, exc) from None
    qrels = Qrels(
        table["query"].combine_chunks(),
        table["doc"].combine_chunks(),
        grade,
        source=path,
    )
    check_unique_pairs(qrels.query, qrels.doc, path, partial(row_line, path, raw),
                        what="judged twice")
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
    columns: Columns | None = None,
) -> Run:
    """Read a run from a file.

    A TREC run ``qid Q0 docid rank score [tag]`` (plain or ``.gz``) or a table
    (``.csv``, ``.tsv``, ``.jsonl``, ``.parquet``). Documents are ranked by
    score later; the rank column is not read. The same document twice in one
    query is an error, as in trec_eval.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    name : str, optional
        The run's name; default its tag column with ``use_tag``, else the file
        name (without directory, ``input.`` prefix and ``.gz``/``.txt``/``.run``/
        ``.trec``/``.tsv``).
    use_tag : bool, default False
        Name the run by its tag column.
    check_duplicates : bool, default True
        Refuse a document twice in one query here; False leaves the check to
        `intern`, which every evaluation runs.
    columns : dict, optional
        Which column of a table holds each role.

    Returns
    -------
    Run
        One row per retrieved (query, document, score), in file order.

    Raises
    ------
    InputError
        A malformed line, a score that is not a number, a repeated document,
        an empty or corrupt file (``TrecFormatError`` for TREC files).

    Examples
    --------
    >>> import irpref
    >>> from irpref import examples
    >>> run = irpref.read_run(examples.run_paths()[0])
    >>> run.name, len(run.query)
    ('TUA1-1', 4142)
    """
    return _read_run(path, name, use_tag, check_duplicates, whole=False, columns=columns)


def _read_run(
    path: PathLike, name: str | None, use_tag: bool, check_duplicates: bool, *, whole: bool,
    columns: Columns | None = None,
) -> Run:
    """:func:`read_run`; ``whole``: parse the file as one block without inner
    threads (for callers that read several files in parallel)."""
    path = str(path)
    if table_format(path, columns):
        return read_table_run(path, name, use_tag=use_tag, check_duplicates=check_duplicates,
                              columns=columns)
    raw = read_buffer(path)
    data = normalise(strip_comments(raw))
    if is_empty(data):
        raise TrecFormatError(path, None, "empty run file: no retrieved documents")
    start = 1 if data[:1] == b"\n" else 0  # see normalise: a leading BOM kept as data
    first = data[start : data.find(b"\n", start)]
    n_fields = first.count(b" ") + 1
    names = ["query", "q0", "doc", "rank", "score", "tag"][: max(5, min(n_fields, 6))]
    types = {"query": pa.string(), "doc": pa.string(), "score": pa.float64()}
    if use_tag and len(names) == 6:
        types["tag"] = pa.string()
    try:
        table = parse_csv(data, names, types, whole=whole)
        score = _single(table["score"]).to_numpy(zero_copy_only=False)
        if table["score"].null_count or np.isnan(score).any():
            raise pa.ArrowInvalid("NaN or missing score")
    except pa.ArrowException as exc:
        diagnose_run(raw, path, use_tag)
        raise unreadable(path, exc) from None
    tag = None
    if "tag" in types:
        tags = pc.unique(table["tag"]).to_pylist()
        tag = tags[0] if len(tags) == 1 else None
        if tag is None:
            row = int(np.flatnonzero(pc.not_equal(table["tag"], tags[0]).to_numpy(
                zero_copy_only=False))[0])
            numbers = line_numbers(raw)
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
        check_unique_pairs(run.query, run.doc, path, partial(row_line, path, raw),
                            what="retrieved twice")
    return run


def read_runs(
    paths: Sequence[PathLike],
    *,
    use_tag: bool = False,
    threads: int | None = None,
    check_duplicates: bool = True,
    columns: Columns | None = None,
) -> list[Run]:
    """Read several run files (each as :func:`read_run`) on a pool of threads.

    Parsing, hashing and NumPy work release the GIL, so files are read in
    parallel; ``threads`` defaults to :func:`irpref.runtime.threads.worker_count`
    (at most 4). Runs come back in the order of ``paths``; the first failing
    file in that order raises its error.
    """
    paths = list(paths)
    threads = max(1, min(worker_count(IO_CAP) if threads is None else threads, len(paths)))
    if threads == 1:
        return [_read_run(p, None, use_tag, check_duplicates, whole=False, columns=columns)
                for p in progress.track(paths, len(paths), "reading runs", "run")]
    pool = ThreadPoolExecutor(threads, thread_name_prefix="irpref-read")
    futures = [
        pool.submit(_read_run, p, None, use_tag, check_duplicates, whole=True, columns=columns)
        for p in paths
    ]
    try:
        return [f.result() for f in progress.track(futures, len(futures), "reading runs", "run")]
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


