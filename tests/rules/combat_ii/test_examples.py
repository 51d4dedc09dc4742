"""The seed's worked examples, each a test named after it."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.envelope import Envelope
from service.rules.combat_ii import combatants
from service.rules.combat_ii.stats import CombatIIStats
from tests.rules.combat_ii.given import (
    ARCHER,
    LONG_SWORD,
    ORC,
    SHORT_SWORD,
    add,
    data_of,
    declare,
    encounter,
    hp,
    line_map,
    one,
    refused,
    stand,
    start,
    state_of,
)
from tests.rules.harness import Table


def test_the_archer_shoots_the_closing_orc_before_it_can_swing() -> None:
    """combat-ii §1: "if an orc must move into position, he has to wait until the next
    phase to actually swing an axe, while a stationary archer 40 feet away could wreck the
    monster's whole day before it takes a step"."""
    table = encounter()
    line_map(table)
    add(table, "archer", "pcs", ARCHER, at=(0, 0))
    add(table, "orc", "orcs", ORC, at=(4, 0))
    start(table, initiative=[7, 3])  # orcs 7, pcs 3: the archer's side wins
    assert state_of(table).tracks == {"archer": "winner", "orc": "loser"}

    table.send({"type": "move", "combatant_id": "orc", "to": [1, 0]})
    shot = table.send(
        {"type": "attack", "combatant_id": "archer", "targets": ["orc"]}, dice=[18, 6]
    )

    kinds = table.types(shot)
    assert kinds.index("attack-rolled") < kinds.index("combatant-downed")
    rolled = next(e for e in shot if e.type == "attack-rolled")
    assert rolled.data["half_segment"] == 4  # SF 8, winner track: "SF 7-9" at 4
    assert hp(table, "orc") == 0
    assert "moved" not in kinds  # downed at half-segment 4, before movement
    assert state_of(table).table.combatants["orc"].position is not None
    assert state_of(table).table.combatants["orc"].position.x == 4
    assert table.replayed() == table.state


# --- §2 C Multi-Part Attack Routine: the 7th-level two-weapon fighter ----------------------

TWO_SWORDS_FIGHTER = {
    "hp": 60, "thac0": 14, "ac": 3, "mv": 12, "level": 7, "attacks": "2",
    "weapons": [
        {**LONG_SWORD, "attacks": "2", "specialization": 1},
        {**SHORT_SWORD, "attacks": "3/2"},
    ],
    "wielding": ["long sword", "short sword"],
}  # fmt: skip
"""Specialized in the long sword only: 2 attacks a round with it, 3/2 with the short sword."""
OGRE = {"hp": 200, "thac0": 15, "ac": 5, "mv": 9, "weapons": [{"name": "club", "speed": 4}]}


def _the_fighter_and_the_ogre() -> Table:
    table = encounter()
    line_map(table)
    add(table, "fighter", "pcs", TWO_SWORDS_FIGHTER, at=(0, 0))
    add(table, "ogre", "ogres", OGRE, at=(1, 0))
    start(table, initiative=[7, 3])  # ogres 7, pcs 3: the fighter wins, the ogre declares first
    return table


def _fighter_attacks(table: Table, dice: list[int]) -> list[Envelope]:
    stand(table, "ogre")
    return declare(table, "fighter", "attack", dice=dice, targets=["ogre"])


def test_the_7th_level_two_weapon_fighters_first_round() -> None:
    """combat-ii §2 C: "a 7th level fighter uses a long and short sword, but is specialized
    only with the longsword. Her attacks per round are therefore 2 and 3/2 respectively. She
    first attacks with both at a SF of 5--the longsword's, which is slower by 2--and in a
    later phase attacks with longsword only, also at SF 5"."""
    table = _the_fighter_and_the_ogre()

    paired = _fighter_attacks(table, dice=[15, 12, 5, 4])  # two hits, then d8 and d6
    rolled = data_of(paired, "attack-rolled")
    assert [(r["weapon"], r["sf"], r["half_segment"]) for r in rolled] == [
        ("long sword", 5, 3),
        ("short sword", 5, 3),  # the short sword's own SF 3 waits for the long sword's 5
    ]
    assert [d["amount"] for d in data_of(paired, "damage-rolled")] == [5 + 2, 4]  # spec. +2
    kinds = table.types(paired)
    assert kinds.index("damage-rolled") > max(
        i for i, k in enumerate(kinds) if k == "attack-rolled"
    )

    alone = _fighter_attacks(table, dice=[2])  # a miss
    assert [(r["weapon"], r["sf"], r["half_segment"]) for r in data_of(alone, "attack-rolled")] == [
        ("long sword", 5, 9)  # phase 2, SF 4-6 on the winner's track
    ]

    stand(table, "ogre")
    violation = refused(table, {"type": "attack", "combatant_id": "fighter", "targets": ["ogre"]})
    assert violation.code == "attack/none-left"
    assert table.replayed() == table.state


