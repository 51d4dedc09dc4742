"""GraphiQL in a real browser (tests/e2e/conftest.py's chromium), from a real `fray serve`,
with every request to another origin than Fray's blocked: the page loads, shows where the
token goes, sends the token typed in its Headers pane with a query and in a subscription's
`connection_init`, and shows what Fray answers, without keeping the token. Nothing is
fetched from anywhere else."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
from playwright.sync_api import Page, Route, WebSocket

from tests.api.conftest import KEY
from tests.e2e.helpers import bearer, fray_serving

HEADERS_EDITOR = ".graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror"
QUERY_EDITOR = ".graphiql-query-editor .CodeMirror"
RESULT = ".result-window .CodeMirror"
# Collects what the Content-Security-Policy refused, from before the page's first script.
VIOLATIONS = """
window.cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) =>
  window.cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
"""
# GraphiQL parses the query editor's text after a change, and decides from that parse
# whether an operation is a subscription (sent over the websocket): wait for it.
PARSED = """(operation) => {
  const ast = document.querySelector(".graphiql-query-editor .CodeMirror").CodeMirror.documentAST;
  return ast !== null && ast.definitions[0].operation === operation;
}"""


@dataclass
class Traffic:
    """What the page asked for beyond Fray's origin (blocked), and its websockets."""

    origin: str
    blocked: list[str] = field(default_factory=list)
    sockets: list[str] = field(default_factory=list)
    sent: list[Any] = field(default_factory=list)  # frames the page sent on them
    errors: list[str] = field(default_factory=list)

    def route(self, route: Route) -> None:
        if route.request.url.startswith(self.origin + "/"):
            route.continue_()
        else:
            self.blocked.append(route.request.url)
            route.abort()

    def websocket(self, socket: WebSocket) -> None:
        self.sockets.append(socket.url)
        socket.on("framesent", lambda frame: self.sent.append(json.loads(frame)))


@contextmanager
def graphiql(page: Page, fray: str) -> Iterator[Traffic]:
    traffic = Traffic(fray)
    page.add_init_script(VIOLATIONS)
    page.route("**/*", traffic.route)
    page.on("websocket", traffic.websocket)
    page.on("pageerror", lambda error: traffic.errors.append(str(error)))
    try:
        # Loaded: the Headers pane open, and the schema fetched (GraphiQL's first request).
        with page.expect_response(lambda r: r.request.method == "POST") as introspected:
            page.goto(f"{fray}/graphql")
        assert introspected.value.ok
        page.wait_for_selector(HEADERS_EDITOR)
        yield traffic
    finally:
        page.goto("about:blank")  # closes the websocket: `fray serve` waits for it to stop
        page.unroute("**/*")
        page.remove_listener("websocket", traffic.websocket)


def replace_text(page: Page, editor: str, text: str) -> None:
    """The editor's text, replaced (inserted whole: CodeMirror would close brackets typed)."""
    page.click(editor)
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(text)


def run_query(page: Page, query: str, operation: str) -> None:
    replace_text(page, QUERY_EDITOR, query)
    page.wait_for_function(PARSED, arg=operation)
    page.click(".graphiql-execute-button")


def text_of(page: Page, editor: str) -> str:
    """An editor's text (CodeMirror's, as a browser would copy it)."""
    text: str = page.eval_on_selector(editor, "(e) => e.CodeMirror.getValue()")
    return text


def result_shows(page: Page, text: str) -> Any:
    """The result pane's JSON, once it contains `text`."""
    page.wait_for_function(
        "([pane, text]) => document.querySelector(pane).CodeMirror.getValue().includes(text)",
        arg=[RESULT, text],
    )
    return json.loads(text_of(page, RESULT))


def create(fray: str, encounter_id: str) -> str:
    created = httpx.post(
        f"{fray}/v1/encounters", json={"ruleset": "freeform", "encounter_id": encounter_id},
        headers=bearer(KEY),
    )  # fmt: skip
    assert created.status_code == 201, created.text
    token: str = created.json()["gm_token"]
    return token


def test_graphiql_shows_where_the_token_goes_and_loads_nothing_from_elsewhere(
    redis_url: str, browser_page: Page
) -> None:
    page = browser_page
    with fray_serving(redis_url) as [fray], graphiql(page, fray) as traffic:
        hint = page.inner_text("#fray-auth-hint")
        headers = text_of(page, HEADERS_EDITOR)
        violations = page.evaluate("window.cspViolations")
    assert '{"Authorization": "Bearer <your token>"}' in hint
    assert "connection_init" in hint
    # The Headers pane is open with the header to fill in.
    assert json.loads(headers) == {"Authorization": "Bearer <your token>"}
    assert traffic.blocked == []
    assert violations == []
    assert traffic.errors == []


def test_a_token_typed_in_graphiql_runs_a_query_and_a_subscription(
    redis_url: str, encounter_id: str, browser_page: Page
) -> None:
    page = browser_page
    with fray_serving(redis_url) as [fray], graphiql(page, fray) as traffic:
        gm = create(fray, encounter_id)
        replace_text(page, HEADERS_EDITOR, json.dumps({"Authorization": f"Bearer {gm}"}))

        run_query(page, f'{{ encounter(id: "{encounter_id}") {{ version }} }}', "query")
        queried = result_shows(page, '"version"')

        subscription = (
            f'subscription {{ encounterEvents(encounterId: "{encounter_id}") {{ version type }} }}'
        )
        run_query(page, subscription, "subscription")
        first = result_shows(page, "encounter-created")
        rolled = httpx.post(
            f"{fray}/v1/encounters/{encounter_id}/commands",
            json={"command": {"type": "roll", "expression": "1d6"}}, headers=bearer(gm),
        )  # fmt: skip
        assert rolled.status_code == 201, rolled.text
        second = result_shows(page, "dice-rolled")
        violations = page.evaluate("window.cspViolations")
        stored: dict[str, str] = page.evaluate("({...localStorage})")
        page.reload()
        page.wait_for_selector(HEADERS_EDITOR)
        reloaded = text_of(page, HEADERS_EDITOR)

    assert queried == {"data": {"encounter": {"version": 1}}}
    assert first == {"data": {"encounterEvents": {"version": 1, "type": "encounter-created"}}}
    assert second == {"data": {"encounterEvents": {"version": 2, "type": "dice-rolled"}}}
    assert traffic.sockets == [fray.replace("http://", "ws://") + "/graphql"]
    assert traffic.sent[0] == {
        "type": "connection_init",
        "payload": {"Authorization": f"Bearer {gm}"},
    }
    assert traffic.blocked == []
    assert violations == []
    assert traffic.errors == []
    # The history was kept, without the token; a reload starts from the placeholder again.
    assert "encounterEvents" in stored["graphiql:queries"]
    assert [key for key, value in stored.items() if gm in value] == []
    assert json.loads(reloaded) == {"Authorization": "Bearer <your token>"}
