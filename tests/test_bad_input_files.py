"""Bad and edge-case input files: each is refused with its file, line and
problem, or read to exactly the right values (the input contract).

Three parts:

- ``CASES``: a table of hand-made files (TREC runs and qrels, plain and gzip,
  CSV/TSV/JSONL/Parquet), each with the exact error (line, phrase) or the
  exact value (AP of a small collection, or the parsed scores/grades);
- hypothesis: random valid files, corrupted (truncated, bytes flipped, fields
  dropped or repeated, NaN / huge numbers inserted, separators mixed), must be
  refused at exactly the line a slow line-by-line reference parser (below)
  names, or read to exactly its values;
- a few cases through the installed ``irpref evaluate`` command.
"""

from __future__ import annotations

import gzip
import math
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import irpref_cli
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

import irpref
from irpref.errors import InputError
from irpref.io.records import GRADE_MAX
from irpref.io.trec import read_qrels, read_run, read_runs

QRELS = b"q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\n"
RUN = b"q1 Q0 d2 1 3 r\nq1 Q0 d1 2 2 r\nq1 Q0 d3 3 1 r\n"
AP = (1 / 2 + 2 / 3) / 2  # d2 non-relevant first, then d1 and d3 relevant
AP_PERFECT = 1.0


def err(line, phrase):
    return ("err", line, phrase)


def ap(value):
    return ("ap", value)


def scores(values):
    return ("scores", values)


def grades(values):
    return ("grades", values)


def gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def parquet(frame):
    def write(path: Path) -> None:
        if isinstance(frame, pa.Table):
            pq.write_table(frame, path)
        else:
            frame.to_parquet(path)

    return write


def run_lines(*lines: str) -> bytes:
    return ("\n".join(lines) + "\n").encode()


