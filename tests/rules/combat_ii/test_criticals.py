"""combat-ii §4 Critical Hit and Miss Tables I (option `criticals: tables`) and Critical Hit
and Miss II: Severity Rules (option `criticals: severity`).

The fighter needs a 5 to hit the ogre (THAC0 10 against AC 5) with a long sword (1d8, SF 5:
half-segment 3 on the winner's track); the ogre, on the loser's, swings its club at 4."""

from __future__ import annotations

from typing import Any

import pytest

from tests.rules.combat_ii.cast import (
    attack,
    duel,
    effects,
    fighter_of,
    of_type,
    only,
    stand,
    swing,
)
from tests.rules.combat_ii.given import LONG_SWORD, SHORT_SWORD, hp, refused, state_of
from tests.rules.harness import Table

STAFF = {"name": "quarterstaff", "speed": 4, "damage": "1d6"}
DAGGER = {"name": "dagger", "kind": "missile", "speed": 2, "damage": "1d4", "strength": True}
LONGBOW = {"name": "longbow", "kind": "missile", "speed": 8, "damage": "1d6", "bow": True}
COMPOSITE = {**LONGBOW, "name": "composite bow", "strength": True}


def shooter(weapon: dict[str, Any], **options: Any) -> Table:
    """The fighter, with a missile weapon in hand, four squares from the ogre."""
    return duel(fighter={"weapons": [weapon]}, ogre_at=(4, 0), **options)


# --- Tables I: severe hit ----------------------------------------------------------------------


def test_a_severe_hit_rolls_the_damage_twice_and_takes_the_best() -> None:
    """§4 Severe Hit: "If the roll to hit exceeds the roll needed by 10 OR MORE, roll all
    damage dice twice and take the best score"."""
    table = duel(criticals="tables")

    hit = swing(table, dice=[15, 3, 6])  # needs 5, rolls 15: two d8s, 3 and 6

    assert only(hit, "attack-rolled")["severe"] is True
    damage = only(hit, "damage-rolled")
    assert (damage["amount"], damage["how"]) == (6, "best of two")
    assert hp(table, "ogre") == 80 - 6
    assert table.replayed() == table.state


@pytest.mark.parametrize(
    ("roll", "dice", "severe"),
    [
        pytest.param(14, [14, 3], False, id="9 over: one damage roll"),
        pytest.param(15, [15, 3, 6], True, id="10 over: best of two"),
        pytest.param(19, [19, 6, 3], True, id="14 over: best of two"),
    ],
)
def test_a_severe_hit_needs_ten_or_more_over_the_number_needed(
    roll: int, dice: list[int], severe: bool
) -> None:
    table = duel(criticals="tables")

    hit = swing(table, dice=dice)

    assert only(hit, "attack-rolled")["severe"] is severe
    assert only(hit, "damage-rolled")["amount"] == (6 if severe else 3)
    assert table.replayed() == table.state


def test_without_criticals_a_roll_ten_over_is_an_ordinary_hit() -> None:
    table = duel()

    hit = swing(table, dice=[15, 3])

    assert only(hit, "attack-rolled")["severe"] is False
    assert only(hit, "damage-rolled")["amount"] == 3
    assert table.replayed() == table.state


def test_a_severely_hit_opponent_is_dazed_for_the_rest_of_the_phase() -> None:
    """§4 Severe Hit: "Opponent is dazed for remainder of phase. (-2 to attack rolls, +1 to
    AC)": the ogre's later swing needs 2 more, the squire's later blow 1 less."""
    squire = {"hp": 10, "thac0": 16, "ac": 5, "weapons": [{"name": "axe", "speed": 7}]}
    table = duel(criticals="tables", others=[("squire", "pcs", squire, (1, 1))])
    attack(table, "ogre", "fighter")
    attack(table, "squire", "ogre")
    # fighter at 3: severe (15 vs 5), best of 3 and 6; ogre at 4 (loser SF 4), squire at 4
    # (winner SF 7): ogre's d20 is rolled first (target fighter sorts before ogre).
    resolved = attack(table, "fighter", "ogre", dice=[15, 3, 6, 11, 10, 2])

    rolls = {r["attacker"]: r for r in of_type(resolved, "attack-rolled")}
    assert rolls["ogre"]["needed"] == 15 - 5 + 2 and rolls["ogre"]["hit"] is False
    assert rolls["squire"]["needed"] == 16 - (5 + 1) and rolls["squire"]["hit"] is True
    assert {"combatant_id": "ogre", "name": "dazed"} in of_type(resolved, "effect-ended")
    assert "dazed" not in effects(table, "ogre")
    assert table.replayed() == table.state


