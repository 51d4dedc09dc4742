"""combat-ii §1 A-I and §3 A: group initiative and the tracks, intentions declared losers
first, everything in a half-segment simultaneous with incapacitation after it, overkill and
retargeting, the endphase's one-round spells and a new round's initiative."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.envelope import Envelope
from service.rules.combat_ii.schedule import Track
from tests.rules.combat_ii.given import (
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

DAGGER = {"name": "dagger", "speed": 2, "damage": "1d4"}
CLUB = {"name": "club", "speed": 4, "damage": "1d6"}
MAUL = {"name": "maul", "speed": 7, "damage": "1d8"}


def _fight(
    pcs: dict[str, tuple[dict[str, Any], tuple[int, int]]],
    orcs: dict[str, tuple[dict[str, Any], tuple[int, int]]],
    initiative: list[int],
    **options: Any,
) -> Table:
    table = encounter(**options)
    line_map(table)
    for side, members in (("pcs", pcs), ("orcs", orcs)):
        for cid, (stats, at) in members.items():
            add(table, cid, side, stats, at=at)
    start(table, initiative=initiative)
    return table


def _duel(
    fighter: dict[str, Any], orc: dict[str, Any], initiative: list[int] | None = None
) -> Table:
    """A fighter at (0, 0) and an orc next to it; pcs win unless told otherwise."""
    return _fight({"fighter": (fighter, (0, 0))}, {"orc": (orc, (1, 0))}, initiative or [7, 3])


def _attack(
    table: Table, cid: str, target: str, dice: list[int] | None = None, **more: Any
) -> list[Envelope]:
    return declare(table, cid, "attack", dice=dice, targets=[target], **more)


# --- §1 C: intentions, losers first ----------------------------------------------------------


def test_initiative_losers_state_their_intentions_first() -> None:
    """combat-ii §1 C: "Starting with initiative losers, each combatant must state if they
    intend to move, attack or cast ... Winners may take this into consideration"."""
    table = _duel({"hp": 10, "weapons": [LONG_SWORD]}, {"hp": 10, "weapons": [CLUB]})
    assert state_of(table).tracks == {"fighter": "winner", "orc": "loser"}

    violation = refused(table, {"type": "stand", "combatant_id": "fighter"})

    assert violation.code == "intention/losers-first"
    assert "Orc" in violation.message
    stand(table, "orc")
    assert "fighter" not in state_of(table).intentions
    stand(table, "fighter")
    assert state_of(table).phase == 2
    assert table.replayed() == table.state


def test_every_loser_declares_before_any_winner() -> None:
    table = _fight(
        {"fighter": ({"hp": 10}, (0, 0))},
        {"orc": (ORC, (5, 0)), "orc2": (ORC, (6, 0))},
        initiative=[7, 3],
    )
    stand(table, "orc")
    assert refused(table, {"type": "stand", "combatant_id": "fighter"}).code == (
        "intention/losers-first"
    )
    stand(table, "orc2", "fighter")
    assert state_of(table).phase == 2
    assert table.replayed() == table.state


def test_a_second_intention_in_the_same_phase_is_refused() -> None:
    """combat-ii §1: "in each phase of the first three phases a combatant may do ONE of the
    following"."""
    table = _duel({"hp": 10, "weapons": [LONG_SWORD]}, {"hp": 10, "weapons": [CLUB]})
    stand(table, "orc")

    violation = refused(table, {"type": "attack", "combatant_id": "orc", "targets": ["fighter"]})

    assert violation.code == "intention/already-declared"
    assert state_of(table).intentions["orc"].kind == "stand"


def test_intentions_name_their_targets_in_advance() -> None:
    """combat-ii §1 C: "Each combatant planning to cast or attack must declare a target"."""
    table = _duel({"hp": 10, "weapons": [LONG_SWORD]}, {"hp": 10, "weapons": [CLUB]})
    stand(table, "orc")
    declared = _attack(table, "fighter", "orc", dice=[2])
    intention = one(declared, "intention-declared")["intention"]
    assert (intention["kind"], intention["targets"]) == ("attack", ["orc"])


# --- §1 E: simultaneous actions ----------------------------------------------------------------