# (id, kind: the file under test is the run or the qrels, file name, content, expected)
CASES = [
    # ---- TREC runs: accepted correctly
    ("run-clean", "run", "r.txt", RUN, ap(AP)),
    ("run-5-columns", "run", "r.txt", b"q1 Q0 d2 1 3\nq1 Q0 d1 2 2\nq1 Q0 d3 3 1\n", ap(AP)),
    ("run-tabs-and-spaces", "run", "r.txt", RUN.replace(b" ", b" \t  "), ap(AP)),
    ("run-crlf", "run", "r.txt", RUN.replace(b"\n", b"\r\n"), ap(AP)),
    ("run-no-final-newline", "run", "r.txt", RUN.rstrip(b"\n"), ap(AP)),
    ("run-blank-lines", "run", "r.txt", b"\n\n" + RUN.replace(b"\n", b"\n  \n"), ap(AP)),
    ("run-bom", "run", "r.txt", b"\xef\xbb\xbf" + RUN, ap(AP)),
    ("run-comment-first", "run", "r.txt", b"# produced by bm25\n" + RUN, ap(AP)),
    ("run-comment-indented", "run", "r.txt", RUN.replace(b"\nq1 Q0 d1", b"\n  # x\nq1 Q0 d1"),
     ap(AP)),
    ("run-hash-inside-docid", "run", "r.txt", RUN.replace(b"d2", b"d#2"), ap(AP)),
    ("run-gzip", "run", "r.gz", gz(RUN), ap(AP)),
    ("run-gzip-bom-crlf", "run", "r.txt.gz", gz(b"\xef\xbb\xbf" + RUN.replace(b"\n", b"\r\n")),
     ap(AP)),
    ("run-inf-score", "run", "r.txt", RUN.replace(b" 3 r", b" inf r"), ap(AP)),
    ("run-minus-inf-score", "run", "r.txt", RUN.replace(b" 3 r", b" -inf r"), ap(AP_PERFECT)),
    ("run-overflow-is-inf", "run", "r.txt", RUN.replace(b" 3 r", b" -1e999 r"), ap(AP_PERFECT)),
    ("run-rank-column-ignored", "run", "r.txt", RUN.replace(b" 1 3", b" x 3"), ap(AP)),
    ("run-q0-not-utf8-ignored", "run", "r.txt", RUN.replace(b"Q0", b"Q\xff", 1), ap(AP)),
    ("run-unused-tag-not-utf8", "run", "r.txt", RUN.replace(b" r\n", b" \xffr\n"), ap(AP)),
    ("run-utf8-ids", "run", "r.txt", RUN.replace(b"d2", "dé2".encode()), ap(AP)),
    ("run-score-forms", "run", "r.txt",
     run_lines("q1 Q0 a 1 +1.5 r", "q1 Q0 b 1 .5 r", "q1 Q0 c 1 5. r", "q1 Q0 d 1 1E+2 r",
               "q1 Q0 e 1 -2e-3 r", "q1 Q0 f 1 Infinity r", "q1 Q0 g 1 007 r",
               "q1 Q0 h 1 1e-400 r"),
     scores([1.5, 0.5, 5.0, 100.0, -2e-3, math.inf, 7.0, 0.0])),
    # ---- TREC runs: refused clearly
    ("run-mixed-6-then-5", "run", "r.txt", b"q1 Q0 d2 1 3 r\nq1 Q0 d1 2 2\n",
     err(2, "5 fields where the first line has 6")),
    ("run-mixed-5-then-6", "run", "r.txt", b"q1 Q0 d2 1 3\nq1 Q0 d1 2 2\nq1 Q0 d3 3 1 r\n",
     err(3, "6 fields where the first line has 5")),
    ("run-4-fields", "run", "r.txt", b"q1 Q0 d2 1 3 r\nq1 Q0 d1 2\n", err(2, "got 4")),
    ("run-7-fields", "run", "r.txt", b"q1 Q0 d2 1 3 r x\n", err(1, "got 7")),
    ("run-1-field-vtab", "run", "r.txt", RUN + b"\x0b\n", err(4, "got 1")),
    ("run-score-word", "run", "r.txt", RUN.replace(b" 2 r", b" abc r"),
     err(2, "score 'abc' is not a number")),
    ("run-score-nan", "run", "r.txt", RUN.replace(b" 2 r", b" nan r"), err(2, "score is NaN")),
    ("run-score-NaN", "run", "r.txt", RUN.replace(b" 1 r", b" NaN r"), err(3, "score is NaN")),
    ("run-score-minus-nan", "run", "r.txt", RUN.replace(b" 3 r", b" -nan r"),
     err(1, "score is NaN")),
    ("run-score-underscore", "run", "r.txt", RUN.replace(b" 3 r", b" 2_0 r"),
     err(1, "score '2_0' is not a number")),
    ("run-score-hex", "run", "r.txt", RUN.replace(b" 3 r", b" 0x10 r"),
     err(1, "score '0x10' is not a number")),
    ("run-score-comma", "run", "r.txt", RUN.replace(b" 3 r", b" 1,5 r"),
     err(1, "score '1,5' is not a number")),
    ("run-score-null-word", "run", "r.txt", RUN.replace(b" 3 r", b" null r"),
     err(1, "score 'null' is not a number")),
    ("run-score-NA", "run", "r.txt", RUN.replace(b" 3 r", b" NA r"),
     err(1, "score 'NA' is not a number")),
    ("run-header-line", "run", "r.txt", b"qid Q0 docno rank score tag\n" + RUN,
     err(1, "score 'score' is not a number")),
    ("run-comment-keeps-line-numbers", "run", "r.txt", b"# c\n\nq1 Q0 d1 1 x r\n",
     err(3, "score 'x' is not a number")),
    ("run-bad-utf8-docid", "run", "r.txt", RUN.replace(b"d1", b"d\xff1"),
     err(2, "invalid UTF-8 in the document id at byte 8 of the line (byte 0xff)")),
    ("run-bad-utf8-query", "run", "r.txt", RUN.replace(b"q1 Q0 d3", b"q\xc3 Q0 d3"),
     err(3, "invalid UTF-8 in the query id at byte 2")),
    ("run-utf16", "run", "r.txt", RUN.decode().encode("utf-16"), err(1, "invalid UTF-8")),
    ("run-duplicate-doc", "run", "r.txt", RUN + b"q1 Q0 d1 4 0 r\n",
     err(4, "'d1' retrieved twice for query 'q1'")),
    ("run-duplicate-after-comment", "run", "r.txt",
     b"# c\nq1 Q0 d1 1 2 r\n# c\nq1 Q0 d1 2 1 r\n", err(4, "retrieved twice")),
    ("run-empty", "run", "r.txt", b"", err(None, "empty run file")),
    ("run-blank-only", "run", "r.txt", b"\n \t\r\n\n", err(None, "empty run file")),
    ("run-comments-only", "run", "r.txt", b"# a\n# b\n", err(None, "empty run file")),
    ("run-gzip-truncated", "run", "r.gz", gz(RUN)[:25], err(None, "corrupt gzip data")),
    ("run-gzip-garbage", "run", "r.gz", b"\x1f\x8b" + b"junk" * 10, err(None, "corrupt gzip")),
    ("run-gzip-empty", "run", "r.gz", gz(b""), err(None, "empty run file")),
    ("run-gzip-bad-line", "run", "r.gz", gz(RUN + b"q1 Q0 d9 4\n"), err(4, "got 4")),
    ("run-missing-file", "run", None, b"", err(None, "no such file")),
    ("run-directory", "run", "dir", None, err(None, "is a directory")),
    # ---- TREC qrels: accepted correctly
    ("qrels-clean", "qrels", "q.txt", QRELS, ap(AP)),
    ("qrels-comments", "qrels", "q.txt", b"# judged\n" + QRELS + b"   # end\n", ap(AP)),
    ("qrels-crlf-bom", "qrels", "q.txt", b"\xef\xbb\xbf" + QRELS.replace(b"\n", b"\r\n"), ap(AP)),
    ("qrels-gzip", "qrels", "q.gz", gz(QRELS), ap(AP)),
    ("qrels-iter-column-ignored", "qrels", "q.txt", QRELS.replace(b" 0 ", b" Q0 "), ap(AP)),
    ("qrels-grade-max", "qrels", "q.txt", QRELS.replace(b"d1 1", b"d1 2147483647"), ap(AP)),
    ("qrels-grade-min", "qrels", "q.txt", QRELS.replace(b"d2 0", b"d2 -2147483647"), ap(AP)),
    ("qrels-leading-zeros", "qrels", "q.txt", QRELS.replace(b"d1 1", b"d1 0001"),
     grades([1, 0, 1])),
    ("qrels-minus-zero", "qrels", "q.txt", QRELS.replace(b"d2 0", b"d2 -0"), grades([1, 0, 1])),
    ("qrels-negative-kept", "qrels", "q.txt", QRELS.replace(b"d2 0", b"d2 -1"),
     grades([1, -1, 1])),
    # ---- TREC qrels: refused clearly
    ("qrels-grade-plus", "qrels", "q.txt", QRELS.replace(b"d3 1", b"d3 +2"),
     err(3, "grade '+2' is not an integer")),
    ("qrels-grade-underscore", "qrels", "q.txt", QRELS.replace(b"d3 1", b"d3 2_0"),
     err(3, "grade '2_0' is not an integer")),
    ("qrels-grade-hex", "qrels", "q.txt", QRELS.replace(b"d1 1", b"d1 0x10"),
     err(1, "grade '0x10' is not an integer")),
    ("qrels-grade-float", "qrels", "q.txt", QRELS.replace(b"d1 1", b"d1 1.0"),
     err(1, "grade '1.0' is not an integer")),
    ("qrels-grade-fullwidth-digit", "qrels", "q.txt", QRELS.replace(b"d1 1", "d1 １".encode()),
     err(1, "is not an integer")),
    ("qrels-grade-nan", "qrels", "q.txt", QRELS.replace(b"d1 1", b"d1 NaN"),
     err(1, "grade 'NaN' is not an integer")),
    ("qrels-grade-2pow32", "qrels", "q.txt", QRELS.replace(b"d1 1", b"d1 4294967296"),
     err(1, "grade 4294967296 is out of range")),
    ("qrels-grade-3e9", "qrels", "q.txt", QRELS.replace(b"d3 1", b"d3 3000000000"),
     err(3, "grade 3000000000 is out of range")),
    ("qrels-grade-int32-min", "qrels", "q.txt", QRELS.replace(b"d2 0", b"d2 -2147483648"),
     err(2, "grade -2147483648 is out of range")),
    ("qrels-grade-beyond-int64", "qrels", "q.txt",
     QRELS.replace(b"d2 0", b"d2 99999999999999999999"), err(2, "is out of range")),
    ("qrels-3-fields", "qrels", "q.txt", QRELS + b"q1 d4 1\n", err(4, "expected 4 fields")),
    ("qrels-5-fields", "qrels", "q.txt", b"q1 0 d4 1 x\n" + QRELS, err(1, "got 5")),
    ("qrels-duplicate", "qrels", "q.txt", QRELS + b"q1 0 d1 0\n",
     err(4, "'d1' judged twice for query 'q1'")),
    ("qrels-bad-utf8", "qrels", "q.txt", QRELS.replace(b"d3", b"d\xe93"),
     err(3, "invalid UTF-8 in the docid at byte 7")),
    ("qrels-empty", "qrels", "q.txt", b"", err(None, "empty qrels file")),
    ("qrels-comments-only", "qrels", "q.txt", b"# nothing\n", err(None, "empty qrels file")),
    ("qrels-gzip-truncated", "qrels", "q.gz", gz(QRELS)[:-6], err(None, "corrupt gzip")),
    ("qrels-missing-file", "qrels", None, b"", err(None, "no such file")),
    ("qrels-directory", "qrels", "dir", None, err(None, "is a directory")),
    # ---- tables: accepted correctly
    ("run-csv", "run", "r.csv", b"qid,docno,score\nq1,d2,3\nq1,d1,2\nq1,d3,1\n", ap(AP)),
    ("run-csv-gz", "run", "r.csv.gz", gz(b"qid,docno,score\nq1,d2,3\nq1,d1,2\nq1,d3,1\n"),
     ap(AP)),
    ("run-csv-quoted", "run", "r.csv",
     b'query_id,doc_id,score\nq1,"d2",3\n"q1",d1,2\nq1,d3,"1"\n', ap(AP)),
    ("run-csv-extra-columns", "run", "r.csv",
     b"rank,QID,DocNo,Score,note\n1,q1,d2,3,x\n2,q1,d1,2,y\n3,q1,d3,1,z\n", ap(AP)),
    ("run-tsv-header", "run", "r.tsv", b"qid\tdocno\tscore\nq1\td2\t3\nq1\td1\t2\nq1\td3\t1\n",
     ap(AP)),
    ("run-tsv-crlf", "run", "r.tsv",
     b"qid\tdocno\tscore\r\nq1\td2\t3\r\nq1\td1\t2\r\nq1\td3\t1\r\n", ap(AP)),
    ("run-tsv-without-header-is-trec", "run", "r.tsv", RUN.replace(b" ", b"\t"), ap(AP)),
    ("run-jsonl", "run", "r.jsonl",
     b'{"qid": "q1", "docno": "d2", "score": 3}\n\n{"qid": "q1", "docno": "d1", "score": 2.0}\n'
     b'{"qid": "q1", "docno": "d3", "score": 1}\n', ap(AP)),
    ("run-jsonl-int-ids", "run", "r.jsonl",
     b'{"qid": 7, "docno": 2, "score": 1}\n{"qid": 7, "docno": 10, "score": Infinity}\n',
     scores([1.0, math.inf])),
    ("run-parquet", "run", "r.parquet",
     parquet(pd.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["d2", "d1", "d3"],
                           "score": [3.0, 2.0, 1.0]})), ap(AP)),
    ("qrels-csv", "qrels", "q.csv", b"qid,docno,label\nq1,d1,1\nq1,d2,0\nq1,d3,1\n", ap(AP)),
    ("qrels-jsonl-integral-float", "qrels", "q.jsonl",
     b'{"query_id":"q1","doc_id":"d1","relevance":1.0}\n'
     b'{"query_id":"q1","doc_id":"d2","relevance":0}\n'
     b'{"query_id":"q1","doc_id":"d3","relevance":1}\n', ap(AP)),
    ("qrels-parquet", "qrels", "q.parquet",
     parquet(pd.DataFrame({"qid": ["q1"] * 3, "docno": ["d1", "d2", "d3"],
                           "grade": [1, 0, 1]})), ap(AP)),
    # ---- tables: refused clearly
    ("run-csv-bad-score", "run", "r.csv", b"qid,docno,score\nq1,d2,3\nq1,d1,x\n",
     err(3, "score 'x' is not a number")),
    ("run-csv-nan", "run", "r.csv", b"qid,docno,score\nq1,d2,nan\nq1,d1,1\n",
     err(2, "score is NaN")),
    ("run-csv-empty-score", "run", "r.csv", b"qid,docno,score\nq1,d2,3\nq1,d1,\n",
     err(3, "score '' is not a number")),
    ("run-csv-short-row", "run", "r.csv", b"qid,docno,score\nq1,d2,3\nq1,d1\n",
     err(3, "expected 3 fields as in the header, got 2")),
    ("run-csv-multiline-quote-line", "run", "r.csv",
     b'qid,docno,score\nq1,"d\n2",3\nq1,d1,x\n', err(4, "score 'x' is not a number")),
    ("run-csv-header-only", "run", "r.csv", b"qid,docno,score\n", err(None, "a header but no")),
    ("run-csv-empty", "run", "r.csv", b"", err(None, "empty run file")),
    ("run-csv-no-score-column", "run", "r.csv", b"qid,docno,label\nq1,d1,1\n",
     err(1, "no score column")),
    ("run-csv-bad-utf8", "run", "r.csv", b"qid,docno,score\nq1,d\xff1,3\n",
     err(2, "invalid UTF-8 at byte 5")),
    ("run-csv-duplicate", "run", "r.csv", b"qid,docno,score\nq1,d1,3\nq1,d1,2\n",
     err(3, "retrieved twice")),
    ("run-csv-two-runs", "run", "r.csv", b"run,qid,docno,score\na,q1,d1,3\nb,q1,d2,2\n",
     err(3, "the file holds 2 runs")),
    ("run-jsonl-nan", "run", "r.jsonl",
     b'{"qid": "q1", "docno": "d2", "score": 3}\n{"qid": "q1", "docno": "d1", "score": NaN}\n',
     err(2, "score is NaN")),
    ("run-jsonl-not-json", "run", "r.jsonl",
     b'{"qid": "q1", "docno": "d2", "score": 3}\n{"qid": "q1", "docno"\n', err(2, "not JSON")),
    ("run-jsonl-missing-key", "run", "r.jsonl",
     b'{"qid": "q1", "docno": "d2", "score": 3}\n\n{"qid": "q1", "docno": "d1"}\n',
     err(3, "no value for 'score'")),
    ("run-jsonl-score-string", "run", "r.jsonl", b'{"qid": "q1", "docno": "d2", "score": "3"}\n',
     err(1, "score '3' is not a number")),
    ("run-jsonl-float-id", "run", "r.jsonl", b'{"qid": 1.5, "docno": "d2", "score": 3}\n',
     err(1, "query id 1.5 is not a string or an integer")),
    ("run-parquet-pandas-nan-is-null", "run", "r.parquet",
     parquet(pd.DataFrame({"qid": ["q1", "q1"], "docno": ["a", "b"], "score": [1.0, np.nan]})),
     err(2, "no value for 'score'")),
    ("run-parquet-nan", "run", "r.parquet",
     parquet(pa.table({"qid": ["q1", "q1"], "docno": ["a", "b"],
                       "score": pa.array([1.0, math.nan], from_pandas=False)})),
     err(2, "score is NaN")),
    ("run-parquet-int-ids-inf", "run", "r.parquet",
     parquet(pa.table({"qid": [1, 1], "docno": [20, 3], "score": [1.0, -math.inf]})),
     scores([1.0, -math.inf])),
    ("run-parquet-string-score", "run", "r.parquet",
     parquet(pa.table({"qid": ["1"], "docno": ["a"], "score": ["1.0"]})),
     err(None, "the score column has type string")),
    ("run-parquet-null-doc", "run", "r.parquet",
     parquet(pd.DataFrame({"qid": ["q1", "q1"], "docno": ["a", None], "score": [1.0, 2.0]})),
     err(2, "no value for 'docno'")),
    ("run-parquet-not-parquet", "run", "r.parquet", RUN, err(None, "not a readable Parquet")),
    ("qrels-csv-grade-plus", "qrels", "q.csv", b"qid,docno,label\nq1,d1,+2\n",
     err(2, "grade '+2' is not an integer")),
    ("qrels-csv-grade-big", "qrels", "q.csv", b"qid,docno,label\nq1,d1,1\nq1,d2,4294967296\n",
     err(3, "grade 4294967296 is out of range")),
    ("qrels-csv-header-only", "qrels", "q.csv", b"qid,docno,label\n",
     err(None, "a header but no rows")),
    ("qrels-jsonl-grade-fraction", "qrels", "q.jsonl",
     b'{"qid": "q1", "docno": "d1", "grade": 2.5}\n', err(1, "grade 2.5 is not an integer")),
    ("qrels-jsonl-grade-big", "qrels", "q.jsonl",
     b'{"qid": "q1", "docno": "d1", "grade": 1}\n{"qid": "q1", "docno": "d2", "grade": 1e30}\n',
     err(2, "is out of range")),
    ("qrels-parquet-grade-big", "qrels", "q.parquet",
     parquet(pd.DataFrame({"qid": ["q1", "q1"], "docno": ["a", "b"], "grade": [1, 2**40]})),
     err(2, "grade 1099511627776 is out of range")),
    ("qrels-parquet-grade-fraction", "qrels", "q.parquet",
     parquet(pd.DataFrame({"qid": ["q1"], "docno": ["a"], "grade": [0.5]})),
     err(1, "grade 0.5 is not an integer")),
]


