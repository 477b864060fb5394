"""The documentation site: it builds strictly, its generated pages are complete,
and it opens in a browser.

``mkdocs build --strict`` fails on any warning: a broken link or anchor, a
page missing from the navigation, an API name mkdocstrings cannot find. The
measure catalogue, the command-line reference and the API reference are
generated at build time (docs/hooks.py); the tests compare them with what
the installed package says, through its public entry points. Every dotted
``irpref.x`` name the pages and the README quote must resolve, so a module
that moves cannot leave a stale name behind. The README is the front page:
short, with the two commands, and its links lead to pages of the site. The
worked examples of the guides, the getting-started page and the README run,
and print what the pages show.
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
        target = source.removesuffix(".md") + ".html"  # use_directory_urls: false
        assert (site / target).is_file(), target


def test_the_catalogue_lists_every_measure_record(site):
    page = (site / "reference" / "measure-catalogue.html").read_text(encoding="utf-8")
    records = _records()
    assert len(records) >= 70
    for r in records:
        slug = "m-" + re.sub(r"[^a-z0-9]+", "-", r["measure"].lower()).strip("-")
        assert f'id="{slug}"' in page, r["measure"]
        assert html.escape(r["source"], quote=False) in page or not r["source"], r["measure"]


def test_the_command_line_page_has_every_command(site):
    text = _text(site / "reference" / "cli.html")
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

    page = (site / "api.html").read_text(encoding="utf-8")
    for name in irpref.__all__:
        assert f'id="irpref.{name}"' in page, name
    text = _text(site / "api.html")
    assert ">>> results = irpref.evaluate(qrels, runs, [\"AP\", \"nDCG@10\"])" in text


def test_the_changelog_page_is_the_changelog(site):
    text = _text(site / "changelog.html")
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

    browser.get((site / "reference" / "measure-catalogue.html").as_uri())
    assert browser.execute_script("return document.readyState") == "complete"
    assert browser.title.startswith("Measure catalogue")
    rows = browser.find_elements(By.CSS_SELECTOR, "article table tbody tr")
    records = _records()
    assert len(rows) == len(records)
    shown = {row.find_element(By.CSS_SELECTOR, "td").text for row in rows}
    assert shown == {r["measure"] for r in records}

    browser.get((site / "api.html").as_uri())
    anchor = browser.find_element(By.ID, "irpref.evaluate")  # the page's own anchor
    body = browser.execute_script(
        "let n = arguments[0].parentElement.nextElementSibling;"
        "while (n && !n.classList.contains('doc')) { n = n.nextElementSibling; }"
        "return n ? n.innerText : '';", anchor)
    assert body.strip().startswith("irpref.evaluate")
    assert "Examples:" in body and ">>> results = irpref.evaluate(" in body
    browser.save_screenshot(str(tmp_path / "api.png"))
    remote = _remote(browser)
    # the navigation works from file:// (use_directory_urls: false): follow it
    (link,) = [a for a in browser.find_elements(By.CSS_SELECTOR, "nav.md-nav a")
               if a.get_attribute("textContent").strip() == "Getting started"]
    browser.execute_script("arguments[0].click()", link)
    assert browser.title.startswith("Getting started")
    assert "irpref evaluate" in browser.find_element(By.TAG_NAME, "article").text
    remote += _remote(browser)
    assert not remote, f"the site requests something from the network: {remote}"


def _remote(browser) -> list[str]:
    """URLs the pages requested from anywhere but the files themselves."""
    urls = [json.loads(e["message"])["message"]["params"]["request"]["url"]
            for e in browser.get_log("performance")
            if '"Network.requestWillBeSent"' in e["message"]]
    return [u for u in urls if not u.startswith(("file:", "data:", "chrome:", "about:", "blob:"))]


FENCE = re.compile(r"^```(\w+)\n(.*?)^```", re.MULTILINE | re.DOTALL)
WORKED = ["docs/getting-started.md", "docs/guides/trec-participant.md",
          "docs/guides/leaderboard.md", "docs/guides/recommender.md",
          "docs/guides/llm-judge.md", "README.md"]


def _console(block: str) -> list[tuple[str, list[str]]]:
    """(command, expected output lines) of a console block; ``...`` skips lines."""
    out: list[tuple[str, list[str]]] = []
    lines = block.splitlines()
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            i += 1
            continue
        command = lines[i][2:]
        while command.endswith("\\") and i + 1 < len(lines):
            i += 1
            command = command[:-1] + " " + lines[i].strip()
        expected = []
        i += 1
        while i < len(lines) and not lines[i].startswith("$ "):
            expected.append(lines[i].rstrip())
            i += 1
        out.append((command, expected))
    return out


def _shown(expected: list[str], actual: list[str]) -> bool:
    """Every shown line appears, in order; ``...`` stands for any lines."""
    pos = 0
    for line in expected:
        if line == "..." or not line:
            continue
        try:
            pos = actual.index(line, pos) + 1
        except ValueError:
            return False
    return True


@pytest.mark.xdist_group("docs_worked")  # no shared fixture: its own worker group
@pytest.mark.parametrize("page", WORKED)
def test_worked_examples_print_what_the_pages_show(page, tmp_path):
    """Each page's Python runs (its blocks in order: the set-up of the guides),
    and every ``$ command`` of its console blocks prints the lines shown under
    it, on the shipped data."""
    (tmp_path / "tests").symlink_to(ROOT / "tests")  # the LLMJudge sample, as in a checkout
    (tmp_path / "benchmarks").symlink_to(ROOT / "benchmarks")
    text = (ROOT / page).read_text(encoding="utf-8")
    state = "set -- $(python -m irpref.examples)"
    checked = 0
    blocks = FENCE.findall(text)
    setup = "\n".join(body for lang, body in blocks if lang == "python")
    if page != "README.md" and setup:  # the page's Python, in order, before its commands
        proc = subprocess.run([sys.executable, "-c", setup], cwd=tmp_path,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"{page}: its Python fails: {proc.stderr[-2000:]}"
    for lang, body in blocks:
        if lang == "bash" and body.lstrip().startswith("set --"):
            state = body.split("#")[0].strip()
        elif lang == "console":
            script = [state]
            commands = _console(body)
            for k, (command, _) in enumerate(commands):
                script += [f"echo '<<<{k}>>>'", f"{command} 2>&1"]
            bindir = Path(sys.executable).parent
            proc = subprocess.run(["bash", "-c", "\n".join(script)], cwd=tmp_path,
                                  capture_output=True, text=True, timeout=600,
                                  env={"PATH": f"{bindir}:/usr/bin:/bin", "COLUMNS": "200"})
            parts = re.split(r"^<<<\d+>>>\n", proc.stdout, flags=re.MULTILINE)[1:]
            assert len(parts) == len(commands), proc.stdout + proc.stderr
            for (command, expected), output in zip(commands, parts):
                actual = [line.rstrip() for line in output.splitlines()]
                assert _shown(expected, actual), (
                    f"{page}: `{command}` prints\n{output}\nnot what the page shows")
                checked += 1
    assert checked >= 1
