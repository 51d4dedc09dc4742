"""fifty-two §5.3 Armor: vulnerabilities and the cost of executing an attack, §5.3.2 natural
armor and the effects of magic, §5.3.3 the armor rating and the hits counted against it.

The combatants are the seed's Addendum stat blocks, as far as armor needs them.
"""

from __future__ import annotations

from typing import get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from service.domain.errors import RuleViolation
from service.rules.fifty_two import RULESET
from service.rules.fifty_two.armor import (
    ARMOR_RATING,
    VULNERABILITY,
    HitKind,
    HitMode,
    base_rating,
    defense_magic,
    execute_cost,
    rating,
    register_hit,
    vulnerability,
)
from service.rules.fifty_two.armor_types import (
    NATURAL_ARMOR_BY_BONUS,
    ArmorType,
    DamageType,
    natural_armor,
)
from service.rules.fifty_two.state import FiftyTwoStats, Weapon
from tests.rules.harness import Table, refused

MACE = Weapon(name="mace", damage_type="crushing", enchantment=2)
EVANS_SWORD = Weapon(name="sword", damage_type="slashing", enchantment=2)
CLAWS = Weapon(name="claws", damage_type="slashing")

ECKHART = FiftyTwoStats(
    hp=102,
    magical_attack=2,
    dex_mod=5,
    str_mod=3,
    attack_bonus=6,
    magic_defense=3,
    class_bonus=2,
    armor="ring",
    armor_enchantment=3,
    vulnerable_to="piercing",
    weapon=Weapon(name="axe", damage_type="slashing", enchantment=2),
)
ALAN = FiftyTwoStats(
    hp=158,
    magical_attack=4,
    dex_mod=4,
    str_mod=4,
    attack_bonus=7,
    magic_defense=3,
    class_bonus=4,
    armor="full-plate",
    armor_enchantment=2,
    shield=1,
    shield_enchantment=1,
    vulnerable_to="piercing",
    weapon=Weapon(name="sword", damage_type="slashing", enchantment=3),
)
ALICE = FiftyTwoStats(
    hp=83,
    armor="chain",
    armor_enchantment=2,
    shield=1,
    shield_enchantment=1,
    vulnerable_to="piercing",
)
ARTICHOKE = FiftyTwoStats(
    hp=44,
    armor="soft-leather",
    armor_enchantment=1,
    shield=1,
    shield_enchantment=1,
    vulnerable_to="crushing",
)


def chain(enchantment: int) -> FiftyTwoStats:
    return FiftyTwoStats(armor="chain", armor_enchantment=enchantment)


def registered(hits: list[HitKind], armor_rating: int, mode: HitMode, count: int = 0) -> list[bool]:
    """Which of `hits`, in order, register against one rating, starting from `count`."""
    outcomes = []
    for kind in hits:
        registers, count = register_hit(count, kind, armor_rating, mode)
        outcomes.append(registers)
    return outcomes


# --- §5.3 vulnerabilities and the cost of an attack -----------------------------------------


def test_every_armor_has_a_rating_and_a_vulnerability() -> None:
    assert set(ARMOR_RATING) == set(get_args(ArmorType))
    assert set(VULNERABILITY) == set(get_args(ArmorType))


@pytest.mark.parametrize(
    ("armor", "expected"),
    [
        pytest.param("none", 0, id="none"),
        pytest.param("cloth", 0, id="cloth"),
        pytest.param("padded", 0, id="padded"),
        pytest.param("soft-leather", 0, id="soft leather"),
        pytest.param("hard-leather", 1, id="hard leather"),
        pytest.param("bone", 1, id="bone"),
        pytest.param("chain", 1, id="chain"),
        pytest.param("banded", 2, id="banded"),
        pytest.param("ring", 2, id="ring"),
        pytest.param("half-plate", 2, id="half plate"),
        pytest.param("full-plate", 3, id="full plate"),
    ],
)
def test_the_armor_rating_table(armor: ArmorType, expected: int) -> None:
    assert base_rating(FiftyTwoStats(armor=armor)) == expected


