"""Stat blocks in events are the ruleset's own model, validated once when a stored event is
parsed; an older shape is read through its upcaster, keyed by (event type, schema)."""

from __future__ import annotations

import traceback
from typing import Any, ClassVar

import pytest

from service.domain.common import CombatantAdded, CombatantUpdated
from service.domain.envelope import Envelope, seal
from service.domain.fold import replay
from service.domain.upcasting import UnreadableEvent, Upcaster
from service.rules.hex_tactical import HexTactical
from service.rules.hex_tactical.state import HexStats
from service.rules.registry import RULESETS
from tests.rules.harness import Table

GM = {"id": "gm", "role": "gm", "combatants": []}

# combatant-added as a hex-tactical stream stored it at schema 1, before the stat block
# carried a list of weapons and named its hit points `hp`: one `weapon` and `health`.
OLD_ADDED: dict[str, Any] = {
    "combatant_id": "hrolf",
    "name": "Hrolf",
    "side": "barbarians",
    "controller": None,
    "position": None,
    "pools": {"hp": {"current": 14, "max": 14}},
    "stats": {"health": 14, "armor": 2, "weapon": {"name": "axe", "damage": "1d8"}},
}


def _upgrade_stats(old: dict[str, Any]) -> dict[str, Any]:
    stats = {k: v for k, v in old.items() if k not in ("health", "weapon")}
    stats["hp"] = old["health"]
    stats["weapons"] = [old["weapon"]] if "weapon" in old else []
    return stats


class HexWithOldStatBlocks(HexTactical):
    """hex-tactical as if combatant-added had moved to schema 2 with today's stat block."""

    event_schemas: ClassVar[dict[str, int]] = {"combatant-added": 2}
    upcasters: ClassVar[dict[tuple[str, int], Upcaster]] = {
        ("combatant-added", 1): lambda d: {**d, "stats": _upgrade_stats(d["stats"])},
    }


def _stored(
    first: Envelope, version: int, kind: str, schema: int, data: dict[str, Any]
) -> Envelope:
    return seal(
        version=version, type=kind, schema=schema, data=data, at=first.at,
        command_id=f"c{version}", actor=GM, command=None, rolls=[], prev_hash=first.hash,
    )  # fmt: skip


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_a_stored_stat_block_is_read_as_the_rulesets_own_model(name: str) -> None:
    ruleset = RULESETS[name]
    table = Table(ruleset)
    table.send({"type": "add-combatant", "name": "Vale", "combatant_id": "vale"})
    table.send({"type": "update-combatant", "combatant_id": "vale", "stats": {}})
    added, updated = (ruleset.event_from(e.type, e.schema, e.data) for e in table.envelopes[1:])
    assert isinstance(added, CombatantAdded) and isinstance(updated, CombatantUpdated)
    assert type(added.stats) is ruleset.stats_model
    assert type(updated.stats) is ruleset.stats_model


def test_an_old_stat_block_folds_through_its_upcaster_into_todays_model() -> None:
    ruleset = HexWithOldStatBlocks()
    first = Table(ruleset).envelopes[0]
    old = _stored(first, 2, "combatant-added", 1, OLD_ADDED)
    event = ruleset.event_from(old.type, old.schema, old.data)
    assert isinstance(event, CombatantAdded) and isinstance(event.stats, HexStats)
    assert event.stats.hp == 14 and [w.name for w in event.stats.weapons] == ["axe"]
    state = replay(ruleset, [first, old])
    hrolf = state.table.combatants["hrolf"]
    assert hrolf.stats["hp"] == 14 and hrolf.stats["weapons"][0]["damage"] == "1d8"
    assert state.wielding == {"hrolf": "axe"}


def test_upcasters_are_keyed_by_event_type_and_schema() -> None:
    """Schema 1 of another event type is that type's current shape: read as it is."""
    ruleset = HexWithOldStatBlocks()
    note = ruleset.event_from("note-added", 1, {"text": "the gate holds", "hidden": False})
    assert note.model_dump(exclude={"type"}) == {
        "text": "the gate holds",
        "hidden": False,
        "author": None,
    }
    new = Table(ruleset).send({"type": "add-combatant", "name": "Vale", "stats": {"hp": 9}})
    assert [(e.type, e.schema) for e in new] == [("combatant-added", 2)]


def _load_error(ruleset: HexTactical, old: Envelope, first: Envelope) -> UnreadableEvent:
    with pytest.raises(UnreadableEvent) as caught:
        replay(ruleset, [first, old])
    frames = [frame.name for frame in traceback.extract_tb(caught.value.__traceback__)]
    assert not any("evolve" in name for name in frames), frames
    return caught.value


def test_a_shape_no_upcaster_covers_fails_on_load_never_in_evolve() -> None:
    ruleset = HexTactical()  # combatant-added is at schema 1 and has no upcaster
    first = Table(ruleset).envelopes[0]
    error = _load_error(ruleset, _stored(first, 2, "combatant-added", 1, OLD_ADDED), first)
    assert error.code == "internal/unreadable-event"
    assert "'combatant-added' event (schema 1)" in error.message
    assert "stats.weapon" in error.message and "stats.health" in error.message
    assert "upcaster keyed ('combatant-added', 1)" in error.message


def test_a_schema_older_than_any_upcaster_fails_on_load() -> None:
    ruleset = HexWithOldStatBlocks()
    first = Table(ruleset).envelopes[0]
    error = _load_error(ruleset, _stored(first, 2, "note-added", 0, {"text": "x"}), first)
    assert error.code == "internal/unreadable-event"
    assert error.message == "no upcaster for 'note-added' from schema 0"


def test_a_schema_newer_than_this_fray_fails_on_load() -> None:
    ruleset = HexWithOldStatBlocks()
    first = Table(ruleset).envelopes[0]
    newer = _stored(first, 2, "combatant-added", 3, {**OLD_ADDED, "stats": {"hp": 3}})
    error = _load_error(ruleset, newer, first)
    assert "does not know the 'combatant-added' event at schema 3" in error.message
