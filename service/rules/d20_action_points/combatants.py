"""Reading a combatant of d20-action-points: its stat block, whether it is a player
character, the party's sides, who still fights on a side, and the feet between two (five
feet a cell on a map; without one, the distance the command gives)."""

from __future__ import annotations

from service.domain.grid import distance
from service.domain.table import Combatant
from service.rules.d20_action_points.state import D20State, D20Stats

CELL_FEET = 5


def stats_of(combatant: Combatant) -> D20Stats:
    return D20Stats.model_validate(combatant.stats)


def is_pc(combatant: Combatant) -> bool:
    return combatant.stats.get("kind") == "pc"


def party_sides(state: D20State) -> set[str]:
    """The party: every side with a player character on it."""
    return {c.side for c in state.table.combatants.values() if is_pc(c)}


def fighting(state: D20State, party: bool) -> list[Combatant]:
    sides = party_sides(state)
    return [
        c
        for c in state.table.combatants.values()
        if not c.out_of_fight and (c.side in sides) == party
    ]


def feet_between(state: D20State, a: Combatant, b: Combatant, given: int | None) -> int:
    grid = state.table.map
    if grid is not None and a.position is not None and b.position is not None:
        return distance(grid, a.position, b.position) * CELL_FEET
    return given or 0