# --- Tables I: critical hit (natural 20) ---------------------------------------------------------

STRONG = {"strength_damage": 2}
"""+2 damage, so double base damage (2 x dice + 2) and double total (2 x (dice + 2)) differ."""


@pytest.mark.parametrize(
    ("dice", "amounts", "how", "stricken", "until"),
    [
        pytest.param([20, 1, 1, 6], [14], "double, minimums rerolled", "dazed", 1, id="1"),
        pytest.param([20, 4, 5], [12], "double, minimums rerolled", "dazed", 1, id="4"),
        pytest.param([20, 5, 3, 7], [16], "double, best of two", "dazed", 2, id="5"),
        pytest.param([20, 6, 7, 3], [16], "double, best of two", "dazed", 2, id="6"),
        pytest.param([20, 7], [18], "double maximum base", "stunned", 2, id="7"),
        pytest.param([20, 8], [18], "double maximum base", "stunned", 2, id="8"),
        pytest.param([20, 9, 10, 5], [20, 7], "double maximum total", "stunned", 2, id="9"),
        pytest.param([20, 10, 10, 5], [20, 7], "double maximum total", "stunned", 3, id="10"),
    ],
)  # fmt: skip
def test_a_natural_twenty_rolls_on_the_critical_hit_table(
    dice: list[int], amounts: list[int], how: str, stricken: str, until: int
) -> None:
    """§4 Critical Hit, d10: "1-4 DOUBLE BASE DAMAGE. Reroll all minimum rolls ... DAZED
    until end of phase"; "5-6 ... Roll all damage dice twice and take best score ... DAZED
    until end of following phase"; "7-8 DOUBLE MAXIMUM BASE DAMAGE ... STUNNED through the
    following phase"; "9 DOUBLE MAXIMUM TOTAL DAMAGE ... Attacker allowed 1 additional
    attack immediately"; "10 ... stunned through the next 2 phases"."""
    table = duel(fighter=STRONG, criticals="tables")

    hit = swing(table, dice=dice)

    assert only(hit, "critical-rolled")["d10"] == dice[1]
    damage = of_type(hit, "damage-rolled")
    assert [d["amount"] for d in damage] == amounts
    assert damage[0]["how"] == how
    assert hp(table, "ogre") == 80 - sum(amounts)
    # the phase that applied it has ended: a state "until end of phase" is already gone
    assert effects(table, "ogre") == ({stricken: until} if until > 1 else {})
    kinds = [r["kind"] for r in of_type(hit, "attack-rolled")]
    assert kinds == (["attack", "extra"] if dice[1] >= 9 else ["attack"])
    assert ("free-attack" in effects(table, "fighter")) is (dice[1] == 10)
    assert table.replayed() == table.state


def test_a_stunned_opponent_cannot_act_and_is_easier_to_hit() -> None:
    """§4 Critical Hit 7-8: "Opponent STUNNED through the following phase (no attacks, +4 to
    AC.)"."""
    table = duel(fighter={"attacks": "3"}, criticals="tables")
    swing(table, dice=[20, 7])

    assert state_of(table).intentions["ogre"].kind == "helpless"
    assert refused(table, {"type": "stand", "combatant_id": "ogre"}).code == (
        "intention/already-declared"
    )
    second = attack(table, "fighter", "ogre", dice=[2, 3])

    assert only(second, "attack-rolled")["needed"] == 10 - (5 + 4)
    assert {"combatant_id": "ogre", "name": "stunned"} in of_type(second, "effect-ended")
    assert "ogre" not in state_of(table).intentions  # phase 3: the ogre declares again
    assert table.replayed() == table.state


def test_a_ten_stuns_through_the_next_two_phases() -> None:
    table = duel(fighter={"attacks": "3"}, criticals="tables")
    swing(table, dice=[20, 10, 10, 5])  # and the additional attack

    assert state_of(table).intentions["ogre"].kind == "helpless"  # phase 2
    attack(table, "fighter", "ogre", dice=[10, 4, 10, 4])  # and the free attack
    assert state_of(table).intentions["ogre"].kind == "helpless"  # phase 3
    ended = stand(table, "fighter", dice=[7, 3])  # then round 2's initiative

    assert {"combatant_id": "ogre", "name": "stunned"} in of_type(ended, "effect-ended")
    assert "ogre" not in state_of(table).intentions
    assert table.replayed() == table.state


