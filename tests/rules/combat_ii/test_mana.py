"""combat-ii §5 Mana: spell points (Mana System I), spell slots (Mana System II), starting mana,
bonus and specialist spells, innate spells, and recovery by study after rest."""

from __future__ import annotations

import pydantic
import pytest

from service.domain.table import Pool
from service.rules.combat_ii import mana
from service.rules.combat_ii.mana import Caster, CasterKind, InnateSpell
from service.rules.combat_ii.recovery import Recovered, minutes_per_point, recover

# combat-ii §5 Mana System I table, as printed: level, priest, wizard, ranger, paladin.
SEED_TABLE: list[tuple[int, int, int, int | None, int | None]] = [
    (1, 1, 1, None, None),
    (2, 2, 2, None, None),
    (3, 4, 4, None, None),
    (4, 7, 7, None, None),
    (5, 12, 11, None, None),
    (6, 15, 14, None, None),
    (7, 19, 20, None, None),
    (8, 26, 27, 1, None),
    (9, 34, 32, 2, 1),
    (10, 43, 39, 3, 2),
    (11, 53, 51, 4, 3),
    (12, 65, 66, 5, 4),
    (13, 74, 78, 6, 5),
    (14, 90, 85, 7, 6),
    (15, 99, 94, 8, 7),
    (16, 111, 115, 9, 8),
    (17, 127, 130, 9, 9),
    (18, 148, 139, 9, 9),
    (19, 151, 147, 9, 9),
    (20, 165, 162, 9, 9),
]
KINDS: tuple[CasterKind, ...] = ("priest", "wizard", "ranger", "paladin")


def full(size: int) -> Pool:
    return Pool(current=size, max=size)


def spent(size: int, left: int = 0) -> Pool:
    return Pool(current=left, max=size)


# --- the base mana table --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "level", "printed"),
    [
        pytest.param(kind, row[0], value, id=f"{kind} {row[0]}")
        for row in SEED_TABLE
        for kind, value in zip(KINDS, row[1:], strict=True)
    ],
)
def test_base_mana_is_the_seed_table(kind: CasterKind, level: int, printed: int | None) -> None:
    assert mana.BASE_MANA[kind][level - 1] == printed
    assert mana.base_mana(kind, level) == (printed or 0)


def test_the_table_covers_twenty_levels_of_four_caster_kinds() -> None:
    assert sorted(mana.BASE_MANA) == sorted(KINDS)
    assert {len(column) for column in mana.BASE_MANA.values()} == {20}


@pytest.mark.parametrize("kind", KINDS)
def test_base_mana_never_shrinks_as_the_caster_gains_levels(kind: CasterKind) -> None:
    values = [mana.base_mana(kind, level) for level in range(1, 21)]
    assert values == sorted(values)
    assert values[-1] > values[0]


@pytest.mark.parametrize(
    ("kind", "level", "highest"),
    [
        pytest.param("priest", 1, 1, id="priest 1"),
        pytest.param("priest", 2, 1, id="priest 2"),
        pytest.param("priest", 3, 2, id="priest 3"),
        pytest.param("priest", 5, 3, id="priest 5"),
        pytest.param("priest", 7, 4, id="priest 7"),
        pytest.param("priest", 9, 5, id="priest 9"),
        pytest.param("priest", 11, 6, id="priest 11"),
        pytest.param("priest", 13, 6, id="priest 13"),
        pytest.param("priest", 14, 7, id="priest 14"),
        pytest.param("priest", 20, 7, id="priest 20"),
        pytest.param("wizard", 1, 1, id="wizard 1"),
        pytest.param("wizard", 11, 5, id="wizard 11"),
        pytest.param("wizard", 12, 6, id="wizard 12"),
        pytest.param("wizard", 16, 8, id="wizard 16"),
        pytest.param("wizard", 18, 9, id="wizard 18"),
        pytest.param("wizard", 20, 9, id="wizard 20"),
        pytest.param("ranger", 1, 0, id="ranger 1"),
        pytest.param("ranger", 7, 0, id="ranger 7"),
        pytest.param("ranger", 8, 1, id="ranger 8"),
        pytest.param("ranger", 10, 2, id="ranger 10"),
        pytest.param("ranger", 12, 3, id="ranger 12"),
        pytest.param("ranger", 20, 3, id="ranger 20"),
        pytest.param("paladin", 8, 0, id="paladin 8"),
        pytest.param("paladin", 9, 1, id="paladin 9"),
        pytest.param("paladin", 11, 2, id="paladin 11"),
        pytest.param("paladin", 13, 3, id="paladin 13"),
        pytest.param("paladin", 15, 4, id="paladin 15"),
        pytest.param("paladin", 20, 4, id="paladin 20"),
    ],
)
def test_highest_spell_level_follows_the_tables_new_level_marks(
    kind: CasterKind, level: int, highest: int
) -> None:
    assert mana.highest_spell_level(kind, level) == highest


