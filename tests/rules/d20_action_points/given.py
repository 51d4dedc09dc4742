"""Givens for d20-action-points specs through the real decide: stat blocks, scripted dice,
a fight that has reached someone's turn.

Every encounter built here takes its dice from the table (`dice: "table"`), so each roll a
test depends on is written in the test, in the order the command rolls them.
"""

from __future__ import annotations

from typing import Any

from service.domain.context import GM, Actor
from service.domain.envelope import Envelope
from service.rules.d20_action_points import RULESET
from service.rules.d20_action_points.state import D20State
from tests.rules.harness import Table
from tests.rules.harness import refused as refused  # re-exported for the specs

PLAYER = Actor("p1", "player", frozenset({"hero", "wizard", "archer", "thief", "ally"}))
SWORD = {"name": "longsword", "damage": "1d8"}
DAGGER = {"name": "dagger", "damage": "1d4"}
CROSSBOW = {"name": "crossbow", "kind": "ranged", "damage": "1d8", "range": 80, "long_range": 320}
SPEAR = {"name": "spear", "damage": "1d6"}


def encounter(**options: Any) -> Table:
    return Table(RULESET, {"dice": "table", "reaction_window": 30.0, **options})


def state_of(table: Table) -> D20State:
    assert isinstance(table.state, D20State)
    return table.state


def add(
    table: Table,
    cid: str,
    *,
    side: str = "monsters",
    name: str | None = None,
    position: tuple[int, int] | None = None,
    **stats: Any,
) -> None:
    stats = {"hp": 10, "ac": 12, "weapons": [SPEAR], **stats}
    table.send(
        {"type": "add-combatant", "combatant_id": cid, "name": name or cid.capitalize(),
         "side": side, "controller": "p1" if side == "party" else None, "stats": stats,
         "position": position}
    )  # fmt: skip


def pc(table: Table, cid: str, **stats: Any) -> None:
    add(table, cid, side="party", **{"kind": "pc", "weapons": [SWORD], **stats})


def monster(table: Table, cid: str, **stats: Any) -> None:
    add(table, cid, **stats)


def start(table: Table) -> list[Envelope]:
    """Start the encounter and skip the questions before combat: round 1, declaring."""
    return table.send({"type": "start-encounter"}) + table.send({"type": "begin-combat"})


def initiative(table: Table, *dice: int) -> list[Envelope]:
    """Roll initiative with these d20s: one per PC and per monster group, in the order the
    combatants joined."""
    return table.send({"type": "roll-initiative"}, dice=list(dice))


def duel(**options: Any) -> Table:
    """`hero` (a PC with a longsword, +2 STR) against `foe` (hp 10, AC 12, a spear), and the
    hero's turn in round 1 has begun."""
    table = encounter(**options)
    pc(table, "hero", strength=2, hp=12, ac=14)
    monster(table, "foe")
    start(table)
    initiative(table, 15, 5)
    return table


def act(table: Table, command: dict[str, Any], dice: list[int] | None = None) -> list[Envelope]:
    """A command from the GM (who controls everyone)."""
    return table.send(command, actor=GM, dice=dice)


def pools(table: Table, cid: str) -> dict[str, int]:
    return state_of(table).table.combatants[cid].resource_values()


def types(envelopes: list[Envelope]) -> list[str]:
    return [e.type for e in envelopes]


def only(envelopes: list[Envelope], kind: str) -> list[dict[str, Any]]:
    return [e.data for e in envelopes if e.type == kind]
