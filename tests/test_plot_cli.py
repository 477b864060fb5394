"""``irpref plot KIND ...`` through the installed command, and the meta-evaluation curves."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from helpers import irpref_cli

from irpref import examples  # noqa: E402
from irpref.meta import degrade, subsample  # noqa: E402
from irpref.report import plots  # noqa: E402

QRELS = str(examples.qrels_path())
RUNS = [str(p) for p in examples.run_paths()]
MAGIC = {".png": b"\x89PNG", ".pdf": b"%PDF", ".svg": b"<?xml"}


def cli(*args):
    return irpref_cli("plot", *args)


@pytest.mark.slow
@pytest.mark.parametrize("kind,ext,extra", [
    ("differences", ".png", ["-m", "nDCG@10", "--baseline", "p_bert"]),
    ("distributions", ".svg", []),
    ("preferences", ".pdf", ["-m", "RPP"]),
    ("search-lengths", ".png", []),
    ("search-lengths", ".svg", ["--run", "p_bert"]),
    ("ties", ".png", ["-m", "AP"]),
    ("discriminative", ".png", ["-m", "AP", "sgnLP", "--test", "t"]),
    ("degrade", ".png", ["--samples", "2"]),
    ("subsample", ".svg", ["--samples", "3"]),
])
def test_each_kind_writes_its_format(tmp_path, kind, ext, extra):
    out = tmp_path / f"fig{ext}"
    r = cli(kind, QRELS, *RUNS, "--rel", "2", *extra, "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes().startswith(MAGIC[ext])
    assert not list(tmp_path.glob(".*tmp*"))


@pytest.mark.parametrize("args,needle", [
    (["differences", "-o", "x.jpg"], ".png, .svg or .pdf"),
    (["differences", "-m", "AP", "P@10", "-o", "x.png"], "one measure"),
    (["differences", "--baseline", "nope", "-o", "x.png"], "TUA1-1"),
    (["bogus", "-o", "x.png"], "invalid choice"),
    (["ties", "-m", "NotAMeasure", "-o", "x.png"], "NotAMeasure"),
    (["degrade", "--samples", "0", "-o", "x.png"], "--samples"),
])
def test_bad_requests_exit_2_with_one_error_line(tmp_path, args, needle):
    kind, rest = args[0], args[1:]
    rest = [str(tmp_path / a) if a.startswith("x.") else a for a in rest]
    r = cli(kind, QRELS, *RUNS, *rest)
    assert r.returncode == 2, r.stderr
    errors = [line for line in r.stderr.splitlines() if "error" in line]
    assert len(errors) == 1 and needle in errors[0], r.stderr
    assert not list(tmp_path.iterdir())


def test_degrade_curves_carry_the_table():
    table = degrade(QRELS, RUNS, ["RR", "sgnLP"], fractions=[0.2, 0.6], samples=3, seed=4, rel=2)
    fig = plots.meta_curves(table)
    data = fig.irpref_data
    assert data.attrs["x"] == "fraction"
    for stat in ("percent_tied", "agreement", "kendall_tau"):
        part = data[data["statistic"] == stat]
        np.testing.assert_allclose(part["mean"], table[stat])
        np.testing.assert_allclose(part["sd"], table[f"{stat}_sd"])
        np.testing.assert_allclose(part["x"], table["fraction"])
    assert len(fig.axes) == 3
    assert all(ax.get_xlabel() and ax.get_ylabel() and ax.get_legend() for ax in fig.axes)
    assert len(fig.axes[0].collections) == 2  # one shaded band per measure


def test_subsample_curves():
    table = subsample(QRELS, RUNS, ["RR"], sizes=[5, 10], samples=4, seed=1, rel=2)
    data = plots.meta_curves(table).irpref_data
    assert data.attrs["x"] == "size" and list(data["statistic"].unique()) == ["kendall_tau"]
    np.testing.assert_allclose(data["mean"], table["kendall_tau"])


def test_meta_curve_data_refuses_other_tables():
    import pandas as pd

    with pytest.raises(ValueError, match="degrade"):
        plots.meta_curve_data(pd.DataFrame({"run": ["a"], "value": [1.0]}))
