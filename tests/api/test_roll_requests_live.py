"""Roll requests as players receive them: over a GraphQL subscription and over SSE, a player
sees the request addressed to its combatant, answers it with `submitCommand`'s
`submitRoll`, and sees the held command decided; a request that is not its own is
`CommandRejected` with `dice/not-yours`."""

from __future__ import annotations

import asyncio
import json
import warnings
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.exceptions import StarletteDeprecationWarning

from tests.api.conftest import KEY, bearer, running, served, settings_for, sse_events
from tests.api.test_graphql import CREATE, MAX_BODY, graphql_app
from tests.api.test_graphql_subscriptions import EVENTS, Table, next_data, subscribed

with warnings.catch_warnings():
    # Starlette 1.x asks for httpx2 under its TestClient; with httpx it works the same.
    warnings.filterwarnings("ignore", "Using `httpx`", StarletteDeprecationWarning)
    from starlette.testclient import TestClient

HELD = ["command-held", "roll-requested"]
DECIDED = ["roll-submitted", "command-released", "dice-rolled"]
REJECTED = """
mutation Submit($encounterId: String!, $command: CommandInput!) {
  submitCommand(encounterId: $encounterId, command: $command) {
    __typename
    ... on CommandAccepted { version }
    ... on CommandRejected { code status }
  }
}"""


@pytest.fixture
def table(redis_url: str, encounter_id: str) -> Iterator[Table]:
    app = graphql_app(settings_for(redis_url, max_body=MAX_BODY))
    with TestClient(app) as client:
        yield Table(client, encounter_id)


def prompted(table: Table) -> str:
    """A prompt-mode freeform encounter of Bramli and a Goblin; the GM's token."""
    created = table.data(
        CREATE,
        KEY,
        input={"ruleset": "freeform", "encounterId": table.encounter_id,
               "options": {"dice": "prompt"}},
    )  # fmt: skip
    gm: str = created["createEncounter"]["gmToken"]
    for combatant_id, side in (("bramli", "heroes"), ("goblin", "goblins")):
        add = {"combatantId": combatant_id, "name": combatant_id.title(), "side": side}
        table.send(gm, {"freeform": {"addCombatant": add}})
    return gm


def test_a_player_sees_its_roll_request_and_answers_it_over_graphql(table: Table) -> None:
    gm = prompted(table)
    player = table.mint(gm, "player", "bramli")
    other = table.mint(gm, "player", "goblin")
    roll = {"combatantId": "bramli", "expression": "1d12", "purpose": "axe"}
    with subscribed(table, player, EVENTS, id=table.encounter_id, after=3) as ws:
        table.send(gm, {"freeform": {"roll": roll}})
        held = [next_data(ws)["encounterEvents"] for _ in HELD]
        request = held[1]["data"]
        answer = {"freeform": {"submitRoll": {"requestId": request["request_id"], "faces": [9]}}}
        refused = table.data(REJECTED, other, encounterId=table.encounter_id, command=answer)
        table.send(player, answer)
        decided = [next_data(ws)["encounterEvents"] for _ in DECIDED]
    assert [e["type"] for e in held] == HELD
    assert request["roller"] == "bramli" and request["expression"] == "1d12"
    assert refused["submitCommand"] == {"__typename": "CommandRejected",
                                        "code": "dice/not-yours", "status": 403}  # fmt: skip
    assert [e["type"] for e in decided] == DECIDED
    assert decided[2]["data"]["total"] == 9


@pytest.mark.anyio
async def test_sse_frames_carry_the_roll_request_to_the_player(
    redis_url: str, encounter_id: str
) -> None:
    settings = settings_for(redis_url)
    async with running(settings) as api:
        gm = await api.create(encounter_id, options={"dice": "prompt"})
        add = {"type": "add-combatant", "combatant_id": "bramli", "name": "Bramli",
               "side": "heroes"}  # fmt: skip
        head = (await api.ok(encounter_id, gm, add))["version"]
        player = await api.mint(encounter_id, "player", "bramli")
        async with served(settings) as url, httpx.AsyncClient() as client:
            stream = f"{url}/v1/encounters/{encounter_id}/events?follow=true&after={head}"
            follow = asyncio.ensure_future(sse_events(client, stream, bearer(player), 2))
            roll = {"type": "roll", "combatant_id": "bramli", "expression": "d4", "purpose": "x"}
            await api.ok(encounter_id, gm, roll)
            frames = await follow
    assert [f["event"] for f in frames] == HELD
    request: dict[str, Any] = json.loads(frames[1]["data"])["data"]
    assert request["roller"] == "bramli" and request["sides"] == 4
