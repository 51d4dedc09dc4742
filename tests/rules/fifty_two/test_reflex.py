"""fifty-two §8 Reflex Saves: the action points a save costs and from which round (§8.1,
§8.2), cover within a step or a dive away (§8.3), and the save itself (D&D 3.x)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.domain.errors import RuleViolation
from service.rules.fifty_two.reflex import (
    STAND_UP_COST,
    ReflexCost,
    dive_limit,
    reach_cover,
    reflex_cost,
    save_succeeds,
    saved_damage,
)
from service.rules.fifty_two.state import FiftyTwoStats, Size

ABLE = FiftyTwoStats(hp=39, dex_mod=4, str_mod=0, reflex_save=7)
EVANS = FiftyTwoStats(hp=133, dex_mod=4, str_mod=5)


# --- §8.1 and §8.2 the cost and the round it comes from ---------------------------------------


@pytest.mark.parametrize(
    ("succeeded", "acted", "expected"),
    [
        pytest.param(False, True, ReflexCost(1, "next-round"), id="acted, failed: 1 next round"),
        pytest.param(True, True, ReflexCost(2, "next-round"), id="acted, saved: 2 next round"),
        pytest.param(False, False, ReflexCost(1, "this-round"), id="to act, failed: 1 now"),
        pytest.param(True, False, ReflexCost(2, "this-round"), id="to act, saved: 2 now"),
    ],
)
def test_a_save_costs_one_point_and_a_second_if_it_succeeds(
    succeeded: bool, acted: bool, expected: ReflexCost
) -> None:
    assert reflex_cost(ABLE, succeeded, acted_this_round=acted) == expected


# --- §8.3 cover -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("succeeded", "points"),
    [
        pytest.param(False, 0, id="failed save in cover: free"),
        pytest.param(True, 1, id="successful save in cover: 1"),
    ],
)
def test_cover_within_a_step_takes_one_point_off_the_cost(succeeded: bool, points: int) -> None:
    cost = reflex_cost(ABLE, succeeded, acted_this_round=False, cover_feet=5)

    assert cost == ReflexCost(points, "this-round", prone=False)


def test_cover_where_the_defender_stands_is_within_a_step() -> None:
    assert reach_cover(0, 0, "medium") == "step"


def test_a_dive_to_cover_takes_one_point_off_and_leaves_the_defender_prone() -> None:
    cost = reflex_cost(EVANS, True, acted_this_round=True, cover_feet=10)

    assert cost == ReflexCost(1, "next-round", prone=True)
    assert STAND_UP_COST == 1


@pytest.mark.parametrize(
    ("str_mod", "size", "feet"),
    [
        pytest.param(0, "medium", 10, id="STR +0: the 10 foot minimum"),
        pytest.param(3, "medium", 10, id="STR +3: 8, raised to 10"),
        pytest.param(5, "medium", 10, id="STR +5: 10"),
        pytest.param(8, "medium", 13, id="STR +8: 13"),
        pytest.param(0, "small", 5, id="small, STR +0: the minimum, then -5"),
        pytest.param(8, "small", 8, id="small, STR +8: 13 - 5"),
        pytest.param(0, "large", 15, id="large, STR +0: the minimum, then +5"),
        pytest.param(8, "large", 18, id="large, STR +8: 13 + 5"),
    ],
)
def test_the_dive_limit_is_five_plus_str_at_least_ten_then_size(
    str_mod: int, size: Size, feet: int
) -> None:
    assert dive_limit(str_mod, size) == feet


def test_a_medium_defender_can_always_dive_ten_feet() -> None:
    assert reach_cover(10, -3, "medium") == "dive"


def test_cover_beyond_the_dive_limit_is_out_of_reach() -> None:
    with pytest.raises(RuleViolation) as caught:
        reflex_cost(ABLE, True, acted_this_round=False, cover_feet=15)

    assert caught.value.code == "reflex/cover-out-of-reach"
    assert caught.value.rule == "fifty-two §8.3"
    assert caught.value.message == (
        "the cover is 15 feet away; a medium defender with STR +0 can dive at most 10 feet"
    )


def test_a_small_weak_defender_cannot_dive_to_cover_ten_feet_away() -> None:
    with pytest.raises(RuleViolation) as caught:
        reach_cover(10, 0, "small")

    assert caught.value.code == "reflex/cover-out-of-reach"


def test_a_distance_is_never_negative() -> None:
    with pytest.raises(ValueError, match="never negative"):
        reach_cover(-5, 0, "medium")


@given(
    succeeded=st.booleans(),
    acted=st.booleans(),
    feet=st.none() | st.integers(0, 10),
    str_mod=st.integers(-10, 30),
)
def test_a_save_costs_zero_to_two_points(
    succeeded: bool, acted: bool, feet: int | None, str_mod: int
) -> None:
    defender = FiftyTwoStats(str_mod=str_mod)

    cost = reflex_cost(defender, succeeded, acted_this_round=acted, cover_feet=feet)

    assert 0 <= cost.points <= 2
    assert cost.prone == (feet is not None and feet > 5)


# --- the save itself --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("roll", "bonus", "dc", "saved"),
    [
        pytest.param(8, 7, 15, True, id="8 + 7 meets DC 15"),
        pytest.param(7, 7, 15, False, id="7 + 7 misses DC 15"),
        pytest.param(1, 30, 15, False, id="a natural 1 always fails"),
        pytest.param(20, -5, 30, True, id="a natural 20 always succeeds"),
    ],
)
def test_a_reflex_save_is_a_d20_plus_the_save_against_the_dc(
    roll: int, bonus: int, dc: int, saved: bool
) -> None:
    assert save_succeeds(roll, bonus, dc) is saved


@pytest.mark.parametrize("roll", [0, 21])
def test_a_reflex_save_is_rolled_on_a_d20(roll: int) -> None:
    with pytest.raises(RuleViolation) as caught:
        save_succeeds(roll, 0, 10)

    assert caught.value.code == "reflex/not-a-d20-roll"


@pytest.mark.parametrize(
    ("damage", "succeeded", "taken"),
    [
        pytest.param(35, False, 35, id="failed: all of it"),
        pytest.param(35, True, 17, id="saved: half, rounded down"),
        pytest.param(1, True, 0, id="saved against 1: nothing"),
    ],
)
def test_a_successful_save_halves_the_damage(damage: int, succeeded: bool, taken: int) -> None:
    assert saved_damage(damage, succeeded) == taken


def test_damage_is_never_negative() -> None:
    with pytest.raises(ValueError, match="never negative"):
        saved_damage(-1, True)


@given(st.integers(0, 10_000))
def test_a_saved_half_is_never_more_than_the_unsaved_half(damage: int) -> None:
    saved = saved_damage(damage, True)

    assert 0 <= saved <= damage - saved
