"""The judging settings travel as one value (:class:`irpref.Settings`): checked
once, taken by every public entry point by the same names, carried by the judged
rankings, and never kept as hidden state between calls."""

from __future__ import annotations

import ast
import inspect
import warnings
from pathlib import Path

import pytest
from helpers import QRELS, RUNS, irpref_cli

import irpref
from irpref.cli.main import main as cli_main
from irpref.errors import UsageError
from irpref.params import DEFAULTS, JUDGING, SETTING_NAMES, Settings

SRC = Path(irpref.__file__).parent

ENTRY_POINTS = {"evaluate", "compare", "significance", "leaderboard", "agree", "design", "judge",
                "judge_inputs", "search_lengths"}
"""Public functions over judged inputs; each takes the settings (a test below
finds them by their signature and checks this list is among them)."""


def _public_functions():
    for name in irpref.__all__:
        obj = getattr(irpref, name)
        if inspect.isfunction(obj):
            yield name, inspect.signature(obj)


def test_every_public_entry_point_takes_the_same_settings_by_the_same_names():
    taking = {}
    for name, sig in _public_functions():
        names = set(sig.parameters) & set(SETTING_NAMES)
        # judging takes rel (readers take use_tag alone, name parsers judged_only alone)
        if "rel" in names or "settings" in sig.parameters:
            taking[name] = sig
            assert names == set(SETTING_NAMES), f"{name} lacks {set(SETTING_NAMES) - names}"
            assert "settings" in sig.parameters, f"{name} takes no settings="
            for key in SETTING_NAMES:
                assert sig.parameters[key].default == DEFAULTS[key], (name, key)
                assert sig.parameters[key].kind == inspect.Parameter.KEYWORD_ONLY, (name, key)
    assert set(taking) >= ENTRY_POINTS, ENTRY_POINTS - set(taking)


def test_the_report_builder_takes_the_settings_too():
    from irpref.report import build_report

    params = inspect.signature(build_report).parameters
    assert "settings" in params


@pytest.mark.parametrize(("field", "value", "message"), [
    ("rel", 0, "rel=0: must be >= 1"),
    ("depth", 0, "depth=0: must be >= 1"),
    ("ties", "random", "ties=random: must be one of docid, input, expected"),
    ("missing", "drop", "missing=drop: must be one of skip, zero"),
    ("corpus_size", -1, "corpus_size=-1: must be >= 1"),
    ("judged_only", "yes", "judged_only=yes: must be True or False"),
    ("use_tag", 1, "use_tag=1: must be True or False"),
])
def test_each_setting_is_checked_once_with_the_one_message(field, value, message):
    with pytest.raises(UsageError, match=message):
        Settings(**{field: value})
    with pytest.raises(UsageError, match=message):
        Settings().replace(**{field: value})


def test_settings_are_frozen_and_compare_by_value():
    s = Settings(rel=2)
    with pytest.raises(AttributeError):
        s.rel = 3
    assert s == Settings(rel=2) and s != Settings()
    assert Settings(**s.keywords()) == s


def test_a_keyword_contradicting_settings_is_refused_never_ignored():
    s = Settings(rel=2)
    assert Settings.resolve(s, rel=1) is s  # a keyword at its default defers to settings
    assert Settings.resolve(s, rel=2) is s
    with pytest.raises(UsageError, match=r"rel=3 \(settings.rel=2\)"):
        Settings.resolve(s, rel=3)
    with pytest.raises(UsageError, match="rel=3"):
        irpref.evaluate(QRELS, RUNS[:1], ["AP"], settings=s, rel=3)


def test_rankings_keep_their_judging_settings_and_the_evaluation_its_own():
    judged = irpref.judge_inputs(QRELS, RUNS[:2], rel=2, missing="zero", judged_only=True)
    assert judged.settings.rel == 2 and judged.rel == 2
    with pytest.raises(UsageError, match="judged with rel=2, asked rel=3"):
        irpref.evaluate(None, None, ["AP"], judged=judged, rel=3)
    # missing and judged_only are each evaluation's: not inherited from the judging
    plain = irpref.evaluate(None, None, ["AP"], judged=judged)
    assert list(plain["measure"].unique()) == ["AP"]
    again = irpref.evaluate(None, None, ["AP"], judged=judged, judged_only=True)
    assert list(again["measure"].unique()) == ["AP(judged_only=true)"]
    assert set(JUDGING) == {"rel", "depth", "ties", "corpus_size", "use_tag", "columns"}


