"""Battle maps: immutable map models and pure geometry on square and hex grids.

Every map position is a `Cell(x, y)`:

* square maps: x is the column, y the row;
* hex maps: pointy-top hexes in axial coordinates, x = q and y = r. The map is the axial
  parallelogram 0 <= q < width, 0 <= r < height (orientation only matters when drawing).

Functions taking cells raise `ValueError` for cells off the map. Lists of cells that have no
natural order come back in reading order: by y, then x (`Cell` sorts that way).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Mapping
from typing import Annotated, Any, Literal, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StringConstraints,
    field_validator,
    model_validator,
)

GridKind = Literal["square", "hex"]
DiagonalRule = Literal["chebyshev", "alternate", "manhattan"]
TerrainKind = Literal["normal", "difficult", "impassable"]
_XY = tuple[int, int]  # a raw (x, y) position or offset

MAX_SIDE = 1000

_FROZEN = ConfigDict(frozen=True, extra="forbid")
_NonEmptyStr = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]

_ORTHOGONAL: tuple[_XY, ...] = ((1, 0), (0, 1), (-1, 0), (0, -1))
_DIAGONAL: tuple[_XY, ...] = ((1, 1), (1, -1), (-1, 1), (-1, -1))
_EIGHT_WAYS = _ORTHOGONAL + _DIAGONAL
_HEX: tuple[_XY, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


class Cell(BaseModel):
    """A map position; serialises as {"x": .., "y": ..} and also accepts [x, y] on input."""

    model_config = _FROZEN

    x: int
    y: int

    @model_validator(mode="before")
    @classmethod
    def _from_pair(cls, data: Any) -> Any:
        if isinstance(data, list | tuple):
            if len(data) != 2:
                raise ValueError(f"a cell given as a list needs exactly [x, y], got {data!r}")
            return {"x": data[0], "y": data[1]}
        return data

    def __lt__(self, other: Cell) -> bool:
        return (self.y, self.x) < (other.y, other.x)

    def __str__(self) -> str:
        return f"({self.x}, {self.y})"


class DamageSpec(BaseModel):
    """Terrain damage as dice expressions, parsed by the rules layer.

    `passing` is for creatures moving through the cell, `stationary` for those staying in it.
    """

    model_config = _FROZEN

    passing: _NonEmptyStr | None = None
    stationary: _NonEmptyStr | None = None

    @model_validator(mode="after")
    def _deals_something(self) -> Self:
        if self.passing is None and self.stationary is None:
            raise ValueError("damage needs at least one of 'passing' or 'stationary'")
        return self


class Terrain(BaseModel):
    """What a cell is like. Only `kind` affects movement here (difficult doubles step costs,
    impassable cannot be entered); tags, damage and elevation are data for the rules layer."""

    model_config = _FROZEN

    kind: TerrainKind = "normal"
    tags: tuple[_NonEmptyStr, ...] = ()
    damage: DamageSpec | None = None
    elevation: int = 0

    @field_validator("tags")
    @classmethod
    def _canonical_tags(cls, tags: tuple[str, ...]) -> tuple[str, ...]:
        # Tags are a set; a sorted tuple keeps the JSON stable and makes equal terrains equal.
        return tuple(sorted(set(tags)))


NORMAL_TERRAIN = Terrain()


class CellTerrain(BaseModel):
    model_config = _FROZEN

    cell: Cell
    terrain: Terrain


class GridMap(BaseModel):
    """A width x height map; cells without a `terrain` entry are normal terrain.

    `diagonals` only applies to square maps: "chebyshev" (a diagonal step costs 1),
    "alternate" (diagonal steps cost 1, 2, 1, 2, ... like D&D 3.5's 5-10-5) or
    "manhattan" (no diagonal steps). Build changed maps with the constructor or
    `model_validate`: `model_copy(update=...)` skips validation and the terrain lookup.
    """

    model_config = _FROZEN

    kind: GridKind
    width: int = Field(ge=1, le=MAX_SIDE)
    height: int = Field(ge=1, le=MAX_SIDE)
    diagonals: DiagonalRule = "chebyshev"
    terrain: tuple[CellTerrain, ...] = ()

    _terrain_by_xy: dict[_XY, Terrain] = PrivateAttr(default_factory=dict)

    @field_validator("terrain")
    @classmethod
    def _one_entry_per_cell(cls, entries: tuple[CellTerrain, ...]) -> tuple[CellTerrain, ...]:
        seen: set[Cell] = set()
        for entry in entries:
            if entry.cell in seen:
                raise ValueError(f"terrain for cell {entry.cell} is given more than once")
            seen.add(entry.cell)
        # Sorted so that maps with the same terrain compare and serialise equal.
        return tuple(sorted(entries, key=lambda entry: entry.cell))

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.kind == "hex" and self.diagonals != "chebyshev":
            raise ValueError("'diagonals' only applies to square maps; leave it unset for hex")
        for entry in self.terrain:
            if not on_map(self, entry.cell):
                raise ValueError(f"terrain cell {entry.cell} is off the {_describe(self)}")
        return self

    def model_post_init(self, context: Any, /) -> None:
        self._terrain_by_xy = {(e.cell.x, e.cell.y): e.terrain for e in self.terrain}


def _describe(grid: GridMap) -> str:
    return f"{grid.width}x{grid.height} {grid.kind} map"


# --- cells and distances -------------------------------------------------------------------


def on_map(grid: GridMap, cell: Cell) -> bool:
    return 0 <= cell.x < grid.width and 0 <= cell.y < grid.height


def _require_on_map(grid: GridMap, *cells: Cell) -> None:
    for cell in cells:
        if not on_map(grid, cell):
            raise ValueError(f"cell {cell} is off the {_describe(grid)}")


def terrain_at(grid: GridMap, cell: Cell) -> Terrain:
    _require_on_map(grid, cell)
    return grid._terrain_by_xy.get((cell.x, cell.y), NORMAL_TERRAIN)


def distance(grid: GridMap, a: Cell, b: Cell) -> int:
    """Cells between a and b on an empty map (hex: axial distance; square: per `diagonals`)."""
    _require_on_map(grid, a, b)
    return _offset_distance(grid, b.x - a.x, b.y - a.y)


def _offset_distance(grid: GridMap, dx: int, dy: int, *, diagonals_so_far: int = 0) -> int:
    """Cost of moving by (dx, dy) over normal terrain, given the diagonal steps taken so far.

    `diagonals_so_far` only matters for "alternate" diagonals, where every second diagonal
    step costs 2. That count carries across moves, which is also why "alternate" distance is
    not a true metric: (0,0)->(2,2) is 3 but (0,0)->(1,1)->(2,2) counts 1 + 1.
    """
    if grid.kind == "hex":
        return _hex_distance(dx, dy)
    longer, shorter = max(abs(dx), abs(dy)), min(abs(dx), abs(dy))
    if grid.diagonals == "manhattan":
        return longer + shorter
    if grid.diagonals == "alternate":
        return longer + (shorter + diagonals_so_far % 2) // 2
    return longer


def _hex_distance(dq: int, dr: int) -> int:
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def _offsets(grid: GridMap) -> tuple[_XY, ...]:
    """The (dx, dy) of a single legal step on this map."""
    if grid.kind == "hex":
        return _HEX
    if grid.diagonals == "manhattan":
        return _ORTHOGONAL
    return _EIGHT_WAYS


def neighbours(grid: GridMap, cell: Cell) -> list[Cell]:
    _require_on_map(grid, cell)
    candidates = (Cell(x=cell.x + dx, y=cell.y + dy) for dx, dy in _offsets(grid))
    return sorted(c for c in candidates if on_map(grid, c))


def cells_within(grid: GridMap, centre: Cell, reach: int) -> list[Cell]:
    """On-map cells at `distance` <= reach from centre (centre included), in reading order."""
    _require_on_map(grid, centre)
    if reach < 0:
        raise ValueError(f"reach must be >= 0, got {reach}")
    # A cell within reach is never more than `reach` rows or columns away, on either grid.
    rows = range(max(0, centre.y - reach), min(grid.height, centre.y + reach + 1))
    columns = range(max(0, centre.x - reach), min(grid.width, centre.x + reach + 1))
    return [
        Cell(x=x, y=y)
        for y in rows
        for x in columns
        if _offset_distance(grid, x - centre.x, y - centre.y) <= reach
    ]


# --- movement costs --------------------------------------------------------------------------


def _is_diagonal(grid: GridMap, dx: int, dy: int) -> bool:
    return grid.kind == "square" and dx != 0 and dy != 0


def _entry_cost(
    grid: GridMap, terrain: Terrain, *, diagonal: bool, diagonals_so_far: int
) -> int | None:
    """Cost of one step into a cell with `terrain`; None if it cannot be entered."""
    if terrain.kind == "impassable":
        return None
    second_diagonal = diagonal and grid.diagonals == "alternate" and diagonals_so_far % 2 == 1
    base = 2 if second_diagonal else 1
    return 2 * base if terrain.kind == "difficult" else base


def step_cost(
    grid: GridMap, from_cell: Cell, to_cell: Cell, *, diagonals_so_far: int = 0
) -> int | None:
    """Cost of stepping between adjacent cells; None if `to_cell` is impassable.

    The entered cell's terrain sets the cost (difficult doubles it). With "alternate"
    diagonals pass the number of diagonal steps already taken this move.
    """
    _require_on_map(grid, from_cell, to_cell)
    if diagonals_so_far < 0:
        raise ValueError(f"diagonals_so_far must be >= 0, got {diagonals_so_far}")
    dx, dy = to_cell.x - from_cell.x, to_cell.y - from_cell.y
    if (dx, dy) not in _offsets(grid):
        raise ValueError(f"cell {to_cell} is not adjacent to {from_cell} on this map")
    return _entry_cost(
        grid,
        terrain_at(grid, to_cell),
        diagonal=_is_diagonal(grid, dx, dy),
        diagonals_so_far=diagonals_so_far,
    )


# --- lines -----------------------------------------------------------------------------------

# Hex lines sample points between hex centres, and some land exactly on a hex edge. round()
# would settle those ties half-to-even, which can zig-zag; nudging every sample by the same
# tiny offset settles them all one way, in both directions, so line(b, a) reverses line(a, b).
_HEX_NUDGE_Q = 1e-6
_HEX_NUDGE_R = 2e-6


def line(grid: GridMap, a: Cell, b: Cell) -> list[Cell]:
    """Cells from a to b inclusive, each a single legal step from the previous one.

    * hex: cube-coordinate interpolation between centres, rounded to the nearest hex;
    * square with "chebyshev"/"alternate": one cell per column or row along the longer
      axis (centre sampling), so diagonal steps appear;
    * square with "manhattan": every cell the centre-to-centre segment passes through.

    Exact ties are broken by a fixed nudge towards +x/+y, so line(b, a) == line(a, b)[::-1].
    """
    _require_on_map(grid, a, b)
    if grid.kind == "hex":
        return _hex_line(a, b)
    if grid.diagonals == "manhattan":
        return _orthogonal_line(a, b)
    return _sampled_square_line(a, b)


def _hex_line(a: Cell, b: Cell) -> list[Cell]:
    steps = _hex_distance(b.x - a.x, b.y - a.y)
    if steps == 0:
        return [a]
    return [
        _hex_round(
            a.x + (b.x - a.x) * i / steps + _HEX_NUDGE_Q,
            a.y + (b.y - a.y) * i / steps + _HEX_NUDGE_R,
        )
        for i in range(steps + 1)
    ]


def _hex_round(q: float, r: float) -> Cell:
    s = -q - r
    round_q, round_r, round_s = round(q), round(r), round(s)
    error_q, error_r, error_s = abs(round_q - q), abs(round_r - r), abs(round_s - s)
    # Rounding each coordinate can break q + r + s == 0; rebuild the worst-rounded one.
    if error_q > error_r and error_q > error_s:
        round_q = -round_r - round_s
    elif error_r > error_s:
        round_r = -round_q - round_s
    return Cell(x=round_q, y=round_r)


def _sampled_square_line(a: Cell, b: Cell) -> list[Cell]:
    dx, dy = b.x - a.x, b.y - a.y
    steps = max(abs(dx), abs(dy))
    if steps == 0:
        return [a]
    return [
        Cell(x=a.x + _round_half_up(dx * i, steps), y=a.y + _round_half_up(dy * i, steps))
        for i in range(steps + 1)
    ]


def _round_half_up(numerator: int, denominator: int) -> int:
    """numerator / denominator rounded to the nearest integer, halves towards +infinity."""
    return (2 * numerator + denominator) // (2 * denominator)


def _orthogonal_line(a: Cell, b: Cell) -> list[Cell]:
    dx, dy = b.x - a.x, b.y - a.y
    step_x, step_y = _sign(dx), _sign(dy)
    # A segment through an exact cell corner touches two side cells. Taking it as nudged by
    # (e, 2e) picks the one on the nudge's side, whichever way we walk; the sign of the cross
    # product (dx, dy) x (1, 2) says which side that is.
    x_first_at_corner = _sign(2 * dx - dy) == -step_x * step_y
    x, y, moved_x, moved_y = a.x, a.y, 0, 0
    cells = [a]
    while moved_x < abs(dx) or moved_y < abs(dy):
        if _next_crossing_is_x(moved_x, moved_y, abs(dx), abs(dy), x_first_at_corner):
            x, moved_x = x + step_x, moved_x + 1
        else:
            y, moved_y = y + step_y, moved_y + 1
        cells.append(Cell(x=x, y=y))
    return cells


def _next_crossing_is_x(
    moved_x: int, moved_y: int, total_x: int, total_y: int, x_first_at_corner: bool
) -> bool:
    if moved_x == total_x:
        return False
    if moved_y == total_y:
        return True
    # The segment meets the next column edge at t = (moved_x + 1/2) / total_x and the next
    # row edge at t = (moved_y + 1/2) / total_y; compare them without fractions.
    column_edge = (2 * moved_x + 1) * total_y
    row_edge = (2 * moved_y + 1) * total_x
    return column_edge < row_edge or (column_edge == row_edge and x_first_at_corner)


def _sign(value: int) -> int:
    return (value > 0) - (value < 0)


# --- paths -----------------------------------------------------------------------------------


class Path(BaseModel):
    """Cells from start to goal inclusive, and the movement they cost."""

    model_config = _FROZEN

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
    diagonals_so_far: int = 0,
) -> Path | None:
    """The cheapest path from start to goal costing at most max_cost, or None (A*).

    `occupancy` maps occupied cells to the side holding them. Other sides' cells block;
    `mover_side`'s cells may be passed through, but the path may not end on any occupied
    cell. The start cell's occupant is taken to be the mover. Step costs follow `step_cost`;
    pass `diagonals_so_far` to continue an "alternate"-diagonals move. Ties between equally
    cheap paths are broken deterministically, so the same inputs give the same path.
    """
    _require_on_map(grid, start, goal)
    if diagonals_so_far < 0:
        raise ValueError(f"diagonals_so_far must be >= 0, got {diagonals_so_far}")
    if start == goal:
        return Path(cells=(start,), cost=0)
    if goal in occupancy:
        return None
    board = _Board(grid, occupancy, mover_side, goal)
    found = _search(board, (start.x, start.y, board.parity(diagonals_so_far)), max_cost)
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
        self.offsets = _offsets(grid)
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
            diagonal = _is_diagonal(self.grid, dx, dy)
            terrain = self.terrain.get(to, NORMAL_TERRAIN)
            cost = _entry_cost(self.grid, terrain, diagonal=diagonal, diagonals_so_far=parity)
            if cost is not None:
                yield (*to, self.parity(parity + 1 if diagonal else parity)), cost

    def estimate(self, state: _State) -> int:
        # The cost over open normal terrain: never above the real cost, and it falls by no more
        # than a step costs at each step, so the first time A* pops the goal its cost is optimal.
        x, y, parity = state
        dx, dy = self.goal[0] - x, self.goal[1] - y
        return _offset_distance(self.grid, dx, dy, diagonals_so_far=parity)

    def _in_bounds(self, xy: _XY) -> bool:
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
