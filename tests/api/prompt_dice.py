"""Playing a seed fight in the `prompt` dice mode through REST: every command is sent
without dice, and each die Fray asks for is submitted by whoever controls its roller (the
combatant's player, or the GM for the GM's combatants and the GM's own rolls), with the
faces the same fight rolled when it was played with table dice."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from service.cli import DEMOS
from service.demos.runner import Script, play
from service.domain.envelope import Envelope
from service.engine import Engine
from service.store.memory import MemoryStore
from tests.api.conftest import Api

SEED = bytes(range(32))
HOLDING = frozenset({"command-held", "roll-requested", "roll-submitted", "command-released"})


@dataclass
class Reference:
    """The fight as the demo plays it: each step's die faces and events."""

    faces: dict[str, list[int]]
    events: list[dict[str, Any]]  # as stored, after version 1


async def reference(ruleset: str) -> Reference:
    engine = Engine(MemoryStore())
    played = await play(engine, DEMOS[ruleset], seed=SEED)
    stream = stream_of(await engine.store.read(played.encounter_id))
    faces: dict[str, list[int]] = {}
    for envelope in stream[1:]:
        faces.setdefault(envelope.command_id, []).extend(
            int(r["value"]) for r in envelope.rolls if r.get("kind") == "die"
        )
    return Reference(faces, decided(stream))


def decided(stream: list[Envelope]) -> list[dict[str, Any]]:
    """What a stream decided (as stored, unredacted), less the holding of commands."""
    return [outcome_of(e.to_dict()) for e in stream[1:] if e.type not in HOLDING]


def outcome_of(event: dict[str, Any]) -> dict[str, Any]:
    """What an event decided: its type and data, less the deadlines that depend on when."""
    return {"type": event["type"], "data": _timeless(event["data"])}


def _timeless(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _timeless(v) for k, v in value.items() if k != "deadline"}
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value


@dataclass
class Played:
    encounter_id: str
    submitters: dict[str, int] = field(default_factory=dict)  # token holder -> dice submitted
    requests: int = 0


async def play_prompted(api: Api, ruleset: str, encounter_id: str, ref: Reference) -> Played:
    script: Script = DEMOS[ruleset].script()
    options = {**script.options, "dice": "prompt"}
    gm = await api.create(encounter_id, ruleset=ruleset, options=options, seed=SEED.hex())
    players = {s.actor for s in script.steps if s.actor != "gm"}
    tokens = {"gm": gm}

    async def token(holder: str) -> str:
        if holder not in tokens:  # minted once the combatant is in the encounter
            tokens[holder] = await api.mint(encounter_id, "player", holder)
        return tokens[holder]

    engine: Engine = api.client.app.state.engine  # type: ignore[attr-defined]
    played = Played(encounter_id)
    for number, step in enumerate(script.steps, start=1):
        command_id = f"step-{number}"
        command = step.command
        if callable(command):
            written = command((await engine.load(f"acme/{encounter_id}")).state)
            if written is None:
                continue
            command = written
        faces = list(ref.faces.get(command_id, []))
        response = await api.send(
            encounter_id, await token(step.actor), command, command_id=command_id
        )
        assert response.status_code == 201, response.text
        events = response.json()["events"]
        while events[-1]["type"] == "roll-requested":
            asked = [e["data"] for e in events if e["type"] == "roll-requested"]
            for request in asked:
                roller = request["roller"]
                holder = roller if roller in players else "gm"
                mine, faces = faces[: request["count"]], faces[request["count"] :]
                submit = {"type": "submit-roll", "request_id": request["request_id"]}
                response = await api.send(
                    encounter_id, await token(holder), submit | {"faces": mine}
                )
                assert response.status_code == 201, response.text
                played.submitters[holder] = played.submitters.get(holder, 0) + len(mine)
                played.requests += 1
            events = response.json()["events"]
        assert faces == [], f"{command_id}: {len(faces)} of the fight's dice were never asked for"
    return played


def stream_of(stored: list[Any]) -> list[Envelope]:
    return [Envelope.from_body(s.body) for s in stored]