def test_judged_only_is_a_value_and_leaves_nothing_behind():
    applied = irpref.evaluate(QRELS, RUNS[:2], ["AP", "RR"], judged_only=True, rel=2)
    assert list(applied["measure"].unique()) == ["AP(judged_only=true)", "RR(judged_only=true)"]
    explicit = irpref.evaluate(QRELS, RUNS[:2], ["AP(judged_only=true)", "RR(judged_only=true)"],
                               rel=2)
    assert applied["value"].tolist() == explicit["value"].tolist()
    plain = irpref.evaluate(QRELS, RUNS[:2], ["AP", "RR"], rel=2)
    assert list(plain["measure"].unique()) == ["AP", "RR"]
    assert irpref.parse_measure("RR").judged_only is False


def test_a_cli_call_in_process_leaves_no_state_behind(capsys):
    filters = list(warnings.filters)
    show = warnings.showwarning
    assert cli_main(["evaluate", str(QRELS), str(RUNS[0]), "-m", "RR", "--judged-only",
                     "--format", "tsv", "--quiet"]) == 0
    assert "RR(judged_only=true)" in capsys.readouterr().out
    assert warnings.filters == filters and warnings.showwarning is show
    assert list(irpref.evaluate(QRELS, RUNS[:1], ["RR"])["measure"].unique()) == ["RR"]
    from irpref.runtime import progress

    assert progress.silenced() is False


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


@pytest.mark.slow
def test_no_context_variables_and_no_argparse_below_the_cli():
    below = [p for p in SRC.rglob("*.py") if "cli" not in p.relative_to(SRC).parts]
    assert len(below) > 50
    for path in below:
        text = path.read_text()
        assert "contextvars" not in _imports(path) and "ContextVar" not in text, path
        assert "argparse" not in _imports(path), path
        assert "Namespace" not in text, path


def test_no_side_tables_keyed_by_judged_rankings():
    """What travels with judged rankings is a field of theirs (subtopics, preferences,
    condensed) or a value derived from them and kept with them (JudgedRankings.derived):
    no weak-keyed table beside them, no hook copying it to their condensed lists."""
    for path in SRC.rglob("*.py"):
        text = path.read_text()
        assert "weakref" not in _imports(path) and "FOLLOWERS" not in text, path
    judged = irpref.judge_inputs(QRELS, RUNS[:1])
    assert {"subtopics", "preferences", "condensed"} <= {
        f.name for f in __import__("dataclasses").fields(judged)}


def test_the_cli_builds_the_settings_in_one_place():
    uses = [p for p in (SRC / "cli").glob("*.py") if "Settings(" in p.read_text()]
    assert [p.name for p in uses] == ["common.py"]


@pytest.mark.slow
def test_missing_means_the_same_for_measures_and_preferences(tmp_path):
    """significance --missing zero scores a lacking query as an empty ranking for a
    preference too: the same n as compare --missing zero."""
    from irpref.io import read_run

    run = read_run(RUNS[0])
    lacking = tmp_path / "lacking.txt"
    queries = run.query.to_pylist()
    drop = set(sorted(set(queries))[:5])
    with open(lacking, "w") as out:
        for q, d, s in zip(queries, run.doc.to_pylist(), run.score):
            if q not in drop:
                out.write(f"{q} Q0 {d} 0 {float(s)!r} lacking\n")
    sig = {}
    for missing in ("skip", "zero"):
        out = irpref_cli("significance", QRELS, lacking, RUNS[1], "-m", "sgnLP", "AP",
                         "--rel", "2", "--missing", missing, "--format", "tsv")
        assert out.returncode == 0, out.stderr
        rows = [line.split("\t") for line in out.stdout.splitlines()]
        head = rows[0]
        sig[missing] = {r[head.index("measure")]: int(r[head.index("n")]) for r in rows[1:]}
        assert out.stderr.count("run lacking lacks 5 of 43") == 1, out.stderr
        assert f"--missing {missing}" in out.stderr or missing == "skip"
    assert sig["skip"] == {"sgnLP": 38, "AP": 38}
    assert sig["zero"] == {"sgnLP": 43, "AP": 43}