@pytest.mark.parametrize(
    ("armor", "expected"),
    [
        pytest.param("none", "all", id="none: vulnerable to all"),
        pytest.param("cloth", "slashing", id="cloth"),
        pytest.param("padded", "slashing", id="padded"),
        pytest.param("soft-leather", "crushing", id="soft leather"),
        pytest.param("hard-leather", "piercing", id="hard leather"),
        pytest.param("bone", "crushing", id="bone"),
        pytest.param("chain", "piercing", id="chain"),
        pytest.param("banded", "crushing", id="banded"),
        pytest.param("ring", "piercing", id="ring"),
        pytest.param("half-plate", "slashing", id="half plate"),
        pytest.param("full-plate", "piercing", id="full plate"),
    ],
)
def test_the_vulnerability_table(armor: ArmorType, expected: str) -> None:
    assert vulnerability(FiftyTwoStats(armor=armor)) == expected


@pytest.mark.parametrize(
    ("armor", "expected"),
    [
        pytest.param("none", "slashing", id="a shield alone"),
        pytest.param("padded", "slashing", id="padded and a shield"),
        pytest.param("soft-leather", "slashing", id="soft leather and a shield"),
        pytest.param("chain", "slashing", id="chain and a shield"),
        pytest.param("banded", "crushing", id="banded: below the shield line"),
        pytest.param("ring", "piercing", id="ring: below the shield line"),
        pytest.param("full-plate", "piercing", id="full plate: below the shield line"),
    ],
)
def test_a_shield_makes_the_armors_above_its_line_vulnerable_to_slashing(
    armor: ArmorType, expected: str
) -> None:
    assert vulnerability(FiftyTwoStats(armor=armor, shield=1)) == expected


def test_alice_and_artichoke_keep_the_addendums_vulnerability_over_the_shield_line() -> None:
    assert vulnerability(ALICE) == "piercing"
    assert vulnerability(ALICE.model_copy(update={"vulnerable_to": None})) == "slashing"
    assert vulnerability(ARTICHOKE) == "crushing"
    assert vulnerability(ARTICHOKE.model_copy(update={"vulnerable_to": None})) == "slashing"


def test_eckharts_ring_mail_is_vulnerable_to_piercing_so_alphonses_mace_pays_one() -> None:
    assert vulnerability(ECKHART) == "piercing"
    assert execute_cost(MACE, ECKHART) == 1


def test_evans_pays_one_to_execute_each_sword_attack_on_alans_full_plate() -> None:
    assert execute_cost(EVANS_SWORD, ALAN) == 1


@pytest.mark.parametrize(
    ("damage_type", "cost"),
    [
        pytest.param("piercing", 0, id="piercing: the vulnerability"),
        pytest.param("slashing", 1, id="slashing"),
        pytest.param("crushing", 1, id="crushing"),
    ],
)
def test_the_vulnerable_damage_type_pays_one_less(damage_type: DamageType, cost: int) -> None:
    assert execute_cost(Weapon(damage_type=damage_type), ECKHART) == cost


@pytest.mark.parametrize("damage_type", get_args(DamageType))
def test_a_defender_without_armor_is_hit_for_nothing(damage_type: DamageType) -> None:
    assert execute_cost(Weapon(damage_type=damage_type), FiftyTwoStats()) == 0


# --- §5.3.3 the shield and §5.3.2 the defender's magic ---------------------------------------


@pytest.mark.parametrize(
    ("shield", "added"),
    [
        pytest.param(None, 0, id="no shield"),
        pytest.param(1, 0, id="+1 shield"),
        pytest.param(2, 1, id="+2 shield"),
        pytest.param(3, 2, id="+3 shield"),
    ],
)
def test_a_shield_adds_its_score_above_one(shield: int | None, added: int) -> None:
    assert base_rating(FiftyTwoStats(armor="chain", shield=shield)) == 1 + added


def test_alans_defensive_total_is_armor_shield_and_shield_enchantment() -> None:
    # The seed's Evans: Alan's "Full Plate +2 + Shield +1(+1)" is "(+2+1+1)".
    assert defense_magic(ALAN) == 4
    assert base_rating(ALAN) == 3


def test_without_a_shield_the_defensive_total_is_the_armors_enchantment() -> None:
    assert defense_magic(ECKHART) == 3


# --- §5.3.2 the effects of magic --------------------------------------------------------------


