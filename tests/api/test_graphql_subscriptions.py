"""GraphQL subscriptions over graphql-transport-ws, through Starlette's TestClient."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from starlette.exceptions import StarletteDeprecationWarning

from tests.api.conftest import KEY, bearer, settings_for
from tests.api.test_graphql import CREATE, MAX_BODY, MINT, SUBMIT, graphql_app

with warnings.catch_warnings():
    # Starlette 1.x asks for httpx2 under its TestClient; with httpx it works the same.
    warnings.filterwarnings("ignore", "Using `httpx`", StarletteDeprecationWarning)
    from starlette.testclient import TestClient
    from starlette.testclient import WebSocketTestSession as Socket

EVENTS = """subscription($id: String!, $after: Int!) {
  encounterEvents(encounterId: $id, after: $after) { version type data }
}"""
SUMMARY = """subscription($id: String!) {
  encounterSummary(encounterId: $id) { version round acting }
}"""


class Table:
    """GraphQL over HTTP on the TestClient, for the steps around a subscription."""

    def __init__(self, client: TestClient, encounter_id: str) -> None:
        self.client = client
        self.encounter_id = encounter_id

    def data(self, query: str, credential: str, **variables: Any) -> Any:
        response = self.client.post(
            "/graphql", json={"query": query, "variables": variables}, headers=bearer(credential)
        )
        body = response.json()
        assert response.status_code == 200 and "errors" not in body, body
        return body["data"]

    def send(self, credential: str, command: dict[str, Any]) -> int:
        result = self.data(SUBMIT, credential, encounterId=self.encounter_id, command=command)
        assert result["submitCommand"]["__typename"] == "CommandAccepted", result
        version: int = result["submitCommand"]["version"]
        return version

    def roll(self, credential: str, purpose: str, hidden: bool = False) -> int:
        roll = {"expression": "1d6", "purpose": purpose, "hidden": hidden}
        return self.send(credential, {"freeform": {"roll": roll}})

    def skirmish(self) -> str:
        created = self.data(
            CREATE, KEY, input={"ruleset": "freeform", "encounterId": self.encounter_id}
        )
        gm: str = created["createEncounter"]["gmToken"]
        for combatant_id, side in (("bramli", "heroes"), ("goblin", "goblins")):
            add = {"combatantId": combatant_id, "name": combatant_id.title(), "side": side}
            self.send(gm, {"freeform": {"addCombatant": add}})
        self.send(gm, {"freeform": {"rollInitiative": {}}})
        self.send(gm, {"freeform": {"startEncounter": True}})
        return gm

    def mint(self, gm: str, role: str, *combatants: str) -> str:
        minted = self.data(
            MINT,
            gm,
            encounterId=self.encounter_id,
            input={"role": role, "combatants": list(combatants)},
        )
        token: str = minted["mintToken"]["token"]
        return token


@pytest.fixture
def table(redis_url: str, encounter_id: str) -> Iterator[Table]:
    app = graphql_app(settings_for(redis_url, max_body=MAX_BODY))
    with TestClient(app) as client:
        yield Table(client, encounter_id)


@contextmanager
def subscribed(
    table: Table,
    credential: str | None,
    query: str,
    key: str = "authorization",
    **variables: Any,
) -> Iterator[Socket]:
    with table.client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws:
        payload = {key: f"Bearer {credential}"} if credential else {}
        ws.send_json({"type": "connection_init", "payload": payload})
        assert ws.receive_json() == {"type": "connection_ack"}
        ws.send_json(
            {"id": "1", "type": "subscribe", "payload": {"query": query, "variables": variables}}
        )
        yield ws
        ws.send_json({"id": "1", "type": "complete"})


def next_data(ws: Socket) -> Any:
    message = ws.receive_json()
    assert message["type"] == "next" and "errors" not in message["payload"], message
    return message["payload"]["data"]


def test_events_after_a_version_arrive_in_order_with_no_gap_or_duplicate(table):
    gm = table.skirmish()
    head = table.data(
        "query($id: String!) { encounter(id: $id) { version } }", gm, id=table.encounter_id
    )
    before = head["encounter"]["version"]

    with subscribed(table, gm, EVENTS, id=table.encounter_id, after=2) as ws:
        last = max(table.roll(gm, f"roll {n}") for n in range(3))
        versions = []
        while not versions or versions[-1] < last:
            versions.append(next_data(ws)["encounterEvents"]["version"])

    assert last == before + 3
    assert versions == list(range(3, last + 1))


OLD_EVENTS = """subscription($id: String!, $after: Int!) {
  encounterEvents(encounterId: $id, afterVersion: $after) { version }
}"""


def test_the_deprecated_after_version_resumes_as_after_does(table):
    """`afterVersion` was the subscription's own name for REST's and `events`' `after`."""
    gm = table.skirmish()
    start = table.roll(gm, "warm-up")

    with subscribed(table, gm, OLD_EVENTS, id=table.encounter_id, after=start) as ws:
        rolled = table.roll(gm, "after the old name")
        received = next_data(ws)["encounterEvents"]

    assert received["version"] == rolled == start + 1


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        pytest.param("after: 1, afterVersion: 2", "give `after` only", id="both, differing"),
        pytest.param("after: -1", "0 or more", id="negative"),
        pytest.param("afterVersion: -1", "0 or more", id="negative, old name"),
    ],
)
def test_a_bad_resume_point_ends_the_subscription_with_request_invalid(table, arguments, words):
    gm = table.skirmish()
    query = "subscription($id: String!) { encounterEvents(encounterId: $id, %s) { version } }"

    with subscribed(table, gm, query % arguments, id=table.encounter_id) as ws:
        message = ws.receive_json()

    assert message["type"] == "next" and message["payload"]["data"] is None
    (error,) = message["payload"]["errors"]
    assert error["extensions"]["code"] == "request/invalid" and words in error["message"]