def test_a_column_mapping_is_a_setting_every_entry_point_takes():
    s = Settings(columns={"query": "user_id", "doc": "item_id"})
    assert s.columns == (("doc", "item_id"), ("query", "user_id"))
    assert s == Settings(columns="query=user_id,doc=item_id")
    assert s.column_map == {"doc": "item_id", "query": "user_id"}
    with pytest.raises(UsageError, match="unknown role 'user'"):
        Settings(columns={"user": "user_id"})
    import pandas as pd

    qrels = pd.DataFrame({"user_id": ["u1", "u1", "u2"], "item_id": ["a", "b", "a"],
                          "rating": [1, 0, 2]})
    run = pd.DataFrame({"user_id": ["u1", "u1", "u2"], "item_id": ["a", "b", "a"],
                        "score": [2.0, 1.0, 1.0]})
    mapping = {"query": "user_id", "doc": "item_id", "grade": "rating"}
    table = irpref.compare(qrels, {"A": run, "B": run.assign(score=-run.score)}, ["sgnLP"],
                           columns=mapping)
    assert set(table["query"]) == {"u1", "u2"}


@pytest.mark.parametrize("entry", ["significance", "leaderboard", "evaluate", "compare",
                                   "agree", "design", "search_lengths", "report"])
def test_a_public_call_resolves_its_settings_once(monkeypatch, entry):
    """The public entry point resolves the keywords once; the functions it calls take
    the Settings value (irpref.evaluate.evaluate_with, irpref.compare.compare_with,
    judge_with: never the loose keywords again)."""
    from irpref import examples

    calls = []
    real = Settings.resolve.__func__

    def counting(cls, *args, **kwargs):
        calls.append(kwargs)
        return real(cls, *args, **kwargs)

    monkeypatch.setattr(Settings, "resolve", classmethod(counting))
    qrels, runs = examples.qrels_path(), examples.run_paths()[:3]
    if entry in ("significance", "leaderboard"):
        getattr(irpref, entry)(qrels=qrels, runs=runs, measures=["AP", "sgnLP"], rel=2)
    elif entry == "agree":
        irpref.agree(qrels, qrels, runs=runs, measures=["AP", "sgnLP"], rel=2)
    elif entry == "design":
        irpref.design(qrels, runs, ["AP"], rel=2, min_diff=0.05)
    elif entry == "search_lengths":
        irpref.search_lengths(qrels, runs, rel=2)
    elif entry == "report":  # every section, ties judged again and search lengths included
        from irpref.report import build_report

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            report = build_report(qrels, runs, ["AP", "nDCG@10"], rel=2)
        assert {"ties", "search-lengths"} <= {s.id for s in report.sections}
    else:
        getattr(irpref, entry)(qrels, runs, ["AP"] if entry == "evaluate" else ["sgnLP"],
                               rel=2)
    assert len(calls) == 1, calls


def test_only_public_entry_points_declare_the_setting_keywords():
    """Below the public boundary the settings travel as one value: a function that
    declares three or more of the setting keywords takes ``settings=`` too and is a
    public name (in its module's ``__all__``); internal ones take the Settings value."""
    offenders = []
    for path in SRC.rglob("*.py"):
        tree = ast.parse(path.read_text())
        public = set()
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
                public = set(ast.literal_eval(node.value))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            args = node.args
            params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
            if len(params & set(SETTING_NAMES)) >= 3 and (
                    "settings" not in params or node.name not in public):
                offenders.append(f"{path.relative_to(SRC)}:{node.lineno} {node.name}")
    assert not offenders, offenders
