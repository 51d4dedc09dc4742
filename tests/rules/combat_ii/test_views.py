"""What combat-ii shows: the intentions each waiting combatant may declare (losers first,
§1 C), the half-segment timeline of the phase (Table 1, Table 4), the phase label and the
narration of the exchange."""

from __future__ import annotations

from typing import Any

from service.domain.context import GM, Actor
from service.domain.narration import namer
from service.domain.views import ActionOption
from service.rules.combat_ii import RULESET, views
from tests.rules.combat_ii.cast import FIGHTER, OGRE, attack, duel, of_type, only, stand, strikes
from tests.rules.combat_ii.given import LONG_SWORD, LONGBOW, SHORT_SWORD, encounter, state_of
from tests.rules.harness import Table

HERO = Actor("p1", "player", frozenset({"fighter"}))
MONSTER = Actor("p2", "player", frozenset({"ogre"}))
WATCHER = Actor("w1", "observer", frozenset())
SPARK = {"name": "spark", "level": 1, "ct": 1, "components": "V"}
BOLT = {"name": "bolt", "level": 3, "ct": 5, "components": "V"}
INTENTIONS = {"attack", "cast", "touch", "move", "charge", "set-weapon", "prepare", "stand"}


def offered(table: Table, viewer: Actor) -> dict[tuple[str | None, str], ActionOption]:
    """The intentions a viewer is offered now, by (combatant, command type)."""
    actions = RULESET.legal_actions(state_of(table), viewer)
    return {(a.actor, a.type): a for a in actions if a.type in INTENTIONS}


# --- legal actions ------------------------------------------------------------------------------


def test_only_the_losers_are_offered_intentions_until_they_have_declared() -> None:
    """§1 C: "Starting with initiative losers, each combatant must state if they intend to
    move, attack or cast ... Winners may take this into consideration"."""
    table = duel()

    assert offered(table, HERO) == {}
    assert {who for who, _ in offered(table, GM)} == {"ogre"}
    assert ("ogre", "attack") in offered(table, MONSTER)
    stand(table, "ogre")

    assert offered(table, MONSTER) == {}
    assert {who for who, _ in offered(table, GM)} == {"fighter"}
    assert ("fighter", "attack") in offered(table, HERO)
    assert table.replayed() == table.state


def test_a_winner_waiting_on_losers_is_told_why_it_has_no_intentions() -> None:
    """issue 27: the winner's player saw only `roll` with no reason; `blocked` says the
    losers declare first and names them, and empties once they have."""
    table = duel()

    (waiting,) = RULESET.blocked(state_of(table), HERO)

    assert (waiting.actor, waiting.blocked_by) == ("fighter", ["ogre"])
    assert "losers" in waiting.reason and "Ogre" in waiting.reason and "§1 C" in waiting.reason
    assert RULESET.blocked(state_of(table), MONSTER) == []
    assert RULESET.blocked(state_of(table), WATCHER) == []
    stand(table, "ogre")
    assert RULESET.blocked(state_of(table), HERO) == []


def test_each_attack_names_the_foes_in_striking_distance() -> None:
    """§1 C: "Each combatant planning to cast or attack must declare a target"."""
    far = {"hp": 10, "thac0": 20, "ac": 8, "weapons": [SHORT_SWORD]}
    table = duel(others=[("goblin", "ogres", far, (6, 0))])
    stand(table, "ogre")
    stand(table, "goblin")

    options = offered(table, HERO)

    assert options[("fighter", "attack")].targets == ["ogre"]
    assert sorted(options[("fighter", "charge")].targets or []) == ["goblin", "ogre"]
    assert {kind for who, kind in options} >= {"move", "set-weapon", "prepare", "stand"}
    assert table.replayed() == table.state


def test_a_missile_weapon_reaches_every_foe() -> None:
    far = {"hp": 10, "thac0": 20, "ac": 8, "weapons": [SHORT_SWORD]}
    table = duel(
        fighter={"weapons": [LONGBOW]}, ogre_at=(9, 0), others=[("goblin", "ogres", far, (6, 0))]
    )
    stand(table, "ogre")
    stand(table, "goblin")

    assert sorted(offered(table, HERO)[("fighter", "attack")].targets or []) == ["goblin", "ogre"]
    assert table.replayed() == table.state


