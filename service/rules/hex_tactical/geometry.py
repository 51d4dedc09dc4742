"""The tactical grid as the rules read it: who fights, who is in melee, which cells each
combatant threatens, where cover stands, lines of fire, range bands and where a move can
go (hex-tactical The Tactical Grid, Terrain and Obstacles, Cover, Melee, Ranged Combat)."""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping
from itertools import pairwise

from service.domain.grid import (
    Cell,
    GridMap,
    cells_within,
    distance,
    neighbours,
    on_map,
    step_cost,
    terrain_at,
)
from service.domain.grid_lines import line
from service.domain.straight_paths import Line, straightest
from service.rules.hex_tactical.state import (
    CoverKind,
    HexState,
    Weapon,
    cell_key,
    stats_of,
)

GRID = "hex-tactical The Tactical Grid"
TERRAIN = "hex-tactical Terrain Effects"
COVER = "hex-tactical Cover"
MELEE = "hex-tactical Melee Combat"
RANGED = "hex-tactical Ranged Combat"
HEIGHT = "hex-tactical Three Dimensional Movement"
SLIPPERY, MIRED = "slippery", "mired"
PARTIAL_TAG, TOTAL_TAG = "partial-cover", "total-cover"


# --- who --------------------------------------------------------------------------------


def fighting(state: HexState, cid: str) -> bool:
    """In the fight: on the table, not out of it, not surrendered."""
    combatant = state.table.combatants.get(cid)
    return combatant is not None and not combatant.out_of_fight and cid not in state.surrendered


def enemies(state: HexState, a: str, b: str) -> bool:
    table = state.table
    return a != b and table.combatants[a].side != table.combatants[b].side


def wielded(state: HexState, cid: str) -> Weapon | None:
    name = state.wielding.get(cid)
    combatant = state.table.combatants.get(cid)
    if name is None or combatant is None:
        return None
    return stats_of(combatant).weapon(name)


def partners(state: HexState, cid: str) -> list[str]:
    """Those in melee with `cid`, by id."""
    return sorted(b if a == cid else a for a, b in state.melee if cid in (a, b))


def in_melee(state: HexState, cid: str) -> bool:
    return any(cid in pair for pair in state.melee)


def pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def melee_reach(state: HexState, cid: str) -> int:
    """Cells at which `cid` can fight in melee: its wielded melee weapon's reach, else 1."""
    weapon = wielded(state, cid)
    return weapon.reach if weapon is not None and weapon.kind == "melee" else 1


def position(state: HexState, cid: str) -> Cell | None:
    combatant = state.table.combatants.get(cid)
    return combatant.position if combatant is not None else None


# --- threatened cells ---------------------------------------------------------------------


def threatens(state: HexState, cid: str) -> frozenset[Cell]:
    """hex-tactical Attacks of Opportunity: a wielded melee weapon threatens the adjacent
    cells, a reach weapon every cell in its reach; in melee, only the cells of the others in
    that melee."""
    grid = state.table.map
    here = position(state, cid)
    weapon = wielded(state, cid)
    if grid is None or here is None or weapon is None or weapon.kind != "melee":
        return frozenset()
    if not fighting(state, cid):
        return frozenset()
    if in_melee(state, cid):
        # Only a partner its own weapon reaches: a sword does not threaten a pike's wielder
        # two cells off, though the two are in melee.
        cells = (position(state, other) for other in partners(state, cid))
        return frozenset(
            c for c in cells if c is not None and distance(grid, here, c) <= weapon.reach
        )
    return frozenset(c for c in cells_within(grid, here, weapon.reach) if c != here)


def threatened_cells(state: HexState) -> dict[str, list[Cell]]:
    """Every side's threatened cells, for a VTT to draw."""
    by_side: dict[str, set[Cell]] = {}
    for cid, combatant in state.table.combatants.items():
        cells = threatens(state, cid)
        if cells:
            by_side.setdefault(combatant.side, set()).update(cells)
    return {side: sorted(cells) for side, cells in sorted(by_side.items())}


