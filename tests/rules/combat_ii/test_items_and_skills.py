"""combat-ii §4: items that tumble away on a sprawling weapon fling (Critical Hit and Miss
Tables I) and lie where they land until picked up; and §4 Agility's thief adjustments to
move silently.

The fumbles follow test_criticals: the fighter (at (0, 0) in `duel`) misses the ogre with a
natural 1 and rolls 10 on the critical miss d10, then a d3 for the sprawl's phases; each
item held then rolls a d12 (feet) and a d8 (direction, 1 north then clockwise)."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.grid import Cell
from service.rules.combat_ii.views import sheet
from tests.rules.combat_ii.cast import FIGHTER, OGRE, duel, fighter_of, of_type, only, stand, swing
from tests.rules.combat_ii.given import (
    LONG_SWORD,
    SHORT_SWORD,
    add,
    declare,
    encounter,
    line_map,
    refused,
    start,
    state_of,
)
from tests.rules.harness import Table

FLING = [1, 10, 1]
"""A natural 1, the d10's 10 (sprawling weapon fling), sprawled for 3 phases."""
DRAW = {"type": "prepare", "combatant_id": "fighter", "what": "draw", "weapon": "long sword"}


def lands(envelopes: list[Any]) -> list[tuple[str, tuple[int, int] | None]]:
    """(weapon, square) of each weapon-dropped event."""
    return [
        (d["weapon"], (d["at"]["x"], d["at"]["y"]) if d["at"] is not None else None)
        for d in of_type(envelopes, "weapon-dropped")
    ]


def in_the_open(
    kind: str = "square",
    impassable: tuple[tuple[int, int], ...] = (),
    fighter: dict[str, Any] | None = None,
) -> Table:
    """The fighter at (5, 2) in the middle of a 10 by 5 map, the ogre next to it at (6, 2);
    phase 1 awaits the ogre's side (ogres 7, pcs 3)."""
    table = encounter(criticals="tables")
    terrain = [{"cell": list(c), "terrain": {"kind": "impassable"}} for c in impassable]
    grid = {"kind": kind, "width": 10, "height": 5, "terrain": terrain}
    table.send({"type": "set-map", "map": grid})
    add(table, "fighter", "pcs", {**FIGHTER, **(fighter or {})}, at=(5, 2))
    add(table, "ogre", "ogres", OGRE, at=(6, 2))
    start(table, initiative=[7, 3])
    return table


def back_on_its_feet(table: Table) -> None:
    """Sit out a 3-phase sprawl: round 2's phase 1 ends with the AGI check (a 10 passes)."""
    stand(table, "ogre")
    stand(table, "ogre", dice=[7, 3])
    stand(table, "ogre", dice=[10])
    assert fighter_of(table, "fighter").effects == ()


# --- §4 Critical Miss 10: items tumble away 1d12 feet --------------------------------------------


@pytest.mark.parametrize(
    ("feet", "d8", "square"),
    [
        pytest.param(1, 1, (5, 1), id="1 ft north: 1 square"),
        pytest.param(10, 3, (6, 2), id="10 ft east: 1 square, under the ogre"),
        pytest.param(11, 4, (7, 4), id="11 ft south-east: 2 squares"),
        pytest.param(12, 5, (5, 4), id="12 ft south: 2 squares"),
        pytest.param(12, 7, (3, 2), id="12 ft west"),
        pytest.param(12, 8, (3, 0), id="12 ft north-west"),
        pytest.param(6, 2, (6, 1), id="6 ft north-east"),
        pytest.param(9, 6, (4, 3), id="9 ft south-west"),
    ],
)  # fmt: skip
def test_a_flung_weapon_tumbles_1d12_feet_in_a_d8_direction(
    feet: int, d8: int, square: tuple[int, int]
) -> None:
    """§4 Critical Miss 10 "SPRAWLING WEAPON FLING ... All held items automatically tumble
    away 1d12 feet in random directions": 10 ft a square, rounded up."""
    table = in_the_open()

    flung = swing(table, dice=[*FLING, feet, d8])

    assert lands(flung) == [("long sword", square)]
    assert only(flung, "weapon-dropped")["how"] == "flung"
    assert fighter_of(table, "fighter").dropped_at == {"long sword": Cell(x=square[0], y=square[1])}
    assert table.replayed() == table.state


