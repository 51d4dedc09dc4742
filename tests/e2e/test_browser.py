"""A real browser (Debian's chromium, driven by Playwright) on a page served from another
origin than Fray: it creates an encounter, sends commands with fetch (REST and GraphQL),
follows the events with an EventSource opened by a stream ticket and with a GraphQL
subscription over websockets, against a real `fray serve` with FRAY_CORS_ORIGINS set to
the page's origin. Without FRAY_CORS_ORIGINS the page can neither call Fray nor open a
websocket to it.

The page is tests/e2e/browser/ (fray.js: fetch, EventSource and graphql-transport-ws by
hand, nothing loaded from the network); a static server on its own port serves it. The
browser is tests/e2e/conftest.py's `browser_page`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page

from service.rules.registry import RULESETS
from tests.api.conftest import KEY
from tests.e2e.helpers import bearer, fray_serving

PAGE = Path(__file__).parent / "browser"
EVENT_TYPES = sorted(RULESETS["freeform"].event_models)
SKIRMISH = [
    {"type": "add-combatant", "combatant_id": "bramli", "name": "Bramli", "side": "heroes",
     "stats": {"hp": 20}},
    {"type": "add-combatant", "combatant_id": "goblin", "name": "Goblin", "side": "goblins",
     "stats": {"hp": 7}},
    {"type": "roll-initiative"},
    {"type": "start-encounter"},
]  # fmt: skip
ROLL = """
mutation Roll($id: String!, $command: CommandInput!) {
  submitCommand(encounterId: $id, command: $command) {
    __typename ... on CommandAccepted { version }
  }
}"""


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def page_origin() -> Iterator[str]:
    """The page's own origin: a static server on another port than Fray's."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietHandler, directory=str(PAGE)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextmanager
def opened(page: Page, origin: str, fray: str) -> Iterator[None]:
    """The page, pointed at `fray`; left at the end, which closes its streams and sockets
    (`fray serve` waits for open connections before it stops)."""
    page.goto(f"{origin}/index.html?fray={fray}")
    page.wait_for_function("() => window.fray !== undefined")
    try:
        yield
    finally:
        page.goto("about:blank")


def wait_for(page: Page, kind: str, version: int) -> list[int]:
    """The versions the page has received over `kind` (sse, ws), once `version` is in."""
    page.wait_for_function(
        "([kind, v]) => fray.seen[kind].some((e) => e.id >= v)", arg=[kind, version]
    )
    ids: list[int] = page.evaluate("(kind) => fray.seen[kind].map((e) => e.id)", kind)
    return ids


def run(page: Page, function: str, *args: Any) -> Any:
    """Call `fray.<function>(...args)` in the page and wait for its promise."""
    return page.evaluate(f"(args) => fray.{function}(...args)", list(args))


def test_a_page_on_another_origin_plays_and_follows_an_encounter(
    redis_url: str, encounter_id: str, browser_page: Page
) -> None:
    page = browser_page
    with (
        page_origin() as origin,
        fray_serving(redis_url, FRAY_CORS_ORIGINS=origin) as [fray],
        opened(page, origin, fray),
    ):
        created = run(page, "createEncounter", KEY, encounter_id)
        assert created["status"] == 201, created
        assert created["location"] == f"/v1/encounters/{encounter_id}"  # an exposed header
        gm = created["body"]["gm_token"]

        assert run(page, "follow", encounter_id, gm, 0, EVENT_TYPES) == "open"
        assert run(page, "subscribe", gm, encounter_id, 0) == "subscribed"
        for command in SKIRMISH:
            sent = run(page, "command", encounter_id, gm, command)
            assert sent["status"] == 201, sent
        roll = {"freeform": {"roll": {"expression": "1d6"}}}
        rolled = run(page, "graphql", gm, ROLL, {"id": encounter_id, "command": roll})
        head = rolled["body"]["data"]["submitCommand"]["version"]

        assert wait_for(page, "sse", head) == list(range(1, head + 1))
        assert wait_for(page, "ws", head) == list(range(1, head + 1))
        assert page.evaluate("fray.seen.wsErrors") == []

        # Resuming: a new ticket and `after`, the last id received; only what came since.
        assert run(page, "follow", encounter_id, gm, head, EVENT_TYPES) == "open"
        again = run(page, "command", encounter_id, gm, {"type": "roll", "expression": "1d8"})
        assert again["body"]["version"] == head + 1
        assert wait_for(page, "sse", head + 1) == [*range(1, head + 1), head + 1]

        # A ticket opens one stream: the open stream's ticket, presented again (as an
        # EventSource reconnecting by itself would), is refused and the EventSource stays shut.
        spent = page.evaluate("(e) => fray.spent(e, fray.seen.tickets.at(-1))", encounter_id)
    assert spent["state"] == "closed"
    assert spent["status"] == 401
    assert spent["body"]["error"]["code"] == "auth/invalid-ticket"


def test_without_fray_cors_origins_the_browser_refuses_the_pages_calls(
    redis_url: str, encounter_id: str, browser_page: Page
) -> None:
    page = browser_page
    with page_origin() as origin, fray_serving(redis_url) as [fray], opened(page, origin, fray):
        created = run(page, "createEncounter", KEY, encounter_id)
        # The preflight was refused, so the POST itself was never sent.
        unknown = httpx.get(f"{fray}/v1/encounters/{encounter_id}", headers=bearer(KEY))
        # Nor may the page open a websocket: its handshake is refused (403), before any token.
        subscribed = run(page, "subscribe", KEY, encounter_id, 0)
    assert created == {"failed": "TypeError: Failed to fetch"}
    assert unknown.status_code == 404
    assert subscribed == "closed 1006"
