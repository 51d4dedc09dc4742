"""Table dice through REST (issue 23, item 5): who may supply a die (`dice/not-yours`), every
die still needed named in the refusal, and the dry run (`?dry_run=true`) that answers as the
preview: the dice used or still needed, nothing stored, no clock armed."""

from __future__ import annotations

from typing import Any

import pytest
import redis

from service.domain.ids import stream_id
from service.store.keys import encounter_keys
from tests.api.conftest import Api, bearer, d20_hero_against
from tests.api.test_preview import stream_length

pytestmark = pytest.mark.anyio

ATTACK = {"type": "attack", "combatant_id": "hero", "target": "goblin"}
# d20-action-points: a 15 hits the goblin's AC 12; the sword's 6 takes it from 10 to 4, below
# half, so the goblin makes a morale check: its d20, the GM's to supply (the goblin has no
# controller).
MORALE = {"sides": 20, "expression": "d20", "purpose": "morale: Goblin", "roller": "goblin"}


async def d20_duel(api: Api, encounter_id: str) -> tuple[str, str]:
    """The hero's turn against a goblin, `dice: table`; the GM's and the hero's tokens."""
    goblin = {"hp": 10, "ac": 12, "weapons": [{"name": "spear", "damage": "1d6"}]}
    sword = {"name": "sword", "damage": "1d8"}
    return await d20_hero_against(api, encounter_id, {"dice": "table"}, sword, ("goblin", goblin))


async def dry_run(api: Api, encounter_id: str, credential: str, body: dict[str, Any]) -> Any:
    response = await api.client.post(
        f"/v1/encounters/{encounter_id}/commands",
        params={"dry_run": "true"},
        json=body,
        headers=bearer(credential),
    )
    assert response.status_code == 200, response.text
    return response.json()


# --- who may supply a die -----------------------------------------------------------------------


async def test_a_player_supplying_the_goblins_morale_die_is_refused_and_nothing_appended(
    api: Api, redis_url: str, encounter_id: str
) -> None:
    _, player = await d20_duel(api, encounter_id)
    length = stream_length(redis_url, encounter_id)

    response = await api.send(encounter_id, player, ATTACK, dice=[15, 6, 20])

    assert response.status_code == 403, response.text
    error = response.json()["error"]
    assert error["code"] == "dice/not-yours"
    assert error["details"] == {"die": MORALE, "face": 20}
    assert "morale: Goblin" in error["message"] and "goblin" in error["message"]
    assert stream_length(redis_url, encounter_id) == length


async def test_the_gm_may_supply_the_goblins_morale_die(api: Api, encounter_id: str) -> None:
    gm, _ = await d20_duel(api, encounter_id)

    response = await api.send(encounter_id, gm, ATTACK, dice=[15, 6, 20])

    assert response.status_code == 201, response.text
    rolls = [r for e in response.json()["events"] for r in e["rolls"]]
    assert [(r["purpose"], r["value"]) for r in rolls][-1] == ("morale: Goblin", 20)


async def test_a_player_supplies_its_own_attack_die(api: Api, encounter_id: str) -> None:
    _, player = await d20_duel(api, encounter_id)

    response = await api.send(encounter_id, player, ATTACK, dice=[2])  # a miss: no more dice

    assert response.status_code == 201, response.text
    rolls = [r for e in response.json()["events"] for r in e["rolls"]]
    assert [(r["value"], r.get("source")) for r in rolls] == [(2, "table")]


async def test_a_refusal_for_missing_dice_names_each_and_whose_it_is(
    api: Api, encounter_id: str
) -> None:
    _, player = await d20_duel(api, encounter_id)

    response = await api.send(encounter_id, player, ATTACK, dice=[15, 6])

    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "dice/table-dice-missing"
    assert error["details"] == {"needed": [MORALE]}


# --- the dry run --------------------------------------------------------------------------------