def _write(tmp_path: Path, name, content) -> Path:
    if name is None:
        return tmp_path / "does-not-exist.txt"
    path = tmp_path / name
    if content is None:
        path.mkdir()
    elif callable(content):
        content(path)
    else:
        path.write_bytes(content)
    return path


@pytest.mark.parametrize(
    ("kind", "name", "content", "expected"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_bad_input_file(tmp_path, kind, name, content, expected):
    path = _write(tmp_path, name, content)
    other = tmp_path / ("other.run" if kind == "qrels" else "other.qrels")
    other.write_bytes(RUN if kind == "qrels" else QRELS)
    qrels, run = (path, other) if kind == "qrels" else (other, path)
    if expected[0] == "err":
        _, line, phrase = expected
        with pytest.raises(InputError) as caught:
            irpref.evaluate(qrels, [run], ["AP"])
        assert caught.value.path == str(path)
        assert caught.value.line == line, str(caught.value)
        assert phrase in str(caught.value)
        where = f"{path}:{line}: " if line is not None else f"{path}: "
        assert str(caught.value).startswith(where)
    elif expected[0] == "ap":
        table = irpref.evaluate(qrels, [run], ["AP"])
        assert table["value"].tolist() == [pytest.approx(expected[1], abs=1e-15)]
    elif expected[0] == "scores":
        assert read_run(path).score.tolist() == expected[1]
    else:
        assert read_qrels(path).grade.tolist() == expected[1]


def test_case_table_size():
    """The issue asks for 100 cases in all; this file holds most of them."""
    refused = sum(case[-1][0] == "err" for case in CASES)
    assert len(CASES) >= 100 and refused >= 60 and len(CASES) - refused >= 30


def test_tag_must_be_one_name(tmp_path):
    path = _write(tmp_path, "r.txt", RUN.replace(b"d1 2 2 r", b"d1 2 2 other"))
    with pytest.raises(InputError) as caught:
        read_run(path, use_tag=True)
    assert (caught.value.path, caught.value.line) == (str(path), 2)
    assert "tag 'other' differs from the first line's 'r'" in str(caught.value)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads anything")
def test_unreadable_file(tmp_path):
    path = _write(tmp_path, "r.txt", RUN)
    path.chmod(0)
    with pytest.raises(InputError, match="permission denied") as caught:
        read_run(path)
    assert caught.value.path == str(path)


def test_many_runs_name_the_bad_one(tmp_path):
    paths = [_write(tmp_path, f"run{i}.txt", RUN) for i in range(12)]
    paths[7].write_bytes(RUN.replace(b"d1", b"d\xff1"))
    with pytest.raises(InputError) as caught:
        irpref.evaluate(_write(tmp_path, "q.txt", QRELS), paths, ["AP"])
    assert caught.value.path == str(paths[7]) and caught.value.line == 2


def test_dataframe_grades_out_of_range_are_refused():
    frame = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["a", "b"], "label": [1, 2**32]})
    with pytest.raises(InputError, match="row 1: grade 4294967296 is out of range"):
        irpref.evaluate(frame, {"r": {"q1": {"a": 1.0}}}, ["AP"])


