"""Roll requests (`dice: "prompt"`) through REST: a command that needs a die someone else
rolls is held, the roller's controller submits it, and the held command is decided with the
dice gathered; the seed fights decide exactly as they do with table dice."""

from __future__ import annotations

from typing import Any

import pytest

from service.audit import audit
from service.engine import Engine
from tests.api.conftest import Api
from tests.api.prompt_dice import decided, outcome_of, play_prompted, reference, stream_of

pytestmark = pytest.mark.anyio

# The seed fights and how many players roll dice in each (in Combat II's fight only the
# paladin's player rolls; the others' attacks are the GM's dice).
SEED_FIGHTS = [
    ("delvers-deep", 2),
    ("d20-action-points", 2),
    ("hex-tactical", 2),
    ("combat-ii", 1),
    ("fifty-two", 1),
]


@pytest.mark.parametrize(("ruleset", "players"), SEED_FIGHTS)
async def test_a_seed_fight_with_every_die_asked_for_decides_as_with_table_dice(
    api: Api, encounter_id: str, ruleset: str, players: int
) -> None:
    ref = await reference(ruleset)
    played = await play_prompted(api, ruleset, encounter_id, ref)

    engine: Engine = api.client.app.state.engine  # type: ignore[attr-defined]
    stream = stream_of(await engine.store.read(f"acme/{encounter_id}"))
    assert decided(stream) == ref.events
    assert played.requests > 0
    # The GM and the players each rolled dice of their own combatants.
    assert played.submitters.get("gm", 0) > 0
    assert len([h for h, dice in played.submitters.items() if h != "gm" and dice]) >= players
    report = audit(stream)
    assert report.verdict == "passed", [c for c in report.checks if c.status != "passed"]


async def prompted_roll(api: Api, encounter_id: str) -> tuple[str, str, dict[str, Any]]:
    """A started freeform skirmish in prompt mode where Bramli's player rolled for his axe:
    the GM's token, the player's, and the roll request for Bramli's second die."""
    gm = await api.create(encounter_id, options={"dice": "prompt"})
    for cid, name, side in (("bramli", "Bramli", "heroes"), ("goblin", "Goblin", "goblins")):
        add = {"type": "add-combatant", "combatant_id": cid, "name": name, "side": side}
        await api.ok(encounter_id, gm, add | {"stats": {"hp": 7}})
    player = await api.mint(encounter_id, "player", "bramli")
    roll = {"type": "roll", "combatant_id": "bramli", "expression": "2d6", "purpose": "axe"}
    held = await api.send(encounter_id, player, roll, dice=[3])
    assert held.status_code == 201, held.text
    events = held.json()["events"]
    assert [e["type"] for e in events] == ["command-held", "roll-requested"]
    assert events[0]["data"]["dice"] == [3]
    assert events[0]["rolls"] == [
        {"k": 6, "value": 3, "purpose": "axe", "kind": "die", "source": "table"}
    ]
    request: dict[str, Any] = events[1]["data"]
    assert request | {"deadline": None} == {
        "request_id": request["request_id"], "hold_id": events[0]["data"]["hold_id"],
        "purpose": "axe", "expression": "2d6", "sides": 6, "count": 1, "roller": "bramli",
        "deadline": None, "hidden": False,
    }  # fmt: skip
    return gm, player, request


async def version_of(api: Api, credential: str, encounter_id: str) -> int:
    version: int = (await api.get(f"/v1/encounters/{encounter_id}", credential)).json()["version"]
    return version