def test_a_ten_gives_a_free_attack_in_the_next_phase() -> None:
    """§4 Critical Hit 10: "Attacker allowed 1 additional attack immediately PLUS one free
    attack next phase (in addition to regular attacks)"."""
    table = duel(fighter={"attacks": "3"}, criticals="tables")
    swing(table, dice=[20, 10, 10, 5])

    next_phase = attack(table, "fighter", "ogre", dice=[10, 4, 10, 4])

    rolled = of_type(next_phase, "attack-rolled")
    assert [(r["kind"], r["half_segment"]) for r in rolled] == [("attack", 9), ("free", 12)]
    assert fighter_of(table, "fighter").used == {"long sword": 2}  # the free one is not counted
    assert table.replayed() == table.state


def test_the_free_attack_comes_in_addition_to_the_rounds_attacks() -> None:
    """§4 Critical Hit 10: "one free attack next phase (in addition to regular attacks)":
    it is made even when the round's one attack is spent."""
    table = duel(criticals="tables")  # one attack a round, spent in phase 1
    swing(table, dice=[20, 10, 10, 5])

    next_phase = attack(table, "fighter", "ogre", dice=[10, 4])

    assert [r["kind"] for r in of_type(next_phase, "attack-rolled")] == ["free"]
    assert table.replayed() == table.state


def test_the_additional_attack_counts_the_stun() -> None:
    """§4 Critical Hit 9: "Attacker allowed 1 additional attack immediately (include
    opponent's +4 AC penalty)"."""
    table = duel(fighter={"thac0": 20}, criticals="tables")  # needs 15

    hit = swing(table, dice=[20, 9, 16, 5])

    extra = of_type(hit, "attack-rolled")[1]
    assert (extra["kind"], extra["needed"]) == ("extra", 15 - 4)
    assert table.replayed() == table.state


# --- Tables I: critical miss (natural 1) ---------------------------------------------------------

KEEP = ("long sword",)


@pytest.mark.parametrize(
    ("dice", "result", "left", "held", "checks"),
    [
        pytest.param([1, 1, 10], "misstep", {}, KEEP, [("dexterity", 0, True)], id="1: steady"),
        pytest.param(
            [1, 4, 11], "misstep", {"misstep": 2}, KEEP, [("dexterity", 0, False)], id="4: misstep"
        ),
        pytest.param(
            [1, 5, 10, 11], "fumble", {"misstep": 2}, KEEP,
            [("dexterity", 0, True), ("dexterity", 0, False)], id="5: held, misstep",
        ),
        pytest.param(
            [1, 6, 11, 10], "fumble", {}, (), [("dexterity", 0, False), ("dexterity", 0, True)],
            id="6: dropped, steady",
        ),
        pytest.param(
            [1, 7, 9], "fall to knees", {"knees": 2}, KEEP, [("dexterity", -1, True)],
            id="7: DEX-1 holds",
        ),
        pytest.param(
            [1, 8, 10], "fall to knees", {"knees": 2}, (), [("dexterity", -1, False)],
            id="8: DEX-1 drops",
        ),
        pytest.param(
            [1, 9, 1, 8], "prone for 2 phases", {"prone": 3, "defenceless": 2}, KEEP,
            [("dexterity", -2, True)], id="9: 2 phases, DEX-2 holds",
        ),
        pytest.param(
            [1, 9, 2, 9], "prone for 3 phases", {"prone": 4, "defenceless": 2}, (),
            [("dexterity", -2, False)], id="9: 3 phases, DEX-2 drops",
        ),
        pytest.param(
            [1, 10, 1, 5, 5], "sprawling weapon fling for 3 phases",
            {"sprawled": 4, "defenceless": 4},
            (), [], id="10: 3 phases",
        ),
        pytest.param(
            [1, 10, 3, 5, 5], "sprawling weapon fling for 5 phases",
            {"sprawled": 6, "defenceless": 4},
            (), [], id="10: 5 phases",
        ),
    ],
)  # fmt: skip
def test_a_natural_one_rolls_on_the_critical_miss_table(
    dice: list[int],
    result: str,
    left: dict[str, int],
    held: tuple[str, ...],
    checks: list[tuple[str, int, bool]],
) -> None:
    """§4 Critical Miss, d10: "1-4 MISSTEP: Lose movement this phase ... AGI check or suffer
    +2 SF and -1 to hit next phase"; "5-6 FUMBLE: ... DEX check failure = weapon dropped ...
    AGI check or 'misstep' next phase"; "7-8 FALL TO KNEES: Lose further attacks through next
    phase, AC +2. Roll DEX-1"; "9 PRONE: ... Lasts 2-3 phases. Roll DEX -2 to retain each
    item held ... DEFENSELESS FOR FIRST PHASE"; "10 SPRAWLING WEAPON FLING: lasts for 3-5
    phases ... All held items automatically tumble away ... defenseless for first 3 phases"."""
    table = duel(criticals="tables")

    missed = swing(table, dice=dice)

    critical = only(missed, "critical-rolled")
    assert (critical["kind"], critical["d10"]) == ("miss", dice[1])
    assert critical["result"].startswith(result)
    assert effects(table, "fighter") == left
    assert fighter_of(table, "fighter").in_hand == held
    rolled = [r["check"] for r in of_type(missed, "check-rolled")]
    assert [(c["ability"], c["modifier"], c["passed"]) for c in rolled] == checks
    assert of_type(missed, "damage-rolled") == []
    assert table.replayed() == table.state


