"""The path a move takes: the one given, checked step by step, or the cheapest one within
the mover's movement, refusing walls, impassable cells, enemies' cells, cover objects and
occupied ends (hex-tactical Movement on the Tactical Grid, Moving through Terrain Types,
Moving Past an Enemy)."""

from __future__ import annotations

from collections.abc import Sequence

from service.domain.errors import RuleViolation
from service.domain.grid import Cell, on_map, terrain_at
from service.rules.hex_tactical.geometry import blocked_cells, occupied_cells, path_costs, reachable
from service.rules.hex_tactical.state import HexState
from service.rules.hex_tactical.turns import MOVEMENT

PAST_AN_ENEMY = "hex-tactical Moving Past an Enemy"
TERRAIN_TYPES = "hex-tactical Moving through Terrain Types"


def plan(
    state: HexState,
    cid: str,
    to: Cell,
    budget: int,
    path: Sequence[Cell] | None = None,
    passing: str | None = None,
) -> tuple[tuple[Cell, ...], tuple[int, ...]]:
    """The path a move takes to `to` and each step's cost: the given one, checked, or the
    cheapest. Refuses walls, enemies' cells, cover objects, occupied ends and long ways."""
    combatant = state.table.combatants[cid]
    grid = state.table.map
    if grid is None or combatant.position is None:
        raise RuleViolation(
            "move/no-map", "the tactical variant needs a map and a token on it", rule=MOVEMENT
        )
    if not on_map(grid, to):
        raise RuleViolation("map/off-map", f"cell {to} is not on the map", rule=MOVEMENT)
    start = combatant.position
    if to == start:
        raise RuleViolation("move/already-there", f"{combatant.name} already stands on {to}")
    if terrain_at(grid, to).kind == "impassable":
        raise RuleViolation(
            "move/impassable",
            f"cell {to} is impassable: crossing it takes a skill or ability the GM rules on",
            rule=TERRAIN_TYPES,
        )
    if to in occupied_cells(state, cid):
        raise RuleViolation(
            "move/occupied",
            f"cell {to} is taken: a move may pass allies but not end on anyone or on cover",
            rule=PAST_AN_ENEMY,
        )
    if path is not None:
        return _given_path(state, cid, start, to, list(path), budget, passing)
    found = reachable(state, cid, start, budget, passing, to=to).get(to)
    if found is None:
        raise RuleViolation(
            "move/too-far",
            f"{combatant.name} cannot reach {to} with {budget} cells of movement past walls, "
            "difficult ground and enemies",
            rule=MOVEMENT,
        )
    cost, cells = found
    costs = path_costs(state, cells)
    assert costs is not None and sum(costs) == cost
    return cells, tuple(costs)


def _given_path(
    state: HexState,
    cid: str,
    start: Cell,
    to: Cell,
    path: list[Cell],
    budget: int,
    passing: str | None,
) -> tuple[tuple[Cell, ...], tuple[int, ...]]:
    name = state.table.combatants[cid].name
    if not path or path[-1] != to:
        raise RuleViolation("move/bad-path", "a path ends at the move's destination `to`")
    cells = (start, *path)
    costs = path_costs(state, cells)
    if costs is None:
        raise RuleViolation(
            "move/bad-path",
            "every step of a path crosses an edge into a passable neighbouring cell",
            rule="hex-tactical The Tactical Grid",
        )
    blocked = blocked_cells(state, cid, passing)
    if any(cell in blocked for cell in path):
        raise RuleViolation(
            "move/blocked",
            "the path crosses an enemy's cell or a cover object; passing an enemy is a "
            "maneuver the GM approves",
            rule=PAST_AN_ENEMY,
        )
    if sum(costs) > budget:
        raise RuleViolation(
            "move/too-far",
            f"that path costs {sum(costs)} cells of movement and {name} has {budget}",
            rule=MOVEMENT,
        )
    return cells, tuple(costs)