@pytest.mark.parametrize(
    ("armor", "weapon", "expected"),
    [
        pytest.param(2, 0, 3, id="+2 chain vs unenchanted weapon"),
        pytest.param(2, 1, 2, id="+2 chain vs +1 weapon"),
        pytest.param(2, 2, 1, id="+2 chain vs +2 weapon: the magics cancel"),
        pytest.param(2, 3, 0, id="+2 chain vs +3 weapon"),
        pytest.param(2, 5, 0, id="+2 chain vs +5 weapon: never below zero"),
        pytest.param(3, 0, 3, id="+3 chain vs unenchanted weapon: capped, not 4"),
        pytest.param(3, 1, 3, id="+3 chain vs +1 weapon"),
        pytest.param(3, 2, 2, id="+3 chain vs +2 weapon"),
        pytest.param(3, 3, 1, id="+3 chain vs +3 weapon: the magics cancel"),
        pytest.param(3, 4, 0, id="+3 chain vs +4 weapon"),
    ],
)
def test_the_chain_mail_rating_table(armor: int, weapon: int, expected: int) -> None:
    assert rating(chain(armor), weapon) == expected


def test_an_unenchanted_armor_gives_way_to_a_magic_weapon() -> None:
    assert rating(FiftyTwoStats(armor="full-plate"), 0) == 3
    assert rating(FiftyTwoStats(armor="full-plate"), 2) == 1


def test_alphonse_needs_three_hits_on_eckhart() -> None:
    # Ring mail's 2, +1 for Eckhart's +3 against Alphonse's +2 mace.
    assert rating(ECKHART, MACE.enchantment) == 3


def test_alphonse_would_not_get_through_a_plus_four_ring_mail_with_one_critical() -> None:
    # "if Eckhart's ring-mail had been +4 instead of +3, even this would not be enough"
    plus_four = ECKHART.model_copy(update={"armor_enchantment": 4})

    assert rating(plus_four, MACE.enchantment) == 4
    assert register_hit(0, "critical", 4) == (False, 3)


def test_evans_threshold_against_alan_is_five() -> None:
    # "Full plate has a base threshold of 3 ... (+2+1+1) way outmatches his +2 attack".
    assert rating(ALAN, EVANS_SWORD.enchantment) == 5


@given(
    armor=st.sampled_from(get_args(ArmorType)),
    enchantment=st.integers(0, 10),
    shield=st.none() | st.integers(0, 10),
    shield_enchantment=st.integers(0, 10),
    weapon=st.integers(0, 10),
)
def test_a_rating_is_never_below_zero_nor_above_base_plus_two(
    armor: ArmorType, enchantment: int, shield: int | None, shield_enchantment: int, weapon: int
) -> None:
    defender = FiftyTwoStats(
        armor=armor,
        armor_enchantment=enchantment,
        shield=shield,
        shield_enchantment=shield_enchantment,
    )

    assert 0 <= rating(defender, weapon) <= base_rating(defender) + 2


@given(armor=st.sampled_from(get_args(ArmorType)), enchantment=st.integers(0, 10))
def test_a_better_weapon_never_raises_the_rating(armor: ArmorType, enchantment: int) -> None:
    defender = FiftyTwoStats(armor=armor, armor_enchantment=enchantment)
    ratings = [rating(defender, weapon) for weapon in range(12)]

    assert ratings == sorted(ratings, reverse=True)


# --- §5.3.2 natural armors --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ac", "magic", "stat", "expected"),
    [
        pytest.param(10, 0, 0, "none", id="AC 10: no armor"),
        pytest.param(11, 0, 0, "padded", id="AC 11: padded"),
        pytest.param(14, 0, 2, "soft-leather", id="AC 14 with DEX +2: soft leather"),
        pytest.param(16, 2, 1, "hard-leather", id="AC 16, +2 magic, DEX +1: hard leather"),
        pytest.param(14, 0, 0, "bone", id="AC 14: bone"),
        pytest.param(15, 0, 0, "chain", id="AC 15: chain"),
        pytest.param(16, 0, 0, "banded", id="AC 16: banded"),
        pytest.param(19, 2, 0, "ring", id="AC 19 with +2 magic: ring, like Esther"),
        pytest.param(18, 0, 0, "half-plate", id="AC 18: half plate"),
        pytest.param(19, 0, 0, "full-plate", id="AC 19: full plate"),
        pytest.param(30, 0, 0, "full-plate", id="AC 30: nothing beyond full plate"),
        pytest.param(9, 0, -1, "none", id="AC 9 with DEX -1: no armor"),
    ],
)
def test_natural_armor_takes_magic_and_stats_off_the_ac(
    ac: int, magic: int, stat: int, expected: ArmorType
) -> None:
    assert natural_armor(ac, magic, stat) == expected


