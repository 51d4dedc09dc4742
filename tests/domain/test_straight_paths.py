"""Of equally cheap paths, a move takes the one nearest the straight line from start to goal
(issue 27: "on Chebyshev maps the path finder picks equal-length zig-zags ((5,4)→(9,4) via
(7,2)); among equal-cost paths prefer the one closest to the straight line, on every grid of
every ruleset"). The search before it (`straight=False`) is kept for the encounters recorded
with it."""

from __future__ import annotations

import heapq
from collections.abc import Mapping

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.domain.grid import Cell, DiagonalRule, GridMap, TerrainKind, neighbours, step_cost
from service.domain.grid_paths import find_path
from service.domain.straight_paths import Line
from tests.domain.test_grid import (
    PROPERTY_SETTINGS,
    c,
    cells,
    hexes,
    path_problems,
    reference_cost,
    square,
)

Problem = tuple[GridMap, Cell, Cell, dict[Cell, str], int | None]


def straight(grid: GridMap, start: Cell, goal: Cell) -> list[Cell]:
    found = find_path(grid, start, goal, {}, "heroes", straight=True)
    assert found is not None
    return list(found.cells)


def first_found(grid: GridMap, start: Cell, goal: Cell) -> list[Cell]:
    found = find_path(grid, start, goal, {}, "heroes", straight=False)
    assert found is not None
    return list(found.cells)


def offset_sum(grid: GridMap, start: Cell, goal: Cell, path: list[Cell]) -> int:
    line = Line(grid.kind, (start.x, start.y), (goal.x, goal.y))
    return sum(line.offset((cell.x, cell.y, 0)) for cell in path[1:])


# --- worked cases: where the search before zig-zagged ------------------------------------