def test_spells_are_offered_with_their_casting_time_and_targets() -> None:
    table = duel(fighter={"spells": [SPARK, BOLT]})
    stand(table, "ogre")

    actions = RULESET.legal_actions(state_of(table), HERO)

    spells = [a for a in actions if a.type == "cast"]
    assert [(a.params["spell"], a.params["ct"]) for a in spells] == [("spark", 1), ("bolt", 5)]
    assert sorted(spells[0].targets or []) == ["fighter", "ogre"]
    assert table.replayed() == table.state


def test_no_attack_is_offered_once_the_rounds_attacks_are_spent() -> None:
    table = duel()
    stand(table, "ogre")
    attack(table, "fighter", "ogre", dice=[2])  # phase 1: its one attack this round
    stand(table, "ogre")

    options = offered(table, HERO)

    assert ("fighter", "attack") not in options
    assert ("fighter", "stand") in options
    assert table.replayed() == table.state


def test_observers_are_offered_no_intentions() -> None:
    table = duel()
    assert offered(table, WATCHER) == {}
    assert all(a.type != "ambush" for a in RULESET.legal_actions(state_of(table), WATCHER))
    assert table.replayed() == table.state


def test_a_helpless_combatant_is_offered_nothing() -> None:
    """It has declared already: the rules declared it helpless (§4 stunned)."""
    table = duel(criticals="tables")
    stand(table, "ogre")
    attack(table, "fighter", "ogre", dice=[20, 7])  # stunned through phase 2

    assert state_of(table).intentions["ogre"].kind == "helpless"
    assert offered(table, MONSTER) == {}
    assert {who for who, _ in offered(table, GM)} == {"fighter"}
    assert table.replayed() == table.state


def test_no_spell_is_offered_during_the_casting_delay() -> None:
    """§3 B Casting Delay: the legal actions leave out a spell the rules would refuse."""
    caster = {"spells": [SPARK], "caster": {"kind": "wizard", "level": 3}}
    table = duel(fighter=caster, phase_system="II")
    stand(table, "ogre")
    table.send({"type": "cast", "combatant_id": "fighter", "spell": "spark", "target": "ogre"})
    stand(table, "ogre")  # phase B: the caster waits

    assert [a for a in RULESET.legal_actions(state_of(table), HERO) if a.type == "cast"] == []
    assert table.replayed() == table.state


# --- the timeline -------------------------------------------------------------------------------


def test_the_timeline_puts_each_declared_strike_in_its_half_segment() -> None:
    """§1 D: "Both the DM and each of the players should have a copy of table 1 so they can
    readily follow the ongoing sequence": the ogre's club (SF 4, loser) lands at 4; once the
    fighter declares, the phase resolves, so the timeline shows declarations so far."""
    table = duel()
    assert [row["half_segment"] for row in views.timeline(state_of(table))] == [1, 2, 3, 4, 5, 6]
    assert strikes(views.timeline(state_of(table))) == []

    attack(table, "ogre", "fighter")

    assert strikes(views.timeline(state_of(table))) == [(4, "ogre", "fighter", 4, "loser")]
    assert table.replayed() == table.state


def test_the_timeline_numbers_a_system_i_rounds_half_segments() -> None:
    """§1 Table 1: phase 2 holds half-segments 7-12."""
    table = duel(ogre={"attacks": "3"})
    stand(table, "ogre")
    stand(table, "fighter")

    attack(table, "ogre", "fighter")

    rows = views.timeline(state_of(table))
    assert [row["half_segment"] for row in rows] == [7, 8, 9, 10, 11, 12]
    assert strikes(rows) == [(10, "ogre", "fighter", 4, "loser")]
    assert table.replayed() == table.state


def test_the_timeline_shows_every_part_of_a_routine_at_the_slowest_sf() -> None:
    """§2 C Multi-Part Attack Routine: "Use the SF for the slowest component"."""
    pair = {"weapons": [LONG_SWORD, SHORT_SWORD], "wielding": ["long sword", "short sword"]}
    table = duel(ogre=pair)

    attack(table, "ogre", "fighter")

    assert strikes(views.timeline(state_of(table))) == [
        (4, "ogre", "fighter", 5, "loser"),
        (4, "ogre", "fighter", 5, "loser"),
    ]
    assert table.replayed() == table.state


def test_the_timeline_shows_a_spell_completing() -> None:
    """§1 Table 1: a CT 5 spell begun by a winner in phase 1 has 2 units left for phase 2,
    where its second unit falls at half-segment 9."""
    table = duel(fighter={"spells": [BOLT]}, ogre_at=(6, 0))
    stand(table, "ogre")
    table.send({"type": "cast", "combatant_id": "fighter", "spell": "bolt", "target": "ogre"})

    rows = views.timeline(state_of(table))

    spells = [(r["half_segment"], a) for r in rows for a in r["actions"] if a["kind"] == "spell"]
    assert spells == [
        (9, {"combatant_id": "fighter", "kind": "spell", "spell": "bolt", "target": "ogre"})
    ]
    assert table.replayed() == table.state


