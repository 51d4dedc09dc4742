"""More givens for the combat-ii specs: a fighter squaring up to an ogre, and ways to read
what a command stored. The fighter's side ("pcs") wins the first initiative (ogres 7, pcs
3), so the ogre declares first and the fighter's declaration resolves the phase."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.domain.envelope import Envelope
from service.rules.combat_ii.state import Fighter
from tests.rules.combat_ii.given import LONG_SWORD, add, encounter, line_map, start, state_of
from tests.rules.harness import Table

CLUB = {"name": "club", "speed": 4, "damage": "1d6"}
FIGHTER = {"hp": 30, "thac0": 10, "ac": 5, "mv": 12, "weapons": [LONG_SWORD]}
"""Needs a 5 to hit AC 5 with the long sword (SF 5: half-segment 3 as a winner)."""
OGRE = {"hp": 80, "thac0": 15, "ac": 5, "mv": 12, "weapons": [CLUB]}
"""Needs a 10 to hit AC 5 with its club (SF 4: half-segment 4 as a loser)."""


def duel(
    fighter: dict[str, Any] | None = None,
    ogre: dict[str, Any] | None = None,
    ogre_at: tuple[int, int] = (1, 0),
    others: Sequence[tuple[str, str, dict[str, Any], tuple[int, int]]] = (),
    width: int = 30,
    **options: Any,
) -> Table:
    """The fighter at (0, 0), the ogre next to it at (1, 0) unless placed elsewhere, and any
    `others` as (id, side, stats, cell), on a map `width` squares by 5; phase 1 awaits the
    ogre's side."""
    table = encounter(**options)
    line_map(table, width=width)
    add(table, "fighter", "pcs", {**FIGHTER, **(fighter or {})}, at=(0, 0))
    add(table, "ogre", "ogres", {**OGRE, **(ogre or {})}, at=ogre_at)
    for cid, side, stats, cell in others:
        add(table, cid, side, stats, at=cell)
    start(table, initiative=[7, 3])
    return table


def stand(table: Table, cid: str, dice: list[int] | None = None) -> list[Envelope]:
    return table.send({"type": "stand", "combatant_id": cid}, dice=dice)


def attack(
    table: Table, cid: str, target: str, dice: list[int] | None = None, **more: Any
) -> list[Envelope]:
    return table.send(
        {"type": "attack", "combatant_id": cid, "targets": [target], **more}, dice=dice
    )


def swing(table: Table, dice: list[int], **more: Any) -> list[Envelope]:
    """The ogre stands; the fighter attacks it with these dice."""
    stand(table, "ogre")
    return attack(table, "fighter", "ogre", dice, **more)


def of_type(envelopes: list[Envelope], kind: str) -> list[dict[str, Any]]:
    return [e.data for e in envelopes if e.type == kind]


def only(envelopes: list[Envelope], kind: str) -> dict[str, Any]:
    found = of_type(envelopes, kind)
    assert len(found) == 1, (kind, found)
    return found[0]


def effects(table: Table, cid: str) -> dict[str, int]:
    """The effects on a combatant now: name -> the phase tick they last through."""
    return {e.name: e.until for e in fighter_of(table, cid).effects}


def fighter_of(table: Table, cid: str) -> Fighter:
    return state_of(table).fighters[cid]


def strikes(timeline: list[dict[str, Any]]) -> list[tuple[int, str, str, int, str]]:
    """The strikes of a phase's timeline (`views.timeline`, the summary's `details`): (half-
    segment, attacker, target, SF, track)."""
    return [
        (row["half_segment"], a["combatant_id"], a["target"], a["sf"], a["track"])
        for row in timeline
        for a in row["actions"]
        if a["kind"] == "strike"
    ]
