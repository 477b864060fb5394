"""The C extensions are optional: which of them an installation has.

The suite's own environment (``pip install -e .`` with a C compiler) must have
every extension setup.py declares: the tests that compare the C paths with
the NumPy / Arrow ones need both. scripts/release-check.sh runs this file,
with ``IRPREF_EXPECT_NO_EXTENSIONS=1``, beside the tests of those fallbacks on
a wheel built with ``IRPREF_NO_EXTENSIONS=1``: there none may be importable,
and irpref must come from that installation, not from the source tree.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
sys.path.insert(0, str(SCRIPTS))
from smoke import extension_names, importable_extensions  # noqa: E402

sys.path.remove(str(SCRIPTS))

EXPECT_NONE = os.environ.get("IRPREF_EXPECT_NO_EXTENSIONS", "") not in ("", "0")


def test_setup_declares_the_extensions():
    names = extension_names()
    assert len(names) >= 4 and all(n.startswith("irpref._") for n in names), names


def test_the_extensions_are_importable_or_absent_as_expected():
    found, missing = importable_extensions()
    if EXPECT_NONE:
        assert found == [], f"built without extensions, yet {found} import"
        package = Path(importlib.util.find_spec("irpref").origin).parent
        compiled = [p.name for p in package.rglob("*")
                    if p.name.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))]
        assert compiled == [], compiled
        assert "site-packages" in package.parts, f"irpref imported from {package}"
    else:
        assert missing == [], (f"{missing} not built: the suite needs every extension "
                               "(pip install -e . with a C compiler)")