@pytest.mark.parametrize("level", [0, 21])
def test_caster_levels_outside_the_table_are_an_error(level: int) -> None:
    with pytest.raises(ValueError, match="caster level must be 1 to 20"):
        mana.base_mana("wizard", level)
    with pytest.raises(ValueError, match="caster level must be 1 to 20"):
        mana.highest_spell_level("wizard", level)


# --- the seed's examples --------------------------------------------------------------------------


def test_fifth_level_priest_has_twelve_mana_points() -> None:
    progression = {1: 3, 2: 3, 3: 1}
    assert mana.points_of(progression) == 12 == mana.base_mana("priest", 5)
    priest = Caster(kind="priest", level=5, slots=progression)
    pools = mana.pools_for(priest, "points", "add", "standard", con=12, prime=14)
    assert pools == {"mana": full(12)}

    current = {"mana": 12}
    for _ in range(4):
        draw = mana.spend(current, "points", 3, specialty=False, highest=3)
        assert draw == {"mana": 3}
        current["mana"] -= draw["mana"]
    assert current == {"mana": 0}
    assert mana.spend(current, "points", 1, specialty=False, highest=3) == "needs 1 mana, has 0"


def test_fifth_level_priest_may_cast_twelve_first_level_or_six_second_level_spells() -> None:
    assert mana.spend({"mana": 12}, "points", 1, specialty=False, highest=3) == {"mana": 1}
    assert mana.spend({"mana": 12}, "points", 2, specialty=False, highest=3) == {"mana": 2}
    assert mana.spend({"mana": 12}, "points", 4, specialty=False, highest=3) == (
        "a level-4 spell is beyond this caster (highest level 3)"
    )


def test_third_level_mage_with_con_18_starts_with_six_points() -> None:
    base = mana.base_mana("wizard", 3)
    assert base == 4
    assert mana.starting_mana(base, con=18, prime=17, option="con") == 6
    mage = Caster(kind="wizard", level=3)
    pools = mana.pools_for(mage, "points", "add", "con", con=18, prime=17)
    assert pools == {"mana": full(6)}


def test_twentieth_level_mage_needs_27_hours_to_recover() -> None:
    per_point = minutes_per_point("flat", highest=9, hours_slept=8)
    assert per_point == 10
    assert mana.base_mana("wizard", 20) * per_point == 27 * 60

    pools = {"mana": spent(162)}
    day = recover(pools, "points", "flat", 9, 8, 27 * 60, 0, 162)
    assert day == Recovered(restored={"mana": 162}, minutes_used=1620, counted=162)
    short = recover(pools, "points", "flat", 9, 8, 27 * 60 - 1, 0, 162)
    assert short == Recovered(restored={"mana": 161}, minutes_used=1610, counted=161)


# --- starting mana --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("base", "con", "prime", "option", "expected"),
    [
        pytest.param(4, 18, 17, "standard", 4, id="standard keeps the base"),
        pytest.param(4, 18, 17, "con", 6, id="con 18 replaces base 4"),
        pytest.param(4, 16, 17, "con", 6, id="con 16 rounds 5.33 up"),
        pytest.param(4, 18, 17, "con-added", 10, id="option 1 adds con 18 to base 4"),
        pytest.param(162, 18, 17, "con-added", 168, id="option 1 at any level"),
        pytest.param(4, 15, 18, "con-prime", 6, id="option 2 average 16 gives 6"),
        pytest.param(4, 15, 16, "con-prime", 5, id="option 2 average 15.5 rounds down to 15"),
        pytest.param(4, 12, 13, "con-prime", 4, id="option 2 average 12 gives 4, the base"),
        pytest.param(4, 15, 18, "con-prime-added", 10, id="option 2 added to the base"),
    ],
)
def test_starting_mana_options(
    base: int, con: int, prime: int, option: mana.StartingMana, expected: int
) -> None:
    assert mana.starting_mana(base, con, prime, option) == expected


