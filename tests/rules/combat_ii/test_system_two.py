"""combat-ii §3 Phase System II: continuous A, B, C phases with initiative at every A, the
Table 6 attack sequences played through the rules (a voluntary delay restarts them), the
casting delays of §3 B and Table 5, one-round spells, and missile fire rates.

Every phase here the ogre (initiative loser) stands first; the fighter tries what the
phase's row says, so each refused attack or spell is one the sequence forbids. The
fighter's blows all miss (a 2 against the 5 it needs), so each is one d20."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.context import GM
from service.domain.envelope import Envelope
from service.domain.views import ActionOption
from service.rules.combat_ii import RULESET
from tests.rules.combat_ii.cast import attack, duel, of_type, only, stand
from tests.rules.combat_ii.given import LONG_SWORD, LONGBOW, refused, state_of
from tests.rules.harness import Table

INITIATIVE = [7, 3]
"""The d10s of each new A phase: ogres 7, pcs 3, so the fighter's side keeps winning."""
BOLT = {"name": "spark", "level": 1, "ct": 1, "components": "V"}
RITUAL = {"name": "ritual", "level": 1, "rounds": 1, "components": "V"}


def ends_cycle(table: Table) -> bool:
    return state_of(table).phase == 3


def dice_for(table: Table, dice: list[int]) -> list[int] | None:
    """The dice of the fighter's declaration: its own, then the next A phase's initiative
    if this declaration ends phase C."""
    rolled = dice + (INITIATIVE if ends_cycle(table) else [])
    return rolled or None


def phase(table: Table, attacks: int) -> list[Envelope]:
    """One phase: the ogre stands; the fighter attacks if the row allows it (`attacks` > 0:
    that many misses), else its attack is refused as a delay and it stands."""
    stand(table, "ogre")
    if attacks == 0:
        attempt = {"type": "attack", "combatant_id": "fighter", "targets": ["ogre"]}
        assert refused(table, attempt).code == "attack/delay"
        return stand(table, "fighter", dice=dice_for(table, []))
    return attack(table, "fighter", "ogre", dice=dice_for(table, [2] * attacks))


def fighters_rolls(envelopes: list[Envelope]) -> int:
    return sum(1 for r in of_type(envelopes, "attack-rolled") if r["attacker"] == "fighter")


def casts(table: Table, allowed: bool) -> list[Envelope]:
    """The ogre stands; the fighter casts its spark at it, or is refused and stands."""
    stand(table, "ogre")
    spell = {"type": "cast", "combatant_id": "fighter", "spell": "spark", "target": "ogre"}
    if not allowed:
        assert refused(table, spell).code == "cast/delay"
        return stand(table, "fighter", dice=dice_for(table, []))
    return table.send(spell, dice=dice_for(table, []))


# --- continuous phases -------------------------------------------------------------------------


def test_phases_run_a_b_c_and_initiative_is_rolled_again_at_each_a() -> None:
    """§3: "a continuous cycle of 3 identical phases with letter designations A, B, and C";
    §3 A: "Roll for initiative at the beginning of each A phase. Initiative determinations
    remain in effect through the end of phase C"."""
    table = duel(phase_system="II")
    labels = [only(table.envelopes[-2:], "phase-began")["label"]]
    for _ in range(2):
        stand(table, "ogre")
        labels.append(only(stand(table, "fighter"), "phase-began")["label"])
    stand(table, "ogre")

    new_cycle = stand(table, "fighter", dice=[3, 7])  # now the ogres win

    assert labels == ["A", "B", "C"]
    assert table.types(new_cycle)[-4:] == [
        "phase-ended", "round-began", "initiative-rolled", "phase-began",
    ]  # fmt: skip
    assert only(new_cycle, "phase-began")["label"] == "A"
    assert state_of(table).tracks == {"fighter": "loser", "ogre": "winner"}
    wrong_order = {"type": "stand", "combatant_id": "ogre"}
    assert refused(table, wrong_order).code == "intention/losers-first"
    assert table.replayed() == table.state


def test_system_ii_counts_half_segments_1_to_6_in_every_phase() -> None:
    """§3 Table 4: each of A, B and C has half-segments 1-6 (no endphase)."""
    table = duel(fighter={"attacks": "3"}, phase_system="II")
    phase(table, 1)

    struck = phase(table, 1)  # phase B

    assert only(struck, "attack-rolled")["half_segment"] == 3  # SF 5, winner
    assert state_of(table).phase == 3
    assert table.replayed() == table.state


