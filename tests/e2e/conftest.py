"""The real browser of the browser tests (test_browser.py, test_graphiql_browser.py,
test_table_*.py): Debian's chromium, driven by Playwright."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

CHROMIUM = "/usr/bin/chromium"  # Debian's package: .ci/run installs it
WAIT_MS = 20_000  # a hang guard: each wait ends as soon as the page has what it waits for


@pytest.fixture(scope="module")
def browser_page() -> Iterator[Page]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no {CHROMIUM}: `apt-get install -y chromium` (.ci/run does)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        try:
            page = browser.new_page()
            page.set_default_timeout(WAIT_MS)
            yield page
        finally:
            browser.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One chromium for a module's tests; each page gets its own context (table_pages.opened)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no {CHROMIUM}: `apt-get install -y chromium` (.ci/run does)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM)
        try:
            yield launched
        finally:
            launched.close()