@pytest.mark.parametrize("option", ["con", "con-prime"])
def test_a_con_score_below_the_base_keeps_the_base(option: mana.StartingMana) -> None:
    assert mana.starting_mana(12, con=9, prime=9, option=option) == 12
    assert mana.starting_mana(7, con=18, prime=18, option=option) == 7


def test_a_ranger_below_eighth_level_gets_no_mana_even_with_a_con_option() -> None:
    ranger = Caster(kind="ranger", level=7)
    assert mana.pools_for(ranger, "points", "add", "con-added", con=18, prime=17) == {}
    assert mana.pools_for(ranger, "slots", "add", "con-added", con=18, prime=17) == {}


# --- pools ----------------------------------------------------------------------------------------


def test_bonus_spells_added_join_the_mana_total() -> None:
    priest = Caster(kind="priest", level=5, bonus={1: 2, 2: 1})
    pools = mana.pools_for(priest, "points", "add", "standard", con=10, prime=16)
    assert pools == {"mana": full(12 + 2 + 2)}


def test_bonus_spells_kept_free_get_a_box_per_spell_level() -> None:
    priest = Caster(kind="priest", level=5, bonus={1: 2, 2: 1, 3: 0})
    pools = mana.pools_for(priest, "points", "free", "standard", con=10, prime=16)
    assert pools == {"mana": full(12), "free-1": full(2), "free-2": full(1)}


def test_a_specialist_gets_a_separate_mana_pool() -> None:
    illusionist = Caster(kind="wizard", level=5, specialist={1: 1, 2: 1, 3: 1})
    pools = mana.pools_for(illusionist, "points", "add", "standard", con=10, prime=16)
    assert pools == {"mana": full(11), "specialist-mana": full(6)}


def test_system_two_keeps_normal_bonus_and_specialist_slots_apart() -> None:
    caster = Caster(
        kind="wizard", level=5, slots={1: 4, 2: 2, 3: 1}, bonus={1: 1}, specialist={1: 1, 3: 1}
    )
    pools = mana.pools_for(caster, "slots", "add", "con", con=18, prime=17)
    assert pools == {
        "slots-1": full(4),
        "slots-2": full(2),
        "slots-3": full(1),
        "bonus-1": full(1),
        "specialist-1": full(1),
        "specialist-3": full(1),
    }


def test_without_a_mana_system_there_are_no_pools_and_casting_draws_nothing() -> None:
    priest = Caster(kind="priest", level=5, slots={1: 3, 2: 3, 3: 1})
    assert mana.pools_for(priest, "none", "add", "standard", con=10, prime=16) == {}
    assert mana.spend({}, "none", 3, specialty=False, highest=3) == {}
    assert mana.spend({}, "none", 4, specialty=False, highest=3) == (
        "a level-4 spell is beyond this caster (highest level 3)"
    )


def test_innate_spells_pool_their_daily_points_under_system_one() -> None:
    monster = Caster(
        kind="ranger",
        level=1,
        innate=(
            InnateSpell(name="darkness", level=2, per_day=3),
            InnateSpell(name="dispel magic", level=3),
            InnateSpell(name="detect magic", level=1, per_day=None),
        ),
    )
    pools = mana.pools_for(monster, "points", "add", "con-added", con=18, prime=10)
    assert pools == {"mana": full(2 * 3 + 3)}


def test_innate_spells_reserve_a_slot_per_daily_use_under_system_two() -> None:
    monster = Caster(
        kind="priest",
        level=3,
        slots={1: 2, 2: 1},
        innate=(
            InnateSpell(name="darkness", level=2, per_day=3),
            InnateSpell(name="dispel magic", level=3),
            InnateSpell(name="detect magic", level=1, per_day=None),
        ),
    )
    pools = mana.pools_for(monster, "slots", "add", "standard", con=10, prime=10)
    assert pools == {"slots-1": full(2), "slots-2": full(4), "slots-3": full(1)}