# --- Table 6 through the rules -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("stats", "rows"),
    [
        pytest.param({"attacks": "1"}, [1, 0, 0, 1, 0], id="1: attack, delay, delay"),
        pytest.param({"attacks": "3/2"}, [1, 0, 1, 0, 1], id="3/2: attack, delay"),
        pytest.param({"attacks": "2"}, [1, 1, 0, 1, 1, 0], id="2: attack, attack, delay"),
        pytest.param(
            {"attacks": "5/2"}, [1, 1, 1, 0, 1, 1, 1], id="5/2: 3 attacks, delay, 2 attacks"
        ),
        pytest.param({"attacks": "3"}, [1, 1, 1, 1], id="3: attack each phase"),
        pytest.param({"attacks": "4"}, [1, 2, 1, 1, 2], id="4: attack, 2 attacks, attack"),
        pytest.param({"attacks": "5"}, [2, 2, 1, 2], id="5: 2, 2, 1"),
        pytest.param({"attacks": "6"}, [2, 2, 2, 2], id="6: 2 attacks each phase"),
    ],
)
def test_table_6_sequences_are_enforced_phase_by_phase(
    stats: dict[str, Any], rows: list[int]
) -> None:
    """§3 C Table 6: "FIGHTER LEVEL # ATTACKS/ROUND SEQUENCE OF ATTACK/DELAY PHASES"; "The
    sequence may begin on any phase"."""
    table = duel(fighter=stats, phase_system="II")

    for row in rows:
        resolved = phase(table, row)
        assert fighters_rolls(resolved) == row

    assert table.replayed() == table.state


def test_a_voluntary_delay_starts_the_sequence_over() -> None:
    """§3 C: "In the event of an unexpected or even voluntary phase delay, the sequence
    starts over with the next attack": two a round, attack (A), stand (B), and C opens the
    sequence again: attack (C), attack (A), delay (B)."""
    table = duel(fighter={"attacks": "2"}, phase_system="II")
    phase(table, 1)
    stand(table, "ogre")
    stand(table, "fighter")

    for row in (1, 1, 0):
        assert fighters_rolls(phase(table, row)) == row

    assert table.replayed() == table.state


# --- §3 C Missile Fire -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("attacks", "rows"),
    [
        pytest.param("1", [1, 1, 0, 1], id="2 arrows x 1 attack = 2: shoot, shoot, delay"),
        pytest.param("3/2", [1, 1, 1, 1], id="2 arrows x 3/2 = 3: every phase"),
        pytest.param("3", [2, 2, 2], id="2 arrows x 3 = 6: 2 shots each phase"),
    ],
)
def test_missile_fire_rates_multiply_by_attacks_a_round(attacks: str, rows: list[int]) -> None:
    """§3 C Missile Fire: "Multiply the fire rate by number of attacks per round to
    determine the number of missiles fired per 'round.' Use this number to determine the
    delay schedule based on phases"."""
    archer = {"attacks": attacks, "weapons": [LONGBOW]}
    table = duel(fighter=archer, ogre_at=(6, 0), phase_system="II")

    for row in rows:
        resolved = phase(table, row)
        assert fighters_rolls(resolved) == row

    assert table.replayed() == table.state


# --- §3 B System II Spellcasting ---------------------------------------------------------------

CASTER = {"attacks": "3", "weapons": [LONG_SWORD], "spells": [BOLT, RITUAL]}


def caster(level: int = 3) -> dict[str, Any]:
    return {**CASTER, "level": level, "caster": {"kind": "wizard", "level": level}}


def test_a_caster_delays_two_phases_after_a_physical_attack() -> None:
    """§3 C: "Note that casters MUST delay two phases after a physical attack regardless of
    their delay time between spells"."""
    table = duel(fighter=caster(13), phase_system="II", caster_delay="by-level")
    phase(table, 1)  # A: a blow with the sword

    casts(table, allowed=False)  # B
    casts(table, allowed=False)  # C
    done = casts(table, allowed=True)  # the next A

    assert only(done, "spell-completed")["spell"] == "spark"
    assert table.replayed() == table.state