@pytest.mark.slow
def test_ranx_objects():
    ranx = pytest.importorskip("ranx")
    qrels = ranx.Qrels({"q1": {"d1": 1, "d2": 0, "d3": 1}})
    run = ranx.Run({"q1": {"d2": 3.0, "d1": 2.0, "d3": 1.0}}, name="bm25")
    table = irpref.evaluate(qrels, run, ["AP"])
    assert table["run"].tolist() == ["bm25"]
    assert table["value"].tolist() == [pytest.approx(AP, abs=1e-15)]


# ----------------------------------------------------------------------------- reference


_TOKEN = re.compile(rb"[^ \t\r]+")
_SCORE = re.compile(
    rb"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|(?i:inf|infinity))\Z"
)
_GRADE = re.compile(rb"-?[0-9]+\Z")


class Refused(Exception):
    def __init__(self, line):
        self.line = line


def _reference_lines(data: bytes):
    """The input rules of the README, line by line, slowly."""
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except Exception:  # noqa: BLE001 - any corruption is a refusal
            raise Refused(None) from None
    while data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    for number, line in enumerate(data.split(b"\n"), start=1):
        tokens = _TOKEN.findall(line)
        if tokens and not tokens[0].startswith(b"#"):
            yield number, tokens


def _utf8(number, *tokens):
    for token in tokens:
        try:
            token.decode("utf-8")
        except UnicodeDecodeError:
            raise Refused(number) from None


