"""Givens for delvers-deep specs: the seed's characters, scripted dice, a running fight.

Every encounter built here takes its dice from the table (`dice: "table"`), so each roll a
test depends on is written in the test.
"""

from __future__ import annotations

from typing import Any

from service.domain.context import Actor
from service.domain.envelope import Envelope
from service.rules.delvers_deep import RULESET
from service.rules.delvers_deep.state import DelversState
from tests.rules.harness import Table
from tests.rules.harness import refused as refused  # re-exported for the specs

PLAYER = Actor("p1", "player", frozenset({"hero", "weylan", "bramli", "daerion", "ani", "baldwin"}))
CLUB = {"name": "greatclub", "kind": "melee", "reach": 2, "damage": "6"}
SWORD = {"name": "sword", "kind": "melee", "reach": 1, "damage": "d6"}


def encounter(**options: Any) -> Table:
    return Table(RULESET, {"dice": "table", "reaction_window": 30.0, **options})


def state_of(table: Table) -> DelversState:
    assert isinstance(table.state, DelversState)
    return table.state


def pc(table: Table, cid: str, *, fort: int = 4, ref: int = 4, will: int = 4, **stats: Any) -> None:
    add(table, cid, side="pcs", kind="pc", fort=fort, ref=ref, will=will, **stats)


def add(
    table: Table,
    cid: str,
    *,
    side: str = "monsters",
    name: str | None = None,
    position: tuple[int, int] | None = None,
    **stats: Any,
) -> None:
    stats = {"health": 10, "weapons": [SWORD], **stats}
    table.send(
        {"type": "add-combatant", "combatant_id": cid, "name": name or cid.capitalize(),
         "side": side, "controller": "p1" if side == "pcs" else None, "stats": stats,
         "position": position}
    )  # fmt: skip


def creature(table: Table, cid: str, **stats: Any) -> None:
    add(table, cid, **{"fort": 4, "ref": 2, "will": 2, **stats})


def start(table: Table, *reflex: int) -> list[Envelope]:
    """Start: each PC (in the order added) rolls the given reflex die; then fix the order."""
    started = table.send({"type": "start-encounter"}, dice=list(reflex) or None)
    if state_of(table).phase == "reflex":
        started += table.send({"type": "fix-order"})
    return started


def duel(**options: Any) -> Table:
    """One PC (`hero`, REF 4) and one creature (`foe`), the PC's turn has begun."""
    table = encounter(**options)
    pc(table, "hero")
    creature(table, "foe")
    start(table, 3)
    return table


def pools(table: Table, cid: str) -> dict[str, int]:
    return state_of(table).table.combatants[cid].resource_values()


def types(envelopes: list[Envelope]) -> list[str]:
    return [e.type for e in envelopes]


def only(envelopes: list[Envelope], kind: str) -> list[dict[str, Any]]:
    return [e.data for e in envelopes if e.type == kind]