def test_after_a_spell_the_caster_waits_two_phases_to_cast_or_attack() -> None:
    """§3 B Casting Delay: "Upon completion of a spell, the caster must wait two phases
    before casting again or attacking physically"."""
    table = duel(fighter=caster(), phase_system="II")
    casts(table, allowed=True)  # A: the spark goes off

    phase(table, 0)  # B: no attack
    casts(table, allowed=False)  # C: no spell
    casts(table, allowed=True)  # the next A

    assert table.replayed() == table.state


@pytest.mark.parametrize(
    ("level", "rows"),
    [
        pytest.param(6, [True, False, False, True], id="1-6: cast, delay 2 phases"),
        pytest.param(7, [True, False, True, False, True], id="7-12: cast, delay 1 phase"),
        pytest.param(12, [True, False, True, False], id="12: cast, delay 1 phase"),
        pytest.param(
            13, [True, True, False, True, True, False], id="13+: cast, cast, delay 1 phase"
        ),
    ],
)
def test_table_5_caster_delays_by_level_through_the_rules(level: int, rows: list[bool]) -> None:
    """§3 B Table 5 (option `caster_delay: by-level`): "1-6 cast spell, delay 2 phases; 7-12
    cast spell, delay 1 phase; 13+ cast spell, cast spell, delay 1 phase"."""
    table = duel(fighter=caster(level), phase_system="II", caster_delay="by-level")

    for allowed in rows:
        resolved = casts(table, allowed)
        assert ("spell-completed" in table.types(resolved)) is allowed

    assert table.replayed() == table.state


def test_a_flat_caster_delay_is_two_phases_at_any_level() -> None:
    table = duel(fighter=caster(13), phase_system="II")

    for allowed in (True, False, False, True):
        casts(table, allowed)

    assert table.replayed() == table.state


def test_a_one_round_spell_goes_off_at_the_end_of_its_third_phase() -> None:
    """§3 B: "If a spell has a one round CT (10 seg) it goes off after all other actions
    (including movement) at the end of the third phase of casting"."""
    table = duel(fighter=caster(), ogre_at=(10, 0), phase_system="II")
    stand(table, "ogre")
    stand(table, "fighter")  # A
    stand(table, "ogre")
    cast = {"type": "cast", "combatant_id": "fighter", "spell": "ritual", "target": "ogre"}
    begun = table.send(cast)  # B: the first phase of casting
    assert {c: i.kind for c, i in state_of(table).intentions.items()} == {"fighter": "continue"}
    going = table.send({"type": "move", "combatant_id": "ogre", "to": [8, 0]}, dice=INITIATIVE)

    done = table.send({"type": "move", "combatant_id": "ogre", "to": [6, 0]})  # the next A

    assert "spell-completed" not in table.types(begun) + table.types(going)
    completed = only(done, "spell-completed")
    assert (completed["spell"], completed["half_segment"]) == ("ritual", 6)
    assert table.types(done).index("moved") < table.types(done).index("spell-completed")
    assert state_of(table).fighters["fighter"].casting is None
    assert table.replayed() == table.state


def test_a_charge_waits_out_the_delay_like_any_attack() -> None:
    """§3 C Table 6 and §2 D Charging: the charge ends in a blow, so one a round (attack,
    delay, delay) cannot charge in the phases after its attack; once the delay is over it
    may (the ogre eight squares off, the fighter at 2x MV)."""
    table = duel(phase_system="II", ogre_at=(1, 0), others=[("wolf", "ogres", {"hp": 9}, (9, 0))])
    stand(table, "ogre")
    stand(table, "wolf")
    attack(table, "fighter", "ogre", dice=[2])  # phase A: its one attack, a miss
    charge = {"type": "charge", "combatant_id": "fighter", "target": "wolf", "speed": 2}

    for _ in range(2):  # phases B and C: the delay
        stand(table, "ogre")
        stand(table, "wolf")
        assert refused(table, charge).code == "attack/delay"
        stand(table, "fighter", dice=dice_for(table, []))

    stand(table, "ogre")
    stand(table, "wolf")
    charged = table.send(charge, dice=[2, 3])  # phase A again: the charge and its blow

    assert only(charged, "moved")["mode"] == "charge"
    assert only(charged, "attack-rolled")["target"] == "wolf"
    assert table.replayed() == table.state


# --- Table 7 and two-weapon routines -----------------------------------------------------------

FORMS = {
    "weapons": [
        {"name": name, "kind": "natural", "damage": "1d4", "speed": 3}
        for name in ("claw", "bite", "tail", "horn")
    ],
    "routine": ["claw", "bite", "tail", "horn"],
}
"""Four attack forms: Table 7's row 4, "1 form, 2 forms, 1 form"."""