def reference_run(data: bytes):
    rows, seen, width = [], set(), None
    for number, tokens in _reference_lines(data):
        if len(tokens) not in (5, 6) or (width is not None and len(tokens) != width):
            raise Refused(number)
        width = len(tokens)
        _utf8(number, tokens[0], tokens[2])
        if not _SCORE.match(tokens[4]):
            raise Refused(number)
        key = (tokens[0], tokens[2])
        if key in seen:
            raise Refused(number)
        seen.add(key)
        rows.append((tokens[0].decode(), tokens[2].decode(), float(tokens[4])))
    if not rows:
        raise Refused(None)
    return rows


def reference_qrels(data: bytes):
    rows, seen = [], set()
    for number, tokens in _reference_lines(data):
        if len(tokens) != 4:
            raise Refused(number)
        _utf8(number, tokens[0], tokens[2])
        if not _GRADE.match(tokens[3]) or abs(int(tokens[3])) > GRADE_MAX:
            raise Refused(number)
        key = (tokens[0], tokens[2])
        if key in seen:
            raise Refused(number)
        seen.add(key)
        rows.append((tokens[0].decode(), tokens[2].decode(), int(tokens[3])))
    if not rows:
        raise Refused(None)
    return rows


# ----------------------------------------------------------------------------- hypothesis

