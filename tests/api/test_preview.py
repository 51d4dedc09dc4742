"""`POST /v1/encounters/{id}/commands/preview`: what a command would append, nothing appended.

A preview is decided like a submit (the same refusals, in the same words) but appends
nothing and never rolls the encounter's own dice: a player must not learn, by previewing
an attack, whether the real one will hit.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest
import redis

from service.domain.draws import draw
from service.domain.ids import stream_id
from service.store.keys import events_key
from tests.api.conftest import KEY, Api, bearer, d20_hero_against, running, settings_for
from tests.api.helpers import fight
from tests.api.outsider import shows

pytestmark = pytest.mark.anyio

SEED = bytes(range(32))
ROLL = {"type": "roll", "expression": "8d1000"}


async def preview(api: Api, encounter_id: str, credential: str, body: dict[str, Any]) -> Any:
    response = await api.client.post(
        f"/v1/encounters/{encounter_id}/commands/preview", json=body, headers=bearer(credential)
    )
    assert response.status_code == 200, response.text
    return response.json()


def stream_length(redis_url: str, encounter_id: str) -> int:
    client = redis.Redis.from_url(redis_url)
    try:
        return int(client.xlen(events_key(stream_id("acme", encounter_id))))
    finally:
        client.close()


def faces(events: list[dict[str, Any]]) -> list[int]:
    return [r["value"] for e in events for r in e["rolls"]]


async def test_an_accepted_preview_appends_nothing_and_shows_what_a_submit_appends(
    api: Api, redis_url: str, encounter_id: str
) -> None:
    f = await fight(api, encounter_id)
    before = await f.version()
    length = stream_length(redis_url, encounter_id)
    command = {"type": "end-turn"}

    previewed = await preview(api, encounter_id, f.acting_player, {"command": command})

    assert previewed["accepted"] is True and previewed["rolled"] is False
    assert previewed["version"] == before and previewed["duplicate"] is False
    assert stream_length(redis_url, encounter_id) == length
    assert await f.version() == before
    submitted = await api.ok(encounter_id, f.acting_player, command)
    assert [(e["type"], e["version"], e["data"]) for e in previewed["events"]] == [
        (e["type"], e["version"], e["data"]) for e in submitted["events"]
    ]


async def test_a_preview_leaves_the_command_id_free(api: Api, encounter_id: str) -> None:
    f = await fight(api, encounter_id)
    body = {"command_id": "turn-1", "command": {"type": "end-turn"}}

    await preview(api, encounter_id, f.acting_player, body)
    sent = await api.send(encounter_id, f.acting_player, body["command"], command_id="turn-1")
    again = await preview(api, encounter_id, f.acting_player, body)

    assert sent.status_code == 201 and sent.json()["duplicate"] is False
    assert again["accepted"] is True and again["duplicate"] is True
    assert [e["version"] for e in again["events"]] == [e["version"] for e in sent.json()["events"]]


@pytest.mark.parametrize(
    ("who", "body"),
    [
        pytest.param("waiting_player", {"command": {"type": "end-turn"}}, id="not your turn"),
        pytest.param("gm", {"command": {"type": "fly"}}, id="an unknown command"),
        pytest.param(
            "gm", {"command": {"type": "end-turn"}, "expected_version": 1}, id="a stale version"
        ),
        pytest.param("observer", {"command": {"type": "end-turn"}}, id="an observer"),
        pytest.param(
            "acting_player",
            {"command": {"type": "roll", "expression": "1d20", "combatant_id": "waiting"}},
            id="a player for the other side's combatant",
        ),
    ],
)
async def test_a_refused_preview_gives_the_error_a_submit_gets(
    api: Api, redis_url: str, encounter_id: str, who: str, body: dict[str, Any]
) -> None:
    f = await fight(api, encounter_id)
    credential = getattr(f, who)
    command = dict(body["command"])
    if command.get("combatant_id") == "waiting":
        command["combatant_id"] = f.waiting
    body = {**body, "command": command}
    length = stream_length(redis_url, encounter_id)

    previewed = await preview(api, encounter_id, credential, body)
    submitted = await api.client.post(f"{f.path}/commands", json=body, headers=bearer(credential))

    assert submitted.status_code >= 400
    assert previewed == {
        "accepted": False,
        "error": {**submitted.json()["error"], "status": submitted.status_code},
    }
    assert stream_length(redis_url, encounter_id) == length


async def test_a_rolled_preview_does_not_tell_the_encounters_dice(
    api: Api, encounter_id: str
) -> None:
    gm = await api.create(encounter_id, seed=SEED.hex())
    version = 1
    # What the encounter's seed rolls for the next command: eight d1000 drawn at version 2.
    real = [draw(SEED, version + 1, n, 1000) + 1 for n in range(8)]

    previewed = await preview(api, encounter_id, gm, {"command": ROLL})
    submitted = await api.ok(encounter_id, gm, ROLL)

    assert previewed["accepted"] is True and previewed["rolled"] is True
    assert faces(submitted["events"]) == real
    assert faces(previewed["events"]) != real


async def test_table_dice_preview_exactly(api: Api, encounter_id: str) -> None:
    gm = await api.create(encounter_id, options={"dice": "table"})
    body = {"command": {"type": "roll", "expression": "2d6"}, "dice": [3, 5]}

    previewed = await preview(api, encounter_id, gm, body)

    assert previewed["rolled"] is False
    assert faces(previewed["events"]) == [3, 5]


async def test_a_preview_needs_a_credential_and_a_well_formed_body(
    api: Api, encounter_id: str
) -> None:
    f = await fight(api, encounter_id)
    path = f"{f.path}/commands/preview"

    anonymous = await api.client.post(path, json={"command": {"type": "end-turn"}})
    malformed = await api.client.post(path, json={"command": 3}, headers=bearer(f.gm))
    unknown = await api.client.post(
        "/v1/encounters/nowhere/commands/preview",
        json={"command": {"type": "end-turn"}},
        headers=bearer(KEY),
    )

    assert anonymous.status_code == 401
    assert malformed.status_code == 400
    assert malformed.json()["error"]["code"] == "request/invalid"
    assert unknown.status_code == 404


async def test_previews_spend_the_senders_rate_limit_like_commands(
    redis_url: str, encounter_id: str
) -> None:
    async with running(settings_for(redis_url, rate_limit=3)) as limited:
        gm = await limited.create(encounter_id)
        # Keep every request in one window: the limit is per credential per second.
        if time.time() % 1 > 0.5:
            await asyncio.sleep(1 - time.time() % 1)
        path = f"/v1/encounters/{encounter_id}/commands/preview"
        body = {"command": {"type": "roll", "expression": "1d4"}}
        statuses = [
            (await limited.client.post(path, json=body, headers=bearer(gm))).status_code
            for _ in range(2)
        ]
        statuses.append((await limited.send(encounter_id, gm, body["command"])).status_code)
        refused = await limited.client.post(path, json=body, headers=bearer(gm))

    assert statuses == [200, 200, 201]
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate/limited"


BRUTE_HP = 9337  # the blow leaves it above half: no morale die, which is not the player's
DAMAGE = 4321
MAUL = "1d6+4315"


async def d20_blow(api: Api, encounter_id: str) -> tuple[str, str]:
    """A hero about to strike a brute with hidden health; the GM's and the hero's tokens."""
    options = {"hide_enemy_health": True, "dice": "table"}
    brute = {"hp": BRUTE_HP, "ac": 12, "weapons": [{"name": "spear", "damage": "1d6"}]}
    maul = {"name": "maul", "damage": MAUL}
    return await d20_hero_against(api, encounter_id, options, maul, ("brute", brute))


async def test_hidden_health_stays_hidden_in_a_preview(api: Api, encounter_id: str) -> None:
    gm, player = await d20_blow(api, encounter_id)
    # To hit 15 against AC 12, damage 6 + 4315: the brute stays above half, no morale check.
    body = {
        "command": {"type": "attack", "combatant_id": "hero", "target": "brute"},
        "dice": [15, 6],
    }

    seen_by_player = await preview(api, encounter_id, player, body)
    seen_by_gm = await preview(api, encounter_id, gm, body)

    assert seen_by_player["accepted"] is True and seen_by_player["rolled"] is False
    text = httpx.Response(200, json=seen_by_player).text
    assert not any(shows(text, n) for n in (BRUTE_HP, DAMAGE, BRUTE_HP - DAMAGE)), text
    assert shows(httpx.Response(200, json=seen_by_gm).text, DAMAGE)
