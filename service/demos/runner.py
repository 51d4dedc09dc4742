"""The one demo loop: create the encounter, send each scripted step through the engine's
command pipeline, narrate every event it produced, draw the demo's pictures, audit the stream.

A demo is data (`Demo`): where its script comes from and which pictures it draws. Everything
else is here, so every ruleset's demo is played, narrated and audited the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from service.audit import AuditReport, audit
from service.deciding import CommandRequest
from service.domain.context import GM, Actor
from service.domain.envelope import Envelope
from service.domain.errors import FrayError
from service.domain.narration import namer
from service.domain.ruleset import EncounterState
from service.engine import Engine

Command = dict[str, Any]
# A command the script can only write once it sees the table (the column whose top card is
# the 9♥, the reaction window that opened); None leaves the step out.
CommandOf = Callable[[EncounterState], Command | None]
Draw = Callable[[EncounterState], list[str]]


@dataclass(frozen=True)
class Step:
    """One command. `actor` is "gm" or a combatant id, meaning the player who controls it;
    `dice` are table dice, for an encounter that lets the table roll."""

    command: Command | CommandOf
    actor: str = "gm"
    dice: Sequence[int] | None = None


@dataclass(frozen=True)
class Script:
    ruleset: str
    title: str
    steps: Sequence[Step]
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Picture:
    """Lines drawn from the state just before the event of version `before`, and shown just
    before its narration (one past the last version: at the end)."""

    before: int
    draw: Draw


def no_pictures(stream: Sequence[Envelope]) -> list[Picture]:
    return []


@dataclass(frozen=True)
class Demo:
    """`script` is called when the demo is played, so reading its files waits until then.
    `pictures` places drawings by the stored stream: a picture may belong in the middle of a
    command's events (the map as the fight begins, after initiative has been rolled)."""

    about: str
    script: Callable[[], Script]
    pictures: Callable[[Sequence[Envelope]], list[Picture]] = no_pictures


@dataclass(frozen=True)
class Transcript:
    encounter_id: str
    lines: list[str]
    audit: AuditReport


class StepRefused(FrayError):
    """A step of the script was refused: the script and the rules disagree."""

    code = "demo/step-refused"


def actor_for(name: str) -> Actor:
    return GM if name == "gm" else Actor(f"player-{name}", "player", frozenset({name}))


async def play(
    engine: Engine,
    demo: Demo,
    *,
    encounter_id: str | None = None,
    seed: bytes | None = None,
) -> Transcript:
    """Play the demo; one narration line per event after `encounter-created` (which has
    none), the pictures among them, and the audit of the stored stream."""
    script = demo.script()
    encounter_id, _ = await engine.create(
        script.ruleset,
        script.options,
        title=script.title,
        encounter_id=encounter_id,
        seed=seed,
        actor=GM,
    )
    lines: list[str] = []
    for number, step in enumerate(script.steps, start=1):
        lines += await _play(engine, encounter_id, number, step)
    stream = [Envelope.from_body(s.body) for s in await engine.store.read(encounter_id)]
    # The line of version v is lines[v - 2]. Inserting from the last picture back keeps the
    # earlier indexes where they were, and pictures placed at one version keep their order.
    for picture in reversed(sorted(demo.pictures(stream), key=lambda p: p.before)):
        state = (await engine.load_at(encounter_id, picture.before - 1)).state
        lines[picture.before - 2 : picture.before - 2] = picture.draw(state)
    return Transcript(encounter_id, lines, audit(stream))


async def _play(engine: Engine, encounter_id: str, number: int, step: Step) -> list[str]:
    command = step.command
    if callable(command):
        written = command((await engine.load(encounter_id)).state)
        if written is None:
            return []
        command = written
    # The step's number names the command: a demo played twice with one seed and one
    # clock records the same stream (tests/fixtures/streams records the demos so).
    request = CommandRequest(
        command=command,
        command_id=f"step-{number}",
        dice=None if step.dice is None else list(step.dice),
    )
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


def first_command(stream: Sequence[Envelope], kind: str) -> int:
    """The version of the first event of the first `kind` command: an event records the
    command that caused it only on the first event of that command."""
    return next(e.version for e in stream if e.command and e.command.get("type") == kind)
