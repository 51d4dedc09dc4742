"""Battle maps: models, distances, neighbours, costs, areas, lines and path-finding."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from service.domain.grid import (
    MAX_SIDE,
    Cell,
    DiagonalRule,
    GridMap,
    Terrain,
    TerrainKind,
    cells_within,
    distance,
    neighbours,
    on_map,
    step_cost,
    terrain_at,
)
from service.domain.grid_lines import line
from service.domain.grid_paths import Path, costs_within, find_path

PROPERTY_SETTINGS = settings(max_examples=150, deadline=None)


def c(x: int, y: int) -> Cell:
    return Cell(x=x, y=y)


def cells(*pairs: tuple[int, int]) -> list[Cell]:
    return [c(x, y) for x, y in pairs]


def square(
    width: int = 8,
    height: int = 8,
    diagonals: DiagonalRule = "chebyshev",
    terrain: Mapping[tuple[int, int], TerrainKind] | None = None,
) -> GridMap:
    return _grid("square", width, height, diagonals, terrain or {})


def hexes(
    width: int = 8, height: int = 8, terrain: Mapping[tuple[int, int], TerrainKind] | None = None
) -> GridMap:
    return _grid("hex", width, height, "chebyshev", terrain or {})


def _grid(
    kind: str,
    width: int,
    height: int,
    diagonals: DiagonalRule,
    terrain: Mapping[tuple[int, int], TerrainKind],
) -> GridMap:
    return GridMap.model_validate(
        {
            "kind": kind,
            "width": width,
            "height": height,
            "diagonals": diagonals,
            "terrain": [
                {"cell": list(xy), "terrain": {"kind": kind}} for xy, kind in terrain.items()
            ],
        }
    )


# --- models ----------------------------------------------------------------------------------


def test_cell_serialises_as_an_object_and_accepts_a_pair() -> None:
    assert Cell.model_validate([3, 4]) == c(3, 4)
    assert Cell.model_validate_json("[3, 4]") == c(3, 4)
    assert c(3, 4).model_dump_json() == '{"x":3,"y":4}'


def test_cell_rejects_a_pair_of_the_wrong_length() -> None:
    with pytest.raises(ValidationError, match=r"exactly \[x, y\]"):
        Cell.model_validate([1, 2, 3])


def test_cells_are_hashable_values_sorted_in_reading_order() -> None:
    assert {c(1, 2), c(1, 2)} == {c(1, 2)}
    assert sorted(cells((2, 1), (0, 2), (1, 1), (0, 0))) == cells((0, 0), (1, 1), (2, 1), (0, 2))


def test_models_are_frozen() -> None:
    with pytest.raises(ValidationError):
        c(1, 2).x = 5  # type: ignore[misc]
    with pytest.raises(ValidationError):
        square().width = 3  # type: ignore[misc]


def test_map_round_trips_through_json() -> None:
    grid = GridMap.model_validate(
        {
            "kind": "square",
            "width": 6,
            "height": 4,
            "diagonals": "alternate",
            "terrain": [
                {
                    "cell": {"x": 2, "y": 3},
                    "terrain": {
                        "kind": "difficult",
                        "tags": ["mired", "damaging"],
                        "damage": {"passing": "1d6 fire", "stationary": "2d6 fire"},
                        "elevation": -1,
                    },
                },
                {"cell": [0, 0], "terrain": {"kind": "impassable"}},
            ],
        }
    )
    assert GridMap.model_validate_json(grid.model_dump_json()) == grid
    assert terrain_at(grid, c(2, 3)).damage is not None


def test_terrain_tags_are_a_sorted_set() -> None:
    terrain = Terrain(tags=frozenset({"slippery", "mired"}))  # type: ignore[arg-type]
    assert terrain.tags == ("mired", "slippery")
    assert Terrain(tags=("b", "a", "b")) == Terrain(tags=("a", "b"))


def test_terrain_entry_order_does_not_change_the_map() -> None:
    one_way = square(terrain={(1, 1): "difficult", (0, 3): "impassable"})
    other_way = square(terrain={(0, 3): "impassable", (1, 1): "difficult"})
    assert one_way == other_way
    assert one_way.model_dump_json() == other_way.model_dump_json()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        pytest.param(
            {"terrain": [{"cell": [8, 0], "terrain": {}}]},
            r"terrain cell \(8, 0\) is off the 8x8 square map",
            id="terrain-off-map",
        ),
        pytest.param(
            {"terrain": [{"cell": [1, 1], "terrain": {}}, {"cell": [1, 1], "terrain": {}}]},
            r"terrain for cell \(1, 1\) is given more than once",
            id="terrain-twice",
        ),
        pytest.param(
            {"kind": "hex", "diagonals": "manhattan"},
            "'diagonals' only applies to square maps",
            id="hex-with-diagonals",
        ),
        pytest.param({"width": 0}, "greater than or equal to 1", id="zero-width"),
        pytest.param({"height": MAX_SIDE + 1}, "less than or equal to", id="too-tall"),
        pytest.param({"kind": "triangle"}, "'square' or 'hex'", id="unknown-kind"),
        pytest.param({"diagonals": "euclid"}, "'chebyshev', 'alternate'", id="unknown-diagonals"),
        pytest.param({"colour": "red"}, "Extra inputs are not permitted", id="unknown-field"),
        pytest.param(
            {"terrain": [{"cell": [1, 1], "terrain": {"kind": "lava"}}]},
            "'normal', 'difficult' or 'impassable'",
            id="unknown-terrain-kind",
        ),
        pytest.param(
            {"terrain": [{"cell": [1, 1], "terrain": {"damage": {}}}]},
            "damage needs at least one of 'passing' or 'stationary'",
            id="damage-without-dice",
        ),
        pytest.param(
            {"terrain": [{"cell": [1, 1], "terrain": {"tags": [" "]}}]},
            "at least 1 character",
            id="blank-tag",
        ),
    ],
)
def test_map_rejects_invalid_input(data: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        GridMap.model_validate({"kind": "square", "width": 8, "height": 8, **data})


# --- on_map, terrain_at ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("grid", "cell", "expected"),
    [
        pytest.param(square(4, 3), c(0, 0), True, id="square-origin"),
        pytest.param(square(4, 3), c(3, 2), True, id="square-far-corner"),
        pytest.param(square(4, 3), c(4, 0), False, id="square-past-width"),
        pytest.param(square(4, 3), c(0, 3), False, id="square-past-height"),
        pytest.param(square(4, 3), c(-1, 0), False, id="square-negative"),
        pytest.param(hexes(4, 3), c(3, 2), True, id="hex-far-corner"),
        pytest.param(hexes(4, 3), c(2, -1), False, id="hex-negative-r"),
    ],
)
def test_on_map(grid: GridMap, cell: Cell, expected: bool) -> None:
    assert on_map(grid, cell) is expected


def test_terrain_at_defaults_to_normal() -> None:
    grid = square(terrain={(2, 2): "difficult"})
    assert terrain_at(grid, c(2, 2)).kind == "difficult"
    assert terrain_at(grid, c(2, 3)) == Terrain()


def test_cells_off_the_map_are_rejected() -> None:
    grid = square(4, 4)
    with pytest.raises(ValueError, match=r"cell \(4, 1\) is off the 4x4 square map"):
        terrain_at(grid, c(4, 1))
    with pytest.raises(ValueError, match="off the"):
        distance(grid, c(0, 0), c(0, -1))
    with pytest.raises(ValueError, match="off the"):
        find_path(grid, c(0, 0), c(9, 9), {}, "heroes", straight=False)


# --- distance --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("grid", "a", "b", "expected"),
    [
        pytest.param(square(), c(0, 0), c(3, 1), 3, id="chebyshev"),
        pytest.param(square(), c(5, 5), c(1, 1), 4, id="chebyshev-diagonal"),
        pytest.param(square(diagonals="manhattan"), c(0, 0), c(3, 1), 4, id="manhattan"),
        pytest.param(square(diagonals="alternate"), c(0, 0), c(1, 1), 1, id="alternate-1"),
        pytest.param(square(diagonals="alternate"), c(0, 0), c(2, 2), 3, id="alternate-1-2"),
        pytest.param(square(diagonals="alternate"), c(0, 0), c(3, 3), 4, id="alternate-1-2-1"),
        pytest.param(square(diagonals="alternate"), c(0, 0), c(4, 4), 6, id="alternate-1-2-1-2"),
        pytest.param(square(diagonals="alternate"), c(0, 0), c(5, 2), 6, id="alternate-mixed"),
        pytest.param(hexes(), c(1, 2), c(4, 1), 3, id="hex-q3-r-1"),
        pytest.param(hexes(), c(0, 0), c(2, 2), 4, id="hex-same-sign"),
        pytest.param(hexes(), c(0, 2), c(2, 0), 2, id="hex-along-s-axis"),
        pytest.param(hexes(), c(3, 3), c(3, 3), 0, id="hex-same-cell"),
    ],
)
def test_distance(grid: GridMap, a: Cell, b: Cell, expected: int) -> None:
    assert distance(grid, a, b) == expected
    assert distance(grid, b, a) == expected


def test_alternate_distance_is_not_a_metric() -> None:
    # The 1-2-1 count carries over: two single diagonals cost 1 each, one double costs 3.
    grid = square(diagonals="alternate")
    assert distance(grid, c(0, 0), c(2, 2)) == 3
    assert distance(grid, c(0, 0), c(1, 1)) + distance(grid, c(1, 1), c(2, 2)) == 2


# --- neighbours ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("grid", "cell", "expected"),
    [
        pytest.param(
            square(),
            c(3, 3),
            cells((2, 2), (3, 2), (4, 2), (2, 3), (4, 3), (2, 4), (3, 4), (4, 4)),
            id="square-middle",
        ),
        pytest.param(square(), c(0, 0), cells((1, 0), (0, 1), (1, 1)), id="square-corner"),
        pytest.param(
            square(diagonals="manhattan"),
            c(3, 3),
            cells((3, 2), (2, 3), (4, 3), (3, 4)),
            id="manhattan-middle",
        ),
        pytest.param(
            hexes(),
            c(3, 3),
            cells((3, 2), (4, 2), (2, 3), (4, 3), (2, 4), (3, 4)),
            id="hex-middle",
        ),
        pytest.param(hexes(), c(0, 0), cells((1, 0), (0, 1)), id="hex-acute-corner"),
        pytest.param(hexes(), c(7, 0), cells((6, 0), (6, 1), (7, 1)), id="hex-obtuse-corner"),
    ],
)
def test_neighbours(grid: GridMap, cell: Cell, expected: list[Cell]) -> None:
    assert neighbours(grid, cell) == expected


# --- step_cost -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("grid", "to", "so_far", "expected"),
    [
        pytest.param(square(), c(2, 1), 0, 1, id="orthogonal"),
        pytest.param(square(), c(2, 2), 0, 1, id="chebyshev-diagonal"),
        pytest.param(square(), c(2, 2), 1, 1, id="chebyshev-ignores-count"),
        pytest.param(square(terrain={(2, 2): "difficult"}), c(2, 2), 0, 2, id="difficult"),
        pytest.param(square(terrain={(2, 2): "impassable"}), c(2, 2), 0, None, id="impassable"),
        pytest.param(square(diagonals="alternate"), c(2, 2), 0, 1, id="alternate-first"),
        pytest.param(square(diagonals="alternate"), c(2, 2), 1, 2, id="alternate-second"),
        pytest.param(square(diagonals="alternate"), c(2, 2), 2, 1, id="alternate-third"),
        pytest.param(square(diagonals="alternate"), c(2, 1), 1, 1, id="alternate-orthogonal"),
        pytest.param(
            square(diagonals="alternate", terrain={(2, 2): "difficult"}),
            c(2, 2),
            1,
            4,
            id="alternate-second-into-difficult",
        ),
        pytest.param(hexes(), c(2, 0), 0, 1, id="hex"),
        pytest.param(hexes(terrain={(0, 2): "difficult"}), c(0, 2), 0, 2, id="hex-difficult"),
    ],
)
def test_step_cost(grid: GridMap, to: Cell, so_far: int, expected: int | None) -> None:
    assert step_cost(grid, c(1, 1), to, diagonals_so_far=so_far) == expected


@pytest.mark.parametrize(
    ("grid", "to"),
    [
        pytest.param(square(), c(3, 1), id="two-away"),
        pytest.param(square(), c(1, 1), id="same-cell"),
        pytest.param(square(diagonals="manhattan"), c(2, 2), id="manhattan-diagonal"),
        pytest.param(hexes(), c(2, 2), id="hex-non-neighbour"),
    ],
)
def test_step_cost_rejects_cells_that_are_not_adjacent(grid: GridMap, to: Cell) -> None:
    with pytest.raises(ValueError, match="is not adjacent to"):
        step_cost(grid, c(1, 1), to)


# --- cells_within ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("grid", "centre", "reach", "expected"),
    [
        pytest.param(square(), c(4, 4), 0, cells((4, 4)), id="reach-0"),
        pytest.param(
            square(),
            c(0, 0),
            1,
            cells((0, 0), (1, 0), (0, 1), (1, 1)),
            id="square-corner",
        ),
        pytest.param(
            square(diagonals="manhattan"),
            c(2, 2),
            1,
            cells((2, 1), (1, 2), (2, 2), (3, 2), (2, 3)),
            id="manhattan-diamond",
        ),
        pytest.param(
            hexes(),
            c(2, 2),
            1,
            cells((2, 1), (3, 1), (1, 2), (2, 2), (3, 2), (1, 3), (2, 3)),
            id="hex-ring",
        ),
    ],
)
def test_cells_within(grid: GridMap, centre: Cell, reach: int, expected: list[Cell]) -> None:
    assert cells_within(grid, centre, reach) == expected


@pytest.mark.parametrize(
    ("grid", "expected_count"),
    [
        pytest.param(square(), 25, id="chebyshev-5x5-square"),
        pytest.param(square(diagonals="alternate"), 21, id="alternate-drops-the-corners"),
        pytest.param(square(diagonals="manhattan"), 13, id="manhattan-diamond"),
        pytest.param(hexes(), 19, id="hex-two-rings"),
    ],
)
def test_cells_within_reach_2_counts(grid: GridMap, expected_count: int) -> None:
    assert len(cells_within(grid, c(3, 3), 2)) == expected_count


def test_cells_within_rejects_negative_reach() -> None:
    with pytest.raises(ValueError, match="reach must be >= 0"):
        cells_within(square(), c(1, 1), -1)


# --- line ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("grid", "a", "b", "expected"),
    [
        pytest.param(square(), c(1, 1), c(1, 1), cells((1, 1)), id="single-cell"),
        pytest.param(square(), c(0, 2), c(3, 2), cells((0, 2), (1, 2), (2, 2), (3, 2)), id="row"),
        pytest.param(
            square(), c(0, 0), c(3, 3), cells((0, 0), (1, 1), (2, 2), (3, 3)), id="diagonal"
        ),
        pytest.param(
            square(),
            c(0, 0),
            c(4, 2),
            cells((0, 0), (1, 1), (2, 1), (3, 2), (4, 2)),
            id="shallow-halves-round-up",
        ),
        pytest.param(
            square(diagonals="manhattan"),
            c(0, 0),
            c(3, 1),
            cells((0, 0), (1, 0), (1, 1), (2, 1), (3, 1)),
            id="manhattan-through-a-corner",
        ),
        pytest.param(
            square(diagonals="manhattan"),
            c(0, 0),
            c(2, 2),
            cells((0, 0), (0, 1), (1, 1), (1, 2), (2, 2)),
            id="manhattan-staircase",
        ),
        pytest.param(hexes(), c(0, 3), c(3, 3), cells((0, 3), (1, 3), (2, 3), (3, 3)), id="hex-q"),
        pytest.param(
            hexes(), c(0, 3), c(3, 2), cells((0, 3), (1, 3), (2, 2), (3, 2)), id="hex-slanted"
        ),
        pytest.param(hexes(), c(0, 0), c(1, 1), cells((0, 0), (0, 1), (1, 1)), id="hex-edge-tie"),
    ],
)
def test_line(grid: GridMap, a: Cell, b: Cell, expected: list[Cell]) -> None:
    assert line(grid, a, b) == expected
    assert line(grid, b, a) == expected[::-1]


# --- find_path -------------------------------------------------------------------------------


def test_path_over_open_ground_costs_the_distance() -> None:
    path = find_path(square(), c(0, 0), c(5, 2), {}, "heroes", straight=False)
    assert path is not None
    assert path.cost == 5
    assert (path.cells[0], path.cells[-1]) == (c(0, 0), c(5, 2))


@pytest.mark.parametrize(
    "grid",
    [
        pytest.param(square(5, 1, terrain={(2, 0): "difficult"}), id="square"),
        pytest.param(hexes(5, 1, terrain={(2, 0): "difficult"}), id="hex"),
    ],
)
def test_difficult_terrain_doubles_the_cost(grid: GridMap) -> None:
    path = find_path(grid, c(0, 0), c(4, 0), {}, "heroes", straight=False)
    assert path == Path(cells=tuple(cells((0, 0), (1, 0), (2, 0), (3, 0), (4, 0))), cost=5)


@pytest.mark.parametrize(
    ("diagonals", "crosses", "expected_cost"),
    [
        pytest.param("chebyshev", False, 4, id="round-it-diagonally-for-free"),
        pytest.param("manhattan", True, 5, id="through-it-as-round-it-costs-6"),
    ],
)
def test_path_crosses_difficult_terrain_only_when_that_is_cheapest(
    diagonals: DiagonalRule, crosses: bool, expected_cost: int
) -> None:
    grid = square(5, 3, diagonals, terrain={(2, 1): "difficult"})
    path = find_path(grid, c(0, 1), c(4, 1), {}, "heroes", straight=False)
    assert path is not None
    assert path.cost == expected_cost
    assert (c(2, 1) in path.cells) is crosses


@pytest.mark.parametrize(
    "grid",
    [
        pytest.param(square(5, 1), id="square"),
        pytest.param(hexes(5, 1), id="hex"),
    ],
)
def test_enemies_block_and_allies_let_you_pass(grid: GridMap) -> None:
    assert (
        find_path(grid, c(0, 0), c(4, 0), {c(2, 0): "monsters"}, "heroes", straight=False) is None
    )
    path = find_path(grid, c(0, 0), c(4, 0), {c(2, 0): "heroes"}, "heroes", straight=False)
    assert path is not None
    assert c(2, 0) in path.cells
    assert path.cost == 4


@pytest.mark.parametrize("side", ["heroes", "monsters"])
def test_a_path_cannot_end_on_an_occupied_cell(side: str) -> None:
    assert find_path(square(), c(0, 0), c(3, 3), {c(3, 3): side}, "heroes", straight=False) is None


def test_the_movers_own_cell_is_not_an_obstacle() -> None:
    path = find_path(square(), c(0, 0), c(2, 0), {c(0, 0): "monsters"}, "heroes", straight=False)
    assert path is not None
    assert path.cost == 2


def test_enemies_force_a_detour() -> None:
    grid = hexes(5, 3)
    wall = {c(2, 0): "monsters", c(2, 1): "monsters"}
    path = find_path(grid, c(0, 1), c(4, 1), wall, "heroes", straight=False)
    assert path is not None
    assert not set(path.cells) & set(wall)
    assert path.cost > distance(grid, c(0, 1), c(4, 1))


def test_impassable_terrain_is_never_crossed() -> None:
    walled = square(
        5, 3, terrain={(2, 0): "impassable", (2, 1): "impassable", (2, 2): "impassable"}
    )
    assert find_path(walled, c(0, 1), c(4, 1), {}, "heroes", straight=False) is None
    gap = square(5, 3, terrain={(2, 0): "impassable", (2, 1): "impassable"})
    path = find_path(gap, c(0, 0), c(4, 0), {}, "heroes", straight=False)
    assert path is not None
    assert c(2, 2) in path.cells
    assert path.cost == 4


def test_max_cost_limits_the_path() -> None:
    grid = square(8, 1, terrain={(3, 0): "difficult"})
    assert find_path(grid, c(0, 0), c(5, 0), {}, "heroes", max_cost=6, straight=False) is not None
    assert find_path(grid, c(0, 0), c(5, 0), {}, "heroes", max_cost=5, straight=False) is None


def test_a_path_to_the_start_is_free() -> None:
    assert find_path(square(), c(2, 2), c(2, 2), {}, "heroes", straight=False) == Path(
        cells=(c(2, 2),), cost=0
    )


def test_alternate_diagonals_count_one_two_one() -> None:
    grid = square(diagonals="alternate")
    path = find_path(grid, c(0, 0), c(3, 3), {}, "heroes", straight=False)
    assert path == Path(cells=tuple(cells((0, 0), (1, 1), (2, 2), (3, 3))), cost=4)


def test_alternate_diagonals_continue_the_count_of_an_earlier_move() -> None:
    grid = square(diagonals="alternate")
    path = find_path(grid, c(0, 0), c(3, 3), {}, "heroes", diagonals_so_far=1, straight=False)
    assert path is not None
    assert path.cost == 5  # 2-1-2


def test_alternate_diagonals_make_long_diagonals_dearer_than_chebyshev() -> None:
    start, goal = c(0, 0), c(6, 6)
    cheap = find_path(square(), start, goal, {}, "heroes", straight=False)
    dear = find_path(square(diagonals="alternate"), start, goal, {}, "heroes", straight=False)
    assert cheap is not None and dear is not None
    assert (cheap.cost, dear.cost) == (6, 9)


def test_manhattan_paths_take_no_diagonal_steps() -> None:
    path = find_path(square(diagonals="manhattan"), c(0, 0), c(2, 2), {}, "heroes", straight=False)
    assert path is not None
    assert path.cost == 4
    for before, after in itertools.pairwise(path.cells):
        assert abs(after.x - before.x) + abs(after.y - before.y) == 1


def test_equal_inputs_give_the_same_path() -> None:
    grid = square(6, 6, terrain={(2, 2): "difficult", (3, 1): "impassable"})
    occupancy = {c(1, 3): "heroes", c(4, 4): "monsters", c(2, 0): "monsters"}
    reordered = dict(reversed(list(occupancy.items())))
    first = find_path(grid, c(0, 0), c(5, 5), occupancy, "heroes", straight=False)
    assert first is not None
    assert find_path(grid, c(0, 0), c(5, 5), reordered, "heroes", straight=False) == first
    assert (
        find_path(grid.model_copy(), c(0, 0), c(5, 5), occupancy, "heroes", straight=False) == first
    )


# --- properties ------------------------------------------------------------------------------

TERRAIN_KINDS: list[TerrainKind] = ["normal", "difficult", "impassable"]


@st.composite
def grids(draw: st.DrawFn, with_terrain: bool = False) -> GridMap:
    kind = draw(st.sampled_from(["square", "hex"]))
    width, height = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    diagonals: DiagonalRule = "chebyshev"
    if kind == "square":
        diagonals = draw(st.sampled_from(["chebyshev", "alternate", "manhattan"]))
    terrain: dict[tuple[int, int], TerrainKind] = {}
    if with_terrain:
        positions = st.tuples(st.integers(0, width - 1), st.integers(0, height - 1))
        terrain = draw(st.dictionaries(positions, st.sampled_from(TERRAIN_KINDS)))
    return _grid(kind, width, height, diagonals, terrain)


def cells_on(grid: GridMap) -> st.SearchStrategy[Cell]:
    return st.builds(c, st.integers(0, grid.width - 1), st.integers(0, grid.height - 1))


def all_cells(grid: GridMap) -> list[Cell]:
    return [c(x, y) for y in range(grid.height) for x in range(grid.width)]


@PROPERTY_SETTINGS
@given(st.data())
def test_distance_is_symmetric_and_zero_only_to_itself(data: st.DataObject) -> None:
    grid = data.draw(grids())
    a, b = data.draw(cells_on(grid)), data.draw(cells_on(grid))
    assert distance(grid, a, b) == distance(grid, b, a)
    assert distance(grid, a, a) == 0
    assert (distance(grid, a, b) == 0) == (a == b)


@PROPERTY_SETTINGS
@given(st.data())
def test_distance_obeys_the_triangle_inequality(data: st.DataObject) -> None:
    grid = data.draw(grids())
    a, b, m = (data.draw(cells_on(grid)) for _ in range(3))
    # "alternate" rounds each leg's half-price diagonals down, so it may overshoot by one.
    slack = 1 if grid.kind == "square" and grid.diagonals == "alternate" else 0
    assert distance(grid, a, b) <= distance(grid, a, m) + distance(grid, m, b) + slack


@PROPERTY_SETTINGS
@given(st.data())
def test_neighbours_are_exactly_the_other_cells_at_distance_one(data: st.DataObject) -> None:
    grid = data.draw(grids())
    cell = data.draw(cells_on(grid))
    around = neighbours(grid, cell)
    assert around == sorted(set(around))
    assert all(on_map(grid, n) and distance(grid, cell, n) == 1 for n in around)
    assert around == [n for n in cells_within(grid, cell, 1) if n != cell]
    assert all(cell in neighbours(grid, n) for n in around)


@PROPERTY_SETTINGS
@given(st.data())
def test_cells_within_is_every_cell_within_reach(data: st.DataObject) -> None:
    grid = data.draw(grids())
    centre = data.draw(cells_on(grid))
    reach = data.draw(st.integers(0, 6))
    expected = sorted(n for n in all_cells(grid) if distance(grid, centre, n) <= reach)
    assert cells_within(grid, centre, reach) == expected


@PROPERTY_SETTINGS
@given(st.data())
def test_line_joins_its_ends_with_single_steps_both_ways(data: st.DataObject) -> None:
    grid = data.draw(grids())
    a, b = data.draw(cells_on(grid)), data.draw(cells_on(grid))
    cells_on_line = line(grid, a, b)
    assert (cells_on_line[0], cells_on_line[-1]) == (a, b)
    for before, after in itertools.pairwise(cells_on_line):
        assert after in neighbours(grid, before)
    assert len(set(cells_on_line)) == len(cells_on_line)
    assert line(grid, b, a) == cells_on_line[::-1]


@PROPERTY_SETTINGS
@given(st.data())
def test_line_is_as_short_as_single_steps_allow(data: st.DataObject) -> None:
    grid = data.draw(grids())
    a, b = data.draw(cells_on(grid)), data.draw(cells_on(grid))
    dx, dy = abs(b.x - a.x), abs(b.y - a.y)
    if grid.kind == "hex":
        steps = distance(grid, a, b)
    elif grid.diagonals == "manhattan":
        steps = dx + dy
    else:
        steps = max(dx, dy)
    assert len(line(grid, a, b)) == steps + 1


@st.composite
def path_problems(draw: st.DrawFn) -> tuple[GridMap, Cell, Cell, dict[Cell, str], int | None]:
    grid = draw(grids(with_terrain=True))
    start, goal = draw(cells_on(grid)), draw(cells_on(grid))
    occupancy = draw(st.dictionaries(cells_on(grid), st.sampled_from(["heroes", "monsters"])))
    max_cost = draw(st.none() | st.integers(0, 30))
    return grid, start, goal, occupancy, max_cost


def reference_cost(
    grid: GridMap, start: Cell, goal: Cell, occupancy: Mapping[Cell, str], max_cost: int | None
) -> int | None:
    """Plain Dijkstra over (cell, diagonal parity) using only the public step rules."""
    if start == goal:
        return 0
    if goal in occupancy:
        return None
    best = {(start, 0): 0}
    queue = [(0, start.y, start.x, 0)]
    while queue:
        cost, y, x, parity = heapq.heappop(queue)
        cell = c(x, y)
        if cost > best[(cell, parity)]:
            continue
        if cell == goal:
            return cost if max_cost is None or cost <= max_cost else None
        for after in neighbours(grid, cell):
            step = step_cost(grid, cell, after, diagonals_so_far=parity)
            if step is None or occupancy.get(after, "heroes") != "heroes":
                continue
            diagonal = grid.kind == "square" and after.x != x and after.y != y
            state = (after, (parity + diagonal) % 2)
            if cost + step < best.get(state, cost + step + 1):
                best[state] = cost + step
                heapq.heappush(queue, (cost + step, after.y, after.x, state[1]))
    return None


def path_step_costs(grid: GridMap, path: Path) -> list[int | None]:
    costs: list[int | None] = []
    diagonals = 0
    for before, after in itertools.pairwise(path.cells):
        costs.append(step_cost(grid, before, after, diagonals_so_far=diagonals))
        diagonals += grid.kind == "square" and before.x != after.x and before.y != after.y
    return costs


@pytest.mark.parametrize(
    "straight", [pytest.param(False, id="first-found"), pytest.param(True, id="straight")]
)
@PROPERTY_SETTINGS
@given(path_problems())
def test_found_paths_are_legal_and_as_cheap_as_possible(
    straight: bool, problem: tuple[GridMap, Cell, Cell, dict[Cell, str], int | None]
) -> None:
    grid, start, goal, occupancy, max_cost = problem
    path = find_path(grid, start, goal, occupancy, "heroes", max_cost, straight=straight)
    expected_cost = reference_cost(grid, start, goal, occupancy, max_cost)
    if path is None:
        assert expected_cost is None
        return
    assert path.cost == expected_cost
    assert (path.cells[0], path.cells[-1]) == (start, goal)
    assert path.cost >= distance(grid, start, goal)
    assert max_cost is None or path.cost <= max_cost
    step_costs = path_step_costs(grid, path)
    assert None not in step_costs  # also: every step is between neighbours
    assert sum(cost or 0 for cost in step_costs) == path.cost
    assert all(terrain_at(grid, cell).kind != "impassable" for cell in path.cells[1:])
    assert all(occupancy.get(cell, "heroes") == "heroes" for cell in path.cells[1:])
    assert path.cells[-1] == start or goal not in occupancy
    assert find_path(grid, start, goal, occupancy, "heroes", max_cost, straight=straight) == path


def reference_costs(grid: GridMap, start: Cell, occupancy: Mapping[Cell, str]) -> dict[Cell, int]:
    """Every cell's cheapest cost from start: reference_cost's Dijkstra, run to the end."""
    best = {(start, 0): 0}
    queue = [(0, start.y, start.x, 0)]
    while queue:
        cost, y, x, parity = heapq.heappop(queue)
        cell = c(x, y)
        if cost > best[(cell, parity)]:
            continue
        for after in neighbours(grid, cell):
            step = step_cost(grid, cell, after, diagonals_so_far=parity)
            if step is None or occupancy.get(after, "heroes") != "heroes":
                continue
            diagonal = grid.kind == "square" and after.x != x and after.y != y
            state = (after, (parity + diagonal) % 2)
            if cost + step < best.get(state, cost + step + 1):
                best[state] = cost + step
                heapq.heappush(queue, (cost + step, after.y, after.x, state[1]))
    out: dict[Cell, int] = {}
    for (cell, _), cost in best.items():
        out[cell] = min(cost, out.get(cell, cost))
    return out


@PROPERTY_SETTINGS
@given(path_problems())
def test_costs_within_are_the_cells_a_path_reaches_at_its_cost(
    problem: tuple[GridMap, Cell, Cell, dict[Cell, str], int | None],
) -> None:
    """What a front end draws as reachable (`costs_within`) is what a move finds: each cell
    but the start and the occupied ones, at its cheapest path's cost, when within the limit."""
    grid, start, _, occupancy, max_cost = problem
    limit = 6 if max_cost is None else max_cost
    occupancy = {cell: side for cell, side in occupancy.items() if cell != start}
    costs = costs_within(grid, start, occupancy, "heroes", limit)
    expected = {
        cell: cost
        for cell, cost in reference_costs(grid, start, occupancy).items()
        if cell != start and cell not in occupancy and cost <= limit
    }
    assert costs == expected
    assert list(costs) == sorted(costs)


def test_costs_within_a_square_map_past_difficult_terrain_and_an_enemy() -> None:
    grid = square(5, 1, terrain={(1, 0): "difficult"})
    occupancy = {c(3, 0): "monsters"}

    assert costs_within(grid, c(0, 0), occupancy, "heroes", 4) == {c(1, 0): 2, c(2, 0): 3}
