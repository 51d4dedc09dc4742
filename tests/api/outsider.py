"""An outsider's reading of an encounter: every document a credential can fetch, over every
channel (REST, as_of, export, SSE, GraphQL queries and subscriptions, legal actions, the
served narration) and the narration of what it was sent, as text to search. For the
hidden-health tests."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import httpx
import orjson
from websockets.asyncio.client import connect
from websockets.typing import Subprotocol

from service.rules.registry import RULESETS
from tests.api.conftest import bearer, sse_events

EVENT_FIELDS = "version type schema data at commandId actor command rolls prevHash hash"
SUMMARY_FIELDS = """ruleset version phase round acting details
  combatants { id name epithet side controller health { current max } pools position { x y }
               conditions { name roundsLeft } outOfFight healthWord }
  clocks { id label owner status deadline remainingMs }
  reactionWindows { windowId trigger eligible deadline }"""
ENCOUNTER = f"""query($id: String!, $asOf: Int) {{
  encounter(id: $id, asOf: $asOf) {{
    version state summary {{ {SUMMARY_FIELDS} }}
    legalActions {{ type label actor cost targets params }}
    events(first: 1000) {{ edges {{ node {{ {EVENT_FIELDS} }} }} }}
    narration(first: 1000) {{ nodes {{ version type text }} }}
  }}
}}"""
EVENTS = f"""subscription($id: String!) {{
  encounterEvents(encounterId: $id, after: 0) {{ {EVENT_FIELDS} }}
}}"""
SUMMARY = f"""subscription($id: String!) {{
  encounterSummary(encounterId: $id) {{ {SUMMARY_FIELDS} }}
}}"""


def shows(text: str, number: int) -> bool:
    """The number as a number of its own: not a digit run inside a hash, an id or a decimal."""
    return re.search(rf"(?<![\w.]){number}(?!\w)", text) is not None


async def documents(
    client: httpx.AsyncClient, ruleset: str, encounter_id: str, credential: str
) -> dict[str, str]:
    """Channel -> every document of it this credential can fetch, as one text."""
    path = f"/v1/encounters/{encounter_id}"
    headers = bearer(credential)

    async def rest(url: str, **params: Any) -> str:
        response = await client.get(url, headers=headers, params=params or None)
        assert response.status_code == 200, response.text
        return response.text

    view = orjson.loads(await rest(path))
    events = orjson.loads(await rest(f"{path}/events", after=0, limit=1000))["events"]
    versions = range(1, view["version"] + 1)
    found = {
        "REST view": orjson.dumps(view).decode(),
        "REST as_of": "\n".join([await rest(path, as_of=v) for v in versions]),
        "REST events": orjson.dumps(events).decode(),
        "REST export": await rest(f"{path}/export"),
        "REST legal actions": await rest(f"{path}/legal-actions"),
        "GraphQL query": await _graphql(client, headers, id=encounter_id),
        "GraphQL asOf": "\n".join(
            [await _graphql(client, headers, id=encounter_id, asOf=v) for v in versions]
        ),
        "narration": _narration(ruleset, view["state"], events),
        "REST narration": await rest(f"{path}/narration", after=0, limit=1000),
    }
    base = str(client.base_url).rstrip("/")
    frames = await sse_events(client, f"{base}{path}/events?follow=true", headers, len(events))
    found["SSE"] = "\n".join(frame["data"] for frame in frames)
    socket = base.replace("http", "ws", 1) + "/graphql"
    found["GraphQL encounterEvents"] = await _subscribed(
        socket, credential, EVENTS, encounter_id, len(events)
    )
    found["GraphQL encounterSummary"] = await _subscribed(
        socket, credential, SUMMARY, encounter_id, 1
    )
    return found


async def _graphql(client: httpx.AsyncClient, headers: dict[str, str], **variables: Any) -> str:
    response = await client.post(
        "/graphql", json={"query": ENCOUNTER, "variables": variables}, headers=headers
    )
    body = response.json()
    assert response.status_code == 200 and "errors" not in body, body
    return response.text


def _narration(ruleset: str, state: dict[str, Any], events: list[dict[str, Any]]) -> str:
    combatants = state["table"]["combatants"]

    def name(combatant_id: str | None) -> str:
        found = combatants.get(combatant_id)
        return str(found["name"]) if found else str(combatant_id)

    narrate = RULESETS[ruleset].narrate
    return "\n".join(narrate(e["type"], e["data"], name) for e in events)


async def _subscribed(url: str, credential: str, query: str, encounter_id: str, count: int) -> str:
    """The first `count` messages of a graphql-transport-ws subscription."""
    received: list[str] = []
    protocol = [Subprotocol("graphql-transport-ws")]
    async with connect(url, subprotocols=protocol) as socket:
        init = {"authorization": f"Bearer {credential}"}
        await socket.send(orjson.dumps({"type": "connection_init", "payload": init}).decode())
        assert orjson.loads(await socket.recv()) == {"type": "connection_ack"}
        payload = {"query": query, "variables": {"id": encounter_id}}
        await socket.send(
            orjson.dumps({"id": "1", "type": "subscribe", "payload": payload}).decode()
        )
        while len(received) < count:
            message = await asyncio.wait_for(socket.recv(), 10)
            parsed = orjson.loads(message)
            assert parsed["type"] == "next" and "errors" not in parsed["payload"], parsed
            received.append(str(message))
        await socket.send(orjson.dumps({"id": "1", "type": "complete"}).decode())
    return "\n".join(received)