def forms(table: Table, *weapons: str) -> dict[str, Any]:
    return {"type": "attack", "combatant_id": "fighter", "targets": ["ogre"],
            "weapons": list(weapons)}  # fmt: skip


def test_table_7_allows_as_many_forms_as_its_entry_each_phase() -> None:
    """§3 C Table 7: "4 - 1 form, 2 forms, 1 form"; the 2 of the second phase is two forms,
    each striking once, not a double attack."""
    table = duel(fighter=FORMS, phase_system="II", split_attack_forms=True)
    stand(table, "ogre")
    assert refused(table, forms(table, "claw", "bite")).code == "attack/forms"
    phase_a = table.send(forms(table, "claw"), dice=dice_for(table, [2]))
    stand(table, "ogre")
    phase_b = table.send(forms(table, "bite", "tail"), dice=dice_for(table, [2, 2]))
    stand(table, "ogre")
    assert refused(table, forms(table, "horn", "claw")).code == "attack/forms"
    phase_c = table.send(forms(table, "horn"), dice=dice_for(table, [2]))

    weapons = [
        [r["weapon"] for r in of_type(p, "attack-rolled")] for p in (phase_a, phase_b, phase_c)
    ]
    assert weapons == [["claw"], ["bite", "tail"], ["horn"]]
    assert table.replayed() == table.state


TWO_SWORDS = {
    "weapons": [{**LONG_SWORD, "attacks": "2"}, {"name": "short sword", "speed": 3,
                                                 "damage": "1d6", "attacks": "3/2"}],
    "wielding": ["long sword", "short sword"],
}  # fmt: skip
"""The seed's fighter: the long sword at 2 a round is the favoured weapon."""


def both(table: Table) -> dict[str, Any]:
    return {"type": "attack", "combatant_id": "fighter", "targets": ["ogre"],
            "weapons": ["long sword", "short sword"]}  # fmt: skip


def test_a_two_weapon_routine_alternates_both_weapons_and_the_favoured_one() -> None:
    """§3 C: "use the schedule of the FAVORED weapon, alternating between two weapon and
    single weapon attacks" — the long sword's 2 a round: attack, attack, delay; both swords
    in the first attack phase, the long sword alone in the second, then the delay, and the
    next cycle opens with both again."""
    table = duel(fighter=TWO_SWORDS, phase_system="II")
    stand(table, "ogre")
    first = table.send(both(table), dice=dice_for(table, [2, 2]))
    stand(table, "ogre")
    refusal = refused(table, both(table))
    second = table.send({**both(table), "weapons": ["long sword"]}, dice=dice_for(table, [2]))
    stand(table, "ogre")
    assert refused(table, both(table)).code == "attack/delay"
    stand(table, "fighter", dice=dice_for(table, []))
    stand(table, "ogre")
    again = table.send(both(table), dice=dice_for(table, [2, 2]))

    assert refusal.code == "attack/alternate"
    assert [len(of_type(p, "attack-rolled")) for p in (first, second, again)] == [2, 1, 2]
    assert table.replayed() == table.state


def test_in_the_favoured_weapon_only_phase_legal_actions_offer_attack_with_the_favoured_weapon():
    """issue 27: the second attack phase of the long sword's schedule takes only
    `weapons: ["long sword"]` (§3 C), so that is what the attack option names; the first
    phase offers the whole routine, with no `weapons`."""
    table = duel(fighter=TWO_SWORDS, phase_system="II")
    stand(table, "ogre")
    first = attacks_offered(table)
    table.send(both(table), dice=dice_for(table, [2, 2]))
    stand(table, "ogre")

    second = attacks_offered(table)

    assert [(a.targets, a.params) for a in first] == [(["ogre"], {})]
    assert [(a.label, a.targets, a.params) for a in second] == [
        ("Fighter attacks with the long sword alone", ["ogre"], {"weapons": ["long sword"]})
    ]
    sent = {"type": "attack", "combatant_id": "fighter", "targets": second[0].targets,
            **second[0].params}  # fmt: skip
    assert len(of_type(table.send(sent, dice=dice_for(table, [2])), "attack-rolled")) == 1


def attacks_offered(table: Table) -> list[ActionOption]:
    return [a for a in RULESET.legal_actions(state_of(table), GM) if a.type == "attack"]