def test_two_combatants_kill_each_other_in_the_same_half_segment() -> None:
    """combat-ii §1 E: "All actions taking place on the same half-segment are considered
    simultaneous--dying or other forms of incapacitation occur AFTER actions are performed".
    The winner's long sword (SF 5) and the loser's short sword (SF 3) both land at 3."""
    table = _duel(
        {"hp": 4, "thac0": 10, "ac": 5, "weapons": [LONG_SWORD]},
        {**ORC, "hp": 4, "thac0": 10, "weapons": [SHORT_SWORD]},
    )
    _attack(table, "orc", "fighter")

    # To-hit by target: the orc's roll at the fighter, then the fighter's; then damage.
    blows = _attack(table, "fighter", "orc", dice=[15, 15, 5, 6])

    rolled = data_of(blows, "attack-rolled")
    assert [(r["attacker"], r["half_segment"], r["hit"]) for r in rolled] == [
        ("orc", 3, True),
        ("fighter", 3, True),
    ]
    assert {d["combatant_id"] for d in data_of(blows, "combatant-downed")} == {"fighter", "orc"}
    assert hp(table, "fighter") == -1 and hp(table, "orc") == -2
    assert table.replayed() == table.state


def test_a_half_segments_to_hit_rolls_come_before_its_damage_and_damage_before_dying() -> None:
    """combat-ii §1 E: "All 'to hit' rolls for attacks against a particular target should
    precede damage calculation"; incapacitation comes after the half-segment's actions."""
    table = _duel(
        {"hp": 4, "thac0": 10, "ac": 5, "weapons": [LONG_SWORD]},
        {**ORC, "hp": 4, "thac0": 10, "weapons": [SHORT_SWORD]},
    )
    _attack(table, "orc", "fighter")
    kinds = table.types(_attack(table, "fighter", "orc", dice=[15, 15, 5, 6]))

    def span(kind: str) -> tuple[int, int]:
        places = [i for i, k in enumerate(kinds) if k == kind]
        return places[0], places[-1]

    assert span("attack-rolled")[1] < span("damage-rolled")[0]
    assert span("damage-rolled")[1] < span("resource-adjusted")[0]
    assert span("damage-rolled")[1] < span("combatant-downed")[0]


def test_killing_a_foe_in_an_earlier_half_segment_preempts_its_attack() -> None:
    """combat-ii §1 E: "Killing an opponent on a half-segment prior to the opponent's attack
    preempts the attack". The winner's dagger (SF 2) lands at 2; the orc's club (SF 4, loser)
    would land at 4."""
    table = _duel(
        {"hp": 4, "thac0": 10, "ac": 5, "weapons": [DAGGER]},
        {**ORC, "hp": 3, "thac0": 10, "weapons": [CLUB]},
    )
    _attack(table, "orc", "fighter")

    blows = _attack(table, "fighter", "orc", dice=[15, 4])

    assert [(r["attacker"], r["half_segment"]) for r in data_of(blows, "attack-rolled")] == [
        ("fighter", 2)
    ]
    assert hp(table, "fighter") == 4
    assert table.replayed() == table.state


def test_a_fast_weapon_in_a_losers_hand_beats_a_slow_one_in_a_winners() -> None:
    """combat-ii §1: "a blindingly fast weapon in the hands of an initiative loser is still
    faster than an ungainly one wielded by the winner". The loser's dagger (SF 2) lands at 3,
    the winner's maul (SF 7) at 4."""
    table = _duel(
        {"hp": 3, "thac0": 10, "ac": 5, "weapons": [MAUL]},
        {**ORC, "hp": 6, "thac0": 10, "weapons": [DAGGER]},
    )
    _attack(table, "orc", "fighter")

    blows = _attack(table, "fighter", "orc", dice=[15, 4])

    assert [(r["attacker"], r["half_segment"]) for r in data_of(blows, "attack-rolled")] == [
        ("orc", 3)
    ]
    assert one(blows, "combatant-downed")["combatant_id"] == "fighter"
    assert table.replayed() == table.state


# --- §2 C: overkill and retargeting -------------------------------------------------------


def _two_on_the_orc(orc_hp: int, alice: dict[str, Any] = DAGGER) -> Table:
    """Alice and Bob (winners) both next to a weak orc; a strong orc stands next to Bob."""
    return _fight(
        {
            "alice": ({"hp": 20, "thac0": 10, "weapons": [alice]}, (1, 1)),
            "bob": ({"hp": 20, "thac0": 10, "weapons": [LONG_SWORD]}, (1, 0)),
        },
        {"orc": ({**ORC, "hp": orc_hp}, (2, 1)), "orc2": ({**ORC, "hp": 30}, (2, 0))},
        initiative=[7, 3],
    )


