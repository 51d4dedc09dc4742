"""What the table view's browser tests share (test_table_*.py): a page opened in its own
browser context (no shared storage between a GM and a player) that collects the page's
errors, the GM's commands sent over the API, and the screenshots `make table-screenshots`
writes for the README. The `browser` fixture is in conftest.py."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Browser, Locator, Page, expect

from tests.e2e.conftest import WAIT_MS
from tests.e2e.helpers import bearer, fray_serving
from tests.workers.conftest import fray_worker


@contextmanager
def table_service(redis_url: str, queue_url: str) -> Iterator[tuple[str, httpx.Client]]:
    """A real `fray serve` (its base URL) and `fray worker` on the test's Redis, which fires
    the clocks the pages count down, and an API client for what the test sends itself."""
    with (
        fray_serving(redis_url, FRAY_QUEUE_REDIS_URL=queue_url) as [fray],
        fray_worker(redis_url, queue_url),
        httpx.Client(base_url=fray, timeout=30) as client,
    ):
        yield fray, client


def opened(
    browser: Browser, url: str, errors: list[str], width: int = 1280, bypass_csp: bool = False
) -> Page:
    """`bypass_csp` lets a test add a script of its own (axe-core) to the page."""
    context = browser.new_context(viewport={"width": width, "height": 900}, bypass_csp=bypass_csp)
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.on("pageerror", lambda error: errors.append(str(error)))
    # Console errors but the failed loads a refusal logs (the test sends one on purpose).
    page.on(
        "console",
        lambda m: (
            errors.append(m.text)
            if m.type == "error" and not m.text.startswith("Failed to load resource")
            else None
        ),
    )
    page.goto(url)
    return page


class Gm:
    def __init__(self, client: httpx.Client, encounter_id: str, token: str) -> None:
        self.client, self.encounter_id, self.token = client, encounter_id, token

    def send(self, command: dict[str, Any], dice: list[int] | None = None) -> dict[str, Any]:
        """The command, with table dice (`dice`: the faces the rules roll, in order) if any."""
        body: dict[str, Any] = (
            {"command": command} if dice is None else {"command": command, "dice": dice}
        )
        answer = self.client.post(
            f"/v1/encounters/{self.encounter_id}/commands", json=body, headers=bearer(self.token)
        )
        assert answer.status_code == 201, answer.text
        sent: dict[str, Any] = answer.json()
        return sent

    def state(self) -> dict[str, Any]:
        got = self.client.get(f"/v1/encounters/{self.encounter_id}", headers=bearer(self.token))
        assert got.status_code == 200, got.text
        body: dict[str, Any] = got.json()
        return body

    def events(self) -> list[dict[str, Any]]:
        """The first page of the stream (up to 100 events), as the GM sees it."""
        got = self.client.get(
            f"/v1/encounters/{self.encounter_id}/events", headers=bearer(self.token)
        )
        assert got.status_code == 200, got.text
        found: list[dict[str, Any]] = got.json()["events"]
        return found


def screenshots(name: str, pages: dict[str, Page]) -> None:
    """`make table-screenshots` sets FRAY_TABLE_SCREENSHOTS to docs/table/: each page's
    screenshot goes there (the README links them), so they are made by the test, not by
    hand. Unset, nothing is written. A test that calls this is marked
    `@pytest.mark.table_screenshots`, which is how the make target finds it
    (test_table_screenshot_marks.py checks)."""
    folder = os.environ.get("FRAY_TABLE_SCREENSHOTS")
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    for role, page in pages.items():
        # The whole page down to the log's first lines: a long log would only add kilobytes.
        width, height = page.evaluate(
            "[innerWidth, Math.min(document.documentElement.scrollHeight, 1200)]"
        )
        clip = {"x": 0, "y": 0, "width": width, "height": height}
        path = str(Path(folder) / f"{name}-{role}.png")
        page.screenshot(path=path, full_page=True, clip=clip)  # type: ignore[arg-type]


def pick_on_map(page: Page, form: Locator, field: str, cell: tuple[int, int]) -> None:
    """Fill `form`'s cell field `field` from the map: "pick on map" arms it, a click on the
    cell fills it and disarms it."""
    pick = form.get_by_role("button", name=f'pick on map: the cell for "{field}"')
    pick.click()
    expect(pick).to_have_attribute("aria-pressed", "true")
    x, y = cell
    page.get_by_role("button", name=f"cell {x}, {y}: choose").click()
    expect(form.get_by_label(field, exact=True)).to_have_value(f"{x}, {y}")
    expect(pick).to_have_attribute("aria-pressed", "false")
