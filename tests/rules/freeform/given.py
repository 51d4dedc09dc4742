"""Givens for freeform specs: encounters with scripted dice, combatants and a running order.

Every encounter built here takes its dice from the table (`dice: "table"`) unless a test
asks otherwise, so each roll a test depends on is written in the test.
"""

from __future__ import annotations

from typing import Any

from service.domain.context import Actor
from service.domain.envelope import Envelope
from service.rules.freeform import RULESET
from service.rules.freeform.state import FreeformState
from tests.rules.harness import Table
from tests.rules.harness import refused as refused  # re-exported for the specs

BRAMLI = Actor("p1", "player", frozenset({"bramli"}))
"""A player who controls the combatant `bramli`."""

OBSERVER = Actor("o", "observer")


def encounter(**options: Any) -> Table:
    return Table(RULESET, {"dice": "table", **options})


def state_of(table: Table) -> FreeformState:
    assert isinstance(table.state, FreeformState)
    return table.state


def add(
    table: Table,
    combatant_id: str,
    *,
    side: str = "enemies",
    controller: str | None = None,
    **stats: Any,
) -> None:
    table.send(
        {
            "type": "add-combatant",
            "combatant_id": combatant_id,
            "name": combatant_id.capitalize(),
            "side": side,
            "controller": controller,
            "stats": stats,
        }
    )


def set_initiative(table: Table, combatant_id: str, total: int, tiebreak: int = 1) -> None:
    table.send(
        {"type": "set-initiative", "combatant_id": combatant_id, "total": total}, dice=[tiebreak]
    )


def fight(*order: str, start: bool = True, hp: int = 10, **options: Any) -> Table:
    """Combatants acting in the given order (initiative 20, 19, ...), each with `hp`."""
    table = encounter(**options)
    for position, combatant_id in enumerate(order):
        add(table, combatant_id, hp=hp)
        set_initiative(table, combatant_id, 20 - position)
    if start:
        table.send({"type": "start-encounter"})
    return table


def end_turns(table: Table, count: int) -> None:
    for _ in range(count):
        table.send({"type": "end-turn"})


def types(envelopes: list[Envelope]) -> list[str]:
    return [e.type for e in envelopes]


def only(envelopes: list[Envelope], kind: str) -> list[dict[str, Any]]:
    return [e.data for e in envelopes if e.type == kind]
