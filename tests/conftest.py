"""Shared test fixtures: the real TREC data shipped in tests/data (see its README),
and a headless Chromium for the tests that look at pages as a person does."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    if not DATA.is_dir():
        pytest.fail(f"the test data is missing: expected it at {DATA}")
    return DATA


CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """Debian's headless Chromium through selenium, with networking disabled (a
    dead proxy, no background networking); its absence FAILS the test
    (``scripts/install-browser.sh`` installs it). Module-scoped: a module that
    uses it is one ``xdist_group``, so it starts once per module."""
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
