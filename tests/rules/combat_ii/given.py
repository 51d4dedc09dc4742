"""Givens for combat-ii specs through the real decide: maps, stat blocks and a fight that
has reached its first phase. Every encounter here takes its dice from the table, so each
roll a test depends on is written in the test, in the order the rules roll them:
initiative d10s by group name, then to-hit d20s (grouped by target, then attacker), then
damage dice, in half-segment order."""

from __future__ import annotations

from typing import Any

from service.domain.context import Actor
from service.domain.envelope import Envelope
from service.rules.combat_ii import RULESET
from service.rules.combat_ii.state import CombatIIState
from tests.rules.harness import Table
from tests.rules.harness import refused as refused  # re-exported for the specs

PLAYER = Actor("p1", "player", frozenset({"archer", "fighter", "paladin", "finch"}))
LONGBOW = {
    "name": "longbow", "kind": "missile", "speed": 8, "damage": "1d6", "bow": True,
    "attacks": "2",
}  # fmt: skip
AXE = {"name": "axe", "speed": 7, "damage": "1d8"}
LONG_SWORD = {"name": "long sword", "speed": 5, "damage": "1d8"}
SHORT_SWORD = {"name": "short sword", "speed": 3, "damage": "1d6"}
ARCHER = {"hp": 8, "thac0": 20, "ac": 7, "mv": 12, "weapons": [LONGBOW]}
ORC = {"hp": 6, "thac0": 19, "ac": 6, "mv": 9, "weapons": [AXE]}


def encounter(**options: Any) -> Table:
    return Table(RULESET, {"dice": "table", **options})


def state_of(table: Table) -> CombatIIState:
    assert isinstance(table.state, CombatIIState)
    return table.state


def line_map(table: Table, width: int = 30, height: int = 5) -> None:
    grid = {"kind": "square", "width": width, "height": height, "diagonals": "chebyshev"}
    table.send({"type": "set-map", "map": grid})


def add(
    table: Table,
    cid: str,
    side: str,
    stats: dict[str, Any],
    at: tuple[int, int] | None = None,
    name: str | None = None,
) -> None:
    command: dict[str, Any] = {
        "type": "add-combatant", "combatant_id": cid, "name": name or cid.capitalize(),
        "side": side, "stats": stats,
    }  # fmt: skip
    if at is not None:
        command["position"] = list(at)
    table.send(command)


def start(table: Table, initiative: list[int]) -> None:
    """Start the fight with the groups' d10s, in alphabetical order of group."""
    table.send({"type": "start-encounter"}, dice=initiative)


def hp(table: Table, cid: str) -> int:
    return state_of(table).table.combatants[cid].pools["hp"].current


# --- declaring and reading (appended for the example, table, phase and casting specs) ---


def declare(
    table: Table, cid: str, kind: str, dice: list[int] | None = None, **fields: Any
) -> list[Envelope]:
    """Send one intention: `declare(table, "orc", "attack", targets=["archer"])`."""
    return table.send({"type": kind, "combatant_id": cid, **fields}, dice=dice)


def stand(table: Table, *cids: str, dice: list[int] | None = None) -> list[Envelope]:
    """Each named combatant stands, in the order given; `dice` go with the last declaration
    (the one that resolves the phase). Returns every envelope stored."""
    stored: list[Envelope] = []
    for i, cid in enumerate(cids):
        stored += declare(table, cid, "stand", dice=dice if i == len(cids) - 1 else None)
    return stored


def data_of(envelopes: list[Envelope], kind: str) -> list[dict[str, Any]]:
    """The data of every event of one type, in order."""
    return [e.data for e in envelopes if e.type == kind]


def one(envelopes: list[Envelope], kind: str) -> dict[str, Any]:
    """The data of the only event of one type."""
    found = data_of(envelopes, kind)
    assert len(found) == 1, f"expected one {kind}, got {len(found)}"
    return found[0]
