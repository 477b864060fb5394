"""The documentation site: it builds strictly, its generated pages are complete,
and it opens in a browser.

``mkdocs build --strict`` fails on any warning: a broken link or anchor, a
page missing from the navigation, an API name mkdocstrings cannot find. The
measure catalogue, the command-line reference and the API reference are
generated at build time (docs/hooks.py); the tests compare them with what
the installed package says, through its public entry points. Every dotted
``irpref.x`` name the pages and the README quote must resolve, so a module
that moves cannot leave a stale name behind. The README is the front page:
short, with the two commands, and its links lead to pages of the site.
"""

from __future__ import annotations

import html
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import irpref_cli

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("docs_site")]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
         str(ROOT / "mkdocs.yml"), "--site-dir", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-6000:]
    return out


def _text(page: Path) -> str:
    """A built page's text, tags removed and entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))


def _records() -> list[dict[str, str]]:
    return json.loads(irpref_cli("measures", "--format", "json").stdout)


def test_every_page_of_the_navigation_is_built(site):
    import yaml

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))

    def pages(nav):
        for entry in nav:
            value = next(iter(entry.values())) if isinstance(entry, dict) else entry
            yield from pages(value) if isinstance(value, list) else [value]

    built = list(pages(config["nav"]))
    assert len(built) >= 30
    for source in built:
        assert (DOCS / source).is_file(), source
        stem = source.removesuffix(".md")
        target = f"{stem}.html" if stem.endswith("index") else f"{stem}/index.html"
        assert (site / target).is_file(), target


def test_the_catalogue_lists_every_measure_record(site):
    page = (site / "reference" / "measure-catalogue" / "index.html").read_text(encoding="utf-8")
    records = _records()
    assert len(records) >= 70
    for r in records:
        slug = "m-" + re.sub(r"[^a-z0-9]+", "-", r["measure"].lower()).strip("-")
        assert f'id="{slug}"' in page, r["measure"]
        assert html.escape(r["source"], quote=False) in page or not r["source"], r["measure"]


def test_the_command_line_page_has_every_command(site):
    text = _text(site / "reference" / "cli" / "index.html")
    top = irpref_cli("--help").stdout
    commands = re.findall(r"^    ([a-z][a-z_]*)(?:\s|$)", top, flags=re.MULTILINE)
    assert "evaluate" in commands and "trec_eval" in commands
    for command in commands:  # argparse's usage line; trec_eval prints its own "Usage:"
        assert f"usage: irpref {command}" in text.replace("Usage: irpref trec_eval",
                                                           "usage: irpref trec_eval"), command
    for experiment in ("ties", "degrade", "worst-case"):
        assert f"usage: irpref meta {experiment}" in text


def test_the_api_page_documents_every_public_name(site):
    import irpref

    page = (site / "api" / "index.html").read_text(encoding="utf-8")
    for name in irpref.__all__:
        assert f'id="irpref.{name}"' in page, name
    text = _text(site / "api" / "index.html")
    assert ">>> results = irpref.evaluate(qrels, runs, [\"AP\", \"nDCG@10\"])" in text


def test_the_changelog_page_is_the_changelog(site):
    text = _text(site / "changelog" / "index.html")
    assert "0.1.0" in text and "Keep a Changelog" in text


DOTTED = re.compile(r"`[^`]*?\b(irpref(?:\.[A-Za-z_][A-Za-z0-9_]*)+)")


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return False
        return True
    return False


def test_every_quoted_irpref_name_resolves():
    """``irpref.x.y`` quoted in a page (or the README) names a module or object
    that exists: when modules move, the pages move with them."""
    sources = [*DOCS.rglob("*.md"), ROOT / "README.md"]
    stale = sorted({f"{p.relative_to(ROOT)}: {name}" for p in sources
                    for name in DOTTED.findall(p.read_text(encoding="utf-8"))
                    if not _resolves(name)})
    assert not stale, stale


def test_the_readme_is_a_front_page():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 260
    assert "bash scripts/demo.sh" in text and "bash scripts/test.sh" in text
    links = re.findall(r"\]\((docs/[^)#]+)(?:#[^)]*)?\)", text)
    assert len(links) >= 10
    for link in links:
        assert (ROOT / link).is_file(), link
    assert "this session" not in text.lower()


@pytest.mark.browser
def test_the_site_opens_in_chromium(browser, site, tmp_path):
    from selenium.webdriver.common.by import By

    browser.get((site / "reference" / "measure-catalogue" / "index.html").as_uri())
    assert browser.execute_script("return document.readyState") == "complete"
    assert browser.title.startswith("Measure catalogue")
    rows = browser.find_elements(By.CSS_SELECTOR, "article table tbody tr")
    records = _records()
    assert len(rows) == len(records)
    shown = {row.find_element(By.CSS_SELECTOR, "td").text for row in rows}
    assert shown == {r["measure"] for r in records}

    browser.get((site / "api" / "index.html").as_uri())
    anchor = browser.find_element(By.ID, "irpref.evaluate")  # the page's own anchor
    body = browser.execute_script(
        "let n = arguments[0].parentElement.nextElementSibling;"
        "while (n && !n.classList.contains('doc')) { n = n.nextElementSibling; }"
        "return n ? n.innerText : '';", anchor)
    assert body.strip().startswith("irpref.evaluate")
    assert "Examples:" in body and ">>> results = irpref.evaluate(" in body
    nav = browser.find_elements(By.CSS_SELECTOR, "nav.md-nav a")
    assert any(a.get_attribute("textContent").strip() == "Getting started" for a in nav)
    browser.save_screenshot(str(tmp_path / "api.png"))
    remote = [e for e in browser.get_log("performance")
              if '"Network.requestWillBeSent"' in e["message"]
              and not json.loads(e["message"])["message"]["params"]["request"]["url"]
              .startswith(("file:", "data:", "chrome:", "about:", "blob:"))]
    assert not remote, "the site requests something from the network"