def test_a_player_subscription_leaves_out_the_gms_hidden_roll(table):
    gm = table.skirmish()
    player = table.mint(gm, "player", "bramli")
    start = table.roll(gm, "warm-up")

    with subscribed(table, player, EVENTS, id=table.encounter_id, after=start) as ws:
        hidden = table.roll(gm, "ambush check", hidden=True)
        open_roll = table.roll(gm, "open")
        received = next_data(ws)["encounterEvents"]

    assert hidden == start + 1
    assert received["version"] == open_roll and received["data"]["purpose"] == "open"


def test_connection_init_takes_the_token_as_authorization_in_either_case(table):
    """A browser's websocket sends no headers: the token rides in `connection_init`."""
    gm = table.skirmish()
    player = table.mint(gm, "player", "bramli")
    start = table.roll(gm, "warm-up")

    with subscribed(
        table, player, EVENTS, key="Authorization", id=table.encounter_id, after=start
    ) as ws:
        table.roll(gm, "ambush check", hidden=True)
        open_roll = table.roll(gm, "open")
        received = next_data(ws)["encounterEvents"]

    assert received["version"] == open_roll  # the player's view: the hidden roll left out


def test_the_summary_subscription_sends_the_summary_then_each_change(table):
    gm = table.skirmish()

    with subscribed(table, gm, SUMMARY, id=table.encounter_id) as ws:
        first = next_data(ws)["encounterSummary"]
        after = table.send(gm, {"freeform": {"endTurn": {}}})
        second = next_data(ws)["encounterSummary"]

    assert first["version"] < second["version"] == after
    assert second["acting"] != first["acting"]


def test_a_subscription_without_a_credential_ends_with_an_auth_error(table):
    table.skirmish()

    with subscribed(table, None, EVENTS, id=table.encounter_id, after=0) as ws:
        message = ws.receive_json()

    # An execution error: sent as the operation's result, not a protocol "error".
    assert message["type"] == "next" and message["payload"]["data"] is None
    assert message["payload"]["errors"][0]["extensions"]["code"] == "auth/missing"


@pytest.mark.parametrize("message", ["not json", "[" * 3000])
def test_a_message_that_is_not_json_closes_the_socket_with_4400(table, message):
    # Nested too deeply for Python's parser, strawberry let a RecursionError escape and
    # the connection died with it; now it is malformed JSON like any other (4400).
    with table.client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws:
        ws.send_text(message)
        closed = ws.receive()

    assert closed["type"] == "websocket.close" and closed["code"] == 4400
