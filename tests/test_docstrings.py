"""Every name of ``irpref.__all__`` has a numpydoc docstring whose examples run.

The docstrings are the API reference of the documentation site (docs/api.md,
made by mkdocstrings with ``docstring_style: numpy``); they are found as the site
finds them (``docs/hooks.py``: :func:`public_api`), parsed by the same parser
(griffe's numpy parser, with no warning allowed), and checked for the sections
a reader needs: a summary, Parameters naming every parameter of the signature,
Returns for a function, Raises for a function, and Examples. The examples run
here as doctests, so they cannot go stale.
"""

from __future__ import annotations

import doctest
import importlib.util
import inspect
import logging
import sys
from pathlib import Path

import pytest

HOOKS = Path(__file__).resolve().parents[1] / "docs" / "hooks.py"
_spec = importlib.util.spec_from_file_location("irpref_docs_hooks", HOOKS)
hooks = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = hooks  # a dataclass looks its module up there
_spec.loader.exec_module(hooks)

API = hooks.public_api()
NAMES = [item.name for item in API]
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _sections(doc: str, caplog) -> dict[str, object]:
    from griffe import Docstring, Parser

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="griffe"):
        parsed = Docstring(doc).parse(Parser.numpy)
    warnings = [r.getMessage() for r in caplog.records if r.name.startswith("griffe")]
    assert not warnings, f"numpydoc problems: {warnings}"
    return {s.kind.value: s.value for s in parsed}


def _signature_names(obj) -> list[str]:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    names = []
    for p in sig.parameters.values():
        if p.name == "self":
            continue
        prefix = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
        names.append(prefix + p.name)
    return names


def test_the_api_lists_every_public_name():
    import irpref

    assert list(irpref.__all__) == NAMES
    assert len(NAMES) >= 30


@pytest.mark.parametrize("item", API, ids=NAMES)
def test_numpydoc_sections(item, caplog):
    sections = _sections(item.doc, caplog)
    summary = item.doc.strip().splitlines()[0] if item.doc.strip() else ""
    assert summary and summary.endswith("."), f"irpref.{item.name}: no one-line summary"
    assert "examples" in sections, f"irpref.{item.name}: no Examples section"
    if item.kind in ("function", "class", "exception"):
        wanted = _signature_names(item.obj)
        documented = [p.name for p in sections.get("parameters", [])]
        assert sorted(documented) == sorted(wanted), (
            f"irpref.{item.name}: Parameters document {documented}, the signature has {wanted}")
    if item.kind == "function":
        assert "returns" in sections or "yields" in sections, f"irpref.{item.name}: no Returns"
        assert "raises" in sections, f"irpref.{item.name}: no Raises"


@pytest.mark.parametrize("item", API, ids=NAMES)
def test_examples_run(item, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an example that writes a file writes it here
    parser = doctest.DocTestParser()
    test = parser.get_doctest(item.doc, {}, f"irpref.{item.name}", item.path, 0)
    assert test.examples, f"irpref.{item.name}: no example"
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    out: list[str] = []
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # examples show values; warnings go to stderr
        runner.run(test, out=out.append)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "".join(out)
