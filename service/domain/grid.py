"""Battle maps: immutable map models and pure geometry on square and hex grids.

Every map position is a `Cell(x, y)`:

* square maps: x is the column, y the row;
* hex maps: pointy-top hexes in axial coordinates, x = q and y = r. The map is the axial
  parallelogram 0 <= q < width, 0 <= r < height (orientation only matters when drawing).

Functions taking cells raise `ValueError` for cells off the map. Lists of cells that have no
natural order come back in reading order: by y, then x (`Cell` sorts that way). Lines
between cells are `service.domain.grid_lines`, paths `service.domain.grid_paths`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetJsonSchemaHandler,
    PrivateAttr,
    StringConstraints,
    field_validator,
    model_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

GridKind = Literal["square", "hex"]
DiagonalRule = Literal["chebyshev", "alternate", "manhattan"]
TerrainKind = Literal["normal", "difficult", "impassable"]
XY = tuple[int, int]  # a raw (x, y) position or offset

MAX_SIDE = 1000

FROZEN = ConfigDict(frozen=True, extra="forbid")
_NonEmptyStr = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]

_ORTHOGONAL: tuple[XY, ...] = ((1, 0), (0, 1), (-1, 0), (0, -1))
_DIAGONAL: tuple[XY, ...] = ((1, 1), (1, -1), (-1, 1), (-1, -1))
_EIGHT_WAYS = _ORTHOGONAL + _DIAGONAL
_HEX: tuple[XY, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


class Cell(BaseModel):
    """A map position; serialises as {"x": .., "y": ..} and also accepts [x, y] on input."""

    model_config = FROZEN

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

    @classmethod
    def __get_pydantic_json_schema__(
        cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        schema = handler(core_schema)
        if handler.mode == "serialization":
            return schema
        pair = {"type": "array", "prefixItems": [{"type": "integer"}] * 2, "minItems": 2}
        title = schema.pop("title", "Cell")
        return {"title": title, "anyOf": [schema, {**pair, "maxItems": 2}]}

    def __lt__(self, other: Cell) -> bool:
        return (self.y, self.x) < (other.y, other.x)

    def __str__(self) -> str:
        return f"({self.x}, {self.y})"


class DamageSpec(BaseModel):
    """Terrain damage as dice expressions, parsed by the rules layer.

    `passing` is for creatures moving through the cell, `stationary` for those staying in it.
    """

    model_config = FROZEN

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

    model_config = FROZEN

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
    model_config = FROZEN

    cell: Cell
    terrain: Terrain


class GridMap(BaseModel):
    """A width x height map; cells without a `terrain` entry are normal terrain.

    `diagonals` only applies to square maps: "chebyshev" (a diagonal step costs 1),
    "alternate" (diagonal steps cost 1, 2, 1, 2, ... like D&D 3.5's 5-10-5) or
    "manhattan" (no diagonal steps). Build changed maps with the constructor or
    `model_validate`: `model_copy(update=...)` skips validation and the terrain lookup.
    """

    model_config = FROZEN

    kind: GridKind
    width: int = Field(ge=1, le=MAX_SIDE)
    height: int = Field(ge=1, le=MAX_SIDE)
    diagonals: DiagonalRule = "chebyshev"
    terrain: tuple[CellTerrain, ...] = ()

    _terrain_by_xy: dict[XY, Terrain] = PrivateAttr(default_factory=dict)

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


def require_on_map(grid: GridMap, *cells: Cell) -> None:
    for cell in cells:
        if not on_map(grid, cell):
            raise ValueError(f"cell {cell} is off the {_describe(grid)}")


def terrain_at(grid: GridMap, cell: Cell) -> Terrain:
    require_on_map(grid, cell)
    return grid._terrain_by_xy.get((cell.x, cell.y), NORMAL_TERRAIN)


def distance(grid: GridMap, a: Cell, b: Cell) -> int:
    """Cells between a and b on an empty map (hex: axial distance; square: per `diagonals`)."""
    require_on_map(grid, a, b)
    return offset_distance(grid, b.x - a.x, b.y - a.y)


def offset_distance(grid: GridMap, dx: int, dy: int, *, diagonals_so_far: int = 0) -> int:
    """Cost of moving by (dx, dy) over normal terrain, given the diagonal steps taken so far.

    `diagonals_so_far` only matters for "alternate" diagonals, where every second diagonal
    step costs 2. That count carries across moves, which is also why "alternate" distance is
    not a true metric: (0,0)->(2,2) is 3 but (0,0)->(1,1)->(2,2) counts 1 + 1.
    """
    if grid.kind == "hex":
        return hex_distance(dx, dy)
    longer, shorter = max(abs(dx), abs(dy)), min(abs(dx), abs(dy))
    if grid.diagonals == "manhattan":
        return longer + shorter
    if grid.diagonals == "alternate":
        return longer + (shorter + diagonals_so_far % 2) // 2
    return longer


def hex_distance(dq: int, dr: int) -> int:
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def offsets_of(grid: GridMap) -> tuple[XY, ...]:
    """The (dx, dy) of a single legal step on this map."""
    if grid.kind == "hex":
        return _HEX
    if grid.diagonals == "manhattan":
        return _ORTHOGONAL
    return _EIGHT_WAYS


def neighbours(grid: GridMap, cell: Cell) -> list[Cell]:
    require_on_map(grid, cell)
    candidates = (Cell(x=cell.x + dx, y=cell.y + dy) for dx, dy in offsets_of(grid))
    return sorted(c for c in candidates if on_map(grid, c))


def cells_within(grid: GridMap, centre: Cell, reach: int) -> list[Cell]:
    """On-map cells at `distance` <= reach from centre (centre included), in reading order."""
    require_on_map(grid, centre)
    if reach < 0:
        raise ValueError(f"reach must be >= 0, got {reach}")
    # A cell within reach is never more than `reach` rows or columns away, on either grid.
    rows = range(max(0, centre.y - reach), min(grid.height, centre.y + reach + 1))
    columns = range(max(0, centre.x - reach), min(grid.width, centre.x + reach + 1))
    return [
        Cell(x=x, y=y)
        for y in rows
        for x in columns
        if offset_distance(grid, x - centre.x, y - centre.y) <= reach
    ]


# --- movement costs --------------------------------------------------------------------------


def is_diagonal(grid: GridMap, dx: int, dy: int) -> bool:
    return grid.kind == "square" and dx != 0 and dy != 0


def entry_cost(
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
    require_on_map(grid, from_cell, to_cell)
    if diagonals_so_far < 0:
        raise ValueError(f"diagonals_so_far must be >= 0, got {diagonals_so_far}")
    dx, dy = to_cell.x - from_cell.x, to_cell.y - from_cell.y
    if (dx, dy) not in offsets_of(grid):
        raise ValueError(f"cell {to_cell} is not adjacent to {from_cell} on this map")
    return entry_cost(
        grid,
        terrain_at(grid, to_cell),
        diagonal=is_diagonal(grid, dx, dy),
        diagonals_so_far=diagonals_so_far,
    )
