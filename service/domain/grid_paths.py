"""Paths across a map: the cheapest way from one cell to another (A*), through terrain and
around other combatants, as the map's movement costs price it; among equally cheap ways,
the one nearest the straight line (`service.domain.straight_paths`) or, for the encounters
recorded before that, the first the search found."""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Mapping

from pydantic import BaseModel, Field

from service.domain.grid import (
    FROZEN,
    NORMAL_TERRAIN,
    XY,
    Cell,
    GridMap,
    entry_cost,
    is_diagonal,
    offset_distance,
    offsets_of,
    require_on_map,
)
from service.domain.straight_paths import Line, straightest


class Path(BaseModel):
    """Cells from start to goal inclusive, and the movement they cost."""

    model_config = FROZEN

    cells: tuple[Cell, ...] = Field(min_length=1)
    cost: int = Field(ge=0)


def find_path(
    grid: GridMap,
    start: Cell,
    goal: Cell,
    occupancy: Mapping[Cell, str],
    mover_side: str,
    max_cost: int | None = None,
    *,
    straight: bool,
    diagonals_so_far: int = 0,
) -> Path | None:
    """The cheapest path from start to goal costing at most max_cost, or None (A*).

    `occupancy` maps occupied cells to the side holding them. Other sides' cells block;
    `mover_side`'s cells may be passed through, but the path may not end on any occupied
    cell. The start cell's occupant is taken to be the mover. Step costs follow `step_cost`;
    pass `diagonals_so_far` to continue an "alternate"-diagonals move.

    Ties between equally cheap paths are broken deterministically, so the same inputs give
    the same path: with `straight` (`Table.straight_paths`, the rulesets' versions of issue
    27 on), toward the straight line from start to goal (`service.domain.straight_paths`);
    without it, as the encounters recorded before decided them, the first path the search
    found (which may zig-zag: (5,4) to (9,4) on a Chebyshev map went by (7,2)).
    """
    require_on_map(grid, start, goal)
    if diagonals_so_far < 0:
        raise ValueError(f"diagonals_so_far must be >= 0, got {diagonals_so_far}")
    if start == goal:
        return Path(cells=(start,), cost=0)
    if goal in occupancy:
        return None
    board = _Board(grid, occupancy, mover_side, goal)
    first = (start.x, start.y, board.parity(diagonals_so_far))
    search = _search_straight if straight else _search
    found = search(board, first, max_cost)
    if found is None:
        return None
    states, cost = found
    return Path(cells=tuple(Cell(x=x, y=y) for x, y, _ in states), cost=cost)


# A search state is (x, y, parity of diagonal steps so far). Parity sets the next diagonal's
# cost under "alternate" diagonals and is always 0 otherwise. Plain tuples rather than Cells
# because the search builds and hashes many of them.
_State = tuple[int, int, int]


class _Board:
    """The map as the search sees it: step costs, blocked cells and a bound on the cost left."""

    def __init__(
        self, grid: GridMap, occupancy: Mapping[Cell, str], mover_side: str, goal: Cell
    ) -> None:
        self.grid = grid
        self.goal = (goal.x, goal.y)
        self.offsets = offsets_of(grid)
        self.terrain = grid._terrain_by_xy
        self.blocked = {(cell.x, cell.y) for cell, side in occupancy.items() if side != mover_side}
        self.counts_diagonals = grid.kind == "square" and grid.diagonals == "alternate"

    def parity(self, diagonals: int) -> int:
        return diagonals % 2 if self.counts_diagonals else 0

    def is_goal(self, state: _State) -> bool:
        return state[:2] == self.goal

    def moves(self, state: _State) -> Iterator[tuple[_State, int]]:
        x, y, parity = state
        for dx, dy in self.offsets:
            to = (x + dx, y + dy)
            if not self._in_bounds(to) or to in self.blocked:
                continue
            diagonal = is_diagonal(self.grid, dx, dy)
            terrain = self.terrain.get(to, NORMAL_TERRAIN)
            cost = entry_cost(self.grid, terrain, diagonal=diagonal, diagonals_so_far=parity)
            if cost is not None:
                yield (*to, self.parity(parity + 1 if diagonal else parity)), cost

    def estimate(self, state: _State) -> int:
        # The cost over open normal terrain: never above the real cost, and it falls by no more
        # than a step costs at each step, so the first time A* pops the goal its cost is optimal.
        x, y, parity = state
        dx, dy = self.goal[0] - x, self.goal[1] - y
        return offset_distance(self.grid, dx, dy, diagonals_so_far=parity)

    def _in_bounds(self, xy: XY) -> bool:
        return 0 <= xy[0] < self.grid.width and 0 <= xy[1] < self.grid.height