async def test_the_rollers_player_submits_and_the_held_command_is_decided(
    api: Api, encounter_id: str
) -> None:
    gm, player, request = await prompted_roll(api, encounter_id)
    submit = {"type": "submit-roll", "request_id": request["request_id"], "faces": [5]}
    answer = await api.send(encounter_id, player, submit)
    assert answer.status_code == 201, answer.text
    events = answer.json()["events"]
    assert [e["type"] for e in events] == ["roll-submitted", "command-released", "dice-rolled"]
    assert events[0]["data"] == {
        "request_id": request["request_id"], "faces": [5], "by": "player", "hidden": False
    } | {"by": events[0]["data"]["by"]}  # fmt: skip
    rolled = events[2]
    assert rolled["data"]["total"] == 8 and rolled["data"]["combatant_id"] == "bramli"
    assert [(r["value"], r.get("source")) for r in rolled["rolls"]] == [(3, "table"), (5, "table")]
    # The encounter takes commands again.
    assert (await api.send(encounter_id, gm, {"type": "add-note", "text": "ok"})).status_code == 201


async def test_the_gm_may_submit_a_players_die(api: Api, encounter_id: str) -> None:
    gm, _, request = await prompted_roll(api, encounter_id)
    submit = {"type": "submit-roll", "request_id": request["request_id"], "faces": [1]}
    answer = await api.send(encounter_id, gm, submit)
    assert answer.status_code == 201, answer.text
    assert answer.json()["events"][-1]["data"]["total"] == 4


async def test_another_player_may_not_submit_the_die(api: Api, encounter_id: str) -> None:
    gm, _, request = await prompted_roll(api, encounter_id)
    other = await api.mint(encounter_id, "player", "goblin")
    before = await version_of(api, gm, encounter_id)
    submit = {"type": "submit-roll", "request_id": request["request_id"], "faces": [2]}
    refused = await api.send(encounter_id, other, submit)
    assert refused.status_code == 403, refused.text
    assert refused.json()["error"]["code"] == "dice/not-yours"
    assert "bramli" in refused.json()["error"]["message"]
    assert await version_of(api, gm, encounter_id) == before


@pytest.mark.parametrize(
    ("change", "status", "code"),
    [
        pytest.param({"request_id": "roll-999-0"}, 422, "dice/unknown-roll-request",
                     id="wrong request id"),
        pytest.param({"faces": [2, 3]}, 422, "dice/wrong-face-count", id="two faces for one die"),
        pytest.param({"faces": [7]}, 422, "dice/table-die-out-of-range", id="a 7 on a d6"),
        pytest.param({"faces": [0]}, 422, "dice/table-die-out-of-range", id="a 0 on a d6"),
    ],
)  # fmt: skip
async def test_a_bad_submission_is_refused_and_appends_nothing(
    api: Api, encounter_id: str, change: dict[str, Any], status: int, code: str
) -> None:
    gm, player, request = await prompted_roll(api, encounter_id)
    before = await version_of(api, gm, encounter_id)
    submit = {"type": "submit-roll", "request_id": request["request_id"], "faces": [4]}
    refused = await api.send(encounter_id, player, submit | change)
    assert refused.status_code == status, refused.text
    assert refused.json()["error"]["code"] == code
    assert await version_of(api, gm, encounter_id) == before


async def test_dice_in_the_request_of_a_submit_roll_are_refused(
    api: Api, encounter_id: str
) -> None:
    gm, player, request = await prompted_roll(api, encounter_id)
    before = await version_of(api, gm, encounter_id)
    submit = {"type": "submit-roll", "request_id": request["request_id"], "faces": [4]}
    refused = await api.send(encounter_id, player, submit, dice=[4])
    assert refused.status_code == 422, refused.text
    assert refused.json()["error"]["code"] == "dice/table-dice-not-allowed"
    assert await version_of(api, gm, encounter_id) == before


async def test_a_die_already_in_is_not_submitted_twice(api: Api, encounter_id: str) -> None:
    gm = await api.create(encounter_id, options={"dice": "prompt"})
    # A roll-initiative with no dice: the GM is asked for the first one.
    add = {"type": "add-combatant", "combatant_id": "goblin", "name": "Goblin",
           "side": "goblins", "stats": {"hp": 7}}  # fmt: skip
    await api.ok(encounter_id, gm, add)
    held = await api.ok(encounter_id, gm, {"type": "roll", "expression": "3d6", "purpose": "p"})
    request = held["events"][-1]["data"]
    submit = {"type": "submit-roll", "request_id": request["request_id"], "faces": [1]}
    first = await api.ok(encounter_id, gm, submit)
    assert first["events"][-1]["type"] == "roll-requested"  # the second of the three dice
    again = await api.send(encounter_id, gm, submit)
    assert again.status_code == 422, again.text
    assert again.json()["error"]["code"] == "dice/unknown-roll-request"


