"""The HTML report as a person sees it: Debian's headless Chromium via selenium.

Needs /usr/bin/chromium and /usr/bin/chromedriver (``scripts/install-browser.sh``).
Their absence FAILS the test: the report's rendering is part of the contract.
The browser runs with networking disabled (a dead proxy, no background
networking) and the report loads from ``file://``; every request the page
makes is checked to be local (file:, data:, or the
browser's own chrome: pages).
"""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
from helpers import irpref_exe
from synthetic_runs import write_collection

# under pytest-xdist (scripts/test.sh: -n 2 --dist loadgroup) this module runs on one
# worker, so its module-scoped browser and reports (one Chromium) are built once
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("report_browser")]

SECTIONS = ["Summary against the baseline", "How sure are we", "Per-query views",
            "Preferences and system orderings", "Significance and discriminative power",
            "Leaderboard", "Ties", "How much was judged", "Search lengths",
            "Robustness to missing labels"]


def _irpref() -> str:
    return irpref_exe()


# the browser fixture (one headless Chromium per module) is conftest.py's


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    from irpref import examples

    out = tmp_path_factory.mktemp("report") / "report.html"
    runs = [str(p) for p in examples.run_paths()]
    proc = subprocess.run([_irpref(), "report", str(examples.qrels_path()), *runs, "--rel", "2",
                           "--baseline", "bm25base_p", "-m", "AP", "nDCG@10", "-o", str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    names = [Path(r).name.removesuffix(".gz") for r in runs]
    return out, names


def _shot(browser, width: int = 1200) -> np.ndarray:
    """Full-page screenshot (grey levels) after sizing the window to the page."""
    from PIL import Image

    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(width, min(height + 150, 16000))
    browser.execute_script("window.scrollTo(0, 0)")
    shot = Image.open(io.BytesIO(browser.get_screenshot_as_png())).convert("L")
    return np.asarray(shot, dtype=np.float64)


def _assert_shown(browser, img, min_side: int) -> None:
    """The image, scrolled into view, is displayed, loaded and larger than
    ``min_side`` pixels each way."""
    browser.execute_script("arguments[0].scrollIntoView()", img)
    assert img.is_displayed(), img.get_attribute("alt")
    assert browser.execute_script(
        "return arguments[0].complete && arguments[0].naturalWidth", img) > 0
    assert img.size["width"] > min_side and img.size["height"] > min_side


def _remote_requests(browser) -> tuple[list[str], list[str]]:
    urls = []
    for entry in browser.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg["method"] == "Network.requestWillBeSent":
            urls.append(msg["params"]["request"]["url"])
    return urls, [u for u in urls if not u.startswith(("file:", "data:", "chrome:", "about:"))]


@pytest.mark.slow
def test_report_renders_in_headless_chromium(browser, report):
    from PIL import Image
    from selenium.webdriver.common.by import By

    path, names = report
    browser.get(path.as_uri())
    assert browser.execute_script("return document.readyState") == "complete"
    # a reader opens every folded section
    browser.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")

    headings = [h.text for h in browser.find_elements(By.TAG_NAME, "h2")]
    assert headings == SECTIONS
    for h in browser.find_elements(By.TAG_NAME, "h2"):
        assert h.is_displayed()
    body = browser.find_element(By.TAG_NAME, "body").text
    for name in names:
        assert name in body, name
    images = browser.find_elements(By.TAG_NAME, "img")
    assert len(images) >= 6
    for img in images:
        _assert_shown(browser, img, 50)

    # every request was local, none went to the network
    urls, remote = _remote_requests(browser)
    assert path.as_uri() in urls
    assert not remote, remote

    # full-page screenshot: not blank
    height = browser.execute_script("return document.documentElement.scrollHeight")
    assert height > 2000
    browser.set_window_size(1200, min(height + 150, 16000))
    browser.execute_script("window.scrollTo(0, 0)")
    shot = Image.open(io.BytesIO(browser.get_screenshot_as_png())).convert("L")
    pixels = np.asarray(shot, dtype=np.float64)
    assert pixels.shape[0] > 2000
    assert pixels.std() > 20, "the screenshot is (nearly) blank"
    # content all the way down: the lower half is not blank either
    assert pixels[pixels.shape[0] // 2:].std() > 10


# ------------------------------------------------------------------ 100 runs

FONT_NOTE = ("irpref: warning: the figures' font lacks some characters of the run names: they "
             "are drawn as boxes (the tables spell every name)")


@pytest.fixture(scope="module")
def report100(tmp_path_factory):
    """100 seeded synthetic runs x 20 queries x 50 documents, a third of them with
    TREC-like names of 30-60 characters (``tests/synthetic_runs.py``)."""
    import time

    data = tmp_path_factory.mktemp("runs100")
    qrels, runs, names = write_collection(data, n_runs=100, n_queries=20, n_docs=50, seed=0)
    out = data / "report.html"
    start = time.perf_counter()
    proc = subprocess.run([_irpref(), "report", str(qrels), *map(str, runs), "--baseline",
                           names[3], "-o", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    # no warning but the one font note where the machine's font lacks the names' CJK
    # characters (DejaVu Sans alone: one line, never one per glyph)
    assert set(proc.stderr.strip().splitlines()) <= {f"wrote {out}", FONT_NOTE}, proc.stderr
    return out, names, time.perf_counter() - start


@pytest.mark.slow
def test_report_of_100_runs_is_readable(browser, report100):

    from selenium.webdriver.common.by import By

    path, names, _ = report100
    assert path.stat().st_size < 8e6  # a report to mail around, not a data dump
    browser.set_window_size(1200, 900)
    browser.get(path.as_uri())
    assert browser.execute_script("return document.readyState") == "complete"
    # the big parts are folded: the page opens short enough to scan
    folded = browser.execute_script(
        "return [...document.querySelectorAll('details')].filter(d => !d.open).length")
    assert folded >= 10
    closed_height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")

    headings = browser.find_elements(By.TAG_NAME, "h2")
    assert [h.text for h in headings] == SECTIONS
    for h in headings:
        assert h.is_displayed()
        what = h.find_element(By.XPATH, "following-sibling::p[1]")
        assert what.is_displayed() and len(what.text) > 60  # the one-sentence description
    # every run name is visible in a table cell (summary table, key)
    cells = browser.execute_script(
        "return [...document.querySelectorAll('td')].map(c => c.textContent)")
    for name in names:
        assert name in cells, name
    summary = browser.find_element(By.CSS_SELECTOR, "#summary table")
    rows = summary.find_elements(By.CSS_SELECTOR, "tbody tr")
    assert len(rows) == 100
    for row in (rows[0], rows[-1]):  # the long table scrolls in its box; the rows show
        browser.execute_script("arguments[0].scrollIntoView()", row)
        assert row.is_displayed()
    # a key maps every abbreviated label used in the figures to its run
    key = browser.execute_script(
        "const t = [...document.querySelectorAll('details')].find(d => "
        "d.querySelector('summary').textContent.startsWith('Run labels'));"
        "return [...t.querySelectorAll('tbody tr')].map(r => [...r.cells].map(c => c.textContent))")
    long_names = [n for n in names if len(n) > 12]
    assert sorted(run for _, run in key) == sorted(long_names)
    assert all(len(label) <= 12 for label, _ in key)

    images = browser.find_elements(By.TAG_NAME, "img")
    assert 15 <= len(images) <= 60
    for img in images:
        _assert_shown(browser, img, 100)
        # no figure is a strip: readable without zooming
        w, h = browser.execute_script(
            "return [arguments[0].naturalWidth, arguments[0].naturalHeight]", img)
        assert w <= 2200 and h <= 2200 and max(w, h) / min(w, h) < 4, (img.get_attribute("alt"),
                                                                       w, h)

    urls, remote = _remote_requests(browser)
    assert path.as_uri() in urls and not remote, remote

    pixels = _shot(browser)
    assert pixels.shape[0] > closed_height
    assert pixels.std() > 20, "the screenshot is (nearly) blank"
    assert pixels[pixels.shape[0] // 2:].std() > 10
