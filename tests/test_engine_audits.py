"""The append that ends an encounter owes its audit: an outbox entry in the same atomic step
as the events, so the audit survives whatever dies after it (docs/architecture.md)."""

from __future__ import annotations

import orjson
import pytest

from service.domain.errors import RuleViolation
from service.domain.timefmt import parse_iso
from service.engine import Engine, Outcome
from service.store.events import Deadline
from tests.engine_helpers import run, send, skirmish


async def audits(engine: Engine, encounter_id: str) -> list[Deadline]:
    return [d for d in await engine.store.pending_deadlines(encounter_id) if d.key == "audit"]


def test_ending_an_encounter_owes_its_audit_at_once(encounter_id: str) -> None:
    async def scenario(engine: Engine) -> tuple[list[Deadline], list[Deadline], Outcome]:
        await skirmish(engine, encounter_id)
        before = await audits(engine, encounter_id)
        ended = await send(engine, encounter_id, {"type": "end-encounter"})
        return before, await audits(engine, encounter_id), ended

    before, (entry,), ended = run(scenario)
    assert before == []
    (event,) = ended.events
    assert event.type == "encounter-ended"
    assert entry.due == parse_iso(event.at).timestamp()
    payload = orjson.loads(entry.payload)
    assert payload["armed"] == event.version and payload["command"] is None


def test_a_note_after_the_end_owes_an_audit_of_the_longer_stream(encounter_id: str) -> None:
    async def scenario(engine: Engine) -> tuple[list[Deadline], int]:
        await skirmish(engine, encounter_id)
        await send(engine, encounter_id, {"type": "end-encounter"})
        note = await send(engine, encounter_id, {"type": "add-note", "text": "well fought"})
        return await audits(engine, encounter_id), note.version

    (entry,), version = run(scenario)
    assert orjson.loads(entry.payload)["armed"] == version  # one entry, moved to the note


def test_a_command_refused_after_the_end_owes_nothing(encounter_id: str) -> None:
    async def scenario(engine: Engine) -> list[Deadline]:
        await skirmish(engine, encounter_id)
        await send(engine, encounter_id, {"type": "end-encounter"})
        (entry,) = await audits(engine, encounter_id)
        await engine.store.clear_deadline(encounter_id, entry.key, entry.due, entry.payload)
        with pytest.raises(RuleViolation):
            await send(engine, encounter_id, {"type": "end-turn"})
        return await audits(engine, encounter_id)

    assert run(scenario) == []