@pytest.mark.parametrize(
    ("grid", "start", "goal", "before", "now"),
    [
        pytest.param(
            square(12, 10),
            c(5, 4),
            c(9, 4),
            cells((5, 4), (6, 3), (7, 2), (8, 3), (9, 4)),
            cells((5, 4), (6, 4), (7, 4), (8, 4), (9, 4)),
            id="issue 27: (5,4) to (9,4) on a Chebyshev map no longer goes by (7,2)",
        ),
        pytest.param(
            square(12, 10),
            c(2, 2),
            c(2, 7),
            cells((2, 2), (1, 3), (0, 4), (0, 5), (1, 6), (2, 7)),
            cells((2, 2), (2, 3), (2, 4), (2, 5), (2, 6), (2, 7)),
            id="down a column",
        ),
        pytest.param(
            square(12, 10),
            c(0, 0),
            c(6, 2),
            cells((0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (5, 1), (6, 2)),
            cells((0, 0), (1, 0), (2, 1), (3, 1), (4, 1), (5, 2), (6, 2)),
            id="a shallow slope: the diagonals spread along the line, not saved for the end",
        ),
        pytest.param(
            hexes(12, 10),
            c(1, 1),
            c(5, 3),
            cells((1, 1), (1, 2), (1, 3), (2, 3), (3, 3), (4, 3), (5, 3)),
            cells((1, 1), (2, 1), (2, 2), (3, 2), (4, 2), (4, 3), (5, 3)),
            id="hex: alternating along the line, not one direction then the other",
        ),
        pytest.param(
            square(12, 10, "manhattan"),
            c(0, 0),
            c(3, 3),
            cells((0, 0), (0, 1), (0, 2), (0, 3), (1, 3), (2, 3), (3, 3)),
            cells((0, 0), (1, 0), (1, 1), (2, 1), (2, 2), (3, 2), (3, 3)),
            id="manhattan: a staircase along the diagonal, not round the corner",
        ),
    ],
)
def test_the_straight_path_replaces_the_zig_zag(
    grid: GridMap, start: Cell, goal: Cell, before: list[Cell], now: list[Cell]
) -> None:
    assert first_found(grid, start, goal) == before
    assert straight(grid, start, goal) == now
    assert offset_sum(grid, start, goal, now) < offset_sum(grid, start, goal, before)


def test_equally_near_cells_go_to_the_one_nearer_the_goal() -> None:
    # (1,0) and (1,1) lie equally far either side of the line (0,0)-(2,1); (1,1) is nearer
    # the goal, so the diagonal comes first, whichever way the line runs.
    assert straight(square(), c(0, 0), c(2, 1)) == cells((0, 0), (1, 1), (2, 1))
    assert straight(square(), c(0, 1), c(2, 0)) == cells((0, 1), (1, 0), (2, 0))


def test_then_reading_order() -> None:
    # (1,0) and (0,1): as near the line (0,0)-(1,1) and the goal; (1,0) comes first.
    assert straight(square(diagonals="manhattan"), c(0, 0), c(1, 1)) == cells(
        (0, 0), (1, 0), (1, 1)
    )


def test_a_wall_is_rounded_on_the_side_nearer_the_line() -> None:
    # The wall at x = 5 leaves gaps at y = 0 and y = 6; from (0,2) to (10,2) both ways cost
    # 10, but the one through (5,0) stays nearer the line y = 2.
    wall: dict[tuple[int, int], TerrainKind] = {(5, y): "impassable" for y in range(1, 6)}
    grid = square(11, 7, terrain=wall)
    path = straight(grid, c(0, 2), c(10, 2))
    assert c(5, 0) in path
    assert len(path) == 11


def test_a_detour_round_an_enemy_comes_back_to_the_line() -> None:
    found = find_path(
        square(9, 5), c(0, 2), c(8, 2), {c(4, 2): "monsters"}, "heroes", straight=True
    )
    assert found is not None
    assert found.cost == 8
    # One cell off the line to pass the enemy, and back on it at once.
    assert [cell.y for cell in found.cells] == [2, 2, 2, 2, 1, 2, 2, 2, 2]


# --- properties ------------------------------------------------------------------------------


def least_offset_sum(
    grid: GridMap, start: Cell, goal: Cell, occupancy: Mapping[Cell, str], cost: int
) -> int:
    """Plain Dijkstra on (cost, summed offset), over (cell, diagonal parity), by the public
    step rules alone: the least summed offset of a path of `cost` to `goal`."""
    line = Line(grid.kind, (start.x, start.y), (goal.x, goal.y))
    best = {(start, 0): (0, 0)}
    queue = [(0, 0, start.y, start.x, 0)]
    while queue:
        spent, off, y, x, parity = heapq.heappop(queue)
        cell = c(x, y)
        if (spent, off) > best[(cell, parity)]:
            continue
        if cell == goal:
            assert spent == cost
            return off
        for after in neighbours(grid, cell):
            step = step_cost(grid, cell, after, diagonals_so_far=parity)
            if step is None or occupancy.get(after, "heroes") != "heroes":
                continue
            diagonal = grid.kind == "square" and after.x != x and after.y != y
            state = (after, (parity + diagonal) % 2)
            label = (spent + step, off + line.offset((after.x, after.y, 0)))
            if label < best.get(state, (label[0] + 1, 0)):
                best[state] = label
                heapq.heappush(queue, (*label, after.y, after.x, state[1]))
    raise AssertionError("no path, yet find_path found one")


@PROPERTY_SETTINGS
@given(path_problems())
def test_the_straight_path_is_cheapest_and_of_the_cheapest_nearest_the_line(
    problem: Problem,
) -> None:
    grid, start, goal, occupancy, max_cost = problem
    path = find_path(grid, start, goal, occupancy, "heroes", max_cost, straight=True)
    before = find_path(grid, start, goal, occupancy, "heroes", max_cost, straight=False)
    assert (path is None) is (before is None)
    if path is None or before is None:
        return
    assert path.cost == before.cost == reference_cost(grid, start, goal, occupancy, max_cost)
    cells_walked = list(path.cells)
    least = least_offset_sum(grid, start, goal, occupancy, path.cost)
    assert offset_sum(grid, start, goal, cells_walked) == least
    assert least <= offset_sum(grid, start, goal, list(before.cells))
    assert not any(occupancy.get(cell) == "monsters" for cell in cells_walked[1:])


@st.composite
def straight_line_goals(draw: st.DrawFn) -> tuple[GridMap, Cell, Cell]:
    """An open map and a goal straight along one of the map's directions from the start: a
    row, a column or (squares with diagonals) a diagonal; on hex one of the three axes."""
    kind = draw(st.sampled_from(["square", "hex"]))
    rules: list[DiagonalRule] = ["chebyshev", "alternate", "manhattan"]
    diagonals = draw(st.sampled_from(rules))
    grid = square(12, 12, diagonals) if kind == "square" else hexes(12, 12)
    directions = [(1, 0), (0, 1), (-1, 0), (0, -1)]
    if kind == "hex":
        directions = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]
    elif diagonals != "manhattan":
        directions += [(1, 1), (1, -1), (-1, 1), (-1, -1)]
    dx, dy = draw(st.sampled_from(directions))
    start = draw(st.builds(c, st.integers(0, 11), st.integers(0, 11)))
    room = [n for n in range(1, 12) if 0 <= start.x + n * dx < 12 and 0 <= start.y + n * dy < 12]
    n = draw(st.sampled_from(room or [0]))
    return grid, start, c(start.x + n * dx, start.y + n * dy)


@PROPERTY_SETTINGS
@given(straight_line_goals())
def test_a_goal_straight_along_a_row_column_or_diagonal_is_reached_in_a_straight_line(
    problem: tuple[GridMap, Cell, Cell],
) -> None:
    grid, start, goal = problem
    n = max(abs(goal.x - start.x), abs(goal.y - start.y))
    dx, dy = (goal.x - start.x) // (n or 1), (goal.y - start.y) // (n or 1)
    expected = [c(start.x + i * dx, start.y + i * dy) for i in range(n + 1)]
    assert straight(grid, start, goal) == expected
