"""The seed fights (`fray demo`) played through REST with `dice: table`, as a front end that
knows no ruleset would play them: each command is first sent as a dry run without its dice,
and the dice the refusals list (`dice_needed`) are taken from the table, in order, until the
dry run is accepted; then it is sent for real (docs/api.md, "Table dice").

The demos' scripts hold the faces the table rolled, in the order the command uses them, so
each list of needed dice must be the next dice of the script, and the last dry run must use
all of them. How many dry runs a command took is the measure of issue 23 item 5: each refusal
used to name one die, so a command of n dice took n + 1 tries."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest

from service.demos.runner import Step
from service.demos.scripts import examples, read_script
from tests.api.conftest import Api
from tests.api.test_table_dice import dry_run

pytestmark = pytest.mark.anyio


async def command_of(api: Api, encounter_id: str, gm: str, step: Step) -> dict[str, Any]:
    """The step's command; an answer to "the window that waits for me" gets its window id
    from the encounter's view, as a front end would."""
    if not isinstance(step.command, partial):
        assert isinstance(step.command, dict)
        return step.command
    command: dict[str, Any] = step.command.args[0]
    view = (await api.get(f"/v1/encounters/{encounter_id}", gm)).json()
    (window,) = [
        w for w in view["summary"]["reaction_windows"] if command["combatant_id"] in w["eligible"]
    ]
    return {**command, "window_id": window["window_id"]}


async def ask(
    api: Api, encounter_id: str, credential: str, body: dict[str, Any], submit: bool
) -> dict[str, Any]:
    """A dry run's answer; or, with `submit`, a real submit's answer in the same shape (a
    refusal's `error.details.needed` are the dice needed; the accepted one is appended)."""
    if not submit:
        answer: dict[str, Any] = await dry_run(api, encounter_id, credential, body)
        return answer
    response = await api.send(encounter_id, credential, body["command"], dice=body["dice"])
    if response.status_code == 201:
        rolls = [r for e in response.json()["events"] for r in e["rolls"]]
        return {"accepted": True, "rolls": rolls, "sent": True}
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    return {"accepted": False, "error": error, "dice_needed": error["details"]["needed"]}


async def play(
    api: Api, encounter_id: str, ruleset: str, *, submit: bool = False
) -> list[tuple[int, str, int, int]]:
    """Play the demo; (step, command type, dice, tries) for each step that rolls. Each try
    is a dry run, or with `submit` the command itself, refused until its dice are all
    there."""
    script = read_script(examples(ruleset))
    gm = await api.create(
        encounter_id, ruleset=script.ruleset, options={**script.options, "dice": "table"}
    )
    tokens = {"gm": gm}
    played = []
    for number, step in enumerate(script.steps, start=1):
        if step.actor not in tokens:
            tokens[step.actor] = await api.mint(encounter_id, "player", step.actor)
        credential = tokens[step.actor]
        command = await command_of(api, encounter_id, gm, step)
        faces = list(step.dice or [])
        dice: list[int] = []
        tries = 0
        while True:
            tries += 1
            body = {"command": command, "dice": dice}
            answer = await ask(api, encounter_id, credential, body, submit)
            if answer["accepted"]:
                break
            assert answer["error"]["code"] == "dice/table-dice-missing", (number, answer)
            needed = answer["dice_needed"]
            taken = faces[len(dice) : len(dice) + len(needed)]
            assert len(taken) == len(needed), f"step {number} needs dice the script lacks"
            assert all(1 <= face <= die["sides"] for face, die in zip(taken, needed, strict=True))
            dice += taken
        assert dice == faces, f"step {number} used {dice}, the table rolled {faces}"
        assert [r["value"] for r in answer["rolls"]] == faces
        if not answer.get("sent"):
            sent = await api.send(encounter_id, credential, command, dice=dice)
            assert sent.status_code == 201, (number, sent.text)
        if faces:
            played.append((number, str(command["type"]), len(faces), tries))
    return played


@pytest.mark.parametrize("submit", [False, True], ids=["dry runs", "refused submits"])
async def test_the_combat_ii_seed_fight_plays_by_the_dice_each_refusal_lists(
    api: Api, encounter_id: str, submit: bool
) -> None:
    played = await play(api, encounter_id, "combat-ii", submit=submit)

    # Step 25 resolves a phase of fourteen dice (the cone of cold's 9d4 among them): it took
    # fifteen tries when each refusal named one die.
    assert played == [
        (14, "start-encounter", 2, 2),
        (20, "charge", 9, 10),
        (25, "move", 14, 7),
        (30, "stand", 4, 5),
    ]


async def test_the_d20_action_points_seed_fight_plays_by_the_dice_each_dry_run_lists(
    api: Api, encounter_id: str
) -> None:
    played = await play(api, encounter_id, "d20-action-points")

    assert sum(dice for *_, dice, _ in played) > len(played)  # the fight rolled
    assert all(tries <= dice + 1 for *_, dice, tries in played)
    # The ambush: the party's die and the GM's, listed together; each round's initiative,
    # every player's die and the GM's for each group, all in one refusal.
    assert (12, "choose-approach", 2, 2) in played
    assert (18, "roll-initiative", 4, 2) in played
    assert (30, "roll-initiative", 6, 2) in played


async def test_the_hex_tactical_seed_fight_plays_by_the_dice_each_dry_run_lists(
    api: Api, encounter_id: str
) -> None:
    played = await play(api, encounter_id, "hex-tactical")

    assert all(tries <= dice + 1 for *_, dice, tries in played)
    assert any(tries < dice + 1 for *_, dice, tries in played)