def test_overkill_a_second_blow_in_the_same_half_segment_falls_on_the_dead_orc() -> None:
    """combat-ii §2 C Overkill: "targets may not be re-declared during the half segment the
    attacker's hit attempt actually occurs ... an extra blow or two might fall before they
    realize that the opponent is dead". Alice's club and Bob's long sword both land at 3."""
    table = _two_on_the_orc(orc_hp=3, alice=CLUB)
    stand(table, "orc", "orc2")
    _attack(table, "alice", "orc")

    blows = _attack(table, "bob", "orc", dice=[15, 15, 4, 5], fallback="orc2")

    rolled = data_of(blows, "attack-rolled")
    assert [(r["attacker"], r["target"], r["half_segment"]) for r in rolled] == [
        ("alice", "orc", 3),
        ("bob", "orc", 3),
    ]
    assert [d["target"] for d in data_of(blows, "damage-rolled")] == ["orc", "orc"]
    assert hp(table, "orc2") == 30
    assert table.replayed() == table.state


def test_retargeting_strikes_the_fallback_at_plus_3_sf() -> None:
    """combat-ii §2 C Retargeting: "If an intended target falls in melee during a half
    segment PRIOR to the attacker's hit attempt ... a new target WITHIN STRIKING DISTANCE may
    be declared in the same phase with a +3 SF penalty". Alice's dagger fells the orc at 2;
    Bob's long sword (SF 5, due at 3) turns on the second orc at SF 8, half-segment 4."""
    table = _two_on_the_orc(orc_hp=3)
    stand(table, "orc", "orc2")
    _attack(table, "alice", "orc")

    blows = _attack(table, "bob", "orc", dice=[15, 4, 15, 5], fallback="orc2")

    rolled = data_of(blows, "attack-rolled")
    assert [(r["attacker"], r["target"], r["half_segment"], r["sf"]) for r in rolled] == [
        ("alice", "orc", 2, 2),
        ("bob", "orc2", 4, 8),
    ]
    assert hp(table, "orc2") == 25
    assert table.replayed() == table.state


def test_without_a_fallback_the_attack_waits_for_a_later_phase() -> None:
    """combat-ii §2 C Retargeting: "the attack attempt may be delayed until a later phase"."""
    table = _two_on_the_orc(orc_hp=3)
    stand(table, "orc", "orc2")
    _attack(table, "alice", "orc")

    blows = _attack(table, "bob", "orc", dice=[15, 4])

    assert [r["attacker"] for r in data_of(blows, "attack-rolled")] == ["alice"]
    stand(table, "orc2", "alice")
    later = _attack(table, "bob", "orc2", dice=[15, 5])  # Bob's one attack is still his
    assert one(later, "attack-rolled")["half_segment"] == 9
    assert table.replayed() == table.state


def test_a_fallback_out_of_striking_distance_is_not_struck() -> None:
    """combat-ii §2 C Retargeting: the new target must be "WITHIN STRIKING DISTANCE"."""
    table = _fight(
        {
            "alice": ({"hp": 20, "thac0": 10, "weapons": [DAGGER]}, (1, 1)),
            "bob": ({"hp": 20, "thac0": 10, "weapons": [LONG_SWORD]}, (1, 2)),
        },
        {"orc": ({**ORC, "hp": 3}, (2, 1)), "orc2": ({**ORC, "hp": 30}, (8, 0))},
        initiative=[7, 3],
    )
    stand(table, "orc", "orc2")
    _attack(table, "alice", "orc")

    blows = _attack(table, "bob", "orc", dice=[15, 4], fallback="orc2")

    assert [r["attacker"] for r in data_of(blows, "attack-rolled")] == ["alice"]
    assert table.replayed() == table.state


# --- §1 A-B: initiative -----------------------------------------------------------------------


def test_initiative_the_lowest_group_roll_wins() -> None:
    """combat-ii §1 A: "Each group of characters rolls a d10, with the lowest roll winning
    initiative" (one d10 a group, in alphabetical order of group)."""
    table = encounter()
    add(table, "fighter", "pcs", {"hp": 10})
    add(table, "orc", "orcs", ORC)
    rolled = table.send({"type": "start-encounter"}, dice=[4, 8])  # orcs 4, pcs 8
    initiative = one(rolled, "initiative-rolled")
    assert (initiative["rolls"], initiative["winner"]) == ({"orcs": 4, "pcs": 8}, "orcs")
    assert initiative["tracks"] == {"fighter": "loser", "orc": "winner"}


