"""d20-action-points Melee Attack and Ranged Attacks (d20 against AC, range bands, thrown
objects), Resolving Damage (the natural 20), advantage and disadvantage, and the optional
Environment Modifiers with the seed's Examples of Environmental Modifiers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.domain.errors import RuleViolation
from service.rules.d20_action_points.attacks import (
    DARKNESS,
    DARKVISION,
    DENSE_FOLIAGE,
    FOG,
    HALF_COVER,
    MOSTLY_COVERED,
    MUD,
    PRONE,
    Circumstance,
    Edge,
    Reach,
    armor_class,
    attack,
    attack_edge,
    attack_modifier,
    cover,
    damage,
    damage_bonus,
    darkness,
    kept_die,
    movement_rate,
    net_edge,
    range_penalty,
    throw_penalty,
    throw_range,
    thrown_damage,
)

d20 = st.integers(1, 20)
ordinary_d20 = st.integers(2, 19)

# --- the attack roll --------------------------------------------------------------------------


def test_a_tie_with_the_armor_class_is_a_hit() -> None:
    assert attack(12, 3, 15).hit


def test_one_short_of_the_armor_class_is_a_miss() -> None:
    roll = attack(11, 3, 15)

    assert (roll.total, roll.hit) == (14, False)


@given(ordinary_d20, st.integers(-10, 20))
def test_a_tie_always_hits(natural: int, modifier: int) -> None:
    assert attack(natural, modifier, ac=natural + modifier).hit


@given(ordinary_d20, st.integers(-10, 20), st.integers(0, 40))
def test_a_hit_is_a_total_of_at_least_the_armor_class(natural: int, modifier: int, ac: int) -> None:
    assert attack(natural, modifier, ac).hit == (natural + modifier >= ac)


def test_a_natural_20_is_a_critical_hit_even_against_an_armor_class_out_of_reach() -> None:
    roll = attack(20, 0, 30)

    assert (roll.hit, roll.critical_hit, roll.critical_fail) == (True, True, False)


def test_a_natural_1_is_a_critical_fail_and_misses_whatever_the_bonus() -> None:
    roll = attack(1, 20, 10)

    assert (roll.total, roll.hit, roll.critical_hit, roll.critical_fail) == (21, False, False, True)


@pytest.mark.parametrize("natural", [0, 21, -3])
def test_a_d20_shows_one_to_twenty(natural: int) -> None:
    with pytest.raises(ValueError):
        attack(natural, 0, 10)


# --- advantage and disadvantage ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second", "edge", "kept"),
    [
        pytest.param(7, 15, "advantage", 15, id="advantage keeps the highest"),
        pytest.param(15, 7, "advantage", 15, id="advantage, either order"),
        pytest.param(7, 15, "disadvantage", 7, id="disadvantage keeps the lowest"),
        pytest.param(15, 7, "disadvantage", 7, id="disadvantage, either order"),
        pytest.param(7, None, "normal", 7, id="no edge: one die"),
        pytest.param(7, 15, "normal", 7, id="no edge: a second die is ignored"),
    ],
)
def test_two_d20s_keep_the_highest_or_the_lowest(
    first: int, second: int | None, edge: Edge, kept: int
) -> None:
    assert kept_die(first, second, edge) == kept


def test_an_edge_needs_the_second_die() -> None:
    with pytest.raises(ValueError, match="two d20s"):
        kept_die(12, None, "advantage")


def test_the_kept_die_decides_the_critical_hit() -> None:
    assert attack(kept_die(20, 4, "advantage"), 0, 15).critical_hit
    assert not attack(kept_die(20, 4, "disadvantage"), 0, 15).critical_hit


@pytest.mark.parametrize(
    ("advantage", "disadvantage", "edge"),
    [
        pytest.param(True, False, "advantage", id="advantage"),
        pytest.param(False, True, "disadvantage", id="disadvantage"),
        pytest.param(True, True, "normal", id="both cancel"),
        pytest.param(False, False, "normal", id="neither"),
    ],
)
def test_advantage_and_disadvantage_cancel(advantage: bool, disadvantage: bool, edge: Edge) -> None:
    assert net_edge(advantage, disadvantage) == edge


@given(d20, d20)
def test_advantage_never_lowers_the_kept_die_and_disadvantage_never_raises_it(
    first: int, second: int
) -> None:
    assert kept_die(first, second, "advantage") >= max(first, second) >= first
    assert kept_die(first, second, "disadvantage") <= first
    assert kept_die(first, second, "disadvantage") <= kept_die(first, second, "advantage")


# --- damage -----------------------------------------------------------------------------------


def test_a_hit_adds_strength_and_a_magical_sword_to_the_dice() -> None:
    assert damage(6, damage_bonus("melee", strength=2, other=1)) == 9


def test_a_natural_20_rolls_damage_once_adds_the_bonuses_then_doubles_the_total() -> None:
    # Not the dice doubled and the bonuses added: (6 + 3) x 2, not 6 x 2 + 3.
    assert damage(6, 3, critical_hit=True) == 18


def test_ranged_weapons_add_no_strength_or_dexterity_to_damage() -> None:
    assert damage_bonus("ranged", strength=3, other=1) == 1
    assert damage_bonus("melee", strength=3, other=1) == 4


def test_damage_is_never_negative() -> None:
    assert damage(1, -3) == 0
    assert damage(1, -3, critical_hit=True) == 0


@given(st.integers(1, 60), st.integers(0, 20))
def test_a_critical_hit_does_double_the_damage(rolled: int, bonus: int) -> None:
    assert damage(rolled, bonus, critical_hit=True) == 2 * damage(rolled, bonus)


# --- ranged attacks ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("feet", "penalty"),
    [
        pytest.param(0, 0, id="0 ft: no penalty"),
        pytest.param(80, 0, id="80 ft: the end of the first band, no penalty"),
        pytest.param(81, -2, id="81 ft: -2"),
        pytest.param(160, -2, id="160 ft: -2"),
        pytest.param(161, -4, id="161 ft: -4"),
        pytest.param(240, -4, id="240 ft: -4"),
        pytest.param(241, -6, id="241 ft: -6"),
        pytest.param(320, -6, id="320 ft: the maximum, -6"),
    ],
)
def test_a_crossbow_of_range_80_320_has_four_bands(feet: int, penalty: int) -> None:
    assert range_penalty(feet, 80, 320) == penalty


def test_a_crossbow_cannot_shoot_past_320_feet() -> None:
    with pytest.raises(RuleViolation) as caught:
        range_penalty(321, 80, 320)

    assert caught.value.code == "attack/out-of-range"
    assert caught.value.rule == "d20-action-points Ranged Attacks"
    assert caught.value.message == (
        "the target is 321 feet away; this weapon reaches 320 feet at most"
    )


def test_a_last_band_shorter_than_the_others_still_costs_two() -> None:
    assert range_penalty(100, 30, 100) == -6


@pytest.mark.parametrize(
    ("feet", "short", "long"),
    [
        pytest.param(-1, 80, 320, id="a negative distance"),
        pytest.param(10, 0, 320, id="no first range"),
        pytest.param(10, 80, 40, id="a maximum below the first range"),
    ],
)
def test_nonsense_ranges_are_refused(feet: int, short: int, long: int) -> None:
    with pytest.raises(ValueError):
        range_penalty(feet, short, long)


@given(st.integers(0, 320), st.integers(0, 320))
def test_a_farther_target_is_never_easier_to_hit(near: int, far: int) -> None:
    near, far = sorted((near, far))
    assert range_penalty(far, 80, 320) <= range_penalty(near, 80, 320) <= 0


# --- thrown objects ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("strength", "pounds", "feet"),
    [
        pytest.param(0, 1, 19, id="a 1 lb rock, STR +0: 19 ft"),
        pytest.param(3, 2, 21, id="a 2 lb flask, STR +3: 21 ft"),
        pytest.param(2, 15, 7, id="a 15 lb chair, STR +2: 7 ft"),
        pytest.param(-1, 25, 0, id="too heavy to go anywhere"),
    ],
)
def test_a_thrown_object_goes_20_feet_plus_strength_minus_a_foot_a_pound(
    strength: int, pounds: int, feet: int
) -> None:
    assert throw_range(strength, pounds) == feet


def test_a_thrown_object_does_a_point_of_damage_a_pound() -> None:
    assert thrown_damage(15) == 15


def test_a_throw_has_no_penalty_within_its_range_and_no_reach_beyond() -> None:
    assert throw_penalty(21, strength=3, pounds=2) == 0
    with pytest.raises(RuleViolation) as caught:
        throw_penalty(8, strength=2, pounds=15)

    assert caught.value.code == "attack/out-of-range"
    assert "a 15 lb object thrown with STR +2 goes 7 feet" in caught.value.message


def test_nothing_weightless_is_thrown() -> None:
    with pytest.raises(ValueError):
        throw_range(0, 0)


# --- environment modifiers --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reach", "ac"),
    [
        pytest.param("ranged", 16, id="prone against a ranged attack: +4"),
        pytest.param("melee", 12, id="prone against a melee attack: nothing"),
    ],
)
def test_dropping_prone_gives_four_armor_class_against_ranged_attacks_only(
    reach: Reach, ac: int
) -> None:
    assert armor_class(12, reach, [PRONE]) == ac


@pytest.mark.parametrize(
    ("percent", "expected"),
    [
        pytest.param(0, None, id="0%: no cover"),
        pytest.param(1, HALF_COVER, id="1%: +2"),
        pytest.param(50, HALF_COVER, id="50%: half cover, +2"),
        pytest.param(51, MOSTLY_COVERED, id="51%: +4"),
        pytest.param(99, MOSTLY_COVERED, id="99%: +4"),
    ],
)
def test_cover_up_to_half_gives_two_and_more_than_half_four(
    percent: int, expected: Circumstance | None
) -> None:
    assert cover(percent) == expected


def test_a_target_entirely_behind_cover_cannot_be_attacked() -> None:
    with pytest.raises(RuleViolation) as caught:
        cover(100)

    assert caught.value.code == "attack/full-cover"
    assert caught.value.rule == "d20-action-points Environment Modifiers (optional)"


@pytest.mark.parametrize("reach", ["melee", "ranged"])
def test_cover_counts_against_every_attack(reach: Reach) -> None:
    assert armor_class(12, reach, [MOSTLY_COVERED]) == 16


def test_prone_behind_more_than_half_cover_adds_both_against_arrows() -> None:
    assert armor_class(12, "ranged", [PRONE, MOSTLY_COVERED]) == 20


def test_darkness_costs_attackers_without_darkvision_two_and_gives_darkvision_advantage() -> None:
    assert darkness(darkvision=False) == DARKNESS
    assert attack_modifier("melee", [darkness(darkvision=False)]) == -2
    assert attack_edge([darkness(darkvision=False)]) == "normal"
    assert darkness(darkvision=True) == DARKVISION
    assert attack_modifier("melee", [darkness(darkvision=True)]) == 0
    assert attack_edge([darkness(darkvision=True)]) == "advantage"


def test_difficult_terrain_never_leaves_a_negative_movement_rate() -> None:
    assert movement_rate(15, [MUD, DENSE_FOLIAGE]) == 0


# --- the seed's Examples of Environmental Modifiers -------------------------------------------


def test_the_muddy_swamp_costs_ten_feet_of_normal_movement() -> None:
    assert movement_rate(30, [MUD]) == 20


def test_half_cover_behind_the_dead_trees_gives_plus_two_ac() -> None:
    assert cover(50) == HALF_COVER
    assert armor_class(14, "ranged", [HALF_COVER]) == 16
    assert armor_class(14, "melee", [HALF_COVER]) == 16


def test_shooting_from_behind_the_dead_tree_keeps_half_cover_but_the_fog_costs_two() -> None:
    # "You still have half cover (+2 AC). However, the thick fog ... imposing a -2 penalty".
    assert armor_class(14, "ranged", [HALF_COVER]) == 16
    assert attack_modifier("ranged", [FOG]) == -2
    assert attack(13, 3 + attack_modifier("ranged", [FOG]), 14).hit
    assert not attack(12, 3 + attack_modifier("ranged", [FOG]), 14).hit


@given(
    st.lists(st.sampled_from([PRONE, HALF_COVER, MOSTLY_COVERED, FOG, MUD])),
    st.sampled_from(["melee", "ranged"]),
)
def test_no_environment_lowers_a_defenders_armor_class(
    around: list[Circumstance], reach: Reach
) -> None:
    assert armor_class(12, reach, around) >= 12
    assert attack_modifier(reach, around) <= 0
