"""While Redis is away, every channel says so in the same words: 503 `store/unavailable`
with Retry-After over REST (SSE included, before its stream starts), the same code and
`retry_after` in GraphQL's `extensions` (HTTP and websocket); and once Redis is back, the
retried command goes through."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.exceptions import StarletteDeprecationWarning

from service.api.server import create_app
from service.embedded_redis import RedisServer
from tests.api.conftest import KEY, bearer, settings_for
from tests.api.test_graphql import SUBMIT

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", "Using `httpx`", StarletteDeprecationWarning)
    from starlette.testclient import TestClient

ENCOUNTER = "ford"
ROLL = {"command": {"type": "roll", "expression": "1d6"}}
QUERY = "query($id: String!) { encounter(id: $id) { version } }"
EVENTS = """subscription($id: String!) {
  encounterEvents(encounterId: $id, after: 0) { version }
}"""


class Table:
    def __init__(self, client: TestClient, server: RedisServer, gm: str) -> None:
        self.client = client
        self.server = server
        self.gm = gm

    def graphql(self, query: str, **variables: Any) -> dict[str, Any]:
        response = self.client.post(
            "/graphql", json={"query": query, "variables": variables}, headers=bearer(self.gm)
        )
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body


@pytest.fixture
def away() -> Iterator[Table]:
    """An encounter on a Redis of its own (persistent), which is then stopped."""
    with (
        RedisServer(appendonly=True) as server,
        TestClient(create_app(settings_for(server.url))) as client,
    ):
        created = client.post(
            "/v1/encounters",
            json={"ruleset": "freeform", "encounter_id": ENCOUNTER},
            headers=bearer(KEY),
        )
        assert created.status_code == 201, created.text
        server.stop()
        yield Table(client, server, created.json()["gm_token"])


def assert_unavailable(error: dict[str, Any]) -> None:
    assert error["code"] == "store/unavailable"
    assert error["details"] == {"retry_after": 2}
    assert "not answering" in error["message"]


@pytest.mark.parametrize(
    ("method", "path", "headers"),
    [
        pytest.param("POST", "/commands", {}, id="a command"),
        pytest.param("GET", "", {}, id="the view"),
        pytest.param("GET", "/events", {}, id="events"),
        pytest.param("GET", "/events", {"Accept": "text/event-stream"}, id="an SSE stream"),
        pytest.param("GET", "/legal-actions", {}, id="legal actions"),
    ],
)
def test_rest_answers_503_with_retry_after(
    away: Table, method: str, path: str, headers: dict[str, str]
) -> None:
    response = away.client.request(
        method,
        f"/v1/encounters/{ENCOUNTER}{path}",
        json=ROLL if method == "POST" else None,
        headers={**bearer(away.gm), **headers},
    )

    assert response.status_code == 503, response.text
    assert response.headers["retry-after"] == "2"
    assert_unavailable(response.json()["error"])


def test_creating_an_encounter_answers_503(away: Table) -> None:
    response = away.client.post("/v1/encounters", json={"ruleset": "freeform"}, headers=bearer(KEY))

    assert response.status_code == 503
    assert response.headers["retry-after"] == "2"


@pytest.mark.parametrize(
    ("query", "variables"),
    [
        pytest.param(
            SUBMIT,
            {"encounterId": ENCOUNTER, "command": {"freeform": {"roll": {"expression": "1d6"}}}},
            id="submitCommand",
        ),
        pytest.param(QUERY, {"id": ENCOUNTER}, id="a query"),
    ],
)
def test_graphql_gives_the_code_in_extensions(
    away: Table, query: str, variables: dict[str, Any]
) -> None:
    body = away.graphql(query, **variables)

    (error,) = body["errors"]
    assert error["extensions"]["status"] == 503
    assert_unavailable({**error["extensions"], "message": error["message"]})


def test_a_subscription_is_told_to_come_back_later(away: Table) -> None:
    with away.client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws:
        ws.send_json({"type": "connection_init", "payload": {"authorization": f"Bearer {KEY}"}})
        assert ws.receive_json() == {"type": "connection_ack"}
        ws.send_json(
            {
                "id": "1",
                "type": "subscribe",
                "payload": {"query": EVENTS, "variables": {"id": ENCOUNTER}},
            }
        )
        message = ws.receive_json()

    # graphql-transport-ws sends an error raised while executing in `next`, then `complete`.
    assert message["type"] == "next"
    (error,) = message["payload"]["errors"]
    assert_unavailable({**error["extensions"], "message": error["message"]})


def test_once_redis_is_back_the_retried_command_goes_through(away: Table) -> None:
    path = f"/v1/encounters/{ENCOUNTER}/commands"
    body = {**ROLL, "command_id": "roll-1"}
    refused = away.client.post(path, json=body, headers=bearer(away.gm))
    away.server.start()

    accepted = away.client.post(path, json=body, headers=bearer(away.gm))

    assert refused.status_code == 503
    assert accepted.status_code == 201, accepted.text
    assert accepted.json()["version"] == 2


@pytest.mark.anyio
async def test_an_sse_stream_outlives_an_outage_and_carries_on(anyio_backend: str) -> None:
    """The stream is not dropped while Redis is away: it waits (with heartbeats), and the
    first event after Redis is back arrives on it."""
    import asyncio

    import httpx

    from tests.api.conftest import running, served, sse_events

    with RedisServer(appendonly=True) as server:
        settings = settings_for(server.url, sse_heartbeat=0.2)
        async with running(settings) as api, served(settings) as url:
            gm = await api.create(ENCOUNTER)
            async with httpx.AsyncClient(timeout=30) as client:
                stream = f"{url}/v1/encounters/{ENCOUNTER}/events?follow=true&after=1"
                # The stream reads from its cursor: whenever it subscribes, it gets version 2.
                follow = asyncio.ensure_future(sse_events(client, stream, bearer(gm), 1))
                server.stop()
                assert (await api.send(ENCOUNTER, gm, ROLL["command"])).status_code == 503
                server.start()
                for _ in range(100):  # until this instance's connections are back
                    answer = await api.send(ENCOUNTER, gm, ROLL["command"])
                    if answer.status_code != 503:
                        break
                    await asyncio.sleep(0.1)
                assert answer.status_code == 201, answer.text
                (frame,) = await follow
    assert frame["id"] == "2" and frame["event"] == "dice-rolled"
