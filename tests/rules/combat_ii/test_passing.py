"""§1 F and §2 D movement on a crowded map: a mover passes through its allies' squares but
stops on none of them, and a charge goes no further than the phase's movement."""

from __future__ import annotations

from tests.rules.combat_ii.cast import FIGHTER, OGRE, of_type, only
from tests.rules.combat_ii.given import add, declare, encounter, line_map, start, state_of
from tests.rules.harness import Table


def corridor(squire_at: int, ogre_at: int = 20) -> Table:
    """A corridor one square wide: the fighter at 0, its squire at `squire_at`, the ogre at
    `ogre_at`; the fighter's side wins, so the ogre declares first."""
    table = encounter()
    line_map(table, width=30, height=1)
    add(table, "fighter", "pcs", FIGHTER, at=(0, 0))
    add(table, "squire", "pcs", FIGHTER, at=(squire_at, 0))
    add(table, "ogre", "ogres", OGRE, at=(ogre_at, 0))
    start(table, initiative=[7, 3])
    declare(table, "ogre", "stand")
    declare(table, "squire", "stand")
    return table


def at(table: Table, cid: str) -> tuple[int, int]:
    cell = state_of(table).table.combatants[cid].position
    assert cell is not None
    return cell.x, cell.y


def test_a_mover_walks_through_an_allys_square() -> None:
    """PH: allies let each other by; the corridor's only way on is through the squire."""
    table = corridor(squire_at=1)

    stored = declare(table, "fighter", "move", to=[3, 0])

    path = [(c["x"], c["y"]) for c in only(stored, "moved")["path"]]
    assert path == [(0, 0), (1, 0), (2, 0), (3, 0)]
    assert at(table, "fighter") == (3, 0)
    assert table.replayed() == table.state


def test_a_mover_whose_movement_ends_on_an_ally_stops_short_of_it() -> None:
    """MV 12 walks 4 squares a phase: the fourth is the squire's, so the fighter stops on the
    third, bound for the fifth."""
    table = corridor(squire_at=4)

    stored = declare(table, "fighter", "move", to=[5, 0])

    assert only(stored, "moved")["path"][-1] == {"x": 3, "y": 0}
    assert at(table, "fighter") == (3, 0)
    assert at(table, "squire") == (4, 0)
    assert table.replayed() == table.state


def test_a_charge_at_a_target_beyond_its_movement_falls_short() -> None:
    """§2 D Charging: at 2x MV 12 the fighter covers 8 squares a phase; the ogre, 15 off, is
    not reached, so no blow is struck this phase."""
    table = encounter()
    line_map(table, width=30)
    add(table, "fighter", "pcs", FIGHTER, at=(0, 0))
    add(table, "ogre", "ogres", OGRE, at=(15, 0))
    start(table, initiative=[7, 3])
    declare(table, "ogre", "stand")

    stored = declare(table, "fighter", "charge", target="ogre", speed=2)

    assert of_type(stored, "attack-rolled") == []
    assert at(table, "fighter") == (8, 0)
    assert table.replayed() == table.state