def test_the_7th_level_two_weapon_fighters_second_round() -> None:
    """combat-ii §2 C: "Next round she would get two attacks with the short sword, so she
    could make two paired attacks"."""
    table = _the_fighter_and_the_ogre()
    _fighter_attacks(table, dice=[2, 2])
    _fighter_attacks(table, dice=[2])
    stand(table, "ogre")
    stand(table, "fighter", dice=[7, 3])  # round 2's initiative: the fighter wins again
    assert state_of(table).round == 2

    for phase, number in ((1, 3), (2, 9)):
        assert state_of(table).phase == phase
        paired = _fighter_attacks(table, dice=[2, 2])
        rolled = data_of(paired, "attack-rolled")
        assert [(r["weapon"], r["sf"], r["half_segment"]) for r in rolled] == [
            ("long sword", 5, number),
            ("short sword", 5, number),
        ]

    stand(table, "ogre")
    violation = refused(table, {"type": "attack", "combatant_id": "fighter", "targets": ["ogre"]})
    assert violation.code == "attack/none-left"
    assert table.replayed() == table.state


def test_the_two_weapon_fighter_may_not_save_the_short_swords_attack_for_later() -> None:
    """combat-ii §2 C: "each weapon may attack to the maximum applicable attacks per round,
    but only in paired fashion (one part of the routine may not be 'saved' until later)"."""
    table = _the_fighter_and_the_ogre()
    stand(table, "ogre")
    long_only = {
        "type": "attack", "combatant_id": "fighter", "targets": ["ogre"],
        "weapons": ["long sword"],
    }  # fmt: skip
    violation = refused(table, long_only, dice=[2])
    assert violation.code.startswith("attack/")


# --- §2 D Charging and Setting Weapons: the paladin and the troll ---------------------------

LANCE = {"name": "lance", "speed": 8, "damage": "1d8"}
PALADIN = {
    "hp": 40, "thac0": 14, "ac": 2, "mv": 18, "max_speed": 3, "mounted": True,
    "weapons": [LANCE],
}  # fmt: skip
"""Mounted: MV is the war horse's 18; spurred to triple movement, 54, it covers 18 squares a
phase."""
CLAWS = {"name": "claws", "kind": "natural", "damage": "1d4+4"}
TROLL = {"hp": 30, "thac0": 13, "ac": 4, "mv": 12, "size": "large", "weapons": [CLAWS]}


def _the_paladin_and_the_troll(troll_hp: int = 30, squire: bool = False) -> Table:
    """The paladin at (0, 0), the troll 13 squares off at (13, 0); the paladin wins."""
    table = encounter()
    line_map(table)
    add(table, "paladin", "pcs", PALADIN, at=(0, 0))
    if squire:
        add(table, "squire", "pcs", {"hp": 9, "ac": 6}, at=(13, 1))
    add(table, "troll", "trolls", {**TROLL, "hp": troll_hp}, at=(13, 0))
    start(table, initiative=[3, 7])  # pcs 3, trolls 7
    return table


RUN = 10
"""A passed STR check to reach 3x MV or faster (§2 D, PH p. 120): 10 against STR 10."""


def _charge(table: Table, dice: list[int]) -> list[Envelope]:
    """The paladin spurs to 3x (the STR check passes) and charges the troll."""
    return declare(table, "paladin", "charge", dice=[RUN, *dice], target="troll", speed=3)


