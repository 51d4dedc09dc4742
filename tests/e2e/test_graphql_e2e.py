"""A whole freeform encounter through GraphQL with the `gql` client (HTTP for queries and
mutations, websockets with graphql-transport-ws for subscriptions) against `fray serve` as
a separate process with a real Redis."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from tests.e2e.helpers import Gql, fray_serving, graphql_http, subscribed

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def fray_url(redis_url: str) -> Iterator[str]:
    with fray_serving(redis_url) as (url,):
        yield url


async def test_a_whole_encounter_over_graphql(fray_url: str, encounter_id: str) -> None:
    async with graphql_http(fray_url) as graphql:
        gm = await graphql.skirmish(encounter_id)
        started = await graphql.encounter(encounter_id, gm)
        acting = started["summary"]["acting"][0]
        waiting = "goblin" if acting == "bramli" else "bramli"
        player = await graphql.mint(encounter_id, "player", acting)
        other = await graphql.mint(encounter_id, "player", waiting)
        head = started["version"]
        assert started["summary"]["round"] == 1

        async with subscribed(fray_url, gm, encounter_id, after=1) as live:
            # The history first: the subscription is live once it has come through.
            await live.wait_for(head)
            rolled = await graphql.ok(
                encounter_id, player, {"roll": {"expression": "1d20+2", "combatantId": acting}}
            )
            hurt = await graphql.ok(
                encounter_id, gm, {"adjustResource": {"combatantId": acting, "delta": -2}}
            )
            noted = await graphql.ok(encounter_id, gm, {"addNote": {"text": "the bridge sways"}})

            refused = await graphql.send(encounter_id, other, {"endTurn": {"combatantId": waiting}})
            after_refusal = await graphql.encounter(encounter_id, gm)

            ended = await graphql.ok(encounter_id, player, {"endTurn": {}})
            await live.wait_for(ended)
            await asyncio.sleep(0.1)  # room for anything unexpected to arrive

        turned = await graphql.encounter(encounter_id, gm)

    assert [rolled, hurt, noted] == [head + 1, head + 2, head + 3]
    assert refused["__typename"] == "CommandRejected"
    assert refused["code"] == "turn/not-your-turn" and refused["status"] == 422
    assert refused["rule"] == "freeform §3" and acting.title() in refused["message"]
    assert after_refusal["version"] == noted
    assert live.versions() == list(range(2, ended + 1))
    assert [e["type"] for e in live.events[head - 1 : head + 3]] == [
        "dice-rolled",
        "resource-adjusted",
        "note-added",
        "turn-ended",
    ]
    assert turned["summary"]["acting"] == [waiting]


async def test_resuming_from_a_later_version_gets_exactly_the_tail(
    fray_url: str, encounter_id: str
) -> None:
    async with graphql_http(fray_url) as graphql:
        gm = await graphql.skirmish(encounter_id)
        for n in range(3):
            await graphql.ok(encounter_id, gm, {"roll": {"expression": "1d6", "purpose": f"{n}"}})
        head = (await graphql.encounter(encounter_id, gm))["version"]

        async with subscribed(fray_url, gm, encounter_id, after=head - 2) as live:
            await live.wait_for(head)
            tail = live.versions()
            more = await graphql.ok(encounter_id, gm, {"addNote": {"text": "later"}})
            await live.wait_for(more)
            await asyncio.sleep(0.1)

    assert tail == [head - 1, head]
    assert live.versions() == [head - 1, head, more] and more == head + 1
    assert [e["data"]["purpose"] for e in live.events[:2]] == ["1", "2"]


async def test_a_players_subscription_leaves_out_a_hidden_gm_roll(
    fray_url: str, encounter_id: str
) -> None:
    async with graphql_http(fray_url) as graphql:
        gm = await graphql.skirmish(encounter_id)
        player = await graphql.mint(encounter_id, "player", "bramli")
        start = (await graphql.encounter(encounter_id, gm))["version"]

        async with (
            subscribed(fray_url, player, encounter_id, after=start) as seen_by_player,
            subscribed(fray_url, gm, encounter_id, after=start) as seen_by_gm,
        ):
            hidden = await roll(graphql, gm, encounter_id, "ambush check", hidden=True)
            shown = await roll(graphql, gm, encounter_id, "open")
            await seen_by_gm.wait_for(shown)
            await seen_by_player.wait_for(shown)
            await asyncio.sleep(0.1)

    assert [hidden, shown] == [start + 1, start + 2]
    assert seen_by_gm.versions() == [hidden, shown]
    assert seen_by_gm.events[0]["data"]["purpose"] == "ambush check"
    assert seen_by_player.versions() == [shown]
    assert seen_by_player.events[0]["data"]["purpose"] == "open"


async def roll(graphql: Gql, gm: str, encounter_id: str, purpose: str, hidden: bool = False) -> int:
    command = {"roll": {"expression": "1d20", "purpose": purpose, "hidden": hidden}}
    return await graphql.ok(encounter_id, gm, command)
