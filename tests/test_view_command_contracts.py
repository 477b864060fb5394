"""Command-line contracts of the view commands: a single-valued option given
twice is refused, the figure commands share one install hint, ``compare``
takes the subtopic file as QRELS, and each command's inputs."""

from __future__ import annotations

import os

import pytest
from helpers import QRELS, RUNS, irpref_cli

from irpref.cli.common import MATPLOTLIB_HINT

SUBTOPICS = os.path.join(os.path.dirname(__file__), "data",
                         "web13-diversity-201-204.ndeval.txt.gz")


@pytest.mark.parametrize("command, args", [
    ("evaluate", ["--rel", "1", "--rel", "2"]),
    ("evaluate", ["--format", "tsv", "--format", "json"]),
    ("evaluate", ["--test", "t", "--test", "sign"]),  # --baseline repeats: several baselines
    ("evaluate", ["-o", "a.tsv", "--output", "b.tsv"]),
    ("evaluate", ["--missing", "zero", "--missing", "skip"]),
    ("compare", ["--ties", "input", "--ties", "docid"]),
    ("compare", ["--teleport", "0.1", "--teleport", "0.2"]),
    ("ties", ["--format", "tsv", "--format", "json"]),
    ("report", ["--qrels-b", str(QRELS), "--qrels-b", str(QRELS), "-o", "r.html"]),
    ("report", ["--title", "a", "--title", "b", "-o", "r.html"]),
    ("plot", ["-o", "a.png", "-o", "b.png"]),
])
def test_repeated_option_is_a_usage_error(tmp_path, command, args):
    args = [str(tmp_path / a) if a.endswith((".tsv", ".html", ".png")) else a for a in args]
    lead = ["differences"] if command == "plot" else []
    proc = irpref_cli(command, *lead, QRELS, *RUNS[:2], *args)
    assert proc.returncode == 2, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith(f"irpref {command}: error: ") and "given twice" in last
    flag = args[2] if args[2].startswith("-") else args[0]
    assert flag in last
    assert proc.stdout == "" and not list(tmp_path.iterdir())


def test_lists_stay_lists():
    proc = irpref_cli("evaluate", QRELS, *RUNS[:2], "-m", "AP", "-m", "RR", "--format", "tsv")
    assert proc.returncode == 0, proc.stderr
    assert {line.split("\t")[1] for line in proc.stdout.splitlines()[1:]} == {"AP", "RR"}


@pytest.fixture()
def no_matplotlib(tmp_path):
    """An environment where ``import matplotlib`` fails, as on a machine without it."""
    shadow = tmp_path / "shadow" / "matplotlib"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('no matplotlib here')\n")
    path = os.pathsep.join(p for p in [str(shadow.parent), os.environ.get("PYTHONPATH")] if p)
    return {"PYTHONPATH": path}


@pytest.mark.parametrize("command", ["report", "plot"])
def test_same_install_hint_without_matplotlib(tmp_path, no_matplotlib, command):
    out = tmp_path / ("r.html" if command == "report" else "f.png")
    lead = ["differences"] if command == "plot" else []
    proc = irpref_cli(command, *lead, QRELS, *RUNS[:2], "-o", out, env=no_matplotlib)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == (
        f"irpref {command}: error: " + MATPLOTLIB_HINT.format(command=command))
    assert "internal error" not in proc.stderr and not out.exists()


@pytest.mark.slow
def test_compare_takes_the_subtopic_file_as_qrels(tmp_path):
    import gzip

    with gzip.open(SUBTOPICS, "rt") as handle:
        lines = handle.read().split("\n")
    seen, rows = set(), []
    for line in lines:
        parts = line.split()
        if len(parts) == 4 and (parts[0], parts[2]) not in seen:
            seen.add((parts[0], parts[2]))
            rows.append((parts[0], parts[2]))
    for name, step in (("x", 1), ("y", -1)):
        ranked = rows[::step]
        (tmp_path / name).write_text("".join(
            f"{q} Q0 {d} {i + 1} {1000 - i} {name}\n" for i, (q, d) in enumerate(ranked)))
    runs = [tmp_path / "x", tmp_path / "y"]
    proc = irpref_cli("compare", SUBTOPICS, *runs, "-m", "ST-RPP", "sgnLP", "--subtopics",
                      SUBTOPICS, "--format", "tsv")
    assert proc.returncode == 0, proc.stderr
    assert {line.split("\t")[2] for line in proc.stdout.splitlines()[1:]} == {"ST-RPP",
                                                                                "sgnLP"}
    same = irpref_cli("evaluate", SUBTOPICS, *runs, "-m", "alpha-nDCG@20", "--subtopics",
                      SUBTOPICS)
    assert same.returncode == 0, same.stderr


@pytest.mark.slow
def test_saved_judgments_feed_compare_and_ties(tmp_path):
    saved = tmp_path / "j.parquet"
    made = irpref_cli("judge", QRELS, *RUNS[:3], "-o", saved)
    assert made.returncode == 0, made.stderr
    for command, args in (("compare", ["-m", "sgnLP"]), ("ties", ["-m", "AP"]),
                          ("evaluate", ["-m", "AP", "--baseline", "TUA1-1"])):
        direct = irpref_cli(command, QRELS, *RUNS[:3], *args, "--format", "tsv")
        loaded = irpref_cli(command, saved, *args, "--format", "tsv")
        assert loaded.returncode == 0, (command, loaded.stderr)
        assert loaded.stdout == direct.stdout, command


@pytest.mark.slow
def test_saved_judgments_feed_report_and_plot(tmp_path):
    saved = tmp_path / "j.parquet"
    assert irpref_cli("judge", QRELS, *RUNS[:3], "--rel", "2", "-o", saved).returncode == 0
    report = irpref_cli("report", saved, "-m", "AP", "ASL", "--rel", "2", "-o", tmp_path / "r.md")
    assert report.returncode == 0, report.stderr
    assert "Not shown for saved judged rankings" in (tmp_path / "r.md").read_text()
    plot = irpref_cli("plot", "differences", saved, "-m", "ASL", "--rel", "2",
                      "-o", tmp_path / "d.png")
    assert plot.returncode == 0, plot.stderr
    ties = irpref_cli("plot", "ties", saved, "--rel", "2", "-o", tmp_path / "t.png")
    assert ties.returncode == 2 and "not a saved judged file" in ties.stderr