def _cells(path: list[dict[str, int]]) -> list[tuple[int, int]]:
    return [(c["x"], c["y"]) for c in path]


def test_the_paladins_charge_overruns_the_troll_by_50_yards() -> None:
    """combat-ii §2 D: "a mounted paladin charges a troll. The horse is spurred to triple
    movement--48--in order to reach the troll within the phase. The paladin will cover 180
    yards during the phase. The troll is only 130 yards away, so the paladin must overrun his
    target by the full remainder of his movement (180 - 130 = 50 yards)".

    The seed's own numbers disagree: 180 yards (18 squares of 10 yards) a phase is a third of
    MV 54, not 48 (which gives 16). Fray plays it with a war horse's MV 18 tripled to 54, so
    the 18 squares, the troll's 13 and the 5-square (50-yard) overrun are the seed's."""
    table = _the_paladin_and_the_troll()
    stand(table, "troll")

    charged = _charge(table, dice=[15, 6, 3])  # lance hits for 6; the troll's counter misses

    assert one(charged, "speed-changed")["factor"] == 3
    closing, overrun = data_of(charged, "moved")
    assert closing["mode"] == "charge" and overrun["mode"] == "overrun"
    assert _cells(closing["path"])[-1] == (12, 0)  # "he attacks at the moment he closes"
    assert _cells(overrun["path"])[-1] == (18, 0)  # 5 squares past the troll at 13
    paladin = state_of(table).table.combatants["paladin"].position
    assert paladin is not None and (paladin.x - 0, paladin.x - 13) == (18, 5)  # 180 and 50 yd
    lance = data_of(charged, "attack-rolled")[0]
    assert (lance["attacker"], lance["kind"]) == ("paladin", "charge")
    assert table.replayed() == table.state


def test_the_troll_counterattacks_the_charging_paladin_if_it_survives() -> None:
    """combat-ii §2 D: "if the troll survives, it gets to counterattack before the paladin
    moves out of range--only if it has not yet attacked this phase" and "Otherwise the
    attacker rolls for damage and applies it BEFORE the defender can respond"."""
    table = _the_paladin_and_the_troll()
    stand(table, "troll")

    charged = _charge(table, dice=[15, 6, 16, 2])  # lance 6; the counter hits for 2+4

    kinds = table.types(charged)
    lance, counter = data_of(charged, "attack-rolled")
    lance_at, counter_at = (i for i, kind in enumerate(kinds) if kind == "attack-rolled")
    assert (lance["attacker"], counter["attacker"], counter["kind"]) == (
        "paladin", "troll", "counter",
    )  # fmt: skip
    assert lance_at < kinds.index("resource-adjusted") < counter_at  # the lance's damage first
    overrun_at = len(kinds) - 1 - kinds[::-1].index("moved")
    assert counter_at < overrun_at  # "before the paladin moves out of range"
    assert hp(table, "troll") == 24 and hp(table, "paladin") == 34
    assert table.replayed() == table.state


def test_the_troll_killed_by_the_lance_cannot_counterattack() -> None:
    """combat-ii §2 D: the charger's damage lands "BEFORE the defender can respond (perhaps
    killing him before he can do so)"."""
    table = _the_paladin_and_the_troll(troll_hp=5)
    stand(table, "troll")

    charged = _charge(table, dice=[15, 6])

    assert [r["attacker"] for r in data_of(charged, "attack-rolled")] == ["paladin"]
    assert one(charged, "combatant-downed")["combatant_id"] == "troll"
    assert table.replayed() == table.state


def test_the_troll_that_already_attacked_this_phase_cannot_counterattack() -> None:
    """combat-ii §2 D: "A defender may not respond if it has already attacked within the
    phase"."""
    table = _the_paladin_and_the_troll(squire=True)
    declare(table, "troll", "attack", targets=["squire"])
    stand(table, "squire")

    charged = _charge(table, dice=[3, 15, 6])  # the troll misses the squire; the lance hits

    assert [(r["attacker"], r["kind"]) for r in data_of(charged, "attack-rolled")] == [
        ("troll", "attack"),
        ("paladin", "charge"),
    ]
    assert table.replayed() == table.state