_ids = st.text(alphabet="abqd0123é#", min_size=1, max_size=3).filter(lambda s: s[0] != "#")
_score_text = st.one_of(
    st.floats(allow_nan=False, width=64).map(repr),
    st.integers(-10**6, 10**6).map(str),
    st.sampled_from(["inf", "-inf", "+1.5", ".5", "5.", "1e999", "Infinity", "0", "-0.0"]),
)
_grade_text = st.one_of(st.integers(-3, 5).map(str), st.sampled_from(["2147483647", "007"]))
_sep = st.sampled_from([b" ", b"\t", b"  ", b" \t", b"\r "])


@st.composite
def run_files(draw):
    n = draw(st.integers(1, 8))
    width = draw(st.sampled_from([5, 6]))
    keys = draw(st.lists(st.tuples(_ids, _ids), min_size=n, max_size=n, unique=True))
    lines = []
    for q, d in keys:
        fields = [q, "Q0", d, str(draw(st.integers(0, 99))), draw(_score_text), "tag"][:width]
        sep = draw(_sep)
        lines.append(sep.join(f.encode() for f in fields))
        if draw(st.integers(0, 9)) == 0:
            lines.append(draw(st.sampled_from([b"", b"# comment", b"  # x y", b"\t"])))
    newline = draw(st.sampled_from([b"\n", b"\r\n"]))
    return newline.join(lines) + draw(st.sampled_from([newline, b""]))


@st.composite
def qrels_files(draw):
    n = draw(st.integers(1, 8))
    keys = draw(st.lists(st.tuples(_ids, _ids), min_size=n, max_size=n, unique=True))
    lines = [draw(_sep).join([q.encode(), b"0", d.encode(), draw(_grade_text).encode()])
             for q, d in keys]
    return b"\n".join(lines) + b"\n"


