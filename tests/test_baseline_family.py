"""With several baselines, baseline A against baseline B is one hypothesis: the family
of a correction counts it once (13 distinct comparisons for 8 runs and 2 baselines,
not 14), in ``irpref significance --baseline A --baseline B`` and ``irpref evaluate
--baseline A --baseline B``; the adjusted p-values are statsmodels' ``multipletests``
over the distinct comparisons, and both rows of the repeated comparison carry the
same adjusted p."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import irpref_cli

multitest = pytest.importorskip("statsmodels.stats.multitest")

DATA = Path(__file__).parent / "data" / "dl19-passage"
QRELS = DATA / "qrels.txt"
RUNS = sorted((DATA / "runs").glob("*.gz"))[:8]
A, B = RUNS[0].name.removesuffix(".gz"), RUNS[3].name.removesuffix(".gz")
METHOD = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh", "by": "fdr_by"}


def _tsv(*args) -> pd.DataFrame:
    proc = irpref_cli(*args, "--format", "tsv")
    assert proc.returncode == 0, proc.stderr
    return pd.read_csv(io.StringIO(proc.stdout), sep="\t", dtype={"family": str})


def _significance(correction: str, family: str) -> pd.DataFrame:
    table = _tsv("significance", QRELS, *RUNS, "-m", "AP", "RR", "--rel", "2", "--baseline",
                 A, "--baseline", B, "--correction", correction, "--family", family,
                 "--seed", "0")
    return table.rename(columns={"run_a": "run", "run_b": "baseline"})


def _evaluate(correction: str, family: str) -> pd.DataFrame:
    table = _tsv("evaluate", QRELS, *RUNS, "-m", "AP", "RR", "--rel", "2", "--baseline",
                 f"{A},{B}", "--correction", correction, "--family", family)
    return table[table["run"] != table["baseline"]].reset_index(drop=True)


def _distinct(table: pd.DataFrame) -> np.ndarray:
    """True on the first row of each hypothesis (measure, {run, baseline})."""
    pair = [frozenset(p) for p in zip(table["run"], table["baseline"])]
    return ~pd.Series(list(zip(table["measure"], pair))).duplicated().to_numpy()


@pytest.mark.slow
@pytest.mark.parametrize("command", [_significance, _evaluate])
@pytest.mark.parametrize("correction", ["holm", "bonferroni", "bh", "by"])
def test_measure_family_counts_the_baseline_pair_once(command, correction):
    table = command(correction, "measure")
    assert len(table) == 2 * 2 * 7  # measures x baselines x other runs
    first = _distinct(table)
    assert (~first).sum() == 2  # B vs A repeats A vs B, once per measure
    for _, part in table.groupby("measure", sort=False):
        keep = first[part.index]
        assert (part["family_size"] == 13).all()
        want = multitest.multipletests(part["p"].to_numpy()[keep], method=METHOD[correction])[1]
        np.testing.assert_allclose(part["p_adjusted"].to_numpy()[keep], want, rtol=1e-12)
    # the repeated comparison: same p, same adjusted p on both rows
    ab = table[(table["run"] == B) & (table["baseline"] == A)].set_index("measure")
    ba = table[(table["run"] == A) & (table["baseline"] == B)].set_index("measure")
    pd.testing.assert_series_equal(ab["p"], ba["p"], rtol=1e-12)
    pd.testing.assert_series_equal(ab["p_adjusted"], ba["p_adjusted"], rtol=0)


@pytest.mark.slow
@pytest.mark.parametrize("command", [_significance, _evaluate])
def test_all_and_baseline_families(command):
    table = command("holm", "all")
    first = _distinct(table)
    assert (table["family_size"] == 26).all()
    want = multitest.multipletests(table["p"].to_numpy()[first], method="holm")[1]
    np.testing.assert_allclose(table["p_adjusted"].to_numpy()[first], want, rtol=1e-12)
    # per baseline: the shared comparison belongs to the first baseline's family
    table = command("holm", "baseline")
    first = _distinct(table)
    sizes = table[first].groupby(["measure", "baseline"], sort=False)["run"].size()
    assert sizes.tolist() == [7, 6, 7, 6]
    for _, part in table[first].groupby(["measure", "baseline"], sort=False):
        assert (part["family_size"] == len(part)).all()
        want = multitest.multipletests(part["p"].to_numpy(), method="holm")[1]
        np.testing.assert_allclose(part["p_adjusted"].to_numpy(), want, rtol=1e-12)
    repeat = table[~first].iloc[0]
    twin = table[(table["measure"] == repeat["measure"]) & (table["run"] == repeat["baseline"])
                 & (table["baseline"] == repeat["run"])].iloc[0]
    assert repeat["p_adjusted"] == twin["p_adjusted"]
    assert repeat["family"] == twin["family"] == f"{repeat['measure']} vs {A}"
