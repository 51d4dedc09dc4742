"""`fray demo delvers-deep`: the scripted fight of examples/delvers-deep/ through the real
pipeline, narrated event by event.

The fight is data: `encounter.json` names the stat-block files to add and the steps to play,
each `{actor, command, dice?, note?}`. `actor` is "gm" or a combatant id, meaning the player
who controls that combatant. An `answer-reaction` step without a `window_id` answers the
open window that waits for its combatant, since window ids are only known once opened.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from service.domain.context import GM, Actor
from service.domain.errors import FrayError
from service.domain.narration import namer
from service.engine import CommandRequest, Engine

EXAMPLES = Path(__file__).resolve().parent / "demos" / "examples" / "delvers-deep"
COMBATANT_FIELDS = ("combatant_id", "name", "side", "controller", "stats", "position")


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CombatantRef(_Model):
    """A stat-block file, optionally under another id and name (two orcs, one file)."""

    file: str
    combatant_id: str | None = None
    name: str | None = None


class Step(_Model):
    actor: str = "gm"
    command: dict[str, Any]
    dice: list[int] | None = None
    note: str | None = None


class Script(_Model):
    title: str
    ruleset: str = "delvers-deep"
    options: dict[str, Any] = Field(default_factory=dict)
    combatants: list[CombatantRef]
    steps: list[Step]


class StepRefused(FrayError):
    """A step of the script was refused: the script and the rules disagree."""

    code = "demo/step-refused"


def load_script(directory: Path = EXAMPLES) -> tuple[Script, list[dict[str, Any]]]:
    """The script and the `add-combatant` commands for its combatants, in order."""
    script = Script.model_validate_json((directory / "encounter.json").read_bytes())
    return script, [add_combatant(directory, ref) for ref in script.combatants]


def add_combatant(directory: Path, ref: CombatantRef) -> dict[str, Any]:
    block = json.loads((directory / ref.file).read_text(encoding="utf-8"))
    command = {k: block[k] for k in COMBATANT_FIELDS if k in block}
    if ref.combatant_id is not None:
        command["combatant_id"] = ref.combatant_id
    if ref.name is not None:
        command["name"] = ref.name
    return {"type": "add-combatant", **command}


def actor_for(name: str) -> Actor:
    return GM if name == "gm" else Actor(f"player-{name}", "player", frozenset({name}))


async def run_delvers_demo(
    engine: Engine, directory: Path = EXAMPLES, encounter_id: str | None = None
) -> tuple[str, list[str]]:
    """Play the script; return the encounter id and one narration line per event."""
    script, roster = load_script(directory)
    encounter_id, _ = await engine.create(
        script.ruleset, script.options, title=script.title, encounter_id=encounter_id, actor=GM
    )
    lines: list[str] = []
    steps = [Step(command=c) for c in roster] + script.steps
    for number, step in enumerate(steps, start=1):
        lines += await _play(engine, encounter_id, number, step)
    return encounter_id, lines


async def _play(engine: Engine, encounter_id: str, number: int, step: Step) -> list[str]:
    command = await _with_window(engine, encounter_id, step.command)
    request = CommandRequest(command=command, dice=step.dice)
    try:
        outcome = await engine.execute(encounter_id, request, actor_for(step.actor))
    except FrayError as error:
        raise StepRefused(
            f"step {number} ({step.actor}: {command.get('type')}) was refused: "
            f"{error.code}: {error.message}",
            details={"step": number, "command": command, "error": error.to_dict()},
        ) from error
    loaded = await engine.load(encounter_id)
    names = namer(loaded.state.table.combatants)
    return [loaded.ruleset.narrate(e.type, e.data, names) for e in outcome.events]


async def _with_window(
    engine: Engine, encounter_id: str, command: dict[str, Any]
) -> dict[str, Any]:
    if command.get("type") != "answer-reaction" or "window_id" in command:
        return command
    table = (await engine.load(encounter_id)).state.table
    for window in table.open_windows():
        if command.get("combatant_id") in window.waiting_for():
            return {**command, "window_id": window.id}
    return command