def test_the_system_ii_timeline_counts_1_to_6() -> None:
    table = duel(ogre={"attacks": "3"}, phase_system="II")
    stand(table, "ogre")
    stand(table, "fighter")

    attack(table, "ogre", "fighter")

    rows = views.timeline(state_of(table))
    assert [row["half_segment"] for row in rows] == [1, 2, 3, 4, 5, 6]
    assert strikes(rows) == [(4, "ogre", "fighter", 4, "loser")]
    assert table.replayed() == table.state


# --- phase label ---------------------------------------------------------------------------------


def test_the_phase_label_names_round_and_phase() -> None:
    table = duel()
    assert RULESET.phase_label(state_of(table)) == "round 1, phase 1: intentions"
    stand(table, "ogre")
    stand(table, "fighter")
    assert RULESET.phase_label(state_of(table)) == "round 1, phase 2: intentions"
    stand(table, "ogre")
    stand(table, "fighter")
    stand(table, "ogre")
    stand(table, "fighter", dice=[7, 3])  # through the endphase
    assert RULESET.phase_label(state_of(table)) == "round 2, phase 1: intentions"
    table.send({"type": "end-encounter"})
    assert RULESET.phase_label(state_of(table)) == "ended"
    assert table.replayed() == table.state


def test_the_system_ii_phase_label_names_the_letter_and_cycle() -> None:
    table = duel(phase_system="II")
    assert RULESET.phase_label(state_of(table)) == "phase A (cycle 1): intentions"
    stand(table, "ogre")
    stand(table, "fighter")
    assert RULESET.phase_label(state_of(table)) == "phase B (cycle 1): intentions"
    assert table.replayed() == table.state


def test_before_the_fight_the_phase_label_is_setup() -> None:
    table = Table(RULESET, {"dice": "table"})
    assert RULESET.phase_label(state_of(table)) == "setup"
    assert table.replayed() == table.state


# --- narration -----------------------------------------------------------------------------------


def sentences(table: Table, kind: str) -> list[str]:
    names = namer(state_of(table).table.combatants)
    return [RULESET.narrate(e.type, e.data, names) for e in table.envelopes if e.type == kind]


def test_an_attack_is_narrated_with_its_half_segment_and_speed_factor() -> None:
    """Issue 9 Views: narration such as "the orc's axe (SF 7, loser) lands at 5"."""
    table = duel()
    attack(table, "ogre", "fighter")
    attack(table, "fighter", "ogre", dice=[7, 3, 9])

    assert sentences(table, "attack-rolled") == [
        "half-segment 3: Fighter's long sword (SF 5, winner) hits Ogre (7 vs 5).",
        "half-segment 4: Ogre's club (SF 4, loser) misses Fighter (9 vs 10).",
    ]
    assert sentences(table, "damage-rolled") == ["half-segment 3: long sword deals 3 to Ogre."]
    assert table.replayed() == table.state


def test_a_spell_completing_is_narrated_with_its_half_segment() -> None:
    table = duel(fighter={"spells": [SPARK]}, ogre_at=(6, 0))
    stand(table, "ogre")
    table.send({"type": "cast", "combatant_id": "fighter", "spell": "spark", "target": "ogre"})

    assert sentences(table, "spell-completed") == ["half-segment 1: Fighter's spark completes."]
    assert table.replayed() == table.state


def test_a_critical_is_narrated_with_its_result() -> None:
    table = duel(criticals="tables")
    stand(table, "ogre")
    attack(table, "fighter", "ogre", dice=[20, 7])

    assert sentences(table, "critical-rolled") == [
        "Critical hit for Fighter: double maximum base damage; stunned through the next phase."
    ]
    assert only(table.envelopes, "critical-rolled")["d10"] == 7
    assert of_type(table.envelopes, "effect-applied")[0]["effect"]["name"] == "stunned"
    assert table.replayed() == table.state


# --- hidden health -------------------------------------------------------------------------------


