"""Givens for hex-tactical specs through the real decide: maps, stat blocks, scripted
d100s, a fight that has reached someone's turn.

Every encounter built here takes its dice from the table (`dice: "table"`), so each roll a
test depends on is written in the test, in the order the command rolls them. A check rolls
one d100 (1-100) and then one d10 per boon or bane left after they cancel.
"""

from __future__ import annotations

from typing import Any

from service.domain.context import GM, Actor
from service.domain.envelope import Envelope
from service.rules.hex_tactical import RULESET
from service.rules.hex_tactical.state import HexState
from tests.rules.harness import Table
from tests.rules.harness import refused as refused  # re-exported for the specs

PLAYER = Actor("p1", "player", frozenset({"alice", "hero", "archer", "runner"}))
SWORD = {"name": "sword", "damage": "1d8"}
SPEAR = {"name": "pike", "damage": "1d10", "reach": 2}
BOW = {"name": "longbow", "kind": "ranged", "damage": "1d8", "range": "60/180"}
DAGGER = {"name": "dagger", "damage": "1d4"}


def encounter(**options: Any) -> Table:
    return Table(RULESET, {"dice": "table", "reaction_window": 30.0, **options})


def state_of(table: Table) -> HexState:
    assert isinstance(table.state, HexState)
    return table.state


def hex_map(
    table: Table, width: int = 12, height: int = 12, terrain: list[dict[str, Any]] | None = None
) -> None:
    """A hex map; `terrain` entries are {"cell": [x, y], "terrain": {...}}."""
    grid = {"kind": "hex", "width": width, "height": height, "terrain": terrain or []}
    table.send({"type": "set-map", "map": grid})


def square_map(
    table: Table,
    width: int = 12,
    height: int = 12,
    diagonals: str = "alternate",
    terrain: list[dict[str, Any]] | None = None,
) -> None:
    grid = {
        "kind": "square", "width": width, "height": height, "diagonals": diagonals,
        "terrain": terrain or [],
    }  # fmt: skip
    table.send({"type": "set-map", "map": grid})


def add(
    table: Table,
    cid: str,
    at: tuple[int, int],
    *,
    side: str = "foes",
    name: str | None = None,
    **stats: Any,
) -> None:
    """A combatant with 50 in everything it does not name, 10 hp and a sword by default."""
    stats = {"hp": 10, "weapons": [SWORD], **stats}
    controller = "p1" if side == "pcs" else None
    table.send(
        {"type": "add-combatant", "combatant_id": cid, "name": name or cid.capitalize(),
         "side": side, "controller": controller, "stats": stats, "position": list(at)}
    )  # fmt: skip


def start(table: Table, *initiative: int) -> list[Envelope]:
    """Start: one Initiative d100 per combatant, in the order they joined. Lower rolls under
    the same score act earlier; give the first combatant 1 to be sure it acts first."""
    rolls = list(initiative) or [i + 1 for i in range(len(state_of(table).table.combatants))]
    return table.send({"type": "start-encounter"}, dice=rolls)


def window_for(table: Table, cid: str) -> str:
    """The id of the open reaction window waiting for `cid`."""
    for window in state_of(table).table.open_windows():
        if cid in window.waiting_for():
            return window.id
    raise AssertionError(f"no open window waits for {cid}")


def answer(
    table: Table, cid: str, option: str, dice: list[int] | None = None, actor: Actor = GM
) -> list[Envelope]:
    return table.send(
        {"type": "answer-reaction", "window_id": window_for(table, cid), "combatant_id": cid,
         "option": option},
        actor=actor,
        dice=dice,
    )  # fmt: skip


def types(envelopes: list[Envelope]) -> list[str]:
    return [e.type for e in envelopes]


def first(envelopes: list[Envelope], kind: str) -> dict[str, Any]:
    for envelope in envelopes:
        if envelope.type == kind:
            return envelope.data
    raise AssertionError(f"no {kind} among {types(envelopes)}")


def position(table: Table, cid: str) -> tuple[int, int]:
    cell = state_of(table).table.combatants[cid].position
    assert cell is not None
    return (cell.x, cell.y)