def test_each_held_item_tumbles_on_its_own_dice() -> None:
    pair = {"weapons": [LONG_SWORD, SHORT_SWORD], "wielding": ["long sword", "short sword"]}
    table = in_the_open(fighter=pair)

    flung = swing(table, dice=[*FLING, 12, 1, 3, 3])

    assert lands(flung) == [("long sword", (5, 0)), ("short sword", (6, 2))]
    purposes = [r["purpose"] for e in flung for r in e.rolls][-4:]
    assert purposes == [
        "tumble: long sword (feet)", "tumble: long sword (direction)",
        "tumble: short sword (feet)", "tumble: short sword (direction)",
    ]  # fmt: skip
    assert table.replayed() == table.state


@pytest.mark.parametrize(
    ("d8", "square"),
    [
        pytest.param(1, (0, 0), id="north: off the map, stays put"),
        pytest.param(7, (0, 0), id="west: off the map, stays put"),
        pytest.param(2, (0, 0), id="north-east: off the map"),
        pytest.param(5, (0, 2), id="south: on the map"),
    ],
)
def test_a_tumbling_item_stops_at_the_edge_of_the_map(d8: int, square: tuple[int, int]) -> None:
    table = duel(criticals="tables")

    assert lands(swing(table, dice=[*FLING, 12, d8])) == [("long sword", square)]


@pytest.mark.parametrize(
    ("walls", "square"),
    [
        pytest.param(((5, 4),), (5, 3), id="wall 2 squares off: stops before it"),
        pytest.param(((5, 3),), (5, 2), id="wall next to it: stays put"),
        pytest.param(((4, 3),), (5, 4), id="wall elsewhere: no matter"),
    ],
)
def test_a_tumbling_item_stops_before_impassable_terrain(
    walls: tuple[tuple[int, int], ...], square: tuple[int, int]
) -> None:
    table = in_the_open(impassable=walls)

    assert lands(swing(table, dice=[*FLING, 12, 5])) == [("long sword", square)]


def test_on_a_hex_map_the_direction_is_a_d6() -> None:
    """Interpretation: a hex has six neighbours; the d6 goes 1 east, 2 north-east, 3
    north-west, 4 west, 5 south-west, 6 south-east (axial q, r)."""
    table = in_the_open(kind="hex")

    flung = swing(table, dice=[*FLING, 11, 3])

    assert lands(flung) == [("long sword", (5, 0))]
    assert [r["k"] for e in flung for r in e.rolls][-2:] == [12, 6]


def test_without_a_map_nothing_more_is_rolled_and_the_item_lies_nowhere_known() -> None:
    table = encounter(criticals="tables")
    add(table, "fighter", "pcs", FIGHTER)
    add(table, "ogre", "ogres", OGRE)
    start(table, initiative=[7, 3])

    flung = swing(table, dice=FLING)

    assert lands(flung) == [("long sword", None)]
    assert sheet(state_of(table), "fighter")["dropped"] == {"long sword": None}
    back_on_its_feet(table)
    stand(table, "ogre")
    table.send(DRAW)
    assert fighter_of(table, "fighter").in_hand == ("long sword",)


@pytest.mark.parametrize(
    ("dice", "how"),
    [
        pytest.param([1, 5, 11, 10], "fumble: DEX check failed", id="fumble"),
        pytest.param([1, 7, 10], "fall to knees: DEX-1 failed", id="knees"),
        pytest.param([1, 9, 1, 9], "prone: DEX-2 failed", id="prone"),
    ],
)
def test_a_dropped_weapon_lies_at_the_holders_feet(dice: list[int], how: str) -> None:
    """§4 Critical Miss 5-9: "weapon dropped" (no distance given): on the holder's square."""
    table = duel(criticals="tables")

    dropped = swing(table, dice=dice)

    assert lands(dropped) == [("long sword", (0, 0))], how
    assert sheet(state_of(table), "fighter")["dropped"] == {"long sword": [0, 0]}


# --- picking the weapon back up ------------------------------------------------------------------


def test_a_weapon_two_squares_away_cannot_be_picked_up() -> None:
    table = duel(criticals="tables")
    swing(table, dice=[*FLING, 12, 4])  # to (2, 2)
    back_on_its_feet(table)
    stand(table, "ogre")

    violation = refused(table, DRAW)

    assert violation.code == "prepare/out-of-reach"
    assert "(2, 2)" in str(violation) and "on or next to" in str(violation)
    assert sheet(state_of(table), "fighter")["dropped"] == {"long sword": [2, 2]}


