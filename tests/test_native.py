"""The one loader of the C extensions (irpref.runtime.native) and its environment policy."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from irpref.errors import UsageError
from irpref.runtime import native as N

SRC = Path(__file__).resolve().parents[1] / "src" / "irpref"


@pytest.mark.parametrize("name", N.NAMES)
def test_each_extension_loads_unless_switched_off(monkeypatch, name):
    monkeypatch.delenv(N.ENV, raising=False)
    monkeypatch.delenv(N.SCAN_ENV, raising=False)
    module = N.native(name)
    assert module is importlib.import_module(f"irpref._native.{name}")  # the suite builds them
    monkeypatch.setenv(N.ENV, "c")
    assert N.native(name) is module
    monkeypatch.setenv(N.ENV, "numpy")
    assert N.native(name) is None


def test_the_scan_switch_turns_off_the_scan_only(monkeypatch):
    monkeypatch.delenv(N.ENV, raising=False)
    monkeypatch.setenv(N.SCAN_ENV, "python")
    assert N.native("scan") is None
    assert all(N.native(n) is not None for n in N.NAMES if n != "scan")


@pytest.mark.parametrize("env, message", [
    (N.ENV, "IRPREF_KERNELS must be 'c' or 'numpy', got 'fortran'"),
    (N.SCAN_ENV, "IRPREF_SCAN must be 'c' or 'python', not 'fortran'"),
])
def test_a_bad_value_is_a_usage_error(monkeypatch, env, message):
    monkeypatch.setenv(env, "fortran")
    with pytest.raises(UsageError, match=message):
        N.native("scan")


def test_insisting_on_a_missing_extension_names_it(monkeypatch):
    real = importlib.import_module

    def missing(name, *args):
        if name.startswith("irpref._native."):
            raise ImportError(name)
        return real(name, *args)

    monkeypatch.setattr(N.importlib, "import_module", missing)
    monkeypatch.delenv(N.ENV, raising=False)
    assert N.native("prefs") is None  # not built: the NumPy path, silently
    monkeypatch.setenv(N.ENV, "c")
    with pytest.raises(UsageError, match=r"IRPREF_KERNELS=c but the C extension "
                                         r"irpref\._native\.prefs is not built"):
        N.native("prefs")


def test_an_unknown_extension_is_refused():
    with pytest.raises(ValueError, match="no C extension irpref._native.fortran"):
        N.native("fortran")


def test_nothing_else_imports_the_extensions():
    """The loader is the one way in: no other module imports ``irpref._native``."""
    for path in SRC.rglob("*.py"):
        if path.parts[-2:] == ("runtime", "native.py") or "_native" in path.parts:
            continue
        text = path.read_text()
        assert "import irpref._native" not in text and "from irpref._native" not in text, path
