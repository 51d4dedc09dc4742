"""The examples that ship with Fray, and the scripted fights among them.

The examples are package data (`service/demos/examples/<ruleset>/`), read through
`importlib.resources`, so an installed wheel plays every demo without the source tree.

A scripted fight is data: `encounter.json` names the ruleset, the stat-block files to add
and the steps to play, each `{actor, command, dice?, note?}`. `actor` is "gm" or a combatant
id, meaning the player who controls that combatant. An `answer-reaction` step without a
`window_id` answers the open window that waits for its combatant, since window ids are only
known once a window has opened.
"""

from __future__ import annotations

import json
from functools import partial
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from service.demos.runner import Command, CommandOf, Script, Step
from service.domain.ruleset import EncounterState

COMBATANT_FIELDS = ("combatant_id", "name", "side", "controller", "stats", "position")


def examples(ruleset: str) -> Traversable:
    """The directory of a ruleset's examples: stat blocks, `encounter.json`, a README."""
    return files("service.demos") / "examples" / ruleset


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CombatantRef(_Model):
    """A stat-block file, optionally under another id and name (two orcs, one file)."""

    file: str
    combatant_id: str | None = None
    name: str | None = None


class StepSpec(_Model):
    actor: str = "gm"
    command: dict[str, Any]
    dice: list[int] | None = None
    note: str | None = None  # for readers of the file only


class EncounterSpec(_Model):
    title: str
    ruleset: str
    options: dict[str, Any] = Field(default_factory=dict)
    combatants: list[CombatantRef]
    steps: list[StepSpec]


def read_spec(directory: Traversable) -> tuple[EncounterSpec, list[Command]]:
    """The script file and the `add-combatant` commands for its combatants, in order."""
    spec = EncounterSpec.model_validate_json((directory / "encounter.json").read_bytes())
    return spec, [add_combatant(directory, ref) for ref in spec.combatants]


def read_script(directory: Traversable) -> Script:
    """The combatants are added first, by the GM, then the steps are played."""
    spec, roster = read_spec(directory)
    steps = [Step(command) for command in roster]
    steps += [Step(_with_window(s.command), s.actor, s.dice) for s in spec.steps]
    return Script(spec.ruleset, spec.title, steps, spec.options)


def add_combatant(directory: Traversable, ref: CombatantRef) -> Command:
    """A stat-block file as an `add-combatant` command, less its `epithet` (the demos'
    streams were recorded without it, and the narration does not use it)."""
    block = json.loads((directory / ref.file).read_text(encoding="utf-8"))
    command = {k: block[k] for k in COMBATANT_FIELDS if k in block}
    if ref.combatant_id is not None:
        command["combatant_id"] = ref.combatant_id
    if ref.name is not None:
        command["name"] = ref.name
    return {"type": "add-combatant", **command}


def _with_window(command: Command) -> Command | CommandOf:
    if command.get("type") != "answer-reaction" or "window_id" in command:
        return command
    return partial(_answer_open_window, command)


def _answer_open_window(command: Command, state: EncounterState) -> Command:
    for window in state.table.open_windows():
        if command.get("combatant_id") in window.waiting_for():
            return {**command, "window_id": window.id}
    return command
