"""d20-action-points Check Morale (DC 20 vs Wisdom / Morale): who checks, the check with
disadvantage after a natural 20, and the broken combatant's flight or surrender, with the
seed's goblin and brigand."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.domain.errors import RuleViolation
from service.rules.d20_action_points.morale import (
    Broken,
    MoraleCheck,
    below_half,
    break_off,
    check_morale,
    morale_bonus,
    must_check,
)

GOBLIN_MORALE = 5
GOBLIN_SPEED = 30
ARCHER = "archer"

# --- who checks -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        pytest.param(7, 4, True, id="7 -> 4 of 10: below half"),
        pytest.param(10, 5, False, id="10 -> 5 of 10: half is not below half"),
        pytest.param(5, 4, True, id="5 -> 4 of 10: from half to below"),
        pytest.param(4, 2, False, id="4 -> 2 of 10: already below half"),
        pytest.param(7, 0, False, id="7 -> 0 of 10: down, the death check instead"),
        pytest.param(7, -3, False, id="7 -> -3 of 10: down"),
    ],
)
def test_a_combatant_checks_morale_when_it_drops_below_half_its_hit_points(
    before: int, after: int, expected: bool
) -> None:
    assert must_check(before, after, max_hp=10) == expected


def test_half_of_an_odd_maximum_is_not_rounded() -> None:
    assert not below_half(4, 7)
    assert below_half(3, 7)


def test_a_monster_uses_its_morale_and_a_character_its_wisdom() -> None:
    assert morale_bonus(morale=5, wisdom=1) == 5
    assert morale_bonus(morale=None, wisdom=1) == 1
    assert morale_bonus(morale=0, wisdom=3) == 0


# --- the check --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("natural", "bonus", "broken"),
    [
        pytest.param(15, 5, False, id="15 + 5 meets DC 20: holds"),
        pytest.param(14, 5, True, id="14 + 5: broken"),
        pytest.param(20, 0, False, id="a natural 20 with no bonus: holds"),
        pytest.param(20, -1, True, id="a natural 20 with -1: broken"),
    ],
)
def test_morale_holds_when_d20_plus_the_bonus_meets_20(
    natural: int, bonus: int, broken: bool
) -> None:
    assert check_morale(natural, bonus).broken == broken


def test_after_a_natural_20_the_check_is_made_with_disadvantage() -> None:
    check = check_morale(18, 3, critical_blow=True, second=9)

    assert check == MoraleCheck(natural=9, total=12, dc=20, disadvantage=True, broken=True)


def test_a_check_with_disadvantage_needs_both_dice() -> None:
    with pytest.raises(ValueError):
        check_morale(18, 3, critical_blow=True)


@given(st.integers(1, 20), st.integers(1, 20), st.integers(-5, 10))
def test_disadvantage_never_turns_a_broken_combatant_steady(
    first: int, second: int, bonus: int
) -> None:
    plain = check_morale(first, bonus)
    shaken = check_morale(first, bonus, critical_blow=True, second=second)

    assert shaken.total <= plain.total
    assert shaken.broken or not plain.broken


# --- the seed's examples ----------------------------------------------------------------------


def test_the_goblin_hit_for_4_rolls_5_plus_5_and_runs_from_the_arrow() -> None:
    # "The DM rolls d20 (5) plus the Goblin Morale (+5) Fail! The goblin takes off running at
    # twice its normal rate. The player shoots an arrow at the fleeing goblin".
    assert must_check(7, 3, max_hp=7)
    check = check_morale(5, morale_bonus(GOBLIN_MORALE, wisdom=0))

    assert (check.total, check.broken) == (10, True)
    assert break_off(check, "flee", GOBLIN_SPEED, [ARCHER]) == Broken("flee", 60, (ARCHER,))


def test_the_brigand_wounded_by_a_critical_strike_throws_down_his_sword() -> None:
    # "A brigand has been epically wounded with a critical strike ... he throws down his sword"
    check = check_morale(17, 2, critical_blow=True, second=6)

    assert check.disadvantage and check.broken
    assert break_off(check, "surrender") == Broken("surrender", drops_arms=True)


# --- flee or surrender ------------------------------------------------------------------------


def test_only_a_broken_combatant_flees_or_surrenders() -> None:
    with pytest.raises(RuleViolation) as caught:
        break_off(check_morale(15, 5), "flee", GOBLIN_SPEED)

    assert caught.value.code == "morale/not-broken"
    assert caught.value.rule == "d20-action-points Check Morale (DC 20 vs Wisdom / Morale)"
    assert "held (20 against DC 20)" in caught.value.message


def test_each_foe_with_a_ranged_weapon_readied_shoots_once_at_the_fleeing() -> None:
    flight = break_off(check_morale(2, 0), "flee", 20, ["ada", "bo", "ada"])

    assert flight == Broken("flee", feet=40, parting_shots=("ada", "bo"))


def test_nobody_shoots_at_a_combatant_who_surrenders() -> None:
    assert break_off(check_morale(2, 0), "surrender", 20, ["ada"]).parting_shots == ()