def _search(board: _Board, start: _State, max_cost: int | None) -> tuple[list[_State], int] | None:
    best_cost = {start: 0}
    came_from: dict[_State, _State] = {}
    # Entries are (estimated total, estimate left, state): ties go to the entry nearer the
    # goal, then to the smaller state tuple, which makes the search fully deterministic.
    frontier = [(board.estimate(start), board.estimate(start), start)]
    while frontier:
        total, left, state = heapq.heappop(frontier)
        cost = total - left
        if cost > best_cost[state]:
            continue  # superseded by a cheaper entry for the same state
        if board.is_goal(state):
            return _trace(came_from, state), cost
        for after, step in board.moves(state):
            new_cost = cost + step
            known = best_cost.get(after)
            too_dear = max_cost is not None and new_cost > max_cost
            if too_dear or (known is not None and new_cost >= known):
                continue
            best_cost[after] = new_cost
            came_from[after] = state
            estimate = board.estimate(after)
            heapq.heappush(frontier, (new_cost + estimate, estimate, after))
    return None


def _trace(came_from: Mapping[_State, _State], end: _State) -> list[_State]:
    states = [end]
    while states[-1] in came_from:
        states.append(came_from[states[-1]])
    return states[::-1]


def _search_straight(
    board: _Board, start: _State, max_cost: int | None
) -> tuple[list[_State], int] | None:
    """A* on (cost, summed offset from the line): the first time the goal is popped its
    label is the least, and every state on a way as good has a key no greater, so popping on
    until the keys pass the goal's records every such way (`preds`) for `straightest`. The
    offset as a second key keeps the search near the line: on open ground it expands about
    the cells along it, not every cell of an equally cheap way."""
    line = Line(board.grid.kind, start[:2], board.goal)
    label = {start: (0, 0)}
    preds: dict[_State, list[_State]] = {}
    estimate = board.estimate(start)
    frontier = [(estimate, 0, estimate, start)]
    goal_label: tuple[int, int] | None = None
    ends: list[_State] = []
    while frontier:
        total, offset, left, state = heapq.heappop(frontier)
        if goal_label is not None and (total, offset) > goal_label:
            break
        cost = total - left
        if (cost, offset) != label[state]:
            continue  # superseded by a better entry for the same state
        if board.is_goal(state):
            goal_label = (cost, offset)
            ends.append(state)
            continue
        for after, step in board.moves(state):
            new = (cost + step, offset + line.offset(after))
            if max_cost is not None and new[0] > max_cost:
                continue
            known = label.get(after)
            if known is None or new < known:
                label[after] = new
                preds[after] = [state]
                estimate = board.estimate(after)
                heapq.heappush(frontier, (new[0] + estimate, new[1], estimate, after))
            elif new == known:
                preds[after].append(state)
    if goal_label is None:
        return None
    costs = {state: cost for state, (cost, _) in label.items()}
    return straightest(start, ends, preds, costs, line), goal_label[0]


def costs_within(
    grid: GridMap,
    start: Cell,
    occupancy: Mapping[Cell, str],
    mover_side: str,
    max_cost: int,
) -> dict[Cell, int]:
    """Every cell a move from `start` can end on for at most `max_cost`, with the cost of its
    cheapest path (Dijkstra over the same steps, blocking and costs as `find_path`): what a
    front end draws as reachable. The start and occupied cells are left out (a move may not
    end on them); the cells come in reading order."""
    require_on_map(grid, start)
    board = _Board(grid, occupancy, mover_side, start)
    first = (start.x, start.y, 0)
    best = {first: 0}
    frontier = [(0, first)]
    while frontier:
        cost, state = heapq.heappop(frontier)
        if cost > best[state]:
            continue
        for after, step in board.moves(state):
            new_cost = cost + step
            if new_cost <= max_cost and new_cost < best.get(after, max_cost + 1):
                best[after] = new_cost
                heapq.heappush(frontier, (new_cost, after))
    cheapest: dict[Cell, int] = {}
    for (x, y, _), cost in best.items():
        cell = Cell(x=x, y=y)
        if cell != start and cell not in occupancy and cost < cheapest.get(cell, max_cost + 1):
            cheapest[cell] = cost
    return dict(sorted(cheapest.items()))
