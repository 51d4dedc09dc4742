"""Never append what cannot be read back: a decided event that would not survive its own
round trip is refused before the append, and the encounter goes on as if it never came."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from service.api.errors import status_of
from service.domain.canonical import canonical_bytes
from service.domain.common import NoteAdded, ResourceAdjusted, Rewound
from service.domain.context import GM
from service.domain.errors import FrayError
from service.domain.messages import Command, Event
from service.domain.recording import Unrecordable, check_recordable
from service.engine import Engine
from service.rules.freeform import RULESET
from tests.engine_helpers import run, send, skirmish


def envelope(event: Event) -> dict[str, Any]:
    kind, schema, data = RULESET.event_data(event)
    return {"type": kind, "schema": schema, "data": data}


def body(event: Event) -> bytes:
    return canonical_bytes(envelope(event))


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(2**70, id="past 64 bits: read back as a float"),
        pytest.param(2**60, id="past 53 bits: JavaScript rounds it"),
        pytest.param(-(2**53), id="below -(2**53 - 1)"),
    ],
)
def test_an_integer_that_would_not_read_back_is_unrecordable(value: int) -> None:
    event = Rewound(to_version=value, from_version=1)

    with pytest.raises(Unrecordable, match="nothing was appended") as caught:
        check_recordable(RULESET, [event], [envelope(event)], [body(event)])

    assert caught.value.code == "internal/unrecordable"


def test_an_event_that_parses_back_differently_is_unrecordable() -> None:
    written = NoteAdded(text="seen", hidden=False)
    different = NoteAdded(text="seen", hidden=True)

    with pytest.raises(Unrecordable, match="different event"):
        check_recordable(RULESET, [different], [envelope(written)], [body(written)])


def test_ordinary_events_are_recordable() -> None:
    events = [Rewound(to_version=2**53 - 1, from_version=1), NoteAdded(text="ü ✓ \u2028")]

    check_recordable(RULESET, events, [envelope(e) for e in events], [body(e) for e in events])


def test_a_command_whose_events_cannot_be_recorded_appends_nothing(
    encounter_id: str, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    """A fault in a ruleset (here forced) answers 500 and leaves the stream as it was."""
    decide = type(RULESET).decide

    def faulty(self: Any, state: Any, command: Command, ctx: Any) -> list[Event]:
        if command.model_dump().get("text") == "poison":
            poison = ResourceAdjusted(combatant_id="bramli", resource="hp", before=1, after=2**64)
            return [ctx.emit(poison)]
        return decide(self, state, command, ctx)

    async def scenario(engine: Engine) -> tuple[int, int, int]:
        await skirmish(engine, encounter_id)
        before = (await engine.load(encounter_id)).version
        monkeypatch.setattr(type(RULESET), "decide", faulty)
        with pytest.raises(FrayError) as caught:
            await send(engine, encounter_id, {"type": "add-note", "text": "poison"}, GM)
        assert caught.value.code == "internal/unrecordable"
        assert status_of(caught.value) == 500
        fresh = Engine(engine.store)  # another process: no cache
        after = (await fresh.load(encounter_id)).version
        later = await send(fresh, encounter_id, {"type": "add-note", "text": "fine"}, GM)
        return before, after, later.version

    with caplog.at_level(logging.ERROR, logger="fray.engine"):
        before, after, later = run(scenario)

    assert after == before
    assert later == before + 1
    assert "add-note" in caplog.text and encounter_id in caplog.text