@st.composite
def corrupted(draw, files):
    data = draw(files)
    for _ in range(draw(st.integers(0, 3))):
        how = draw(st.sampled_from(["truncate", "flip", "drop", "repeat", "insert", "sep",
                                    "dupline", "bom"]))
        lines = data.split(b"\n")
        i = draw(st.integers(0, len(lines) - 1))
        fields = lines[i].split(b" ")
        j = draw(st.integers(0, len(fields) - 1))
        if how == "truncate" and data:
            data = data[: draw(st.integers(0, len(data) - 1))]
            continue
        if how == "flip" and data:
            k = draw(st.integers(0, len(data) - 1))
            data = data[:k] + bytes([draw(st.integers(0, 255))]) + data[k + 1:]
            continue
        if how == "drop":
            del fields[j]
        elif how == "repeat":
            fields.insert(j, fields[j])
        elif how == "insert":
            fields[j] = draw(st.sampled_from([b"nan", b"NaN", b"1e400", b"4294967296",
                                              b"99999999999999999999", b"-2147483648",
                                              b"+2", b"2_0", b"0x1F"]))
        elif how == "sep":
            fields = [b",".join(fields)] if len(fields) > 1 else fields
        elif how == "dupline":
            lines.insert(i, lines[i])
        elif how == "bom":
            data = b"\xef\xbb\xbf" + data
            continue
        lines[i] = b" ".join(fields)
        data = b"\n".join(lines)
    if draw(st.booleans()):
        data = gz(data)
        if draw(st.integers(0, 5)) == 0:
            data = data[: draw(st.integers(0, len(data)))]
    return data


def _outcome(reader, path):
    try:
        return reader(path)
    except InputError as exc:
        assert exc.path == str(path)
        return exc


SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def _agrees_with_reference(got, reference, data: bytes, columns) -> None:
    """irpref refuses at exactly the line the reference refuses, or reads exactly its rows."""
    try:
        want = reference(data)
    except Refused as refused:
        event("refused")
        assert isinstance(got, InputError), f"accepted what the reference refuses: {data!r}"
        assert got.line == refused.line, str(got)
        return
    event("read")
    assert not isinstance(got, InputError), f"refused a valid file: {got}"
    assert list(zip(*columns(got))) == [tuple(r) for r in want]


def _run_columns(run):
    return run.query.to_pylist(), run.doc.to_pylist(), run.score.tolist()


@pytest.mark.slow
@SETTINGS
@given(data=corrupted(run_files()))
def test_corrupted_runs_refused_at_the_reference_line_or_read_exactly(tmp_path, data):
    path = tmp_path / "r.gz"
    path.write_bytes(data)
    got = _outcome(read_run, path)
    # the parallel reader (whole files, no inner threads) agrees exactly
    both = _outcome(lambda p: read_runs([p, p], threads=2, check_duplicates=True)[0], path)
    if isinstance(got, InputError):
        assert isinstance(both, InputError) and both.line == got.line
    else:
        assert not isinstance(both, InputError)
        assert both.score.tolist() == got.score.tolist()
        assert both.doc.to_pylist() == got.doc.to_pylist()
    _agrees_with_reference(got, reference_run, data, _run_columns)


@pytest.mark.slow
@SETTINGS
@given(data=corrupted(qrels_files()))
def test_corrupted_qrels_refused_at_the_reference_line_or_read_exactly(tmp_path, data):
    path = tmp_path / "q.gz"
    path.write_bytes(data)
    got = _outcome(read_qrels, path)
    columns = lambda q: (q.query.to_pylist(), q.doc.to_pylist(), q.grade.tolist())  # noqa: E731
    _agrees_with_reference(got, reference_qrels, data, columns)


# ----------------------------------------------------------------------------- the command


def _irpref(*args):
    return irpref_cli(*args)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "content", "line", "phrase"),
    [
        ("qrels-big.txt", QRELS.replace(b"d1 1", b"d1 4294967296"), 1, "is out of range"),
        ("run-mixed.txt", b"q1 Q0 d2 1 3 r\nq1 Q0 d1 2 2\n", 2, "5 fields where"),
        ("run-utf8.txt", RUN.replace(b"d3", b"d\xff3"), 3, "invalid UTF-8"),
        ("run.gz", gz(RUN)[:20], None, "corrupt gzip data"),
        ("run.csv", b"qid,docno,score\nq1,d1,2_0\n", 2, "score '2_0' is not a number"),
    ],
)
def test_cli_exit_1_with_one_line(tmp_path, name, content, line, phrase):
    path = _write(tmp_path, name, content)
    other = _write(tmp_path, "other", RUN if name.startswith("qrels") else QRELS)
    qrels, run = (path, other) if name.startswith("qrels") else (other, path)
    proc = _irpref("evaluate", qrels, run, "-m", "AP")
    assert proc.returncode == 1
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    where = f"{path}:{line}: " if line is not None else f"{path}: "
    assert lines[0].startswith(f"irpref evaluate: error: {where}") and phrase in lines[0]


def test_cli_comments_accepted_in_runs(tmp_path):
    qrels = _write(tmp_path, "q.txt", b"# qrels\n" + QRELS)
    run = _write(tmp_path, "r.txt", b"# run\n" + RUN)
    proc = _irpref("evaluate", qrels, run, "-m", "AP", "--format", "tsv")
    assert proc.returncode == 0, proc.stderr
    assert f"{AP:.4f}"[:5] in proc.stdout or str(AP)[:6] in proc.stdout