def test_tied_lowest_initiative_rolls_are_rolled_again() -> None:
    table = encounter()
    add(table, "fighter", "pcs", {"hp": 10})
    add(table, "orc", "orcs", ORC)
    rolled = table.send({"type": "start-encounter"}, dice=[4, 4, 7, 2])
    initiative = one(rolled, "initiative-rolled")
    assert initiative["rolls"] == {"orcs": 7, "pcs": 2}
    assert sorted(initiative["rerolled"]) == ["orcs", "pcs"]
    assert initiative["winner"] == "pcs"
    assert table.replayed() == table.state


def test_a_tie_that_is_not_for_the_lowest_roll_stands() -> None:
    """combat-ii §1 A: "In the case of a multi-sided attack, low roll is the initiative
    winner, all others are losers"."""
    table = encounter()
    add(table, "bandit", "bandits", {"hp": 10})
    add(table, "fighter", "pcs", {"hp": 10})
    add(table, "orc", "orcs", ORC)
    rolled = table.send({"type": "start-encounter"}, dice=[2, 5, 5])  # bandits, orcs, pcs
    initiative = one(rolled, "initiative-rolled")
    assert (initiative["winner"], initiative["rerolled"]) == ("bandits", [])
    assert initiative["tracks"] == {"bandit": "winner", "fighter": "loser", "orc": "loser"}


@pytest.mark.parametrize(
    ("stats", "options", "track"),
    [
        pytest.param({"dexterity": 19}, {}, "winner", id="DEX 19 (+3): 5-3 beats 3"),
        pytest.param({"dexterity": 18}, {}, "loser", id="DEX 18 (+2): 5-2 ties 3, stays"),
        pytest.param({"reaction": 4}, {}, "winner", id="sheet reaction +4"),
        pytest.param(
            {"dexterity": 10, "agility": 19}, {"agility": True}, "winner", id="AGI 19 with §4"
        ),
        pytest.param(
            {"dexterity": 19, "agility": 10}, {"agility": True}, "loser", id="DEX 19 under AGI"
        ),
    ],
)
def test_a_high_reaction_adjustment_puts_a_loser_on_the_winners_track(
    stats: dict[str, Any], options: dict[str, Any], track: Track
) -> None:
    """combat-ii §1 B: "Each individual modifies group roll by Reaction Adjustment for
    DEXTERITY. A high dexterity may put a 'loser' onto the winner's track"; §4 Agility: AGI
    "is also used to modify the party initiative roll"."""
    table = encounter(**options)
    add(table, "elf", "pcs", {"hp": 10, **stats})
    add(table, "fighter", "pcs", {"hp": 10})
    add(table, "orc", "orcs", ORC)
    start(table, initiative=[3, 5])  # orcs 3, pcs 5
    assert state_of(table).tracks == {"elf": track, "fighter": "loser", "orc": "winner"}


def test_a_low_dexterity_puts_a_winner_on_the_losers_track() -> None:
    """combat-ii §1 B: "while a low DEX may do the opposite"."""
    table = encounter()
    add(table, "fighter", "pcs", {"hp": 10})
    add(table, "orc", "orcs", ORC)
    add(table, "slowpoke", "orcs", {**ORC, "dexterity": 3})  # -3: 3 + 3 = 6 is behind 5
    start(table, initiative=[3, 5])
    assert state_of(table).tracks == {"fighter": "loser", "orc": "winner", "slowpoke": "loser"}

    stand(table, "fighter")
    assert refused(table, {"type": "stand", "combatant_id": "orc"}).code == (
        "intention/losers-first"
    )  # the slowpoke declares with the losers
    stand(table, "slowpoke", "orc")
    assert table.replayed() == table.state


def test_a_combatant_moved_to_the_winners_track_strikes_on_it() -> None:
    """combat-ii §1 B and Table 1: the quick elf of the losing side strikes in the winner's
    column (SF 5 at 3), the rest of its side in the loser's (at 4)."""
    table = _fight(
        {
            "elf": ({"hp": 10, "thac0": 10, "dexterity": 19, "weapons": [LONG_SWORD]}, (1, 1)),
            "fighter": ({"hp": 10, "thac0": 10, "weapons": [LONG_SWORD]}, (1, 0)),
        },
        {"orc": ({**ORC, "hp": 40}, (2, 1))},
        initiative=[3, 5],
    )
    _attack(table, "fighter", "orc")
    stand(table, "orc")
    blows = _attack(table, "elf", "orc", dice=[2, 2])
    assert [(r["attacker"], r["half_segment"]) for r in data_of(blows, "attack-rolled")] == [
        ("elf", 3),
        ("fighter", 4),
    ]


