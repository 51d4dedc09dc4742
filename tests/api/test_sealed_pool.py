"""fifty-two's face-down pool through the API: sealed from every role in every channel
until the encounter ends (REST reads, events, SSE, exports, command answers, GraphQL, the
seed), then shown."""

from __future__ import annotations

from typing import Any

import httpx
import orjson
import pytest

from tests.api.conftest import KEY, Api, bearer, running, served, settings_for, sse_events

pytestmark = pytest.mark.anyio

HERO = {"combatant_id": "hero", "name": "Hero", "side": "allies", "stats": {"hp": 20}}
ORC = {"combatant_id": "orc", "name": "Orc", "side": "orcs", "stats": {"hp": 20}}
ROLES = ("gm", "player", "observer", "auditor")


async def dealt(api: Api, encounter_id: str) -> tuple[dict[str, str], dict[str, Any]]:
    """A dealt fifty-two field (server shuffle); each role's credential, and the GM's
    answer to `deal`."""
    response = await api.client.post(
        "/v1/encounters",
        json={"ruleset": "fifty-two", "encounter_id": encounter_id,
              "options": {"decision_seconds": None}},
        headers=bearer(KEY),
    )  # fmt: skip
    assert response.status_code == 201, response.text
    gm = response.json()["gm_token"]
    for combatant in (HERO, ORC):
        await api.ok(encounter_id, gm, {"type": "add-combatant", **combatant})
    await api.ok(encounter_id, gm, {"type": "start-encounter"})
    await api.ok(encounter_id, gm, {"type": "choose-columns", "modifier": 0})
    answer = await api.ok(encounter_id, gm, {"type": "deal"})
    credentials = {
        "gm": gm,
        "player": await api.mint(encounter_id, "player", "hero"),
        "observer": await api.mint(encounter_id, "observer"),
        "auditor": await api.mint(encounter_id, "auditor"),
    }
    return credentials, answer


def sealed_deal(envelope: dict[str, Any]) -> None:
    assert envelope["type"] == "field-dealt"
    assert envelope["data"]["pool"] is None and envelope["data"]["pool_size"] == 52 - 3 * 5
    assert not [r for r in envelope["rolls"] if r["purpose"] == "shuffle the deck"]
    assert "salt" not in envelope  # a part hidden: no salt to check a guess against the hash


async def test_the_gms_own_deal_answer_does_not_show_the_pool(api: Api, encounter_id: str) -> None:
    _, answer = await dealt(api, encounter_id)
    (deal,) = [e for e in answer["events"] if e["type"] == "field-dealt"]
    sealed_deal(deal)


@pytest.mark.parametrize("role", ROLES)
async def test_no_role_reads_the_pool_before_the_end(
    api: Api, encounter_id: str, role: str
) -> None:
    credentials, _ = await dealt(api, encounter_id)
    credential = credentials[role]
    path = f"/v1/encounters/{encounter_id}"
    view = (await api.get(path, credential)).json()
    assert view["state"]["field"]["pool"] is None
    assert view["state"]["field"]["pool_size"] == 37
    events = (await api.get(f"{path}/events", credential)).json()["events"]
    sealed_deal(next(e for e in events if e["type"] == "field-dealt"))
    export = (await api.get(f"{path}/export", credential)).content.splitlines()[1:]
    sealed_deal(next(e for e in map(orjson.loads, export) if e["type"] == "field-dealt"))
    seed = await api.get(f"{path}/seed", credential)
    assert seed.status_code == 403
    assert "fifty-two" in seed.json()["error"]["message"]


async def test_the_tenant_key_cannot_read_the_seed_before_the_end(
    api: Api, encounter_id: str
) -> None:
    await dealt(api, encounter_id)
    seed = await api.get(f"/v1/encounters/{encounter_id}/seed", KEY)
    assert seed.status_code == 403


async def test_sse_sends_the_deal_sealed(redis_url: str, encounter_id: str) -> None:
    settings = settings_for(redis_url)
    async with running(settings) as api:
        credentials, _ = await dealt(api, encounter_id)
        path = f"/v1/encounters/{encounter_id}/events"
        stored = (await api.get(path, credentials["gm"])).json()["events"]
        async with served(settings) as url, httpx.AsyncClient() as client:
            frames = await sse_events(
                client, f"{url}{path}?follow=true", bearer(credentials["gm"]), len(stored)
            )
    deal = next(orjson.loads(f["data"]) for f in frames if f.get("event") == "field-dealt")
    sealed_deal(deal)


async def test_graphql_state_and_events_are_sealed(api: Api, encounter_id: str) -> None:
    credentials, _ = await dealt(api, encounter_id)
    query = """query($id: String!) { encounter(id: $id) { state
        events(first: 50) { edges { node { type data salt } } } } }"""
    response = await api.client.post(
        "/graphql",
        json={"query": query, "variables": {"id": encounter_id}},
        headers=bearer(credentials["auditor"]),
    )
    body = response.json()
    assert "errors" not in body, body
    encounter = body["data"]["encounter"]
    assert encounter["state"]["field"]["pool"] is None
    deal = next(
        e["node"] for e in encounter["events"]["edges"] if e["node"]["type"] == "field-dealt"
    )
    assert deal["data"]["pool"] is None and deal["salt"] is None


async def test_the_pool_and_the_seed_are_shown_once_the_encounter_ends(
    api: Api, encounter_id: str
) -> None:
    credentials, _ = await dealt(api, encounter_id)
    await api.ok(encounter_id, credentials["gm"], {"type": "end-encounter"})
    path = f"/v1/encounters/{encounter_id}"
    for role in ROLES:
        events = (await api.get(f"{path}/events", credentials[role])).json()["events"]
        deal = next(e for e in events if e["type"] == "field-dealt")
        assert len(deal["data"]["pool"]) == 37, role
        assert len(deal["salt"]) == 32, role  # shown whole now: its salt with it
        assert (await api.get(f"{path}/seed", credentials[role])).status_code == 200