def test_a_misstep_costs_the_movement_of_the_phase() -> None:
    table = duel(criticals="tables")
    stand(table, "ogre")

    missed = attack(table, "fighter", "ogre", dice=[1, 2, 10])

    lost = [e["effect"] for e in of_type(missed, "effect-applied")]
    assert [(e["name"], e["until"]) for e in lost] == [("no-move", 1)]
    assert {"combatant_id": "fighter", "name": "no-move"} in of_type(missed, "effect-ended")
    assert table.replayed() == table.state


def test_a_misstep_slows_and_spoils_the_next_phases_attack() -> None:
    """§4 Critical Miss 1-4: "AGI check or suffer +2 SF and -1 to hit next phase"."""
    table = duel(fighter={"attacks": "3"}, criticals="tables")
    swing(table, dice=[1, 2, 11])

    stand(table, "ogre")
    next_phase = attack(table, "fighter", "ogre", dice=[6, 3])

    rolled = only(next_phase, "attack-rolled")
    assert (rolled["sf"], rolled["half_segment"]) == (5 + 2, 6 + 4)  # SF 7-9: half-segment 4
    assert rolled["needed"] == 5 + 1
    assert {"combatant_id": "fighter", "name": "misstep"} in of_type(next_phase, "effect-ended")
    assert table.replayed() == table.state


def test_after_a_misstep_the_opponent_retreats_unhindered() -> None:
    """§4 Critical Miss 1-4: "MISSTEP: Lose movement this phase (opponent may retreat
    unhindered)"."""
    table = duel(criticals="tables")
    table.send({"type": "move", "combatant_id": "ogre", "to": [5, 4], "mode": "flee"})

    fled = attack(table, "fighter", "ogre", dice=[1, 2, 15])

    assert [r["kind"] for r in of_type(fled, "attack-rolled")] == ["attack"]
    assert table.replayed() == table.state


def test_a_fumbled_weapon_is_out_of_hand_until_picked_up() -> None:
    table = duel(fighter={"attacks": "3"}, criticals="tables")
    swing(table, dice=[1, 5, 11, 10])
    stand(table, "ogre")

    violation = refused(
        table, {"type": "attack", "combatant_id": "fighter", "targets": ["ogre"]}, dice=[10, 3]
    )
    assert violation.code == "attack/no-weapon"
    assert fighter_of(table, "fighter").dropped == ("long sword",)
    table.send(
        {"type": "prepare", "combatant_id": "fighter", "what": "draw", "weapon": "long sword"}
    )
    assert fighter_of(table, "fighter").in_hand == ("long sword",)
    assert table.replayed() == table.state


