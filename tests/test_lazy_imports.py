"""Start-up: which modules ``import irpref`` and the ``irpref`` command load.

Pinned structurally, in fresh interpreters (never timed here; the figures are
``benchmarks/bench_startup.py``'s): ``import irpref`` loads none of NumPy,
pandas, SciPy, pyarrow, matplotlib, and every public name still resolves
(``irpref.__all__``, ``dir(irpref)``); ``irpref --version`` loads no
subcommand and no NumPy; ``irpref trec_eval`` loads no pandas, SciPy or
matplotlib, neither when its modules are imported nor when it evaluates a run
with the default measures; the dispatcher imports only the subcommand asked for.
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("numpy", "pandas", "scipy", "matplotlib", "pyarrow")


def _loaded(code: str) -> dict:
    """Run ``code`` in a fresh interpreter; it prints a JSON value last."""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def test_import_irpref_loads_nothing_heavy_and_every_name_resolves():
    got = _loaded(
        "import json, sys, irpref\n"
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "lazy = all(n not in vars(irpref) for n in ('evaluate', 'read_qrels', 'tukey_hsd'))\n"
        "listed = sorted(set(irpref.__all__) - set(dir(irpref)))\n"
        "values = {n: type(getattr(irpref, n)).__name__ for n in irpref.__all__}\n"
        "print(json.dumps([heavy, lazy, listed, values]))")
    heavy, lazy, listed, values = got
    assert heavy == [] and lazy and listed == []
    assert set(values) == set(__import__("irpref").__all__)
    assert values["evaluate"] == "function" and values["Settings"] == "type"
    # a submodule named like its function, imported first, leaves the function in place
    kinds = _loaded("import json, irpref.evaluate, irpref.compare, irpref\n"
                    "print(json.dumps([type(irpref.evaluate).__name__,\n"
                    "                  type(irpref.compare).__name__]))")
    assert kinds == ["function", "function"]


def test_version_loads_no_subcommand():
    got = _loaded(
        "import contextlib, io, json, sys\n"
        "from irpref.cli.main import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    code = main(['--version'])\n"
        "cli = sorted(m for m in sys.modules if m.startswith('irpref.cli.'))\n"
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "print(json.dumps([code, out.getvalue(), cli, heavy]))")
    code, out, cli, heavy = got
    assert (code, out) == (0, f"irpref {__import__('irpref').__version__}\n")
    assert cli == ["irpref.cli.main"] and heavy == []


def test_trec_eval_loads_no_pandas_scipy_or_matplotlib(data_dir):
    d = data_dir / "trec_eval"
    got = _loaded(
        "import contextlib, io, json, sys\n"
        "import irpref.cli.trec_eval, irpref.trec_eval.run, irpref.trec_eval.format\n"
        "imported = [m for m in ('pandas', 'scipy', 'matplotlib') if m in sys.modules]\n"
        "from irpref.cli.main import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        f"    code = main(['trec_eval', {str(d / 'qrels.test')!r}, {str(d / 'results.test')!r}])\n"
        "ran = [m for m in ('pandas', 'scipy', 'matplotlib') if m in sys.modules]\n"
        "cli = sorted(m for m in sys.modules if m.startswith('irpref.cli.'))\n"
        "print(json.dumps([imported, code, out.getvalue(), ran, cli]))")
    imported, code, out, ran, cli = got
    assert imported == [] and code == 0
    assert out == (d / "out.test").read_text()
    assert ran == []
    assert cli == ["irpref.cli.main", "irpref.cli.trec_eval"]


def test_dispatcher_imports_only_the_subcommand_asked_for():
    got = _loaded(
        "import contextlib, io, json, sys\n"
        "from irpref.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    code = main(['measures', '--help'])\n"
        "cli = sorted(m for m in sys.modules if m.startswith('irpref.cli.')\n"
        "             and m not in ('irpref.cli.common', 'irpref.cli.main'))\n"
        "print(json.dumps([code, cli]))")
    assert got == [0, ["irpref.cli.measures"]]