def threateners(
    state: HexState,
    target: str,
    cell: Cell,
    leaving_to: Cell | None = None,
    zones: Mapping[str, frozenset[Cell]] | None = None,
) -> tuple[str, ...]:
    """Enemies of `target` (standing on `cell`) that threaten it there; with `leaving_to`,
    those whose threat the step from `cell` to `leaving_to` leaves (each threatener judges
    its own cells: interpretation).

    A threatener in melee with the target threatens the target wherever it stands, so the
    step leaves its threat only when it breaks the melee: past the longer melee reach of the
    two (interpretation of "they always threaten the other characters in melee with them").
    `zones` may hold `threatens` already worked out for each combatant."""
    grid = state.table.map
    found = []
    for cid in state.order or sorted(state.table.combatants):
        if cid not in state.table.combatants or not enemies(state, cid, target):
            continue
        if target in partners(state, cid) and fighting(state, cid) and grid is not None:
            where = position(state, cid)
            reach = max(melee_reach(state, cid), melee_reach(state, target))
            held = wielded(state, cid)
            if held is None or held.kind != "melee" or where is None:
                continue
            if distance(grid, cell, where) > held.reach:
                continue
            if leaving_to is None or distance(grid, leaving_to, where) > reach:
                found.append(cid)
            continue
        cells = zones[cid] if zones is not None else threatens(state, cid)
        if cell in cells and (leaving_to is None or leaving_to not in cells):
            found.append(cid)
    return tuple(found)


# --- cover and lines of fire --------------------------------------------------------------


def cover_at(state: HexState, cell: Cell) -> CoverKind | None:
    """A standing cover object, else the map's cover tags."""
    placed = state.cover.get(cell_key(cell))
    if placed is not None:
        return placed.kind
    grid = state.table.map
    if grid is None or not on_map(grid, cell):
        return None
    tags = terrain_at(grid, cell).tags
    if TOTAL_TAG in tags:
        return "total"
    if PARTIAL_TAG in tags:
        return "partial"
    return None


def cover_cells_next_to(state: HexState, cell: Cell, kind: CoverKind) -> list[Cell]:
    grid = state.table.map
    if grid is None:
        return []
    return [c for c in neighbours(grid, cell) if cover_at(state, c) == kind]


def between(grid: GridMap, a: Cell, b: Cell) -> list[Cell]:
    """The cells a line of fire from a to b crosses, the ends left out."""
    return line(grid, a, b)[1:-1]


def cover_against(
    state: HexState, shooter: str, target: str, target_at: Cell | None = None
) -> tuple[CoverKind | None, Cell | None]:
    """The cover a ranged attack from `shooter` must pass, and the cell that gives it.

    hex-tactical Cover: partial cover counts when the target stands next to it and the line
    passes through its cell; total cover when the target stands next to it. A total-cover
    object anywhere on the line also stops the shot (interpretation: no shot passes through a
    truck). Taking cover makes the partial cover total; a target standing `elevation_step`
    feet or more above the shooter has partial cover with the `cover` elevation option.
    `target_at` judges the target on another cell (a moving target, for overwatch)."""
    grid = state.table.map
    here, there = position(state, shooter), target_at or position(state, target)
    if grid is None or here is None or there is None:
        return None, None
    found: tuple[CoverKind | None, Cell | None] = (None, None)
    taking = state.taking_cover.get(target, ())
    for cell in between(grid, here, there):
        kind = cover_at(state, cell)
        if kind == "total":
            return "total", cell
        if kind == "partial" and distance(grid, cell, there) == 1:
            if cell in taking:
                return "total", cell
            found = ("partial", cell)
    if found[0] is None and state.options.elevation in ("cover", "both"):
        rise = terrain_at(grid, there).elevation - terrain_at(grid, here).elevation
        if rise >= state.options.elevation_step:
            return "partial", None
    return found


def feet_between(state: HexState, a: Cell, b: Cell) -> int:
    grid = state.table.map
    assert grid is not None
    return distance(grid, a, b) * state.options.cell_feet


def band(weapon: Weapon, feet: int) -> int | None:
    """hex-tactical Ranged Combat: no bane to the interval, one to twice it, two to the
    maximum, and no attack beyond the maximum (None)."""
    if feet > weapon.maximum:
        return None
    if feet <= weapon.interval:
        return 0
    if feet <= 2 * weapon.interval:
        return 1
    return 2


# --- movement -------------------------------------------------------------------------------


def blocked_cells(state: HexState, mover: str, passing: str | None = None) -> set[Cell]:
    """Cells the mover cannot pass: enemies standing (but `passing`) and cover objects."""
    blocked = {c.cell for c in state.cover.values()}
    for cid, combatant in state.table.combatants.items():
        if combatant.position is None or cid in (mover, passing) or not fighting(state, cid):
            continue
        if enemies(state, cid, mover):
            blocked.add(combatant.position)
    return blocked


def occupied_cells(state: HexState, mover: str) -> set[Cell]:
    """Cells a move may not end on: anyone else's who is still up, and cover objects (a
    fallen token may be stepped over, as the shared move-token has it)."""
    cells = {c.cell for c in state.cover.values()}
    for cid, combatant in state.table.combatants.items():
        if cid != mover and combatant.position is not None and not combatant.out_of_fight:
            cells.add(combatant.position)
    return cells