def test_fallen_to_the_knees_the_attacker_cannot_attack_next_phase_and_is_easier_to_hit() -> None:
    """§4 Critical Miss 7-8: "Lose further attacks through next phase, AC +2"."""
    table = duel(fighter={"attacks": "3"}, criticals="tables")
    swing(table, dice=[1, 7, 5])

    attack(table, "ogre", "fighter")
    violation = refused(
        table, {"type": "attack", "combatant_id": "fighter", "targets": ["ogre"]}, dice=[10]
    )
    assert violation.code == "attack/cannot"
    swung = stand(table, "fighter", dice=[8, 2])

    assert only(swung, "attack-rolled")["needed"] == 15 - (5 + 2)
    assert {"combatant_id": "fighter", "name": "knees"} in of_type(swung, "effect-ended")
    assert table.replayed() == table.state


@pytest.mark.parametrize(
    ("footing", "after"),
    [
        pytest.param(10, {}, id="AGI check passed: up"),
        pytest.param(11, {"knees": 4}, id="AGI check failed: on its knees"),
    ],
)
def test_a_prone_attacker_is_helpless_then_checks_agility_to_get_up(
    footing: int, after: dict[str, int]
) -> None:
    """§4 Critical Miss 9: "No attacks, no movement, AC +4. AGI check at end of prone period
    to regain upright position. Failure indicates 'Fall to knees' result. CONSIDERED
    STATIONARY AND DEFENSELESS FOR FIRST PHASE"."""
    table = duel(criticals="tables")
    swing(table, dice=[1, 9, 1, 5])  # prone for 2 phases, the sword held

    assert state_of(table).intentions["fighter"].kind == "helpless"
    stand(table, "ogre")  # phase 2: the fighter is defenceless as well
    assert state_of(table).intentions["fighter"].kind == "helpless"
    # phase 3: the ogre's swing, the AGI check as the prone period ends, round 2's initiative
    third = attack(table, "ogre", "fighter", dice=[6, 2, footing, 7, 3])

    assert only(third, "attack-rolled")["needed"] == 15 - (5 + 4)
    assert only(third, "check-rolled")["check"]["purpose"] == "regain footing"
    assert effects(table, "fighter") == after
    assert state_of(table).round == 2
    assert table.replayed() == table.state


def test_sprawled_the_attacker_stays_down_for_its_phases() -> None:
    table = duel(criticals="tables")
    swing(table, dice=[1, 10, 1, 5, 5])  # sprawled for 3 phases: through phase tick 4

    stand(table, "ogre")
    stand(table, "ogre", dice=[7, 3])
    assert state_of(table).intentions["fighter"].kind == "helpless"  # round 2, phase 1
    up = stand(table, "ogre", dice=[10])

    assert [r["check"]["purpose"] for r in of_type(up, "check-rolled")] == ["regain footing"]
    assert effects(table, "fighter") == {}
    assert fighter_of(table, "fighter").in_hand == ()
    assert table.replayed() == table.state


def test_a_critical_miss_loses_the_rest_of_the_routine() -> None:
    """§4 Critical Miss: "Automatic loss of remainder of attack sequence"."""
    pair = {"weapons": [LONG_SWORD, SHORT_SWORD], "wielding": ["long sword", "short sword"]}
    table = duel(fighter=pair, criticals="tables")

    missed = swing(table, dice=[1, 2, 10])  # the short sword never swings

    assert [r["weapon"] for r in of_type(missed, "attack-rolled")] == ["long sword"]
    assert table.replayed() == table.state


def test_under_system_ii_a_critical_miss_loses_the_rest_of_the_sequence() -> None:
    """§4 Critical Miss: "Automatic loss of remainder of attack sequence. If Crit Miss delay
    is LESS than regular delay, complete regular delay instead before next attack"."""
    table = duel(fighter={"attacks": "2"}, criticals="tables", phase_system="II")
    swing(table, dice=[1, 2, 10])  # A: a misstep, the footing kept
    stand(table, "ogre")

    blow = {"type": "attack", "combatant_id": "fighter", "targets": ["ogre"]}
    assert refused(table, blow, dice=[2]).code == "attack/delay"  # B
    assert table.replayed() == table.state


def test_with_agility_the_footing_checks_are_agility_checks() -> None:
    """§4 Agility: AGI "defines the overall quickness of a character"; the table's AGI
    checks use it when the option is on."""
    table = duel(fighter={"dexterity": 10, "agility": 5}, criticals="tables", agility=True)

    missed = swing(table, dice=[1, 2, 6])

    check = only(missed, "check-rolled")["check"]
    assert (check["ability"], check["score"], check["passed"]) == ("agility", 5, False)
    assert "misstep" in effects(table, "fighter")
    assert table.replayed() == table.state


