"""combat-ii §2 C: fighters' rapid attacks against creatures below 1 HD (PH: a warrior
attacks once per level a round in melee with creatures of less than one Hit Die), and the
stationary, defenceless target, which "may be attacked each phase".

The fighter (THAC0 10, a long sword at SF 5: half-segment 3 of its phase as a winner) wins
every initiative (kobolds 7, pcs 3), so its foes declare first and its declaration resolves
the phase. A 2 on its d20 misses every foe here but a prone one, so nobody falls."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.context import GM
from service.rules.combat_ii import RULESET
from tests.rules.combat_ii.cast import FIGHTER, attack, fighter_of, only, stand
from tests.rules.combat_ii.given import (
    LONG_SWORD,
    SHORT_SWORD,
    add,
    data_of,
    declare,
    encounter,
    line_map,
    refused,
    start,
    state_of,
)
from tests.rules.harness import Table

SPEAR = {"name": "spear", "speed": 6, "damage": "1d6"}
KOBOLD = {"hp": 40, "ac": 7, "mv": 6, "size": "small", "hit_dice": 0.5, "weapons": [SPEAR]}
"""Half a Hit Die (PH: a kobold's 1/2 HD), with hit points to spare for the spec."""
ORC = {"hp": 40, "ac": 6, "mv": 9, "hit_dice": 1, "weapons": [SPEAR]}
WARRIOR = {"warrior": True, "level": 3}
MISS = [2]
SPELLS = [
    {"name": "chant", "level": 3, "ct": 9, "components": "VS"},
    {"name": "word", "level": 3, "ct": 9, "components": "V"},
    {"name": "spark", "level": 1, "ct": 1, "components": "VS"},
    {"name": "blast", "level": 1, "ct": 3, "components": "VS"},
]  # fmt: skip
MAGE = {"hp": 20, "ac": 2, "mv": 12, "weapons": [{"name": "staff", "speed": 4}], "spells": SPELLS}
"""`chant` and `word` take three phases (CT 9, 3 CT a phase); `word` needs no gestures. A
spell begun in phase 2 may take CT 6 at most: `blast`, CT 3. AC 2: +4 as a stationary
target, the fighter's 2 still misses."""
STRIKE = {"type": "attack", "combatant_id": "fighter", "targets": ["kobold"]}


def melee(
    fighter: dict[str, Any] | None = None,
    foes: tuple[tuple[str, dict[str, Any]], ...] = (("kobold", KOBOLD),),
    **options: Any,
) -> Table:
    """The fighter at (0, 0) and its foes on the other side around it: the first at (1, 0),
    the second at (0, 1), the third at (1, 1)."""
    table = encounter(**options)
    line_map(table)
    add(table, "fighter", "pcs", {**FIGHTER, **(fighter or {})}, at=(0, 0))
    for (cid, stats), cell in zip(foes, ((1, 0), (0, 1), (1, 1)), strict=False):
        add(table, cid, "kobolds", stats, at=cell)
    start(table, initiative=[7, 3])
    return table


def strike(
    table: Table, target: str = "kobold", dice: list[int] | None = None, **more: Any
) -> list[dict[str, Any]]:
    """The foes stand (losers declare first), then the fighter attacks: its attack rolls."""
    foes_stand(table)
    return data_of(attack(table, "fighter", target, dice or MISS, **more), "attack-rolled")


def foes_stand(table: Table) -> None:
    """Every foe yet to declare this phase stands."""
    for cid in sorted(state_of(table).table.combatants):
        if cid != "fighter" and cid not in state_of(table).intentions:
            stand(table, cid)


# --- fighters against creatures below 1 HD ------------------------------------------------------


def test_a_3rd_level_warrior_attacks_a_kobold_in_every_phase_of_the_round() -> None:
    """§2 C: "Fighters gain such a rapid attacking capability when fighting creatures below 1
    HD"; PH: one attack per level a round. One attack a round on the sheet, three on kobolds:
    one in each phase ("UP TO 1 ATTACK PER PHASE")."""
    table = melee(fighter=WARRIOR)

    rolled = strike(table) + strike(table) + strike(table, dice=[2, 7, 3])  # round 2's d10s

    assert [(r["weapon"], r["half_segment"]) for r in rolled] == [
        ("long sword", 3), ("long sword", 9), ("long sword", 15),
    ]  # fmt: skip
    assert state_of(table).round == 2
    assert fighter_of(table, "fighter").used == {}  # a new round, a new allowance
    assert table.replayed() == table.state


@pytest.mark.parametrize(
    ("fighter", "kobold", "allowed"),
    [
        pytest.param(WARRIOR, {}, True, id="warrior, 1/2 HD: a second attack"),
        pytest.param(WARRIOR, {"hit_dice": 0}, True, id="warrior, a 0-level man: one too"),
        pytest.param(WARRIOR, {"hit_dice": 1}, False, id="a full Hit Die is not below 1"),
        pytest.param(WARRIOR, {"hit_dice": None}, False, id="no hit dice: a character"),
        pytest.param({"level": 3}, {}, False, id="not a warrior"),
        pytest.param({**WARRIOR, "level": 1}, {}, False, id="1st level: no more than its rate"),
    ],
)
def test_who_attacks_per_level_and_at_whom(
    fighter: dict[str, Any], kobold: dict[str, Any], allowed: bool
) -> None:
    """PH: a warrior (fighter classes) against creatures of less than one Hit Die (less than
    d8) attacks as often a round as its level, when that is more than its rate."""
    table = melee(fighter=fighter, foes=(("kobold", {**KOBOLD, **kobold}),))
    strike(table)
    foes_stand(table)

    if allowed:
        assert len(data_of(table.send(STRIKE, dice=MISS), "attack-rolled")) == 1
    else:
        assert refused(table, STRIKE).code == "attack/none-left"


def test_a_5th_level_warrior_double_attacks_kobolds_and_makes_five_attacks() -> None:
    """§2 C: "Should a creature actually be allowed a total number of attacks greater than the
    total number of opportunities (i.e. more than 4), he may double-attack within a phase,
    adding his weapon's SF to the half-segment of the first attack": five attacks, 2 + 2 + 1."""
    table = melee(fighter={**WARRIOR, "level": 5})

    first = strike(table, dice=[2, 2], twice=True)
    second = strike(table, dice=[2, 2], twice=True)
    foes_stand(table)
    twice = {**STRIKE, "twice": True}
    assert refused(table, twice).code == "attack/no-double"  # one left: a single attack
    third = data_of(table.send(STRIKE, dice=[2, 7, 3]), "attack-rolled")

    assert [r["half_segment"] for r in first + second + third] == [3, 6, 9, 12, 15]
    assert table.replayed() == table.state


def test_a_3rd_level_warrior_has_no_double_attack_on_kobolds() -> None:
    """Three attacks a round fit the three phases: no double attack (§2 C: more than the
    opportunities)."""
    table = melee(fighter=WARRIOR)
    foes_stand(table)
    assert refused(table, {**STRIKE, "twice": True}).code == "attack/no-double"


def test_attacks_made_on_others_this_round_count_against_the_level() -> None:
    """Fray: the level replaces the rate while the warrior attacks creatures below 1 HD, and
    every attack of the round counts: a 2nd-level warrior who struck the orc has one left for
    the kobold."""
    table = melee(fighter={**WARRIOR, "level": 2}, foes=(("kobold", KOBOLD), ("orc", ORC)))
    strike(table, target="orc")
    strike(table)
    foes_stand(table)
    assert refused(table, STRIKE).code == "attack/none-left"
    assert fighter_of(table, "fighter").used == {"long sword": 2}


def test_the_orc_keeps_its_rate_when_the_warrior_turns_to_it_after_kobolds() -> None:
    table = melee(fighter=WARRIOR, foes=(("kobold", KOBOLD), ("orc", ORC)))
    strike(table)
    foes_stand(table)
    at_the_orc = {**STRIKE, "targets": ["orc"]}
    assert refused(table, at_the_orc).code == "attack/none-left"


@pytest.mark.parametrize(
    ("targets", "allowed"),
    [
        pytest.param(["kobold", "kobold-2"], True, id="both parts at kobolds"),
        pytest.param(["kobold", "orc"], False, id="one part at the orc"),
    ],
)
def test_every_target_of_the_routine_must_be_below_1_hd(targets: list[str], allowed: bool) -> None:
    two_swords = {**WARRIOR, "weapons": [LONG_SWORD, SHORT_SWORD],
                  "wielding": ["long sword", "short sword"]}  # fmt: skip
    foes = (("kobold", KOBOLD), ("orc", ORC), ("kobold-2", KOBOLD))
    table = melee(fighter=two_swords, foes=foes)
    strike(table, dice=[2, 2])  # both swords at the kobold
    foes_stand(table)
    routine = {**STRIKE, "targets": targets}

    if allowed:
        assert len(data_of(table.send(routine, dice=[2, 2]), "attack-rolled")) == 2
    else:
        assert refused(table, routine).code == "attack/none-left"


def test_a_warriors_bow_keeps_its_rate_of_fire_against_kobolds() -> None:
    """PH: the attacks per level are melee attacks; a longbow shoots its two a round."""
    longbow = {"name": "longbow", "kind": "missile", "speed": 8, "attacks": "2"}
    archer = {**WARRIOR, "level": 5, "weapons": [longbow]}
    table = melee(fighter=archer)
    strike(table)
    strike(table)
    foes_stand(table)
    assert refused(table, STRIKE).code == "attack/none-left"


def test_a_charge_at_a_kobold_counts_the_level_too() -> None:
    """A charge is an attack: a 3rd-level warrior whose round's one attack went to the orc
    may still charge a kobold."""
    table = melee(fighter=WARRIOR, foes=(("orc", ORC),))
    add(table, "kobold", "kobolds", KOBOLD, at=(6, 0))
    strike(table, target="orc")
    foes_stand(table)
    charge = {"type": "charge", "combatant_id": "fighter", "target": "kobold", "speed": 2}
    rolled = data_of(table.send(charge, dice=[2, 2]), "attack-rolled")  # its counter misses too
    assert [(r["attacker"], r["kind"]) for r in rolled] == [
        ("fighter", "charge"),
        ("kobold", "counter"),
    ]


# --- the stationary, defenceless target ---------------------------------------------------------


def _mage_casts(table: Table, spell: str) -> None:
    declare(table, "mage", "cast", spell=spell, target="fighter")


@pytest.mark.parametrize(
    ("spell", "allowed"),
    [
        pytest.param("chant", True, id="somatic: stationary, defenceless"),
        pytest.param("word", False, id="verbal only: not stationary"),
    ],
)
def test_a_caster_invoking_a_somatic_spell_may_be_attacked_each_phase(
    spell: str, allowed: bool
) -> None:
    """§2 C: "A defenseless target unable to move out of the way of a blow ... may be attacked
    each phase. This category includes spellcasters when invoking magicks requiring somatic
    components." The fighter's one attack a round goes in phase 1; the mage casts on."""
    table = melee(foes=(("mage", MAGE),))
    _mage_casts(table, spell)
    attack(table, "fighter", "mage", MISS)  # phase 1: the round's attack
    assert state_of(table).intentions["mage"].kind == "continue"  # phase 2: casting on

    if not allowed:
        again = {**STRIKE, "targets": ["mage"]}
        assert refused(table, again).code == "attack/none-left"
        return
    second = only(attack(table, "fighter", "mage", MISS), "attack-rolled")
    third = only(attack(table, "fighter", "mage", [2, 7, 3]), "attack-rolled")
    assert [second["half_segment"], third["half_segment"]] == [9, 15]
    assert second["needed"] == 10 - (2 + 4)  # +4 AC: THAC0 10 - AC 6
    assert state_of(table).round == 2


def test_attacks_on_a_stationary_target_count_as_the_rounds_attacks() -> None:
    """Fray: the blow at a defenceless target counts like any attack (`used`); it only needs
    no attack left. With the attack spent on the caster, the kobold is out of reach of it."""
    table = melee(foes=(("mage", MAGE), ("kobold", {**KOBOLD, "hit_dice": None})))
    _mage_casts(table, "chant")
    stand(table, "kobold")
    attack(table, "fighter", "mage", MISS)
    stand(table, "kobold")
    attack(table, "fighter", "mage", MISS)  # phase 2: beyond the allowance

    assert fighter_of(table, "fighter").used == {"long sword": 2}
    stand(table, "kobold")
    assert refused(table, STRIKE).code == "attack/none-left"
    offered = [a for a in RULESET.legal_actions(state_of(table), GM) if a.type == "attack"]
    assert [(a.actor, a.targets) for a in offered] == [("fighter", ["mage"])]


def test_a_caster_beginning_a_somatic_spell_this_phase_is_already_stationary() -> None:
    """The mage declares its spell first (it lost initiative); its casting begins as the
    phase does, so the fighter, whose attack went in phase 1, may strike it in phase 2."""
    table = melee(foes=(("mage", MAGE),))
    strike(table, target="mage")

    _mage_casts(table, "blast")
    rolled = only(attack(table, "fighter", "mage", MISS), "attack-rolled")

    assert (rolled["half_segment"], rolled["needed"]) == (9, 10 - 6)
    assert table.replayed() == table.state


def test_one_routine_a_phase_at_a_defenceless_target_not_a_double() -> None:
    """ "May be attacked each phase": once each phase."""
    table = melee(foes=(("mage", MAGE),))
    _mage_casts(table, "chant")
    attack(table, "fighter", "mage", MISS)
    twice = {**STRIKE, "targets": ["mage"], "twice": True}
    assert refused(table, twice).code == "attack/no-double"


def test_a_prone_fumbler_is_defenceless_for_its_first_phase_only() -> None:
    """§4 Critical Miss 9: "PRONE ... CONSIDERED STATIONARY AND DEFENSELESS FOR FIRST PHASE":
    the fighter strikes the fallen kobold in phase 2 beyond its one attack, not in phase 3."""
    table = melee(foes=(("kobold", {**KOBOLD, "hit_dice": None}),), criticals="tables")
    declare(table, "kobold", "attack", targets=["fighter"])
    # The fighter misses at 3; the kobold rolls a 1 at 5: prone for 2 phases, the spear held.
    attack(table, "fighter", "kobold", [2, 1, 9, 1, 8])
    assert state_of(table).intentions["kobold"].kind == "helpless"

    rolled = only(attack(table, "fighter", "kobold", [2, 3]), "attack-rolled")  # hit, 1d8: 3

    assert (rolled["half_segment"], rolled["hit"]) == (9, True)  # phase 2: defenceless
    assert rolled["needed"] == 10 - (7 + 4 + 4)  # prone +4, defenceless +4

    assert refused(table, STRIKE).code == "attack/none-left"  # phase 3: prone, not defenceless


def test_a_charge_at_a_somatic_caster_needs_no_attack_left() -> None:
    """A charge is an attack: the fighter, its attack spent on the kobold, may charge the
    unarmed mage (who has nothing to answer the charge with) beginning a somatic spell."""
    table = melee(foes=(("kobold", {**KOBOLD, "hit_dice": None}),))
    add(table, "mage", "kobolds", {**MAGE, "weapons": []}, at=(6, 0))
    strike(table)
    stand(table, "kobold")
    _mage_casts(table, "blast")
    charge = {"type": "charge", "combatant_id": "fighter", "target": "mage", "speed": 2}
    rolled = data_of(table.send(charge, dice=MISS), "attack-rolled")
    assert [(r["target"], r["kind"]) for r in rolled] == [("mage", "charge")]


# --- System II: the delay gives way to a stationary target --------------------------------------


@pytest.mark.parametrize(
    ("spell", "allowed"),
    [
        pytest.param("chant", True, id="somatic: attacked in the delay"),
        pytest.param("word", False, id="verbal only: the delay holds"),
    ],
)
def test_system_ii_a_delaying_attacker_may_strike_a_somatic_caster(
    spell: str, allowed: bool
) -> None:
    """§3 C Table 6: one attack a round is "attack, delay, delay"; §2 C: the caster of a
    somatic spell may be attacked each phase."""
    table = melee(foes=(("mage", MAGE),), phase_system="II")
    _mage_casts(table, spell)
    attack(table, "fighter", "mage", MISS)  # phase A

    again = {**STRIKE, "targets": ["mage"]}
    if allowed:
        assert len(data_of(table.send(again, dice=MISS), "attack-rolled")) == 1
    else:
        assert refused(table, again).code == "attack/delay"


def test_system_ii_a_caster_holding_a_cast_spell_is_no_stationary_target() -> None:
    """§2 A: "The caster may move freely while holding a spell": its casting done, it is no
    longer invoking the spell, and the delay holds again."""
    table = melee(foes=(("mage", MAGE),), phase_system="II")
    declare(table, "mage", "cast", spell="spark", target="fighter", hold=3)
    attack(table, "fighter", "mage", MISS)  # phase A: CT 1 + 3 held; 1 CT left for phase B

    stand(table, "mage")
    again = {**STRIKE, "targets": ["mage"]}
    assert refused(table, again).code == "attack/delay"