def test_innate_points_add_to_a_casting_monsters_base() -> None:
    monster = Caster(kind="wizard", level=3, innate=(InnateSpell(name="fly", level=3),))
    pools = mana.pools_for(monster, "points", "add", "standard", con=10, prime=10)
    assert pools == {"mana": full(4 + 3)}


@pytest.mark.parametrize(
    "fields",
    [
        pytest.param({"kind": "wizard", "level": 0}, id="level 0"),
        pytest.param({"kind": "wizard", "level": 21}, id="level 21"),
        pytest.param({"kind": "bard", "level": 5}, id="unknown kind"),
        pytest.param({"kind": "wizard", "level": 5, "slots": {0: 1}}, id="spell level 0"),
        pytest.param({"kind": "wizard", "level": 5, "bonus": {10: 1}}, id="spell level 10"),
        pytest.param({"kind": "wizard", "level": 5, "specialist": {1: -1}}, id="negative count"),
        pytest.param({"kind": "wizard", "level": 5, "slots": {1: 51}}, id="count 51"),
        pytest.param({"kind": "wizard", "level": 5, "mana": 3}, id="unknown field"),
    ],
)
def test_a_caster_block_outside_the_rules_is_rejected(fields: dict[str, object]) -> None:
    with pytest.raises(pydantic.ValidationError):
        Caster.model_validate(fields)


@pytest.mark.parametrize(
    "fields",
    [
        pytest.param({"name": "fly", "level": 0}, id="spell level 0"),
        pytest.param({"name": "fly", "level": 10}, id="spell level 10"),
        pytest.param({"name": "fly", "level": 3, "per_day": 0}, id="zero a day"),
        pytest.param({"name": "", "level": 3}, id="no name"),
    ],
)
def test_an_innate_spell_outside_the_rules_is_rejected(fields: dict[str, object]) -> None:
    with pytest.raises(pydantic.ValidationError):
        InnateSpell.model_validate(fields)


# --- spending -------------------------------------------------------------------------------------


def test_free_boxes_are_checked_off_before_mana() -> None:
    pools = {"mana": 12, "free-1": 1, "free-2": 0}
    assert mana.spend(pools, "points", 1, specialty=False, highest=3) == {"free-1": 1}
    assert mana.spend(pools, "points", 2, specialty=False, highest=3) == {"mana": 2}
    assert mana.spend(pools, "points", 3, specialty=False, highest=3) == {"mana": 3}


def test_specialty_spells_draw_specialist_mana_first_and_may_split_across_pools() -> None:
    pools = {"mana": 5, "specialist-mana": 2}
    assert mana.spend(pools, "points", 2, specialty=True, highest=3) == {"specialist-mana": 2}
    assert mana.spend(pools, "points", 3, specialty=True, highest=3) == {
        "specialist-mana": 2,
        "mana": 1,
    }
    assert mana.spend({"mana": 5, "specialist-mana": 0}, "points", 3, True, 3) == {"mana": 3}


def test_other_spells_never_draw_specialist_mana() -> None:
    pools = {"mana": 1, "specialist-mana": 6}
    assert mana.spend(pools, "points", 2, specialty=False, highest=3) == "needs 2 mana, has 1"


def test_a_specialty_spell_short_of_both_pools_is_refused_with_their_total() -> None:
    pools = {"mana": 1, "specialist-mana": 1}
    assert mana.spend(pools, "points", 3, specialty=True, highest=3) == "needs 3 mana, has 2"