# --- Tables I: missile weapons -------------------------------------------------------------------


def test_a_fumbled_throw_drops_the_weapon_nearby() -> None:
    """§4 Critical Miss "MW MISSILE WEAPON: thrown weapons drop within 1' of combatant"."""
    table = shooter(DAGGER, criticals="tables")

    missed = swing(table, dice=[1])

    assert only(missed, "critical-rolled")["result"].startswith("missile fumble")
    assert only(missed, "weapon-dropped") == {
        "combatant_id": "fighter", "weapon": "dagger", "how": "dropped", "at": {"x": 0, "y": 0},
    }  # fmt: skip
    assert fighter_of(table, "fighter").dropped == ("dagger",)
    assert table.replayed() == table.state


@pytest.mark.parametrize(
    ("string", "missile", "broke"),
    [
        pytest.param(50, 51, "the string broke", id="string 50: breaks"),
        pytest.param(51, 50, "the missile broke", id="missile 50: breaks"),
        pytest.param(1, 1, "the string and the missile broke", id="both"),
        pytest.param(51, 100, "nothing broke", id="neither"),
    ],
)
def test_a_fumbled_bow_shot_may_break_string_and_missile(
    string: int, missile: int, broke: str
) -> None:
    """§4 Critical Miss "Bows or Crossbows: 50% chance of string breakage. 50% chance of
    missile breakage due to misfire"."""
    table = shooter({**LONGBOW, "attacks": "3"}, criticals="tables")

    missed = swing(table, dice=[1, string, missile])

    assert only(missed, "critical-rolled")["result"] == f"missile fumble: {broke}"
    broken = ("longbow",) if string <= 50 else ()
    assert fighter_of(table, "fighter").string_broken == broken
    assert fighter_of(table, "fighter").in_hand == ("longbow",)
    assert table.replayed() == table.state


def test_a_broken_string_is_restrung_before_the_bow_shoots_again() -> None:
    table = shooter({**LONGBOW, "attacks": "3"}, criticals="tables")
    swing(table, dice=[1, 50, 51])
    stand(table, "ogre")

    shot = {"type": "attack", "combatant_id": "fighter", "targets": ["ogre"]}
    assert refused(table, shot, dice=[12, 3]).code == "attack/string-broken"
    table.send(
        {"type": "prepare", "combatant_id": "fighter", "what": "restring", "weapon": "longbow"}
    )
    stand(table, "ogre")
    again = table.send(shot, dice=[12, 3, 7, 3])  # phase 3, then round 2's initiative

    assert only(again, "attack-rolled")["hit"] is True
    assert table.replayed() == table.state


# --- II: Severity Rules --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dice", "amount", "how"),
    [
        pytest.param([5, 3], 3, "normal", id="needs 5, rolls 5: +0"),
        pytest.param([9, 3], 7, "normal, +4 severity", id="rolls 9: +4"),
        pytest.param([19, 8], 22, "normal, +14 severity", id="rolls 19: +14, one roll"),
    ],
)
def test_each_point_over_the_number_needed_is_a_point_of_damage(
    dice: list[int], amount: int, how: str
) -> None:
    """§4 Severity: "bonus damage on the attack roll, with each point rolled above the
    necessary number 'to hit' equal to +1 hp damage"."""
    table = duel(criticals="severity")

    hit = swing(table, dice=dice)

    damage = only(hit, "damage-rolled")
    assert (damage["amount"], damage["how"]) == (amount, how)
    assert only(hit, "attack-rolled")["severe"] is False  # no Tables I best-of-two
    assert table.replayed() == table.state


def test_a_natural_twenty_is_maximum_base_damage_plus_the_margin() -> None:
    """§4 Severity, Critical Hit: "On a natural 20, the base damage roll is automatically
    maximum. This is in addition to whatever severe damage bonus a roll of 20 would cause"."""
    table = duel(criticals="severity")

    hit = swing(table, dice=[20])  # no damage die: the d8 is an 8

    damage = only(hit, "damage-rolled")
    assert (damage["amount"], damage["how"]) == (8 + (20 - 5), "maximum base, +15 severity")
    assert of_type(hit, "critical-rolled") == []
    assert table.replayed() == table.state