def test_three_points_of_natural_armor_make_a_point_of_rating() -> None:
    ratings = [ARMOR_RATING[armor] for armor in NATURAL_ARMOR_BY_BONUS]

    assert ratings == [bonus // 3 for bonus in range(len(NATURAL_ARMOR_BY_BONUS))]


def test_an_ac_below_no_armor_has_no_armor_equivalent() -> None:
    with pytest.raises(RuleViolation) as caught:
        natural_armor(12, 2, 1)

    assert caught.value.code == "armor/ac-below-unarmored"
    assert caught.value.rule == "fifty-two §5.3.2"
    assert "AC 10" in caught.value.message


def test_a_magical_defensive_bonus_is_never_negative() -> None:
    with pytest.raises(RuleViolation) as caught:
        natural_armor(15, -1, 0)

    assert caught.value.code == "armor/negative-magic-defense"


@pytest.mark.parametrize(
    ("name", "dex_mod", "armor"),
    [
        pytest.param("Esther", 2, "ring", id="Esther: AC 21, DEX +2, magic +2 -> Ring +2"),
        pytest.param("Emberry", 3, "banded", id="Emberry: AC 21, DEX +3, magic +2 -> Banded +2"),
    ],
)
def test_a_stat_block_with_a_natural_ac_gets_the_addendums_armor_equivalent(
    name: str, dex_mod: int, armor: ArmorType
) -> None:
    # The Addendum gives the equivalents, not the ACs: 21 is the AC that Fray's table turns
    # into each one (10 + 7 ring or 6 banded + 2 magic + the DEX modifier).
    stats = FiftyTwoStats(natural_ac=21, magic_defense=2, dex_mod=dex_mod)

    assert (stats.armor, stats.armor_enchantment) == (armor, 2)
    assert FiftyTwoStats.model_validate(stats.model_dump(mode="json")) == stats


def test_a_natural_ac_takes_the_stated_stat_bonus_instead_of_dex() -> None:
    # A monk-like creature: DEX +1 and WIS +3 both in its AC of 16, leaving 2: soft leather.
    stats = FiftyTwoStats(natural_ac=16, dex_mod=1, ac_stat_bonus=4)

    assert (stats.armor, stats.armor_enchantment) == ("soft-leather", 0)
    # A stated bonus of 0 is not DEX: 16 - 10 - 0 = 6, banded.
    assert FiftyTwoStats(natural_ac=16, dex_mod=1, ac_stat_bonus=0).armor == "banded"


def test_a_natural_ac_and_a_different_armor_are_refused_naming_both() -> None:
    with pytest.raises(ValidationError) as caught:
        FiftyTwoStats.model_validate(
            {"natural_ac": 21, "magic_defense": 2, "dex_mod": 2, "armor": "chain"}
        )

    message = caught.value.errors()[0]["msg"]
    assert "armor is 'chain'" in message
    assert "equivalent to ring +2 (fifty-two §5.3.2)" in message


def test_a_natural_ac_may_repeat_the_armor_it_is_equivalent_to() -> None:
    stats = FiftyTwoStats.model_validate(
        {
            "natural_ac": 21,
            "magic_defense": 2,
            "dex_mod": 2,
            "armor": "ring",
            "armor_enchantment": 2,
        }
    )

    assert stats.armor == "ring"


def test_adding_a_monster_whose_natural_ac_is_below_ten_is_refused_and_stores_nothing() -> None:
    table = Table(RULESET, {"dice": "mixed"})
    error = refused(
        table,
        {"type": "add-combatant", "name": "Slime", "side": "enemies",
         "stats": {"natural_ac": 8}},
    )  # fmt: skip

    assert error.code == "combatant/bad-stats"
    assert "an AC of 8" in error.message and "less than no armor at all" in error.message


def test_a_monster_added_with_a_natural_ac_fights_in_its_equivalent_armor() -> None:
    table = Table(RULESET, {"dice": "mixed"})
    table.send(
        {"type": "add-combatant", "combatant_id": "esther", "name": "Esther", "side": "enemies",
         "stats": {"natural_ac": 21, "magic_defense": 2, "dex_mod": 2}},
    )  # fmt: skip

    added = table.state.table.combatants["esther"]  # type: ignore[union-attr]
    stats = FiftyTwoStats.model_validate(added.stats)
    assert (stats.armor, stats.armor_enchantment, stats.natural_ac) == ("ring", 2, 21)
    assert rating(stats, MACE.enchantment) == base_rating(stats)  # +2 armor against a +2 mace


# --- §5.3.3 hits counted against the rating --------------------------------------------------


def test_each_of_alphonses_three_criticals_registers_on_eckhart() -> None:
    armor_rating = rating(ECKHART, MACE.enchantment)

    assert registered(["critical"] * 3, armor_rating, "reset") == [True, True, True]
    assert registered(["critical"] * 3, armor_rating, "carry") == [True, True, True]


def test_every_second_critical_of_evans_registers_on_alan() -> None:
    # "Critical hits will count for 3 of the 5, so every second critical will do damage":
    # the 5th critical does nothing and the 6th inflicts 33.
    armor_rating = rating(ALAN, EVANS_SWORD.enchantment)

    outcomes = registered(["critical"] * 6, armor_rating, "reset")

    assert [n for n, hit in enumerate(outcomes, 1) if hit] == [2, 4, 6]


def test_carrying_the_excess_would_let_evans_fifth_critical_register() -> None:
    outcomes = registered(["critical"] * 6, rating(ALAN, EVANS_SWORD.enchantment), "carry")

    assert [n for n, hit in enumerate(outcomes, 1) if hit] == [2, 4, 5]


def test_emberrys_three_normal_hits_do_not_beat_alans_threshold_after_evans() -> None:
    # "Three normal hits were scored but that wasn't enough to beat the threshold": with reset,
    # Evans's sixth critical leaves the count at 0. Carrying, it would be at 3.
    armor_rating = rating(ALAN, CLAWS.enchantment)
    assert armor_rating == 5

    assert registered(["ordinary"] * 3, armor_rating, "reset", count=0) == [False] * 3
    assert registered(["ordinary"] * 3, armor_rating, "carry", count=3) == [False, True, False]


def test_ordinary_hits_count_one_and_criticals_three() -> None:
    assert register_hit(0, "ordinary", 5) == (False, 1)
    assert register_hit(1, "critical", 5) == (False, 4)


def test_hits_from_several_attackers_wear_the_armor_down_together() -> None:
    count = register_hit(0, "ordinary", 2).hits

    assert register_hit(count, "ordinary", 2) == (True, 0)


def test_a_surprise_attack_always_registers_and_counts_nothing() -> None:
    assert register_hit(2, "surprise", 5) == (True, 2)


def test_a_spell_always_registers_and_counts_one() -> None:
    assert register_hit(2, "spell", 5) == (True, 3)
    assert register_hit(4, "spell", 5, "reset") == (True, 0)
    assert register_hit(4, "spell", 5, "carry") == (True, 0)


@pytest.mark.parametrize("kind", ["ordinary", "critical", "spell", "surprise"])
@pytest.mark.parametrize("mode", ["reset", "carry"])
def test_against_a_rating_of_zero_every_hit_registers(kind: HitKind, mode: HitMode) -> None:
    assert register_hit(0, kind, 0, mode).registers


def test_a_count_or_rating_is_never_negative() -> None:
    with pytest.raises(ValueError, match="never negative"):
        register_hit(-1, "ordinary", 2)


hit_kinds = st.lists(st.sampled_from(["ordinary", "critical", "spell", "surprise"]), max_size=30)


@given(hits=hit_kinds, armor_rating=st.integers(1, 7))
def test_with_reset_the_count_stays_below_the_rating(
    hits: list[HitKind], armor_rating: int
) -> None:
    count = 0
    for kind in hits:
        count = register_hit(count, kind, armor_rating, "reset").hits
        assert 0 <= count < armor_rating


@given(hits=st.lists(st.sampled_from(["ordinary", "critical"]), max_size=30), r=st.integers(0, 7))
def test_carrying_spends_the_rating_once_per_registered_hit(hits: list[HitKind], r: int) -> None:
    count, registers = 0, 0
    for kind in hits:
        outcome = register_hit(count, kind, r, "carry")
        count, registers = outcome.hits, registers + outcome.registers

    assert count == sum(3 if kind == "critical" else 1 for kind in hits) - r * registers
    assert count >= 0
