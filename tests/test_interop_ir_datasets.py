"""Qrels named irds:DATASET-ID through ir_datasets, API and CLI.

Tests cannot download: a dataset is registered locally from the shipped
example qrels through ir_datasets' own API (a TrecQrels over a LocalDownload).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from helpers import irpref_cli

import irpref
from irpref import examples
from irpref.errors import UsageError

pytest.importorskip("ir_datasets")

DATASET = "irpref-test/dl19-example"
NAME = "irds:" + DATASET

REGISTER = f"""
import ir_datasets
from ir_datasets.datasets.base import Dataset
from ir_datasets.formats import TrecQrels
from ir_datasets.util import LocalDownload
from irpref import examples
if {DATASET!r} not in ir_datasets.registry:
    qrels = TrecQrels(LocalDownload(examples.qrels_path()), {{0: "not", 1: "related",
                                                             2: "highly", 3: "perfectly"}})
    ir_datasets.registry.register({DATASET!r}, Dataset(qrels))
"""


@pytest.fixture(scope="module", autouse=True)
def registered(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("IR_DATASETS_HOME", str(tmp_path_factory.mktemp("irds_home")))
    exec(REGISTER, {})
    yield
    mp.undo()


def test_read_qrels_through_ir_datasets():
    got = irpref.read_qrels(NAME)
    ref = irpref.read_qrels(examples.qrels_path())
    assert got.source == NAME
    assert got.query.to_pylist() == ref.query.to_pylist()
    assert got.doc.to_pylist() == ref.doc.to_pylist()
    np.testing.assert_array_equal(got.grade, ref.grade)
    run = examples.run_paths()[0]
    a = irpref.evaluate(NAME, run, ["AP", "nDCG@10"], rel=2)
    b = irpref.evaluate(examples.qrels_path(), run, ["AP", "nDCG@10"], rel=2)
    np.testing.assert_array_equal(a["value"].to_numpy(), b["value"].to_numpy())


@pytest.mark.parametrize(
    ("name", "message"),
    [("irds:no-such/dataset", "unknown ir_datasets dataset"), ("irds:", "name an ir_datasets")],
)
def test_unknown_dataset_is_a_usage_error(name, message):
    with pytest.raises(UsageError, match=message):
        irpref.read_qrels(name)


def test_missing_ir_datasets_is_a_usage_error():
    code = (
        "import sys; sys.modules['ir_datasets'] = None\n"
        "import irpref\n"
        "from irpref.errors import UsageError\n"
        "try:\n"
        f"    irpref.read_qrels({NAME!r})\n"
        "except UsageError as e:\n"
        "    assert 'irpref[irds]' in str(e), e\n"
        "else:\n"
        "    raise SystemExit('no error')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.slow
def test_cli_evaluate_with_registered_dataset():
    run = str(examples.run_paths()[0])
    code = REGISTER + (
        "import sys\nfrom irpref.cli.main import main\n"
        f"sys.exit(main(['evaluate', {NAME!r}, {run!r}, '-m', 'AP', '--rel', '2',"
        " '--format', 'tsv']))\n"
    )
    via = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert via.returncode == 0, via.stderr
    plain = subprocess.run(
        ["irpref", "evaluate", str(examples.qrels_path()), run, "-m", "AP", "--rel", "2",
         "--format", "tsv"], capture_output=True, text=True, check=True)
    assert via.stdout == plain.stdout


@pytest.mark.slow
def test_cli_unknown_dataset_is_a_clear_error():
    proc = irpref_cli("evaluate", "irds:no-such/dataset", examples.run_paths()[0], "-m", "AP")
    # an unknown dataset name is a bad request: UsageError, exit 2
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "unknown ir_datasets dataset" in proc.stderr
    assert "Traceback" not in proc.stderr