MAGE = {"thac0": 22, "attacks": "3", "weapons": [STAFF]}
"""Needs 17 to hit the ogre with a quarterstaff (base SF 4)."""
THIEF = {"thac0": 24, "attacks": "3", "weapons": [{**LONG_SWORD, "magic": 2}]}
"""Needs 17 with a +2 long sword: base SF 5, adjusted 3."""


@pytest.mark.parametrize(
    ("stats", "roll", "penalty"),
    [
        pytest.param(MAGE, 13, None, id="4 under: no penalty"),
        pytest.param(MAGE, 12, None, id="5 under: none yet"),
        pytest.param(MAGE, 11, 1, id="6 under: +1"),
        pytest.param(MAGE, 10, 2, id="7 under: +2"),
        pytest.param(MAGE, 6, 4, id="quarterstaff: at most its base SF 4"),
        pytest.param(THIEF, 2, 5, id="+2 long sword: at most its base SF 5"),
        pytest.param(MAGE, 1, 11, id="natural 1: no maximum"),
    ],
)
def test_a_severe_miss_slows_the_next_strike(
    stats: dict[str, Any], roll: int, penalty: int | None
) -> None:
    """§4 Severe Miss: "if the number rolled to hit is 5 OR MORE LESS THAN the number
    needed, add 1 point to the SF of the weapon for it's next strike PER POINT, up to a
    maximum penalty of the weapon's BASE speed factor"; Critical Miss: "there is no maximum
    penalty to SF"."""
    table = duel(fighter=stats, criticals="severity")

    missed = swing(table, dice=[roll])

    applied = {e["effect"]["name"]: e["effect"] for e in of_type(missed, "effect-applied")}
    if penalty is None:
        assert "severe-miss" not in applied
    else:
        assert (applied["severe-miss"]["value"], applied["severe-miss"]["until"]) == (penalty, 4)
    assert table.replayed() == table.state


def test_the_severe_miss_penalty_lasts_through_the_next_strike() -> None:
    table = duel(fighter=MAGE, criticals="severity")
    swing(table, dice=[6])  # +4: the quarterstaff's next strike is at SF 8

    slowed = swing(table, dice=[17, 2])
    after = swing(table, dice=[17, 2, 7, 3])  # phase 3, then round 2's initiative

    rolled = only(slowed, "attack-rolled")
    assert (rolled["sf"], rolled["half_segment"]) == (8, 6 + 4)  # SF 7-9: half-segment 4
    assert only(after, "attack-rolled")["sf"] == 4
    assert table.replayed() == table.state


def test_the_severe_miss_penalty_lasts_three_phases_at_most() -> None:
    """§4 Severe Miss: "Maximum duration of the penalty is 3 phases. Thereafter it may be
    assumed the combatant has regained normal balance"."""
    table = duel(fighter=MAGE, criticals="severity")
    swing(table, dice=[10])
    stand(table, "ogre")
    stand(table, "fighter")
    stand(table, "ogre")
    stand(table, "fighter", dice=[7, 3])  # the endphase, and round 2's initiative
    assert effects(table, "fighter") == {"severe-miss": 4}  # phase tick 4 is the third
    stand(table, "ogre")

    third = stand(table, "fighter")

    assert {"combatant_id": "fighter", "name": "severe-miss"} in of_type(third, "effect-ended")
    assert effects(table, "fighter") == {}
    assert table.replayed() == table.state


def test_a_critical_miss_loses_agility_bonuses_until_the_next_attack() -> None:
    """§4 Critical Miss: "the combatant loses Agility bonuses through his or her next attack,
    or through the next 3 phases, whichever is completed first"."""
    nimble = {**MAGE, "dexterity": 18, "ac": 1}  # AC 1 counts DEX 18's -4
    table = duel(fighter=nimble, criticals="severity")
    swing(table, dice=[1])

    attack(table, "ogre", "fighter")
    # the ogre swings at half-segment 4 and misses; the fighter's slowed staff (SF 15) at 5
    exposed = attack(table, "fighter", "ogre", dice=[9, 17, 2])

    ogre_roll = next(r for r in of_type(exposed, "attack-rolled") if r["attacker"] == "ogre")
    assert ogre_roll["needed"] == 15 - (1 + 4)
    assert "no-agility" not in effects(table, "fighter")
    assert table.replayed() == table.state


