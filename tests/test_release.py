"""What a release is made of: the version written once, the licence and the
changelog, and a cibuildwheel configuration for Linux, macOS and Windows.

The build itself (sdist, wheels with and without the C extensions, each
installed in a fresh environment and smoke-tested) is scripts/release-check.sh,
which CI runs before this suite.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # the test extra installs tomli there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _static_version() -> str:
    """``__version__`` as setuptools reads it without importing the package:
    a string literal assigned at the top of src/irpref/__init__.py."""
    tree = ast.parse((ROOT / "src" / "irpref" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if (isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__version__"
                                                 for t in node.targets)
                and isinstance(node.value, ast.Constant)):
            return node.value.value
    raise AssertionError("src/irpref/__init__.py assigns no literal __version__")


def test_the_version_is_written_once():
    import irpref

    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "irpref.__version__"}
    version = _static_version()
    assert re.fullmatch(r"\d+\.\d+\.\d+([ab]\d+|rc\d+)?", version)
    assert irpref.__version__ == version == metadata.version("irpref")


@pytest.mark.slow  # a whole process (about 1.5 s: every import)
def test_the_command_prints_the_installed_version():
    proc = subprocess.run([sys.executable, "-m", "irpref", "--version"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == f"irpref {_static_version()}"


def test_licence_and_changelog():
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License") and "irpref contributors" in licence
    assert PYPROJECT["project"]["license"] == "MIT"
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "keepachangelog.com" in changelog and "## [Unreleased]" in changelog
    assert f"## [{_static_version()}] - " in changelog


def test_the_typing_marker_is_package_data():
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["irpref"]
    assert (ROOT / "src" / "irpref" / "py.typed").is_file()


EXPECTED = {
    "linux": {f"cp3{v}-manylinux_{a}" for v in range(10, 15) for a in ("x86_64", "aarch64")},
    "macos": {f"cp3{v}-macosx_{a}" for v in range(10, 15) for a in ("x86_64", "arm64")},
    "windows": {f"cp3{v}-win_amd64" for v in range(10, 15)},
}


@pytest.mark.slow
@pytest.mark.parametrize("platform", sorted(EXPECTED))
def test_cibuildwheel_builds_every_supported_python_on_each_platform(platform):
    """The configuration, checked as cibuildwheel reads it (it cannot build here):
    CPython 3.10-3.14 for x86_64 and ARM on Linux and macOS, 64-bit Windows."""
    proc = subprocess.run([sys.executable, "-m", "cibuildwheel", "--print-build-identifiers",
                           "--platform", platform], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert set(proc.stdout.split()) == EXPECTED[platform]
    assert "--extensions all" in PYPROJECT["tool"]["cibuildwheel"]["test-command"]