@pytest.mark.parametrize(
    ("pools", "specialty", "draw"),
    [
        pytest.param(
            {"specialist-3": 1, "bonus-3": 1, "slots-3": 1}, True, {"specialist-3": 1},
            id="specialty spell uses a specialist slot first",
        ),
        pytest.param(
            {"specialist-3": 1, "bonus-3": 1, "slots-3": 1}, False, {"bonus-3": 1},
            id="other spells never use specialist slots",
        ),
        pytest.param(
            {"specialist-3": 0, "bonus-3": 1, "slots-3": 1}, True, {"bonus-3": 1},
            id="then a bonus slot",
        ),
        pytest.param(
            {"bonus-3": 0, "slots-3": 1}, False, {"slots-3": 1},
            id="then a normal slot",
        ),
        pytest.param(
            {"slots-2": 3, "slots-3": 0, "slots-4": 2}, False, "no level-3 spell slot left",
            id="only a slot of the spell's own level will do",
        ),
        pytest.param(
            {"specialist-3": 1, "slots-3": 0}, False, "no level-3 spell slot left",
            id="a specialist slot refuses other spells",
        ),
    ],
)  # fmt: skip
def test_system_two_spends_a_slot_of_the_spells_level(
    pools: dict[str, int], specialty: bool, draw: dict[str, int] | str
) -> None:
    assert mana.spend(pools, "slots", 3, specialty=specialty, highest=4) == draw


@pytest.mark.parametrize(
    ("system", "spell_level", "highest", "reason"),
    [
        pytest.param(
            "points", 4, 3, "a level-4 spell is beyond this caster (highest level 3)",
            id="points: above the highest level",
        ),
        pytest.param(
            "slots", 4, 3, "a level-4 spell is beyond this caster (highest level 3)",
            id="slots: above the highest level",
        ),
        pytest.param(
            "points", 1, 0,
            "a level-1 spell is beyond this caster (no castable spell level yet)",
            id="a caster without spells yet",
        ),
        pytest.param("points", 0, 3, "spell levels start at 1, not 0", id="spell level 0"),
    ],
)  # fmt: skip
def test_spells_beyond_the_caster_are_refused_with_a_reason(
    system: mana.ManaSystem, spell_level: int, highest: int, reason: str
) -> None:
    pools = {"mana": 100, "slots-1": 5, "slots-4": 5}
    assert mana.spend(pools, system, spell_level, specialty=False, highest=highest) == reason


# --- recovery time --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("recovery", "highest", "hours", "minutes"),
    [
        pytest.param("flat", 9, 8, 10, id="flat 10 minutes a point"),
        pytest.param("flat", 1, 10, 10, id="more sleep gives nothing extra"),
        pytest.param("by-level", 9, 8, 4, id="by level: 13 - 9"),
        pytest.param("by-level", 1, 8, 12, id="by level: 13 - 1"),
        pytest.param("by-level", 0, 8, 13, id="by level: no spells yet"),
        pytest.param("by-level", 9, 6, 6, id="by level: 2 hours short adds 2"),
        pytest.param("by-level", 9, 4, 8, id="by level: 4 hours is the least that counts"),
        pytest.param("flat", 9, 5, 13, id="flat: 3 hours short adds 3 (interpretation)"),
        pytest.param("flat", 9, 3, None, id="under 4 hours: nothing"),
        pytest.param("by-level", 9, 0, None, id="no sleep: nothing"),
    ],
)
def test_minutes_per_point(
    recovery: mana.Recovery, highest: int, hours: int, minutes: int | None
) -> None:
    assert minutes_per_point(recovery, highest, hours) == minutes


def test_under_four_hours_sleep_recovers_nothing_at_all() -> None:
    pools = {"mana": spent(12), "free-1": spent(2)}
    result = recover(pools, "points", "flat", 3, 3, 600, 0, 100)
    assert result == Recovered(restored={}, minutes_used=0, counted=0)


def test_free_boxes_and_bonus_slots_come_back_without_study() -> None:
    points = {"mana": full(12), "free-1": spent(2), "free-2": spent(1, left=1)}
    assert recover(points, "points", "flat", 3, 4, 0, 0, 12) == Recovered(
        restored={"free-1": 2}, minutes_used=0, counted=0
    )
    slots = {"slots-1": full(3), "bonus-1": spent(1), "bonus-2": spent(2)}
    assert recover(slots, "slots", "flat", 3, 8, 0, 12, 12) == Recovered(
        restored={"bonus-1": 1, "bonus-2": 2}, minutes_used=0, counted=0
    )


def test_study_restores_mana_for_the_minutes_given() -> None:
    pools = {"mana": spent(12, left=2)}
    result = recover(pools, "points", "by-level", 3, 8, 95, 0, 12)
    assert result == Recovered(restored={"mana": 9}, minutes_used=90, counted=9)


