"""Reading TREC files: formats, names, and clear errors for bad input."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

import irpref
from irpref.io.records import TrecFormatError, run_name_from_path
from irpref.io.trec import read_qrels, read_run


def write(tmp_path, name, text, gz=False):
    path = tmp_path / name
    if gz:
        with gzip.open(path, "wt") as f:
            f.write(text)
    else:
        path.write_text(text)
    return path


QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d1 1\n"
RUN = "q1 Q0 d1 1 0.5 tagA\nq1 Q0 d2 2 0.25 tagA\nq2 Q0 d3 1 1e-3 tagA\n"


def test_read_qrels_plain_and_gz_and_comments(tmp_path):
    text = "# a comment\n" + QRELS.replace(" ", "\t", 3) + "\n  # indented comment\n"
    a = read_qrels(write(tmp_path, "q.txt", text))
    b = read_qrels(write(tmp_path, "q.gz", QRELS, gz=True))
    assert a.query.to_pylist() == b.query.to_pylist() == ["q1", "q1", "q1", "q2"]
    assert a.grade.tolist() == [1, 0, 2, 1]


def test_negative_grades_are_kept(tmp_path):
    q = read_qrels(write(tmp_path, "q", "q1 0 d1 -1\nq1 0 d2 3\n"))
    assert q.grade.tolist() == [-1, 3]


def test_read_run_whitespace_variants_and_scientific_scores(tmp_path):
    messy = "q1\tQ0  d1 1   0.5 tagA\r\n\n  q1 Q0 d2\t2 0.25 tagA \nq2 Q0 d3 1 1e-3 tagA"
    a = read_run(write(tmp_path, "input.myrun.txt", messy))
    b = read_run(write(tmp_path, "clean.gz", RUN, gz=True))
    assert a.name == "myrun"
    assert a.doc.to_pylist() == b.doc.to_pylist() == ["d1", "d2", "d3"]
    np.testing.assert_array_equal(a.score, [0.5, 0.25, 1e-3])
    assert read_run(write(tmp_path, "x.run", RUN), use_tag=True).name == "tagA"


def test_five_column_run(tmp_path):
    run = read_run(write(tmp_path, "r", "q1 Q0 d1 1 0.5\nq1 Q0 d2 2 0.4\n"))
    assert run.score.tolist() == [0.5, 0.4]


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("a/b/input.bm25.gz", "bm25"),
        ("runs/bm25.run", "bm25"),
        ("x.trec.gz", "x"),
        ("dir/plain", "plain"),
        ("r.tsv", "r"),
        ("results.test", "results.test"),
    ],
)
def test_run_names(path, name):
    assert run_name_from_path(path) == name


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 abc t\n", 2, "score 'abc' is not a number"),
        ("q1 Q0 d1 1 0.5 t\n\nq1 Q0 d2 2\n", 3, "expected 6 fields"),
        ("q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.3 t extra more\n", 2, "got 8"),
        ("q1 Q0 d1 1 0.5 t\nq1 Q0 d1 2 0.3 t\n", 2, "'d1' retrieved twice for query 'q1'"),
        ("q1 Q0 d1 1 nan t\n", 1, "NaN"),
    ],
)
def test_bad_run_lines_name_file_and_line(tmp_path, text, line, problem):
    path = write(tmp_path, "bad.run", text)
    with pytest.raises(TrecFormatError) as err:
        read_run(path)
    assert err.value.line == line
    assert problem in str(err.value)
    assert str(path) in str(err.value)


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("q1 0 d1 1\nq1 0 d2 x\n", 2, "grade 'x' is not an integer"),
        ("q1 0 d1 1\nq1 0 d2 1.5\n", 2, "grade '1.5' is not an integer"),
        ("q1 0 d1 1\n# c\nq1 d2 1\n", 3, "expected 4 fields"),
        ("q1 0 d1 1\nq1 0 d1 0\n", 2, "'d1' judged twice for query 'q1'"),
    ],
)
def test_bad_qrels_lines(tmp_path, text, line, problem):
    path = write(tmp_path, "bad.qrels", text)
    with pytest.raises(TrecFormatError) as err:
        read_qrels(path)
    assert err.value.line == line
    assert problem in str(err.value)


@pytest.mark.parametrize("reader", [read_run, read_qrels])
def test_empty_files(tmp_path, reader):
    for text in ["", "\n\n  \n"]:
        with pytest.raises(TrecFormatError, match="empty"):
            reader(write(tmp_path, "empty", text))


def test_corrupt_gzip(tmp_path):
    path = tmp_path / "r.gz"
    path.write_bytes(gzip.compress(RUN.encode())[:20])
    with pytest.raises(TrecFormatError, match="gzip"):
        read_run(path)


def test_cli_reports_bad_file(tmp_path):
    import subprocess

    q = write(tmp_path, "q", QRELS)
    r = write(tmp_path, "r", "q1 Q0 d1 1 zz t\n")
    proc = subprocess.run(["irpref", "evaluate", str(q), str(r)], capture_output=True, text=True)
    assert proc.returncode == 1
    assert f"{r}:1: score 'zz' is not a number" in proc.stderr
    assert proc.stdout == ""


def test_queries_missing_from_qrels_are_ignored_with_warning(tmp_path):
    q = write(tmp_path, "q", QRELS)
    r = write(tmp_path, "r", RUN + "q9 Q0 d1 1 0.5 t\nq8 Q0 d1 1 0.5 t\n")
    message = r"^2 queries absent from the qrels ignored in 1 run \(q8, q9\)$"
    with pytest.warns(UserWarning, match=message):
        res = irpref.evaluate(q, r, ["NumRet"])
    assert set(res["query"]) == {"q1", "q2"}


def test_cli_reports_a_repeated_document_with_file_and_line(tmp_path):
    """The CLI reads runs without the reader's check; interning names the line."""
    import subprocess

    q = write(tmp_path, "q", QRELS)
    r = write(tmp_path, "r", RUN + "q1 Q0 d1 9 0.1 t\n")
    proc = subprocess.run(["irpref", "evaluate", str(q), str(r)], capture_output=True, text=True)
    assert proc.returncode == 1
    line = len(RUN.splitlines()) + 1
    assert f"{r}:{line}: document 'd1' retrieved twice for query 'q1'" in proc.stderr


@pytest.mark.slow
def test_cli_output_does_not_depend_on_the_allocator(tmp_path):
    """The CLI keeps freed memory (glibc mallopt) unless IRPREF_MALLOC=default;
    either way the output is the same."""
    import os
    import subprocess
    import sys

    glibc = bool(os.confstr("CS_GNU_LIBC_VERSION")) if hasattr(os, "confstr") else False
    probe = "from irpref.runtime.memory import keep_freed_memory as k; print(k())"
    q, r = write(tmp_path, "q", QRELS), write(tmp_path, "r", RUN)
    cmd = ["irpref", "evaluate", str(q), str(r), "-m", "AP", "nDCG", "--format", "tsv"]
    outputs = []
    for setting in ("", "default"):
        env = dict(os.environ, IRPREF_MALLOC=setting)
        tuned = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                               text=True, check=True)
        assert tuned.stdout.strip() == str(glibc and setting != "default")
        outputs.append(subprocess.run(cmd, env=env, capture_output=True, text=True,
                                      check=True).stdout)
    assert outputs[0] == outputs[1] and outputs[0].startswith("run\tmeasure\tvalue\n")
