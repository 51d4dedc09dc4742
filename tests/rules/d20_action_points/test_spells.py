"""d20-action-points Casting Spells (the casting check, mana spent win or lose, the spell an
injury interrupts) and Declaring Actions."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.domain.errors import RuleViolation
from service.rules.d20_action_points.spells import (
    Casting,
    ManaPool,
    Spell,
    cast,
    casting_dc,
    casting_modifier,
    declare,
    interrupt,
    interrupted,
    spend_mana,
)

WEB = Spell("Web", level=2)
POOL = ManaPool(current=6, maximum=6)

# The seed's third-level wizard: "+3 INT casting a 2nd level spell roll d20+5 vs DC12"; the
# other +2 is the wizard's focus.
WIZARD_INT = 3
WIZARD_FOCUS = 2


def test_a_third_level_wizard_with_int_3_casting_a_2nd_level_spell_rolls_d20_5_vs_dc_12() -> None:
    modifier = casting_modifier(WIZARD_INT, WIZARD_FOCUS)

    assert modifier == 5
    assert casting_dc(WEB) == 12
    assert cast(7, modifier, WEB, POOL) == Casting("Web", "cast", ManaPool(4, 6), 7, 12, 12)


def test_the_wizard_rolling_a_6_fails_and_still_spends_the_mana() -> None:
    casting = cast(6, casting_modifier(WIZARD_INT, WIZARD_FOCUS), WEB, POOL)

    assert (casting.outcome, casting.total, casting.dc) == ("failed", 11, 12)
    assert casting.pool == ManaPool(4, 6)


@pytest.mark.parametrize(
    ("natural", "outcome"),
    [
        pytest.param(1, "failed", id="a natural 1 that fails anyway"),
        pytest.param(6, "failed", id="one short of the DC"),
        pytest.param(7, "cast", id="meets the DC"),
        pytest.param(20, "cast", id="a natural 20 that succeeds anyway"),
    ],
)
def test_the_roll_must_meet_or_exceed_the_dc(natural: int, outcome: str) -> None:
    assert cast(natural, 5, WEB, POOL).outcome == outcome


def test_the_casting_check_knows_no_natural_20() -> None:
    assert cast(20, 0, Spell("Wish", level=11, mana=1), POOL).outcome == "failed"


@pytest.mark.parametrize(
    ("spell", "dc", "cost"),
    [
        pytest.param(Spell("Light", level=0), 10, 0, id="level 0: DC 10, free"),
        pytest.param(Spell("Sleep", level=1), 11, 1, id="level 1: DC 11, 1 mana"),
        pytest.param(Spell("Fireball", level=3), 13, 3, id="level 3: DC 13, 3 mana"),
        pytest.param(Spell("Big Web", level=2, mana=4), 12, 4, id="a cost of its own"),
    ],
)
def test_the_dc_is_ten_plus_the_level_and_the_cost_is_the_level(
    spell: Spell, dc: int, cost: int
) -> None:
    assert casting_dc(spell) == dc
    assert spell.cost == cost


def test_a_negative_level_is_no_spell() -> None:
    with pytest.raises(ValueError):
        casting_dc(Spell("Unspell", level=-1))


# --- the mana pool ----------------------------------------------------------------------------


def test_a_spell_is_paid_from_the_mana_pool() -> None:
    assert spend_mana(POOL, WEB) == ManaPool(4, 6)


def test_a_spell_that_costs_more_than_the_pool_holds_is_refused() -> None:
    with pytest.raises(RuleViolation) as caught:
        spend_mana(ManaPool(1, 6), WEB)

    assert caught.value.code == "mana/not-enough"
    assert caught.value.message == "Web costs 2 mana; only 1 is left"
    assert caught.value.rule == "d20-action-points Casting Spells"
    assert caught.value.details == {"spell": "Web", "cost": 2, "mana": 1}


def test_a_spell_the_caster_cannot_pay_for_can_be_neither_declared_nor_cast() -> None:
    short = ManaPool(1, 6)
    with pytest.raises(RuleViolation, match="Web costs 2 mana"):
        declare(short, WEB)
    with pytest.raises(RuleViolation, match="Web costs 2 mana"):
        cast(20, 5, WEB, short)


def test_declaring_a_spell_spends_nothing_yet() -> None:
    assert declare(POOL, WEB) == WEB


@given(st.integers(1, 20), st.integers(-5, 10), st.integers(0, 9), st.integers(0, 20))
def test_success_and_failure_spend_the_same_mana(
    natural: int, modifier: int, level: int, mana: int
) -> None:
    spell, pool = Spell("Any", level), ManaPool(mana, 20)
    try:
        casting = cast(natural, modifier, spell, pool)
    except RuleViolation:
        assert mana < level
        return

    assert casting.pool.current == mana - level >= 0
    assert casting.outcome == ("cast" if natural + modifier >= 10 + level else "failed")


# --- injured before its turn ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("damage", "turn_taken", "expected"),
    [
        pytest.param(3, False, True, id="hit before its turn: interrupted"),
        pytest.param(3, True, False, id="hit after casting: nothing lost"),
        pytest.param(0, False, False, id="missed before its turn: casts"),
    ],
)
def test_a_caster_injured_before_its_turn_is_interrupted(
    damage: int, turn_taken: bool, expected: bool
) -> None:
    assert interrupted(damage, turn_taken) == expected


def test_an_interrupted_spell_is_not_cast_and_its_mana_is_deducted() -> None:
    assert interrupt(WEB, POOL) == Casting("Web", "interrupted", ManaPool(4, 6))


def test_an_interrupted_spell_takes_no_more_mana_than_is_left() -> None:
    assert interrupt(WEB, ManaPool(1, 6)).pool == ManaPool(0, 6)