def test_the_troll_that_made_its_attacks_this_round_cannot_counterattack() -> None:
    """combat-ii §2 D: "... or met its maximum number of attacks per round". The troll spends
    its one attack on the squire in phase 1; the paladin charges in phase 2."""
    table = _the_paladin_and_the_troll(squire=True)
    declare(table, "troll", "attack", targets=["squire"])
    stand(table, "squire")
    stand(table, "paladin", dice=[3])  # the troll misses the squire
    stand(table, "troll", "squire")

    charged = _charge(table, dice=[15, 6])

    assert [(r["attacker"], r["kind"]) for r in data_of(charged, "attack-rolled")] == [
        ("paladin", "charge")
    ]
    assert table.replayed() == table.state


def test_the_troll_set_to_receive_the_charge_strikes_even_as_the_lance_kills_it() -> None:
    """combat-ii §2 D Setting Weapons: "the beast would have been able to simultaneously
    attack regardless of whether or not the paladin's lance killed it if it poised itself to
    receive the charge instead of attacking another target"."""
    table = _the_paladin_and_the_troll(troll_hp=5)
    declare(table, "troll", "set-weapon")

    # To-hit rolls by target: the troll's at the paladin, then the lance; then both damages.
    charged = _charge(table, dice=[16, 15, 2, 6])

    rolled = data_of(charged, "attack-rolled")
    assert [(r["attacker"], r["kind"]) for r in rolled] == [("troll", "set"), ("paladin", "charge")]
    assert len({r["half_segment"] for r in rolled}) == 1
    assert one(charged, "combatant-downed")["combatant_id"] == "troll"
    assert hp(table, "paladin") == 34
    assert table.replayed() == table.state


# --- §2 D Deceleration: the runner -----------------------------------------------------------


def _the_runner_at_full_speed() -> Table:
    """A human (base MV 12) reaches 5x MV, "MV 60 or 20 per phase", by round 2's phase 1."""
    table = encounter()
    line_map(table, width=60)
    add(table, "runner", "pcs", {"hp": 10, "mv": 12, "dexterity": 15}, at=(0, 0))
    add(table, "orc", "orcs", ORC, at=(59, 4))
    start(table, initiative=[7, 3])
    stand(table, "orc", "runner")
    stand(table, "orc")
    declare(table, "runner", "move", to=[59, 0], speed=3, dice=[RUN])
    stand(table, "orc")
    # Phase 3 ends the round: the runner's CON check for top speed (passed), then initiative.
    sprint = declare(table, "runner", "move", to=[59, 0], speed=5, dice=[RUN, 5, 7, 3])
    assert len(one(sprint, "moved")["path"]) - 1 == 20
    assert state_of(table).fighters["runner"].factor == 5
    stand(table, "orc")
    return table


def test_the_runner_slowing_from_mv_60_must_still_cover_6_squares() -> None:
    """combat-ii §2 D: "She must move at least 6 (half of 12) during the phase"."""
    table = _the_runner_at_full_speed()
    too_short = {"type": "move", "combatant_id": "runner", "to": [35, 0], "speed": 1}
    violation = refused(table, too_short)  # 3 squares
    assert violation.code == "move/momentum"
    assert "at least 6 squares" in violation.message


def test_the_runner_slowing_from_mv_60() -> None:
    """combat-ii §2 D: "a human character running full speed (base 12 x 5 = MV 60 or 20 per
    phase) wants to slow to a walk. She subtracts two factors of movement immediately, slowing
    to 36, or 12 per phase. She must move at least 6 (half of 12) during the phase and may
    then safely stop or slow to walking"."""
    table = _the_runner_at_full_speed()

    slowed = declare(table, "runner", "move", to=[38, 0], speed=1)  # 6 squares

    assert [s["factor"] for s in data_of(slowed, "speed-changed")] == [3, 1]
    assert len(one(slowed, "moved")["path"]) - 1 == 6
    assert state_of(table).fighters["runner"].factor == 1
    assert table.replayed() == table.state


def test_the_slowing_runner_covers_at_most_12_squares() -> None:
    """combat-ii §2 D: slowed "to 36, or 12 per phase"."""
    table = _the_runner_at_full_speed()
    slowed = declare(table, "runner", "move", to=[59, 0], speed=1)
    assert _cells(one(slowed, "moved")["path"])[-1] == (44, 0)
    assert table.replayed() == table.state


