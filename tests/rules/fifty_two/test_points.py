"""fifty-two §5.1 Action Points (the combat bonus), §5.2 the free action, and §4.5 Limited
Time, with the seed's Addendum stat blocks."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.rules.fifty_two.initiative import Side
from service.rules.fifty_two.points import (
    CombatBonus,
    action_points,
    combat_bonus,
    decision_seconds,
)
from service.rules.fifty_two.state import FiftyTwoStats, Weapon

ALPHONSE = FiftyTwoStats(
    hp=72,
    magical_attack=2,
    dex_mod=3,
    str_mod=3,
    attack_bonus=5,
    magic_defense=4,
    class_bonus=1,
    armor="chain",
    armor_enchantment=4,
    vulnerable_to="piercing",
    weapon=Weapon(name="mace", damage_type="crushing", enchantment=2, uses="str"),
    normal_damage="1d6+5",
    critical_damage="2d6+10",
)
EVANS = FiftyTwoStats(
    hp=133,
    magical_attack=2,
    dex_mod=4,
    str_mod=5,
    attack_bonus=7,
    magic_defense=4,
    class_bonus=3,
    armor="half-plate",
    armor_enchantment=4,
    vulnerable_to="slashing",
    weapon=Weapon(name="sword", damage_type="slashing", enchantment=2, uses="str"),
    normal_damage="1d8+7",
    critical_damage="3d8+21",
)
ECKHART_MAGIC_DEFENSE = 3
ALAN_MAGIC_DEFENSE = 3


def test_alphonses_combat_bonus_adds_up_to_eight_not_the_seeds_seven() -> None:
    """The seed prints "3+2+5+1-3 = 7": the terms are right, the sum is misprinted.

    STR +3 (his mace is STR based), magical attack +2, character level +5, class +1, less
    Eckhart's Magic Defense Bonus of 3. Fray adds the terms; the seed's narrative then
    spends 7 of the 8 points.
    """
    bonus = combat_bonus(ALPHONSE, [ECKHART_MAGIC_DEFENSE])

    assert bonus.values == (3, 2, 5, 1, -3)
    assert bonus.total == 8


def test_evans_has_fourteen_attack_points_plus_a_free_action() -> None:
    bonus = combat_bonus(EVANS, [ALAN_MAGIC_DEFENSE])

    assert bonus.values == (5, 2, 7, 3, -3)
    assert bonus.total == 14
    assert action_points(bonus.total) == 15


def test_the_terms_are_named_in_the_seeds_order() -> None:
    bonus = combat_bonus(ALPHONSE.model_copy(update={"circumstantial": -1}), [3])

    assert [label for label, _ in bonus.terms] == [
        "STR bonus",
        "magical attack",
        "attack bonus",
        "class bonus",
        "circumstantial",
        "opponents' magic defense",
    ]


@pytest.mark.parametrize(
    ("stats", "first"),
    [
        pytest.param(
            FiftyTwoStats(dex_mod=4, str_mod=1, weapon=Weapon(uses="dex")),
            ("DEX bonus", 4),
            id="classed, a DEX weapon",
        ),
        pytest.param(
            FiftyTwoStats(dex_mod=4, str_mod=1, weapon=Weapon(uses="str")),
            ("STR bonus", 1),
            id="classed, a STR weapon",
        ),
        pytest.param(
            FiftyTwoStats(dex_mod=4, class_ability_bonus=6),
            ("class ability bonus", 6),
            id="classed, a bonus by character class",
        ),
        pytest.param(
            FiftyTwoStats(classed=False, cr=11, dex_mod=4),
            ("1/3 of CR", 3),
            id="unclassed, CR 11: a third rounded down",
        ),
        pytest.param(
            FiftyTwoStats(classed=False, cr=5, class_ability_bonus=6),
            ("1/3 of CR", 1),
            id="unclassed: no class bonus",
        ),
        pytest.param(
            FiftyTwoStats(classed=False, str_mod=3, dex_mod=2),
            ("STR bonus", 3),
            id="unclassed without a CR: the weapon's stat",
        ),
    ],
)
def test_the_first_term_depends_on_class_and_weapon(
    stats: FiftyTwoStats, first: tuple[str, int]
) -> None:
    assert combat_bonus(stats, []).terms[0] == first


def test_every_opponent_in_range_takes_off_its_magic_defense() -> None:
    bonus = combat_bonus(EVANS, [3, 2, 2])

    assert bonus.terms[-1] == ("opponents' magic defense", -7)
    assert bonus.total == 17 - 7


def test_with_nobody_in_range_nothing_is_taken_off() -> None:
    assert combat_bonus(EVANS, []).values == (5, 2, 7, 3)


def test_a_circumstantial_modifier_approved_by_the_gm_is_added() -> None:
    bonus = combat_bonus(EVANS.model_copy(update={"circumstantial": 2}), [3])

    assert bonus.values == (5, 2, 7, 3, 2, -3)
    assert bonus.total == 16


@pytest.mark.parametrize(
    ("total", "points"),
    [
        pytest.param(8, 9, id="Alphonse: 8 and the free action"),
        pytest.param(0, 1, id="no bonus: the free action"),
        pytest.param(-4, 1, id="a negative bonus still leaves the free action"),
    ],
)
def test_every_conscious_combatant_gets_one_action(total: int, points: int) -> None:
    assert action_points(total) == points


@given(
    st.builds(
        FiftyTwoStats,
        dex_mod=st.integers(-10, 30),
        str_mod=st.integers(-10, 30),
        magical_attack=st.integers(-10, 20),
        attack_bonus=st.integers(0, 60),
        class_bonus=st.integers(-10, 30),
        circumstantial=st.integers(-30, 30),
    ),
    st.lists(st.integers(0, 20), max_size=5),
)
def test_the_total_is_the_sum_of_the_terms(stats: FiftyTwoStats, opponents: list[int]) -> None:
    bonus = combat_bonus(stats, opponents)

    assert bonus.total == sum(bonus.values)
    assert action_points(bonus.total) >= 1
    assert isinstance(bonus, CombatBonus)


# --- §4.5 limited time -----------------------------------------------------------------------


def test_four_enemies_give_the_gm_forty_seconds() -> None:
    assert decision_seconds("enemies", allies=5, enemies=4) == 40.0


def test_two_allies_get_forty_seconds_each() -> None:
    assert decision_seconds("allies", allies=2, enemies=4) == 40.0


@pytest.mark.parametrize(
    ("side", "allies", "enemies", "seconds"),
    [
        pytest.param("allies", 5, 4, 20.0, id="the seed's five Allies: 20 s"),
        pytest.param("allies", 4, 9, 20.0, id="four Allies: 20 s"),
        pytest.param("allies", 1, 1, 50.0, id="one Ally: 50 s"),
        pytest.param("enemies", 5, 2, 20.0, id="two Enemies: 20 s"),
        pytest.param("enemies", 5, 1, 20.0, id="one Enemy: 20 s, never less"),
        pytest.param("enemies", 5, 7, 70.0, id="seven Enemies: 70 s"),
    ],
)
def test_each_decision_has_twenty_seconds_and_ten_more_per_missing_or_extra_combatant(
    side: Side, allies: int, enemies: int, seconds: float
) -> None:
    assert decision_seconds(side, allies, enemies) == seconds


def test_a_table_may_change_the_base_but_not_the_extra_ten_seconds() -> None:
    assert decision_seconds("enemies", allies=5, enemies=4, base=30.0) == 50.0


@pytest.mark.parametrize(
    ("allies", "enemies", "base"),
    [
        pytest.param(-1, 2, 20.0, id="negative allies"),
        pytest.param(2, -1, 20.0, id="negative enemies"),
        pytest.param(2, 2, 0.0, id="no time at all"),
    ],
)
def test_nonsense_clock_inputs_are_refused(allies: int, enemies: int, base: float) -> None:
    with pytest.raises(ValueError):
        decision_seconds("allies", allies, enemies, base)


@given(st.integers(0, 20), st.integers(0, 20))
def test_a_side_never_gets_less_than_the_base(allies: int, enemies: int) -> None:
    assert decision_seconds("allies", allies, enemies) >= 20.0
    assert decision_seconds("enemies", allies, enemies) >= 20.0
