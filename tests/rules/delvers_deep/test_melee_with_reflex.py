"""delvers-deep 4.1 Physical Attack: "*Most* melee weapon attacks use Fortitude", and attacks
are listed under Reflex too (issue 27): a melee weapon may declare `uses: "ref"`. It pays
REF and stacks dice with extra REF, as a ranged attack does, and stays a melee weapon: its
reach, and the opportunity attacks it makes. Without `uses` nothing changes (FORT)."""

from __future__ import annotations

from typing import Any

from service.domain.errors import RuleViolation
from tests.rules.delvers_deep.given import (
    PLAYER,
    creature,
    encounter,
    only,
    pc,
    refused,
    start,
    state_of,
)
from tests.rules.harness import Table

RAPIER = {"name": "rapier", "kind": "melee", "reach": 1, "damage": "2", "uses": "ref"}


def fencer(**extra: Any) -> Table:
    table = encounter(**extra)
    pc(table, "hero", weapons=[RAPIER])
    creature(table, "foe")
    start(table, 3)
    return table


def test_a_melee_weapon_with_uses_ref_spends_reflex_and_stacks_dice() -> None:
    table = fencer()

    struck = table.send(
        {"type": "attack", "combatant_id": "hero", "weapon": "rapier", "target": "foe",
         "extra": 2},
        actor=PLAYER,
        dice=[1, 2, 5],
    )  # fmt: skip

    rolled = only(struck, "attack-rolled")[0]
    assert (rolled["dice"], rolled["hit"], rolled["cost"]) == ([1, 2, 5], True, {"ref": 3})
    assert rolled["damage"] == 2  # extra REF adds dice, not damage
    hero = state_of(table).table.combatants["hero"].resource_values()
    assert (hero["fort"], hero["ref"]) == (4, 1)


def test_a_melee_weapon_with_uses_ref_keeps_its_reach_and_opportunity_attacks() -> None:
    """Out of FORT, the fencer still strikes the mover entering its reach: it pays REF."""
    table = encounter()
    table.send({"type": "set-map", "map": {"kind": "square", "width": 10, "height": 3}})
    pc(table, "hero", position=(0, 1))
    creature(table, "fencer", weapons=[RAPIER], position=(5, 0), fort=0, ref=2)
    start(table, 3)

    moved = table.send({"type": "move", "combatant_id": "hero", "to": [4, 1]}, actor=PLAYER)
    window = only(moved, "reaction-window-opened")[0]
    struck = table.send(
        {"type": "answer-reaction", "window_id": window["window_id"], "combatant_id": "fencer",
         "option": "opportunity-attack"},
        dice=[6],
    )  # fmt: skip

    assert only(moved, "moved")[0]["provokes"] == ["fencer"]
    assert only(struck, "attack-rolled")[0]["cost"] == {"ref": 1}
    assert state_of(table).table.combatants["fencer"].resource_values()["ref"] == 1


def test_a_ranged_weapon_cannot_use_fortitude() -> None:
    table = encounter()
    bow = {"name": "bow", "kind": "ranged", "range": 20, "uses": "fort"}

    error = refused(
        table,
        {"type": "add-combatant", "combatant_id": "archer", "name": "Archer", "side": "pcs",
         "stats": {"kind": "pc", "weapons": [bow]}},
    )  # fmt: skip

    assert isinstance(error, RuleViolation) and error.code == "combatant/bad-stats"
    assert "Reflex" in error.message


def test_a_weapon_without_uses_is_written_as_before() -> None:
    table = encounter()
    pc(table, "hero")

    (added,) = [e for e in table.envelopes if e.type == "combatant-added"]

    assert "uses" not in added.data["stats"]["weapons"][0]