def step_price(state: HexState, a: Cell, b: Cell, diagonals: int) -> int | None:
    """The movement a step costs (difficult terrain doubles it), None if it cannot be taken:
    impassable terrain, or a height difference with the `impassable` elevation option."""
    grid = state.table.map
    assert grid is not None
    cost = step_cost(grid, a, b, diagonals_so_far=diagonals)
    if cost is None:
        return None
    if state.options.elevation in ("impassable", "both"):
        rise = abs(terrain_at(grid, b).elevation - terrain_at(grid, a).elevation)
        if rise >= state.options.elevation_step:
            return None
    return cost


def is_diagonal(grid: GridMap, a: Cell, b: Cell) -> bool:
    return grid.kind == "square" and a.x != b.x and a.y != b.y


_Node = tuple[int, int, int]  # x, y, parity of diagonal steps so far


def reachable(
    state: HexState,
    mover: str,
    start: Cell,
    budget: int,
    passing: str | None = None,
    *,
    to: Cell | None = None,
) -> dict[Cell, tuple[int, tuple[Cell, ...]]]:
    """Every cell a move from `start` can end on within `budget` (or just `to`), with its
    cost and path (Dijkstra). Ties between equally cheap paths go toward the straight line
    from start to each cell (`state.table.straight_paths`, hex-tactical 1.1.0 on:
    service.domain.straight_paths), else, as 1.0.0 had it, by reading order."""
    grid = state.table.map
    if grid is None:
        return {}
    blocked = blocked_cells(state, mover, passing)
    occupied = occupied_cells(state, mover)
    first: _Node = (start.x, start.y, 0)
    best: dict[_Node, int] = {first: 0}
    came: dict[_Node, _Node] = {}
    preds: dict[_Node, list[_Node]] = {}
    frontier: list[tuple[int, int, int, int]] = [(0, start.y, start.x, 0)]
    while frontier:
        cost, y, x, parity = heapq.heappop(frontier)
        node = (x, y, parity)
        if cost > best.get(node, cost):
            continue
        here = Cell(x=x, y=y)
        for there in neighbours(grid, here):
            if there in blocked:
                continue
            diagonal = is_diagonal(grid, here, there)
            price = step_price(state, here, there, parity)
            if price is None or cost + price > budget:
                continue
            after: _Node = (there.x, there.y, (parity + diagonal) % 2)
            known = best.get(after, budget + 1)
            if cost + price < known:
                best[after] = cost + price
                came[after] = node
                preds[after] = [node]
                heapq.heappush(frontier, (cost + price, there.y, there.x, after[2]))
            elif cost + price == known:
                preds[after].append(node)
    ends: dict[Cell, list[_Node]] = {}
    for node, cost in sorted(best.items(), key=lambda item: (item[1], item[0][2])):
        cell = Cell(x=node[0], y=node[1])
        if (to is not None and cell != to) or (cell in occupied and cell != start):
            continue
        if cell not in ends:
            ends[cell] = [node]
        elif best[ends[cell][0]] == cost:
            ends[cell].append(node)
    out: dict[Cell, tuple[int, tuple[Cell, ...]]] = {}
    for cell, nodes in ends.items():
        if not state.table.straight_paths or cell == start:
            out[cell] = (best[nodes[0]], _trace(came, nodes[0]))
            continue
        line = Line(grid.kind, (start.x, start.y), (cell.x, cell.y))
        way = straightest(first, nodes, preds, best, line)
        out[cell] = (best[nodes[0]], tuple(Cell(x=x, y=y) for x, y, _ in way))
    return out


def _trace(came: dict[_Node, _Node], end: _Node) -> tuple[Cell, ...]:
    nodes = [end]
    while nodes[-1] in came:
        nodes.append(came[nodes[-1]])
    return tuple(Cell(x=x, y=y) for x, y, _ in reversed(nodes))


def path_costs(state: HexState, path: Iterable[Cell]) -> list[int] | None:
    """The cost of each step of a path, None if a step is not a legal step."""
    grid = state.table.map
    assert grid is not None
    cells = list(path)
    costs: list[int] = []
    diagonals = 0
    for a, b in pairwise(cells):
        if b not in neighbours(grid, a):
            return None
        price = step_price(state, a, b, diagonals)
        if price is None:
            return None
        diagonals += is_diagonal(grid, a, b)
        costs.append(price)
    return costs


def budget_of(state: HexState, cid: str) -> int:
    """hex-tactical Movement: "this speed divided by 5 is the number of hex cells"."""
    return stats_of(state.table.combatants[cid]).speed // state.options.cell_feet


def tagged(state: HexState, cell: Cell, tag: str) -> bool:
    grid = state.table.map
    return grid is not None and tag in terrain_at(grid, cell).tags