async def test_while_a_command_is_held_other_commands_are_refused(
    api: Api, encounter_id: str
) -> None:
    gm, player, request = await prompted_roll(api, encounter_id)
    before = await version_of(api, gm, encounter_id)
    for credential, command in (
        (gm, {"type": "add-note", "text": "meanwhile"}),
        (player, {"type": "roll", "combatant_id": "bramli", "expression": "d4"}),
    ):
        refused = await api.send(encounter_id, credential, command)
        assert refused.status_code == 409, refused.text
        error = refused.json()["error"]
        assert error["code"] == "dice/roll-pending"
        assert [r["id"] for r in error["details"]["awaiting"]] == [request["request_id"]]
        assert "2d6 (axe) from bramli" in error["message"]
    assert await version_of(api, gm, encounter_id) == before


async def test_a_player_may_not_expire_the_requests(api: Api, encounter_id: str) -> None:
    _, player, request = await prompted_roll(api, encounter_id)
    command = {"type": "expire-roll-requests", "request_id": request["request_id"]}
    refused = await api.send(encounter_id, player, command)
    assert refused.status_code == 403, refused.text


async def test_the_gm_stops_waiting_and_the_seed_rolls_the_rest(
    api: Api, encounter_id: str
) -> None:
    gm, _, request = await prompted_roll(api, encounter_id)
    command = {"type": "expire-roll-requests", "request_id": request["request_id"]}
    answer = await api.ok(encounter_id, gm, command)
    released, rolled = answer["events"]
    assert released["data"]["reason"] == "deadline" and released["data"]["dropped"] is None
    (table, server) = rolled["rolls"]
    assert table == {"k": 6, "value": 3, "purpose": "axe", "kind": "die", "source": "table"}
    assert server["n"] == 0 and "source" not in server
    assert rolled["data"]["total"] == 3 + server["value"]
    # A deadline that fires after the dice came in is a no-op.
    assert (await api.ok(encounter_id, gm, command))["events"] == []


async def test_players_see_the_requests_in_the_events(api: Api, encounter_id: str) -> None:
    gm, _, request = await prompted_roll(api, encounter_id)
    observer = await api.mint(encounter_id, "observer")
    for credential in (gm, observer):
        events = (await api.get(f"/v1/encounters/{encounter_id}/events", credential)).json()
        shown = [outcome_of(e) for e in events["events"] if e["type"] == "roll-requested"]
        assert [e["data"]["request_id"] for e in shown] == [request["request_id"]]


async def test_while_held_the_legal_actions_are_the_dice_asked_of_the_viewer(
    api: Api, encounter_id: str
) -> None:
    gm, player, request = await prompted_roll(api, encounter_id)
    other = await api.mint(encounter_id, "player", "goblin")
    path = f"/v1/encounters/{encounter_id}/legal-actions"
    mine = (await api.get(path, player)).json()["actions"]
    assert [(a["type"], a["actor"], a["params"]["request_id"]) for a in mine] == [
        ("submit-roll", "bramli", request["request_id"])
    ]
    assert mine[0]["params"] | {"request_id": None} == {
        "request_id": None, "sides": 6, "count": 1, "expression": "2d6", "purpose": "axe",
        "deadline": request["deadline"],
    }  # fmt: skip
    assert (await api.get(path, other)).json()["actions"] == []
    gms = [a["type"] for a in (await api.get(path, gm)).json()["actions"]]
    assert gms == ["submit-roll", "expire-roll-requests"]