def test_recovery_never_passes_the_pools_maximum() -> None:
    pools = {"mana": spent(12, left=10)}
    result = recover(pools, "points", "flat", 3, 8, 600, 0, 100)
    assert result == Recovered(restored={"mana": 2}, minutes_used=20, counted=2)


def test_recovery_limit_caps_points_regained_in_a_day() -> None:
    pools = {"mana": spent(12), "specialist-mana": spent(6)}
    result = recover(pools, "points", "flat", 3, 8, 600, recovered_today=10, daily_limit=12)
    assert result == Recovered(restored={"mana": 2}, minutes_used=20, counted=2)
    spent_out = recover(pools, "points", "flat", 3, 8, 600, 12, 12)
    assert spent_out == Recovered(restored={}, minutes_used=0, counted=0)


def test_specialist_points_take_half_time_rounded_up_after_totalling() -> None:
    pools = {"mana": full(11), "specialist-mana": spent(6)}
    # 3 points at 9 minutes (by-level, highest 4) is 27 minutes, halved and rounded up: 14.
    three = recover(pools, "points", "by-level", 4, 8, 14, 0, 100)
    assert three == Recovered(restored={"specialist-mana": 3}, minutes_used=14, counted=3)
    two = recover(pools, "points", "by-level", 4, 8, 13, 0, 100)
    assert two == Recovered(restored={"specialist-mana": 2}, minutes_used=9, counted=2)


def test_mana_is_studied_back_before_specialist_mana() -> None:
    pools = {"mana": spent(11, left=9), "specialist-mana": spent(6, left=3)}
    result = recover(pools, "points", "flat", 3, 8, 35, 0, 100)
    assert result == Recovered(
        restored={"mana": 2, "specialist-mana": 3}, minutes_used=35, counted=5
    )


def test_system_two_recovers_the_highest_slots_first_by_default() -> None:
    pools = {"slots-1": spent(4), "slots-2": spent(2), "slots-3": spent(1)}
    # Flat 10 minutes a point: 60 minutes buys the 3rd (30), one 2nd (20) and one 1st (10).
    result = recover(pools, "slots", "flat", 3, 8, 60, 0, 100)
    assert result == Recovered(
        restored={"slots-3": 1, "slots-2": 1, "slots-1": 1}, minutes_used=60, counted=6
    )


def test_system_two_lets_the_caster_elect_which_slots_to_recover() -> None:
    pools = {"slots-1": spent(4), "slots-2": spent(2), "slots-3": spent(1)}
    result = recover(pools, "slots", "flat", 3, 8, 600, 0, 100, choose={1: 3, 2: 5})
    assert result == Recovered(restored={"slots-2": 2, "slots-1": 3}, minutes_used=70, counted=7)


def test_system_two_recovery_limit_counts_a_slots_level_in_points() -> None:
    pools = {"slots-1": spent(4), "slots-3": spent(2)}
    result = recover(pools, "slots", "flat", 3, 8, 600, recovered_today=5, daily_limit=10)
    assert result == Recovered(restored={"slots-3": 1, "slots-1": 2}, minutes_used=50, counted=5)


def test_system_two_specialist_slots_recover_at_half_time() -> None:
    pools = {"slots-3": full(1), "specialist-3": spent(1), "specialist-1": spent(1)}
    # 3 + 1 points at 10 minutes is 40, halved: 20.
    result = recover(pools, "slots", "flat", 3, 8, 20, 0, 100)
    assert result == Recovered(
        restored={"specialist-3": 1, "specialist-1": 1}, minutes_used=20, counted=4
    )


def test_system_two_recovers_normal_slots_before_specialist_slots_of_a_level() -> None:
    pools = {"slots-2": spent(1), "specialist-2": spent(1)}
    result = recover(pools, "slots", "flat", 2, 8, 25, 0, 100, choose={2: 1})
    assert result == Recovered(restored={"slots-2": 1}, minutes_used=20, counted=2)


def test_without_a_mana_system_nothing_is_recovered() -> None:
    result = recover({"mana": spent(12)}, "none", "flat", 3, 8, 600, 0, 100)
    assert result == Recovered(restored={}, minutes_used=0, counted=0)