def test_a_runner_stopping_short_rolls_dex_at_minus_1_per_10_ft_skipped() -> None:
    """combat-ii §2 D: "he must roll vs. dexterity with a -1 penalty for every 10' of
    slowdown distance he wishes to reduce"."""
    table = _the_runner_at_full_speed()
    stopped = declare(table, "runner", "move", dice=[11], to=[34, 0], speed=1, stop_short=4)
    check = one(stopped, "check-rolled")["check"]
    assert (check["ability"], check["modifier"], check["passed"]) == ("dexterity", -4, True)
    assert len(one(stopped, "moved")["path"]) - 1 == 2
    assert table.replayed() == table.state


def test_a_runner_who_fails_to_stop_short_falls_prone_for_1d4_phases() -> None:
    """combat-ii §2 D: "or fall prone for 1d4 phases"."""
    table = _the_runner_at_full_speed()
    fell = declare(table, "runner", "move", dice=[12, 3], to=[34, 0], speed=1, stop_short=4)
    assert one(fell, "check-rolled")["check"]["passed"] is False
    fallen = one(fell, "effect-applied")["effect"]
    assert (fallen["name"], fallen["until"]) == ("fallen", 4 + 3)  # from phase tick 4, 1d4 = 3
    assert "moved" not in table.types(fell)
    assert state_of(table).fighters["runner"].factor == 0
    assert table.replayed() == table.state


def test_stopping_on_a_silver_piece_is_a_dex_check_at_minus_6() -> None:
    """combat-ii §2 D: "If she wishes to 'stop on a silver piece,' she must pass a DEX check
    at -6"."""
    table = _the_runner_at_full_speed()
    here = [32, 0]
    stopped = declare(table, "runner", "move", dice=[9], to=here, speed=1, stop_short=6)
    check = one(stopped, "check-rolled")["check"]
    assert (check["modifier"], check["passed"]) == (-6, True)
    position = state_of(table).table.combatants["runner"].position
    assert position is not None and (position.x, position.y) == (32, 0)


def test_a_runner_cannot_stop_dead_by_standing() -> None:
    """combat-ii §2 D: "he must move at least half his current MV per phase due to
    momentum" unless he passes the DEX check to slow in a shorter space."""
    table = _the_runner_at_full_speed()
    violation = refused(table, {"type": "stand", "combatant_id": "runner"})
    assert not violation.code.startswith("dice/")


# --- §3 B System II Spellcasting: the 10th-level caster -------------------------------------

FINCH = {
    "hp": 20, "level": 10, "caster": {"kind": "wizard", "level": 10},
    "spells": [
        {"name": "lightning bolt", "level": 3, "ct": 5, "components": "VS"},
        {"name": "magic missile", "level": 1, "ct": 1, "components": "VS"},
    ],
}  # fmt: skip


def _finch_in_system_ii(caster_delay: str) -> Table:
    """Finchfingle against an orc ten squares off; Finch's side wins every A-phase roll."""
    table = encounter(phase_system="II", caster_delay=caster_delay)
    line_map(table)
    add(table, "finch", "pcs", FINCH, at=(0, 0), name="Finchfingle")
    add(table, "orc", "orcs", ORC, at=(10, 0))
    start(table, initiative=[7, 3])
    stand(table, "orc", "finch")  # A
    stand(table, "orc", "finch")  # B
    stand(table, "orc")  # C
    begun = declare(table, "finch", "cast", dice=[7, 3], spell="lightning bolt", target="orc")
    assert one(begun, "spell-begun")["casting"]["left"] == 5
    assert one(begun, "casting-progressed")["left"] == 2  # three units pass in C
    assert "spell-completed" not in table.types(begun)
    return table


