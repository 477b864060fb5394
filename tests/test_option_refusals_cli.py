"""Every option this project added for inference, design, agreement and the missing-query
rule refuses a bad value through the installed command: exit 2, nothing on stdout, one
``irpref CMD: error: ...`` line naming the option, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import QRELS, RUNS, irpref_cli

LABELS = Path(__file__).resolve().parent / "data" / "llmjudge-sample" / "human.qrels"
TWO = [QRELS, *RUNS[:2]]

CASES = [
    (["design", "--alpha", "2", "--min-diff", "0.2", "--std"], "--alpha 2"),
    (["design", "--beta", "0", "--min-diff", "0.2", "--std"], "--beta 0"),
    (["design", "--min-diff", "0.2", "--variance", "-1"], "--variance"),
    (["design", "--min-diff", "0.2", "--std", "--systems", "1"], "--systems"),
    (["design", "--min-diff", "0.2", "--std", "--ci-width", "0"], "--ci-width"),
    (["design", "--min-diff", "-1", "--std"], "--min-diff"),
    (["agree", LABELS, LABELS, "--thresholds", "0"], "--thresholds 0"),
    (["agree", LABELS, LABELS, "--top", "0"], "--top 0"),
    (["agree", LABELS, LABELS, "--confusion-at", "x"], "--confusion-at x"),
    (["agree", LABELS, LABELS, "--alpha", "3"], "--alpha 3"),
    (["significance", *TWO, "-m", "AP", "--family", "bogus"], "--family"),
    (["significance", *TWO, "-m", "AP", "--ci", "bogus"], "--ci"),
    (["significance", *TWO, "-m", "AP", "--confidence", "1.5"], "--confidence 1.5"),
    (["significance", *TWO, "-m", "AP", "--correction", "xx"], "--correction"),
    (["significance", *TWO, "-m", "AP", "--bootstrap", "-1"], "--bootstrap -1"),
    (["compare", *TWO, "-m", "sgnLP", "--missing", "bad"], "--missing bad"),
    (["evaluate", *TWO, "-m", "AP", "--missing", "bad"], "--missing bad"),
    (["evaluate", *TWO, "-m", "nDCG(gains=1:x)"], "gains"),
    (["evaluate", *TWO, "-m", "NCG@0"], "NCG@0"),
    (["evaluate", *TWO, "-m", "AP", "--effects"], "--effects needs --baseline"),
    (["evaluate", *TWO, "-m", "AP", "--baseline", "x", "--family", "bogus"], "--family bogus"),
    (["evaluate", *TWO, "-m", "AP", "--baseline", "x", "--correction", "xx"], "--correction xx"),
    (["evaluate", *TWO, "-m", "AP(judged_only=2)"], "judged_only must be true or false"),
    (["ties", *TWO, "--judged-at", "0"], "--judged-at 0"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("args", "named"), CASES, ids=[" ".join(map(str, a[:1] + a[-2:]))
                                                        for a, _ in CASES])
def test_bad_value_is_one_line_usage_error(args, named):
    proc = irpref_cli(*args)
    command = args[0]
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith(f"irpref {command}: error: ") and named in last, last


@pytest.mark.parametrize("args", [
    ["significance", "--hsd"],          # once --hsd-strict, with the t test: never again
    ["evaluate", "--per", "--format", "tsv"],
    ["compare", "--form", "tsv"],
])
def test_abbreviated_options_are_refused(args):
    """An abbreviation is another request answered silently: exit 2, naming it."""
    command, *rest = args
    r = irpref_cli(command, QRELS, *RUNS[:2], "-m", "AP" if command != "compare" else "sgnLP",
                   *rest)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert f"unrecognized arguments: {rest[0]}" in r.stderr