@pytest.mark.parametrize(
    ("strength", "severity", "none"),
    [
        pytest.param((2, 5), 3, 5, id="18/99 +2/+5: +3"),
        pytest.param((1, 3), 2, 3, id="+1/+3: +2"),
        pytest.param((1, 1), 1, 1, id="+1/+1: +1 kept"),
        pytest.param((0, 1), 1, 1, id="+0/+1: +1 kept"),
        pytest.param((-1, -1), -1, -1, id="-1/-1: kept"),
    ],
)
def test_severity_converts_the_strength_damage_bonus(
    strength: tuple[int, int], severity: int, none: int
) -> None:
    """§4 Severity, Strength: "Subtract the 'to hit' column from the 'damage' column for each
    STR level (keeping +1 or below as is)"; "18/99 ... +2/+5 ... Under my rules, he'd get
    +2/+3"."""
    to_hit, damage = strength
    stats = {"strength_hit": to_hit, "strength_damage": damage}
    for option, bonus in (("severity", severity), ("none", none)):
        table = duel(fighter=stats, criticals=option)

        hit = swing(table, dice=[5 - to_hit, 4])  # exactly the number needed: no margin

        assert only(hit, "attack-rolled")["needed"] == 5 - to_hit
        assert only(hit, "damage-rolled")["amount"] == max(1, 4 + bonus), option
        assert table.replayed() == table.state


@pytest.mark.parametrize(
    ("weapon", "severity", "none"),
    [
        pytest.param(DAGGER, (3, 2), (4, 5), id="thrown: greater of STR 3 and DEX 1"),
        pytest.param(COMPOSITE, (3, 2), (4, 5), id="custom bow: greater, with STR damage"),
        pytest.param(LONGBOW, (1, 0), (1, 0), id="normal bow: DEX only, no STR damage"),
    ],
)
def test_missile_weapons_take_the_greater_of_strength_and_dexterity(
    weapon: dict[str, Any], severity: tuple[int, int], none: tuple[int, int]
) -> None:
    """§4 Severity, Missile Weapons: "For weapons allowing strength bonus (custom bows, all
    thrown weapons) use the GREATER of the combatant's STR 'to hit' bonus OR his DEX
    adjustment. Add the new STR damage bonus to the damage roll. Apply only the DEX
    adjustment for crossbows or normal draw-weight bows (no STR damage bonus)"."""
    archer = {
        "thac0": 14, "weapons": [weapon], "strength_hit": 3, "strength_damage": 5,
        "dexterity": 16,
    }  # fmt: skip
    for option, (to_hit, damage) in (("severity", severity), ("none", none)):
        table = duel(fighter=archer, ogre_at=(4, 0), criticals=option)

        hit = swing(table, dice=[9 - to_hit, 1])  # 14 - 5 = 9 without bonuses

        assert only(hit, "attack-rolled")["needed"] == 9 - to_hit, option
        assert only(hit, "damage-rolled")["amount"] == 1 + damage, option
        assert table.replayed() == table.state


@pytest.mark.parametrize(
    ("option", "needed", "damage"),
    [
        pytest.param("full", 5, 4 + 7, id="full: +7 damage"),
        pytest.param("half", 5 - 3, 4 + 4, id="half: +3 to hit, +4 damage"),
    ],
)
def test_a_listed_damage_bonus_is_damage_or_half_of_it_to_hit(
    option: str, needed: int, damage: int
) -> None:
    """§4 Severity, Creatures With Listed Damage Bonus Only: "Either apply this bonus in full
    with any successful hit, or apply half of it (round down) to the creature's thac0, and
    the remainder as bonus damage"."""
    table = duel(fighter={"listed_damage": 7}, criticals="severity", listed_damage=option)

    hit = swing(table, dice=[needed, 4])

    assert only(hit, "attack-rolled")["needed"] == needed
    assert only(hit, "damage-rolled")["amount"] == damage
    assert table.replayed() == table.state


def test_a_severe_miss_by_one_part_of_a_routine_slows_the_next_routine() -> None:
    """§4 Severe Miss: the penalty is for the weapon's "next strike"; a two-weapon routine's
    parts strike together (§2 C)."""
    pair = {
        "thac0": 22, "attacks": "3", "weapons": [LONG_SWORD, SHORT_SWORD],
        "wielding": ["long sword", "short sword"],
    }  # fmt: skip
    table = duel(fighter=pair, criticals="severity")

    swing(table, dice=[6, 15])  # the long sword misses by 11 (+5 at most), the short by 2

    assert effects(table, "fighter").get("severe-miss") == 4
    assert table.replayed() == table.state
