"""Folding: replay from version 1, rewinds, and old event shapes read through upcasters."""

from __future__ import annotations

from typing import ClassVar

from service.domain.envelope import seal
from service.domain.fold import replay
from service.domain.upcasting import Upcaster
from service.rules.freeform import Freeform
from tests.rules.harness import Table


class FreeformWithOldNotes(Freeform):
    """Freeform as if note-added had been `{"body": ...}` in schema 1 and `text` since 2."""

    event_schemas: ClassVar[dict[str, int]] = {"note-added": 2}
    upcasters: ClassVar[dict[tuple[str, int], Upcaster]] = {
        ("note-added", 1): lambda d: {"text": d["body"], "hidden": d.get("secret", False)},
    }


def test_an_old_event_shape_folds_through_its_upcaster():
    ruleset = FreeformWithOldNotes()
    table = Table(ruleset)
    first = table.envelopes[0]
    old = seal(
        version=2, type="note-added", schema=1, data={"body": "the bridge is out"},
        at=first.at, command_id="c2", actor={"id": "gm", "role": "gm", "combatants": []},
        command={"type": "add-note", "text": "the bridge is out"}, rolls=[], prev_hash=first.hash,
    )  # fmt: skip
    state = replay(ruleset, [first, old])
    assert [n.text for n in state.table.notes] == ["the bridge is out"]


def test_new_events_are_written_at_the_current_schema():
    ruleset = FreeformWithOldNotes()
    table = Table(ruleset)
    [note] = table.send({"type": "add-note", "text": "hello"})
    assert note.schema == 2 and replay(ruleset, table.envelopes) == table.state


def test_a_rewind_returns_to_exactly_the_state_as_of_that_version():
    table = Table(Freeform())
    table.send({"type": "add-combatant", "name": "Bramli", "stats": {"hp": 10}})
    at = table.version
    remembered = table.state
    table.send({"type": "adjust-resource", "combatant_id": "bramli", "delta": -4})
    table.send({"type": "rewind", "to_version": at})
    assert table.state == remembered == replay(Freeform(), table.envelopes)
    table.send({"type": "adjust-resource", "combatant_id": "bramli", "delta": -1})
    assert table.state.table.combatants["bramli"].pools["hp"].current == 9