def test_the_10th_level_casters_ct_5_spell_begun_in_phase_c_completes_in_a() -> None:
    """combat-ii §3 B Table 5: "a 10th level caster begins a CT 5 spell on phase C. Three of
    its casting segments occur in C, but it is not completed until A. The caster delays only
    during phase B (being 10th level), then can begin casting again on phase C"."""
    table = _finch_in_system_ii("by-level")
    assert state_of(table).phase == 1  # A of the next cycle

    completed = stand(table, "orc")  # Finch continues on his own
    assert one(completed, "spell-completed")["half_segment"] == 3  # unit 2 on the winner track
    assert state_of(table).phase == 2  # B
    stand(table, "orc")
    violation = refused(table, {"type": "cast", "combatant_id": "finch", "spell": "magic missile"})
    assert violation.code == "cast/delay"
    stand(table, "finch")

    stand(table, "orc")  # C
    again = declare(table, "finch", "cast", dice=[7, 3], spell="magic missile", target="orc")
    assert one(again, "spell-completed")["spell"] == "magic missile"
    assert table.replayed() == table.state


def test_without_the_table_5_option_the_10th_level_caster_delays_two_phases() -> None:
    """combat-ii §3 B Casting Delay: "Upon completion of a spell, the caster must wait two
    phases before casting again or attacking physically"."""
    table = _finch_in_system_ii("flat")
    stand(table, "orc")  # A: the bolt completes
    for _ in range(2):  # B and C
        stand(table, "orc")
        violation = refused(
            table, {"type": "cast", "combatant_id": "finch", "spell": "magic missile"}
        )
        assert violation.code == "cast/delay"
        stand(table, "finch", dice=[7, 3] if state_of(table).phase == 3 else None)
    stand(table, "orc")
    again = declare(table, "finch", "cast", spell="magic missile", target="orc")
    assert one(again, "spell-completed")["spell"] == "magic missile"
    assert table.replayed() == table.state


# --- §4 Critical Hit and Miss II: Severity Rules -------------------------------------------

QUARTERSTAFF = {"name": "quarterstaff", "speed": 4, "damage": "1d6"}


def _severity_duel(attacker: dict[str, Any], target_ac: int, agility: bool = False) -> Table:
    """The attacker (winning) next to an orc under the Severity Rules; the orc has stood."""
    table = encounter(criticals="severity", agility=agility)
    line_map(table)
    add(table, "attacker", "pcs", attacker, at=(0, 0))
    add(table, "orc", "orcs", {**ORC, "ac": target_ac, "hp": 60}, at=(1, 0))
    start(table, initiative=[7, 3])
    stand(table, "orc")
    return table


def _next_round_attack(table: Table, dice: list[int]) -> dict[str, Any]:
    """Phases 2 and 3 pass; the attacker's next attack is round 2's phase 1."""
    stand(table, "orc", "attacker")
    stand(table, "orc")
    stand(table, "attacker", dice=[7, 3])
    stand(table, "orc")
    return one(declare(table, "attacker", "attack", dice=dice, targets=["orc"]), "attack-rolled")


@pytest.mark.parametrize(
    ("roll", "penalty"),
    [
        pytest.param(13, None, id="13: over 12, no penalty"),
        pytest.param(12, None, id="12: 5 under, no point beyond"),
        pytest.param(11, 1, id="11: +1"),
        pytest.param(10, 2, id="10: +2, the seed's roll"),
        pytest.param(6, 4, id="6: +6 capped at base SF 4"),
        pytest.param(2, 4, id="2: +10 capped at base SF 4"),
        pytest.param(1, 11, id="natural 1: no maximum"),
    ],
)
def test_the_mages_quarterstaff_severe_miss(roll: int, penalty: int | None) -> None:
    """combat-ii §4 Severe Miss, example 1: "a mage needs a 17 to hit with a quarterstaff
    (sf 4), and rolls a 10. Anything over 12 would have been at no penalty, but in this case
    2 points are added to the next attack's sf. If a 6 were rolled, the penalty would
    nevertheless not exceed +4." Critical Miss: on a natural 1 "there is no maximum penalty
    to SF"."""
    mage = {"hp": 12, "thac0": 20, "weapons": [QUARTERSTAFF]}
    table = _severity_duel(mage, target_ac=3)

    missed = declare(table, "attacker", "attack", dice=[roll], targets=["orc"])

    assert one(missed, "attack-rolled")["needed"] == 17
    applied = {e["effect"]["name"]: e["effect"] for e in data_of(missed, "effect-applied")}
    assert applied.get("severe-miss", {}).get("value") == penalty
    next_attack = _next_round_attack(table, dice=[2])
    assert next_attack["sf"] == 4 + (penalty or 0)
    assert table.replayed() == table.state


