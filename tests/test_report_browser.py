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
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
SECTIONS = ["Summary against the baseline", "Per-query views",
            "Preferences and system orderings", "Significance and discriminative power",
            "Ties", "Search lengths", "Robustness to missing labels"]


def _irpref() -> str:
    return shutil.which("irpref") or str(Path(sys.executable).parent / "irpref")


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    assert os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER), (
        "Chromium and chromedriver are needed: run scripts/install-browser.sh")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must not download anything
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    profile = tmp_path_factory.mktemp("chromium-profile")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                 "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
                 f"--user-data-dir={profile}", "--window-size=1200,900"):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    try:
        yield driver
    finally:
        driver.quit()


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
        browser.execute_script("arguments[0].scrollIntoView()", img)
        assert img.is_displayed(), img.get_attribute("alt")
        assert browser.execute_script(
            "return arguments[0].complete && arguments[0].naturalWidth", img) > 0
        assert img.size["width"] > 50 and img.size["height"] > 50

    # every request was local, none went to the network
    urls = []
    for entry in browser.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg["method"] == "Network.requestWillBeSent":
            urls.append(msg["params"]["request"]["url"])
    assert path.as_uri() in urls
    remote = [u for u in urls if not u.startswith(("file:", "data:", "chrome:", "about:"))]
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