# --- §1 H-I: the endphase and a new round ----------------------------------------------------


@pytest.mark.parametrize(
    ("initiative", "track", "number"),
    [
        pytest.param([7, 3], "winner", 19, id="winner at 19"),
        pytest.param([3, 7], "loser", 20, id="loser at 20"),
    ],
)
def test_the_endphase_completes_one_round_spells(
    initiative: list[int], track: Track, number: int
) -> None:
    """combat-ii §1 H: "PHASE 4 (ENDPHASE): No movement. Complete all 1 round spells";
    Table 1: "1 round" at 19 for winners, 20 for losers."""
    cloud = {"name": "cloud", "rounds": 1, "components": "V", "damage": "1d4"}
    table = _fight(
        {"finch": ({"hp": 10, "spells": [cloud]}, (0, 0))},
        {"orc": ({**ORC, "hp": 20}, (6, 0))},
        initiative=initiative,
    )
    assert state_of(table).tracks["finch"] == track
    if track == "loser":
        declare(table, "finch", "cast", spell="cloud", target="orc")
        stand(table, "orc")
    else:
        stand(table, "orc")
        declare(table, "finch", "cast", spell="cloud", target="orc")
    stand(table, "orc")  # phase 2: Finch continues on his own
    assert "spell-completed" not in table.types(table.envelopes)

    ended = stand(table, "orc", dice=[3, 7, 3])  # phase 3; the cloud's d4; round 2's d10s

    kinds = table.types(ended)
    completed = one(ended, "spell-completed")
    assert completed["half_segment"] == number
    assert kinds.index("phase-began", kinds.index("phase-ended")) < kinds.index("spell-completed")
    endphase = [p for p in data_of(ended, "phase-began") if p["label"] == "endphase"]
    assert len(endphase) == 1
    assert "moved" not in kinds and hp(table, "orc") == 17
    assert table.replayed() == table.state


def test_a_new_round_rolls_initiative_again() -> None:
    """combat-ii §1 I: "NEW ROUND BEGINS" with §1 A's group roll."""
    table = _duel(
        {"hp": 20, "thac0": 10, "weapons": [LONG_SWORD]}, {**ORC, "hp": 20, "weapons": [CLUB]}
    )
    stand(table, "orc")
    _attack(table, "fighter", "orc", dice=[2])
    stand(table, "orc", "fighter")
    stand(table, "orc")

    ended = stand(table, "fighter", dice=[2, 9])  # orcs 2, pcs 9: the orc wins round 2

    assert one(ended, "round-began")["round"] == 2
    assert one(ended, "initiative-rolled")["rolls"] == {"orcs": 2, "pcs": 9}
    state = state_of(table)
    assert (state.round, state.phase, state.tick) == (2, 1, 4)
    assert state.tracks == {"fighter": "loser", "orc": "winner"}
    stand(table, "fighter")
    again = _attack(table, "orc", "fighter", dice=[2])  # a fresh round's attack
    assert one(again, "attack-rolled")["half_segment"] == 3  # club SF 4, now a winner
    assert table.replayed() == table.state


def test_system_ii_rolls_initiative_at_each_a_phase() -> None:
    """combat-ii §3 A: "Roll for initiative at the beginning of each A phase. Initiative
    determinations remain in effect through the end of phase C"."""
    table = encounter(phase_system="II")
    add(table, "fighter", "pcs", {"hp": 20})
    add(table, "orc", "orcs", ORC)
    start(table, initiative=[7, 3])
    for label in ("A", "B"):
        assert one(stand(table, "orc", "fighter"), "phase-ended")["tick"] == "AB".index(label) + 1
        assert state_of(table).tracks == {"fighter": "winner", "orc": "loser"}
    stand(table, "orc")

    stored = stand(table, "fighter", dice=[2, 9])  # C ends: orcs 2, pcs 9

    assert one(stored, "initiative-rolled")["rolls"] == {"orcs": 2, "pcs": 9}
    assert one(stored, "phase-began")["label"] == "A"
    assert state_of(table).tracks == {"fighter": "loser", "orc": "winner"}
    assert table.replayed() == table.state