def test_the_thiefs_severe_miss_is_capped_at_5() -> None:
    """combat-ii §4 Severe Miss, example 2: "A thief attacks with a +2 longsword (it's sf
    adjusted downward from 5 to 2, counting dex bonus of +1 and magic of +2). Despite the
    sf 2, a penalty of up to +5 may be incurred, raising the weapon to its slowest speed of
    sf 7"."""
    thief = {
        "hp": 12, "thac0": 19, "dexterity": 16, "thief": True,
        "weapons": [{**LONG_SWORD, "magic": 2}],
    }  # fmt: skip
    table = _severity_duel(thief, target_ac=0, agility=True)

    missed = declare(table, "attacker", "attack", dice=[2], targets=["orc"])

    rolled = one(missed, "attack-rolled")
    assert (rolled["sf"], rolled["needed"], rolled["half_segment"]) == (2, 17, 2)
    assert one(missed, "effect-applied")["effect"]["value"] == 5  # not 17 - 5 - 2 = 10
    next_attack = _next_round_attack(table, dice=[18, 3])
    assert (next_attack["sf"], next_attack["half_segment"]) == (7, 4)  # SF 7-9, winner
    assert table.replayed() == table.state


@pytest.mark.parametrize(
    ("criticals", "roll", "damage"),
    [
        pytest.param("severity", 8, 4 + 3, id="severity, roll as needed: +3"),
        pytest.param("severity", 11, 4 + 3 + 3, id="severity, 3 over: +3 +3"),
        pytest.param("none", 8, 4 + 5, id="2nd edition: +5"),
        pytest.param("none", 11, 4 + 5, id="2nd edition, 3 over: still +5"),
    ],
)
def test_the_18_99_strength_conversion(criticals: str, roll: int, damage: int) -> None:
    """combat-ii §4 Severity Rules, Strength: "a fighter with 18/99 strength would get +2/+5
    under 2nd ed rules. Under my rules, he'd get +2/+3 (5 - 2). The +3 is automatically added
    to damage, and the +2 'to hit' will help to ensure that his 'to hit' roll allows more
    damage as well"."""
    strong = {
        "hp": 30, "thac0": 15, "strength": 18, "strength_hit": 2, "strength_damage": 5,
        "weapons": [LONG_SWORD],
    }  # fmt: skip
    table = encounter(criticals=criticals)
    line_map(table)
    add(table, "fighter", "pcs", strong, at=(0, 0))
    add(table, "orc", "orcs", {**ORC, "ac": 5, "hp": 60}, at=(1, 0))
    start(table, initiative=[7, 3])
    stand(table, "orc")

    struck = declare(table, "fighter", "attack", dice=[roll, 4], targets=["orc"])

    assert one(struck, "attack-rolled")["needed"] == 8  # 15 - AC 5 - 2
    assert one(struck, "damage-rolled")["amount"] == damage
    assert table.replayed() == table.state


@pytest.mark.parametrize(
    ("hit", "damage", "converted"),
    [
        pytest.param(2, 5, 3, id="18/99: +2/+5 -> +3"),
        pytest.param(3, 6, 3, id="18/00: +3/+6 -> +3"),
        pytest.param(1, 3, 2, id="18/50: +1/+3 -> +2"),
        pytest.param(1, 1, 1, id="17: +1/+1 kept"),
        pytest.param(0, 1, 1, id="16: +0/+1 kept"),
        pytest.param(-1, -1, -1, id="5: -1/-1 kept"),
    ],
)
def test_the_strength_conversion_keeps_plus_1_or_below(
    hit: int, damage: int, converted: int
) -> None:
    """combat-ii §4: "Subtract the 'to hit' column from the 'damage' column for each STR
    level (keeping +1 or below as is)"."""
    state = state_of(encounter(criticals="severity"))
    stats = CombatIIStats(strength_hit=hit, strength_damage=damage)
    assert combatants.strength_damage(state, stats) == converted