async def test_a_dry_run_answers_as_the_preview_and_appends_nothing(
    api: Api, redis_url: str, encounter_id: str
) -> None:
    gm, _ = await d20_duel(api, encounter_id)
    length = stream_length(redis_url, encounter_id)
    body = {"command": ATTACK, "dice": [15, 6, 20]}

    dry = await dry_run(api, encounter_id, gm, body)
    previewed = await api.client.post(
        f"/v1/encounters/{encounter_id}/commands/preview", json=body, headers=bearer(gm)
    )

    # The same answer, but for the time and the command id each assigns.
    def shape(answer: dict[str, Any]) -> Any:
        events = [(e["version"], e["type"], e["data"], e["rolls"]) for e in answer["events"]]
        return {**answer, "events": events}

    assert shape(dry) == shape(previewed.json())
    assert dry["accepted"] is True and dry["rolled"] is False
    assert [r["value"] for r in dry["rolls"]] == [15, 6, 20]
    assert dry["rolls"] == [r for e in dry["events"] for r in e["rolls"]]
    assert stream_length(redis_url, encounter_id) == length


async def test_a_dry_run_lists_the_dice_still_needed(api: Api, encounter_id: str) -> None:
    gm, _ = await d20_duel(api, encounter_id)

    first = await dry_run(api, encounter_id, gm, {"command": ATTACK})
    second = await dry_run(api, encounter_id, gm, {"command": ATTACK, "dice": [15]})

    assert first["accepted"] is False and first["error"]["status"] == 422
    assert first["dice_needed"] == [
        {"sides": 20, "expression": "d20", "purpose": "Hero attacks Goblin (sword)",
         "roller": "hero"},
    ]  # fmt: skip
    assert first["error"]["details"] == {"needed": first["dice_needed"]}
    assert second["dice_needed"] == [
        {"sides": 8, "expression": "1d8", "purpose": "damage: sword on Goblin", "roller": "hero"}
    ]


async def test_a_dry_run_refused_for_a_die_not_yours_says_whose(
    api: Api, encounter_id: str
) -> None:
    _, player = await d20_duel(api, encounter_id)

    dry = await dry_run(api, encounter_id, player, {"command": ATTACK, "dice": [15, 6, 20]})

    assert dry["accepted"] is False and "dice_needed" not in dry
    assert dry["error"]["code"] == "dice/not-yours" and dry["error"]["status"] == 403


def outbox(redis_url: str, encounter_id: str) -> list[Any]:
    client = redis.Redis.from_url(redis_url)
    try:
        key = encounter_keys(stream_id("acme", encounter_id)).outbox
        return list(client.zrange(key, 0, -1, withscores=True))
    finally:
        client.close()


async def test_a_dry_run_arms_no_clock(api: Api, redis_url: str, encounter_id: str) -> None:
    gm = await api.skirmish(encounter_id, turn_time_limit=600)
    armed = outbox(redis_url, encounter_id)
    length = stream_length(redis_url, encounter_id)

    dry = await dry_run(api, encounter_id, gm, {"command": {"type": "end-turn"}})

    assert dry["accepted"] is True
    assert outbox(redis_url, encounter_id) == armed
    assert stream_length(redis_url, encounter_id) == length
    # The same command sent for real arms the next turn's timer.
    await api.ok(encounter_id, gm, {"type": "end-turn"})
    assert outbox(redis_url, encounter_id) != armed


@pytest.mark.parametrize("value", ["yes", "1", ""])
async def test_dry_run_is_true_or_false(api: Api, encounter_id: str, value: str) -> None:
    gm = await api.skirmish(encounter_id)

    response = await api.client.post(
        f"/v1/encounters/{encounter_id}/commands",
        params={"dry_run": value},
        json={"command": {"type": "end-turn"}},
        headers=bearer(gm),
    )

    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "request/invalid"


async def test_dry_run_false_sends_the_command(api: Api, encounter_id: str) -> None:
    gm = await api.skirmish(encounter_id)

    response = await api.client.post(
        f"/v1/encounters/{encounter_id}/commands",
        params={"dry_run": "false"},
        json={"command": {"type": "end-turn"}},
        headers=bearer(gm),
    )

    assert response.status_code == 201, response.text