def test_hidden_enemy_health_keeps_the_damage_an_enemy_takes_from_players() -> None:
    """Shared `hide_enemy_health`: the fighter's player is told its long sword hit the ogre,
    not for how much (neither the `damage-rolled` with its die nor the `resource-adjusted`);
    it still sees the damage it takes itself, and the GM sees both."""
    table = duel(hide_enemy_health=True)
    attack(table, "ogre", "fighter")
    stored = attack(table, "fighter", "ogre", dice=[15, 3, 15, 4])
    state = state_of(table)

    def seen(viewer: Actor) -> list[tuple[str, Any]]:
        shown = (RULESET.redact_event(e, viewer, state) for e in stored)
        return [
            (s["type"], s["data"].get("target") or s["data"].get("combatant_id"))
            for s in shown
            if s is not None and s["type"] in ("attack-rolled", "damage-rolled")
        ]

    assert seen(HERO) == [("attack-rolled", "ogre"), ("attack-rolled", "fighter"),
                          ("damage-rolled", "fighter")]  # fmt: skip
    assert seen(GM) == [("attack-rolled", "ogre"), ("damage-rolled", "ogre"),
                        ("attack-rolled", "fighter"), ("damage-rolled", "fighter")]  # fmt: skip


def test_without_hidden_health_players_see_every_damage_roll() -> None:
    table = duel()
    attack(table, "ogre", "fighter")
    stored = attack(table, "fighter", "ogre", dice=[15, 3, 15, 4])
    damage = [e for e in stored if e.type == "damage-rolled"]
    assert [RULESET.redact_event(e, HERO, state_of(table)) is not None for e in damage] == [
        True,
        True,
    ]


# --- the summary's details -----------------------------------------------------------------------


def test_the_summary_details_carry_the_timeline_and_only_the_viewers_sheets() -> None:
    table = duel()
    attack(table, "ogre", "fighter")

    mine = RULESET.summary(state_of(table), HERO).details
    everyone = RULESET.summary(state_of(table), GM).details
    watched = RULESET.summary(state_of(table), WATCHER).details

    assert mine is not None and everyone is not None and watched is not None
    assert mine["timeline"] == views.timeline(state_of(table))
    assert strikes(mine["timeline"]) == [(4, "ogre", "fighter", 4, "loser")]
    assert sorted(mine["sheets"]) == ["fighter"]
    assert sorted(everyone["sheets"]) == ["fighter", "ogre"]
    assert watched["sheets"] == {}
    assert mine["sheets"]["fighter"] == views.sheet(state_of(table), "fighter")


def test_the_summary_has_no_timeline_before_the_fight() -> None:
    table = encounter()
    details = RULESET.summary(state_of(table), GM).details
    assert details == {"timeline": [], "sheets": {}}


def test_an_archer_is_offered_only_the_foes_within_its_long_range() -> None:
    """PH missile ranges: a shortbow of range 5/10/15 squares reaches the ogre 12 squares
    off, not the goblin 20 off."""
    bow = {"name": "shortbow", "kind": "missile", "speed": 7, "damage": "1d6", "range": [5, 10, 15]}
    table = duel(
        fighter={"weapons": [bow]},
        ogre_at=(12, 0),
        others=[("goblin", "ogres", {"hp": 4}, (20, 0))],
    )
    stand(table, "ogre")
    stand(table, "goblin")

    assert offered(table, HERO)[("fighter", "attack")].targets == ["ogre"]


def test_an_interposing_ally_and_a_ready_return_are_narrated() -> None:
    table = duel(others=[("squire", "pcs", FIGHTER, (2, 1)), ("bandit", "ogres", OGRE, (0, 1))])
    table.send({"type": "ambush", "combatant_id": "squire", "by": ["bandit"]}, dice=[5])
    stand(table, "ogre")
    stand(table, "bandit")
    stand(table, "squire")
    table.send(
        {"type": "move", "combatant_id": "fighter", "to": [0, 4], "mode": "flee",
         "behind": "squire"},
        dice=[2],  # the bandit's free attack misses
    )  # fmt: skip

    assert sentences(table, "return-ready") == [
        "Squire keeps its wits and will return the attack of Bandit."
    ]
    assert sentences(table, "interposed") == [
        "Squire interposes: Ogre cannot strike the fleeing Fighter."
    ]


def test_the_gm_is_offered_a_skill_check_for_each_thief() -> None:
    table = duel(fighter={"thief": True, "thief_skills": {"hide-in-shadows": 40}})

    offered = [a for a in RULESET.legal_actions(state_of(table), GM) if a.type == "skill-check"]

    assert [(a.actor, a.label) for a in offered] == [
        ("fighter", "Call for a thief skill check by Fighter")
    ]
    assert all(a.type != "skill-check" for a in RULESET.legal_actions(state_of(table), HERO))