def test_standing_next_to_it_the_weapon_is_picked_up() -> None:
    table = duel(criticals="tables")
    swing(table, dice=[*FLING, 12, 4])  # to (2, 2)
    back_on_its_feet(table)
    stand(table, "ogre")
    declare(table, "fighter", "move", to=[1, 1], mode="withdraw")

    stand(table, "ogre")
    table.send(DRAW, dice=[7, 3])  # the phase ends the round

    assert fighter_of(table, "fighter").in_hand == ("long sword",)
    assert fighter_of(table, "fighter").dropped_at == {}
    assert sheet(state_of(table), "fighter")["dropped"] == {}
    assert table.replayed() == table.state


def test_a_weapon_at_the_holders_feet_is_picked_up_where_it_fell() -> None:
    table = duel(criticals="tables")
    swing(table, dice=[*FLING, 5, 5])  # to (0, 1), next to the fighter
    back_on_its_feet(table)
    stand(table, "ogre")

    table.send(DRAW)

    assert fighter_of(table, "fighter").in_hand == ("long sword",)


def test_a_weapon_dropped_at_the_feet_is_left_behind_by_moving_away() -> None:
    table = duel(criticals="tables", width=30)
    swing(table, dice=[1, 5, 11, 10])  # fumbled at (0, 0)
    stand(table, "ogre")
    declare(table, "fighter", "move", to=[0, 1], mode="withdraw")
    stand(table, "ogre")
    declare(table, "fighter", "move", to=[0, 2], mode="withdraw", dice=[7, 3])
    stand(table, "ogre")

    assert refused(table, DRAW).code == "prepare/out-of-reach"


# --- §4 Agility: thief adjustments to move silently ---------------------------------------------

DAGGER = {"name": "dagger", "speed": 2, "damage": "1d4"}
THIEF = {"hp": 20, "thac0": 19, "ac": 6, "mv": 12, "thief": True, "move_silently": 60,
         "backstab": 2, "weapons": [DAGGER]}  # fmt: skip
TROLL = {"hp": 40, "thac0": 13, "ac": 4, "mv": 12, "size": "large",
         "weapons": [{"name": "claws", "kind": "natural", "damage": "1d4+4"}]}  # fmt: skip


def backstab(d100: int, agility: int | None, option: bool = True) -> dict[str, Any]:
    """The thief charges the unaware troll with a backstab; both then miss with a 1. Returns
    the move-silently check."""
    table = encounter(agility=option)
    line_map(table)
    stats = THIEF if agility is None else {**THIEF, "agility": agility}
    add(table, "thief", "pcs", stats, at=(5, 0))
    add(table, "troll", "trolls", TROLL, at=(13, 0))
    start(table, initiative=[3, 7])
    declare(table, "troll", "stand")
    stored = declare(
        table, "thief", "charge", target="troll", speed=2, backstab=True, dice=[d100, 1, 1]
    )
    check: dict[str, Any] = only(stored, "check-rolled")["check"]
    return check


@pytest.mark.parametrize(
    ("agility", "modifier"),
    [
        pytest.param(8, -10, id="AGI 8: as 9"),
        pytest.param(9, -10, id="AGI 9: -10%"),
        pytest.param(10, -5, id="AGI 10: -5%"),
        pytest.param(11, 0, id="AGI 11: none"),
        pytest.param(16, 0, id="AGI 16: none"),
        pytest.param(17, 5, id="AGI 17: +5%"),
        pytest.param(18, 10, id="AGI 18: +10%"),
        pytest.param(19, 15, id="AGI 19: +15%"),
        pytest.param(21, 15, id="AGI 21: as 19"),
    ],
)  # fmt: skip
def test_agility_adjusts_the_move_silently_chance(agility: int, modifier: int) -> None:
    """§4 Agility "THIEF ADJUSTMENTS ... AGI: Move Silently, Hide in Shadows, Climb Walls
    (AGI 9 = -10%, 10 = -5%, 17 = +5%, 18 = +10%, 19 = +15%)"."""
    chance = 60 + modifier

    made = backstab(chance, agility)
    missed = backstab(chance + 1, agility)

    assert (made["ability"], made["score"], made["modifier"]) == ("move silently", 60, modifier)
    assert (made["passed"], missed["passed"]) == (True, False)


def test_without_the_agility_option_the_chance_is_the_stat_blocks() -> None:
    made, missed = backstab(60, agility=18, option=False), backstab(61, agility=18, option=False)

    assert made["modifier"] == 0
    assert (made["passed"], missed["passed"]) == (True, False)


def test_with_the_option_but_no_agility_score_dex_adjusts_by_ph_table_28() -> None:
    """The thief's DEX is the stat block's default, 10: Table 28 takes 15% off move silently."""
    made, missed = backstab(45, agility=None), backstab(46, agility=None)

    assert made["modifier"] == -15
    assert (made["passed"], missed["passed"]) == (True, False)