@pytest.mark.parametrize(
    ("text", "line", "phrase"),
    [
        (b"t1 1 d1 1\nt1 2 d1 4294967296\n", 2, "grade 4294967296 is out of range"),
        (b"t1 1 d1 1\nt1 2 d1 +1\n", 2, "grade '+1' is not an integer"),
        (b"# c\nt1 1 d1 1\nt1 1 d1 0\n", 3, "'d1' judged twice"),
        (b"t1 \xff d1 1\n", 1, "invalid UTF-8 in the subtopic at byte 4"),
    ],
)
def test_subtopic_qrels_follow_the_same_rules(tmp_path, text, line, phrase):
    from irpref.io.subtopics import read_subtopic_qrels

    path = _write(tmp_path, "sub.qrels", text)
    with pytest.raises(InputError) as caught:
        read_subtopic_qrels(path)
    assert (caught.value.path, caught.value.line) == (str(path), line)
    assert phrase in str(caught.value)


def reference_csv_run(data: bytes):
    """CSV runs, slowly: Python's csv module, the same number and id rules."""
    import csv
    import io

    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except Exception:  # noqa: BLE001
            raise Refused(None) from None
    while data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Refused(data.count(b"\n", 0, exc.start) + 1) from None
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    records, start = [], 1
    try:
        for fields in reader:
            if fields:
                records.append((start, fields))
            start = reader.line_num + 1
    except csv.Error:
        raise Refused(reader.line_num) from None
    if not records:
        raise Refused(None)
    header_line, header = records[0]
    lower = [h.lower() for h in header]
    if len(set(lower)) != len(lower):
        assume(False)  # columns differing only in case: not modelled
    header = lower
    if not {"qid", "docno", "score"} <= set(header) or len(set(header)) != len(header):
        raise Refused(header_line)
    rows, seen = [], set()
    for line, fields in records[1:]:
        if len(fields) != len(header):
            raise Refused(line)
        row = dict(zip(header, fields))
        if not _SCORE.match(row["score"].encode()):
            raise Refused(line)
        rows.append((line, row["qid"], row["docno"], float(row["score"])))
    if not rows:
        raise Refused(None)
    for line, q, d, _ in rows:
        if (q, d) in seen:
            raise Refused(line)
        seen.add((q, d))
    return [r[1:] for r in rows]


@st.composite
def csv_runs(draw):
    n = draw(st.integers(1, 6))
    keys = draw(st.lists(st.tuples(_ids, _ids), min_size=n, max_size=n, unique=True))
    quote = draw(st.booleans())
    lines = ["qid,docno,score"]
    for q, d in keys:
        fields = [q, d, draw(_score_text)]
        lines.append(",".join(f'"{f}"' if quote else f for f in fields))
    return ("\n".join(lines) + "\n").encode()


@SETTINGS
@given(data=corrupted(csv_runs()))
def test_corrupted_csv_runs_refused_at_the_reference_line_or_read_exactly(tmp_path, data):
    path = tmp_path / "r.csv.gz"
    path.write_bytes(data)
    got = _outcome(read_run, path)
    _agrees_with_reference(got, reference_csv_run, data, _run_columns)


@pytest.mark.parametrize("reader", ["run", "qrels"])
def test_unexplained_parse_failure_still_names_the_file(tmp_path, monkeypatch, reader):
    """If the line checker ever finds nothing, the fast parser's error still
    comes out as an InputError naming the file (never pyarrow's bare text)."""
    from irpref.io import trec

    monkeypatch.setattr(trec, "diagnose_run", lambda *a, **k: None)
    monkeypatch.setattr(trec, "diagnose_qrels", lambda *a, **k: None)
    if reader == "run":
        path = _write(tmp_path, "r.txt", b"q1 Q0 d1 1 1 r\nq1 Q0 d2 1 x r\n")
        call = trec.read_run
    else:
        path = _write(tmp_path, "q.txt", b"q1 0 d1 1\nq1 0 d2 x\n")
        call = trec.read_qrels
    with pytest.raises(InputError) as caught:
        call(path)
    assert caught.value.path == str(path) and caught.value.line is None
    assert str(caught.value).startswith(f"{path}: cannot be parsed (")


@pytest.mark.parametrize(
    ("text", "line", "query"),
    [
        (b"\xef\xbb\xbf \xef\xbb\xbf\n", 1, None),  # found by hypothesis: once read as empty
        (b"\n\xef\xbb\xbfq1 Q0 d1 1 1 r\n", None, "\ufeffq1"),  # a BOM after a line is data
    ],
)
def test_a_bom_after_the_start_is_data(tmp_path, text, line, query):
    path = _write(tmp_path, "r.txt", text)
    if query is None:
        with pytest.raises(InputError) as caught:
            read_run(path)
        assert caught.value.line == line
    else:
        assert read_run(path).query.to_pylist() == [query]
