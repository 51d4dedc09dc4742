"""Which event lists which draws: each event lists the draws made since the previous event
was emitted (`ctx.emit`), up to its own emit; the last event also takes the draws made after
it. Attribution is by position, so building an event is not emitting it, and a copy of an
emitted event is attributed where it stands. A ruleset that returns events other than
those it emitted is refused before anything is appended.

Each scenario swaps freeform's `decide` for a script on an `add-note` whose text is
`scripted`, with table dice (d6 = 3, d8 = 5, d10 = 7) so every value is known."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest

from service.api.errors import status_of
from service.domain.common import NoteAdded
from service.domain.context import GM, DecideContext, looking_ahead
from service.domain.errors import FrayError, RuleViolation
from service.domain.messages import Command, Event
from service.engine import Engine
from service.rules.freeform import RULESET
from tests.engine_helpers import run, send, skirmish

Script = Callable[[DecideContext], list[Event]]
DICE = [3, 5, 7]


def note(text: str) -> NoteAdded:
    return NoteAdded(text=text, hidden=False)


def scripted(monkeypatch: pytest.MonkeyPatch, script: Script) -> None:
    decide = type(RULESET).decide

    def decide_scripted(self: Any, state: Any, command: Command, ctx: DecideContext) -> list[Event]:
        if command.model_dump().get("text") == "scripted":
            return script(ctx)
        return decide(self, state, command, ctx)

    monkeypatch.setattr(type(RULESET), "decide", decide_scripted)


def rolls_of(encounter_id: str, monkeypatch: pytest.MonkeyPatch, script: Script) -> list[Any]:
    """The `rolls` of each event the script's command stored, as (purpose, value) pairs."""

    async def scenario(engine: Engine) -> list[Any]:
        await skirmish(engine, encounter_id, {"dice": "mixed"})
        scripted(monkeypatch, script)
        outcome = await send(
            engine, encounter_id, {"type": "add-note", "text": "scripted"}, dice=DICE
        )
        return [
            (e.data["text"], [(r["purpose"], r["value"]) for r in e.rolls]) for e in outcome.events
        ]

    return run(scenario)


def test_an_event_built_before_a_roll_and_emitted_after_it_lists_that_roll(
    encounter_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def script(ctx: DecideContext) -> list[Event]:
        early = note("built before the d6")
        ctx.die(6, "d6")
        first = ctx.emit(early)
        ctx.die(8, "d8")
        second = ctx.emit(note("second"))
        ctx.die(10, "d10 after the last emit")
        return [first, second]

    assert rolls_of(encounter_id, monkeypatch, script) == [
        ("built before the d6", [("d6", 3)]),
        ("second", [("d8", 5), ("d10 after the last emit", 7)]),
    ]


def test_an_event_emitted_before_a_roll_lists_none_of_it(
    encounter_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def script(ctx: DecideContext) -> list[Event]:
        first = ctx.emit(note("before any die"))
        ctx.die(6, "d6")
        ctx.die(8, "d8")
        second = ctx.emit(note("after two dice"))
        third = ctx.emit(note("last"))
        ctx.die(10, "d10")
        return [first, second, third]

    assert rolls_of(encounter_id, monkeypatch, script) == [
        ("before any die", []),
        ("after two dice", [("d6", 3), ("d8", 5)]),
        ("last", [("d10", 7)]),
    ]


def test_a_copy_of_an_emitted_event_keeps_the_draws_of_its_position(
    encounter_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def script(ctx: DecideContext) -> list[Event]:
        ctx.die(6, "d6")
        first = ctx.emit(note("copied"))
        ctx.die(8, "d8")
        ctx.die(10, "d10")
        second = ctx.emit(note("second"))
        return [first.model_copy(), second]

    assert rolls_of(encounter_id, monkeypatch, script) == [
        ("copied", [("d6", 3)]),
        ("second", [("d8", 5), ("d10", 7)]),
    ]


def test_an_event_emitted_ahead_of_those_emitted_first_lists_their_draws(
    encounter_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def script(ctx: DecideContext) -> list[Event]:
        ctx.die(6, "d6")
        opening = ctx.emit(note("opening"))
        paid = [ctx.emit(note("paid")), ctx.emit(note("paid again"))]
        ctx.die(8, "d8")
        cast = ctx.emit_ahead(note("cast"), of=paid)
        ctx.die(10, "d10")
        return [opening, cast, *paid]

    assert rolls_of(encounter_id, monkeypatch, script) == [
        ("opening", [("d6", 3)]),
        ("cast", [("d8", 5)]),
        ("paid", []),
        ("paid again", [("d10", 7)]),
    ]


def _not_emitted(ctx: DecideContext) -> list[Event]:
    emitted = ctx.emit(note("emitted"))
    ctx.die(6, "d6")
    return [emitted, note("never emitted")]


def _another_order(ctx: DecideContext) -> list[Event]:
    first = ctx.emit(note("first"))
    ctx.die(6, "d6")
    second = ctx.emit(note("second"))
    return [second, first]


def _emitted_not_returned(ctx: DecideContext) -> list[Event]:
    kept = ctx.emit(note("kept"))
    ctx.die(6, "d6")
    ctx.emit(note("dropped"))
    return [kept]


@pytest.mark.parametrize(
    "script",
    [
        pytest.param(_not_emitted, id="an event it never emitted"),
        pytest.param(_another_order, id="its events in another order"),
        pytest.param(_emitted_not_returned, id="fewer events than it emitted"),
    ],
)
def test_a_ruleset_returning_other_events_than_it_emitted_is_refused_and_appends_nothing(
    encounter_id: str, monkeypatch: pytest.MonkeyPatch, caplog: Any, script: Script
) -> None:
    async def scenario(engine: Engine) -> tuple[int, int, int]:
        await skirmish(engine, encounter_id, {"dice": "mixed"})
        before = (await engine.load(encounter_id)).version
        scripted(monkeypatch, script)
        with pytest.raises(FrayError) as caught:
            await send(engine, encounter_id, {"type": "add-note", "text": "scripted"}, dice=[3])
        assert caught.value.code == "internal/unemitted-event"
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


def test_a_look_ahead_context_rolls_no_dice() -> None:
    with pytest.raises(RuleViolation):
        looking_ahead().die(6, "a view may not roll")
