"""hex-tactical Attacking, Melee Combat, Ranged Combat and Offensive Use of Skills, Traits, and
Abilities: melee and reach, the target's dodge or parry, damage less armor, being in melee and
how it ends, the range bands' Dodge, firing into a melee both ways ("bane" and "risk"), the
combat maneuvers (trip, grapple, disarm), wielding, surrender and the GM's checks.

Every roll is a table die, in the order the command rolls it: the attack's d100 (and one d10
per boon or bane left), then the answer to the window (a Dodge or parry d100, plus its d10s),
then the damage dice.
"""

from __future__ import annotations

import pytest

from service.domain.grid import Cell
from service.rules.hex_tactical.geometry import threatens
from service.rules.hex_tactical.state import HexState
from tests.rules.harness import Table
from tests.rules.hex_tactical.given import (
    BOW,
    DAGGER,
    PLAYER,
    SPEAR,
    SWORD,
    add,
    answer,
    encounter,
    first,
    hex_map,
    position,
    refused,
    start,
    state_of,
    types,
    window_for,
)

MELEE = {"melee": 60}
ARCHERY = {"ranged": 60}


def duel(**options: object) -> Table:
    """Alice (the party's swordswoman) faces Bob one cell away; Alice acts first."""
    table = encounter(**options)
    hex_map(table)
    add(table, "alice", (2, 5), side="pcs", skills=MELEE)
    add(table, "bob", (3, 5), skills=MELEE)
    start(table, 1, 50)
    return table


def attack(table: Table, cid: str, target: str, dice: list[int], **extra: object) -> list:
    return table.send({"type": "attack", "combatant_id": cid, "target": target, **extra}, dice=dice)


def hp(table: Table, cid: str) -> int:
    return state_of(table).table.combatants[cid].pools["hp"].current


def options(table: Table, cid: str) -> tuple[str, ...]:
    window = state_of(table).table.windows[window_for(table, cid)]
    return window.eligible[cid]


def in_melee(state: HexState, a: str, b: str) -> bool:
    return tuple(sorted((a, b))) in state.melee


def end_turn(table: Table, cid: str, dice: list[int] | None = None) -> list:
    return table.send({"type": "end-turn", "combatant_id": cid}, dice=dice)


# --- melee and reach --------------------------------------------------------------------------


def test_a_sword_strikes_an_adjacent_enemy_and_the_hit_waits_for_a_dodge_or_a_parry():
    table = duel()

    envelopes = attack(table, "alice", "bob", dice=[40])

    assert types(envelopes) == [
        "action-begun",
        "attack-rolled",
        "melee-joined",
        "reaction-window-opened",
    ]
    rolled = first(envelopes, "attack-rolled")
    assert rolled["hit"] and rolled["check"]["roll"] == 40 and rolled["check"]["target"] == 60
    assert not rolled["ranged"]
    assert options(table, "bob") == ("dodge", "parry", "pass")
    assert in_melee(state_of(table), "alice", "bob")


def test_a_missed_melee_attack_still_puts_the_two_in_melee_and_opens_no_window():
    table = duel()

    envelopes = attack(table, "alice", "bob", dice=[61])

    assert types(envelopes) == ["action-begun", "attack-rolled", "melee-joined"]
    assert not first(envelopes, "attack-rolled")["hit"]
    assert in_melee(state_of(table), "alice", "bob")
    assert not state_of(table).table.open_windows()


def test_a_melee_attack_beyond_the_weapons_reach_is_refused():
    table = encounter()
    hex_map(table)
    add(table, "alice", (2, 5), side="pcs")
    add(table, "bob", (4, 5))
    start(table, 1, 50)

    error = refused(table, {"type": "attack", "combatant_id": "alice", "target": "bob"}, dice=[10])

    assert error.code == "attack/out-of-reach"


def test_a_pike_attacks_at_two_cells_and_that_is_a_melee_attack():
    table = encounter()
    hex_map(table)
    add(table, "alice", (1, 5), side="pcs", weapons=[SPEAR], skills=MELEE)
    add(table, "bob", (3, 5))
    start(table, 1, 50)

    envelopes = attack(table, "alice", "bob", dice=[30])

    rolled = first(envelopes, "attack-rolled")
    assert rolled["weapon"] == "pike" and rolled["distance_feet"] == 10
    assert rolled["hit"] and not rolled["ranged"] and rolled["band"] is None
    assert "melee-joined" in types(envelopes)
    # A melee hit: Bob may dodge (normal) or parry with his sword.
    assert options(table, "bob") == ("dodge", "parry", "pass")
    assert rolled["response"]["dodge"] == "normal"


def test_a_pike_cannot_reach_three_cells():
    table = encounter()
    hex_map(table)
    add(table, "alice", (0, 5), side="pcs", weapons=[SPEAR])
    add(table, "bob", (3, 5))
    start(table, 1, 50)

    error = refused(table, {"type": "attack", "combatant_id": "alice", "target": "bob"}, dice=[10])

    assert error.code == "attack/out-of-reach"


def test_a_target_holding_no_melee_weapon_may_dodge_but_not_parry():
    table = encounter()
    hex_map(table)
    add(table, "alice", (2, 5), side="pcs", skills=MELEE)
    add(table, "bob", (3, 5), weapons=[BOW])
    start(table, 1, 50)

    attack(table, "alice", "bob", dice=[10])

    assert options(table, "bob") == ("dodge", "pass")


# --- the target's response and the damage -------------------------------------------------------


def test_a_successful_dodge_avoids_the_damage():
    table = duel()
    attack(table, "alice", "bob", dice=[40])

    envelopes = answer(table, "bob", "dodge", dice=[50])

    defended = first(envelopes, "defended")
    assert defended["response"] == "dodge" and defended["check"]["success"]
    assert "damage-dealt" not in types(envelopes)
    assert hp(table, "bob") == 10


def test_a_failed_dodge_takes_the_damage_less_armor():
    table = encounter()
    hex_map(table)
    add(table, "alice", (2, 5), side="pcs", skills=MELEE)
    add(table, "bob", (3, 5), armor=2)
    start(table, 1, 50)
    attack(table, "alice", "bob", dice=[40])

    envelopes = answer(table, "bob", "dodge", dice=[51, 7])

    assert not first(envelopes, "defended")["check"]["success"]
    dealt = first(envelopes, "damage-dealt")
    assert (dealt["rolled"], dealt["armor"], dealt["taken"]) == (7, 2, 5)
    assert first(envelopes, "resource-adjusted")["after"] == 5
    assert hp(table, "bob") == 5


def test_a_failed_parry_rolls_the_parrying_weapons_skill_and_takes_the_damage():
    table = encounter()
    hex_map(table)
    add(table, "alice", (2, 5), side="pcs", skills=MELEE)
    add(table, "bob", (3, 5), skills={"melee": 30})
    start(table, 1, 50)
    attack(table, "alice", "bob", dice=[40])

    envelopes = answer(table, "bob", "parry", dice=[31, 3])

    parried = first(envelopes, "defended")
    assert parried["response"] == "parry"
    assert parried["check"]["skill"] == "melee" and parried["check"]["target"] == 30
    assert first(envelopes, "damage-dealt")["taken"] == 3
    assert hp(table, "bob") == 7


def test_passing_takes_the_damage_at_once():
    table = duel()
    attack(table, "alice", "bob", dice=[40])

    envelopes = answer(table, "bob", "pass", dice=[8])

    assert "defended" not in types(envelopes)
    assert first(envelopes, "damage-dealt")["taken"] == 8
    assert hp(table, "bob") == 2


def test_armor_soaks_a_blow_entirely_without_healing():
    table = encounter()
    hex_map(table)
    add(table, "alice", (2, 5), side="pcs", skills=MELEE, weapons=[DAGGER])
    add(table, "bob", (3, 5), armor=5)
    start(table, 1, 50)
    attack(table, "alice", "bob", dice=[40])

    envelopes = answer(table, "bob", "pass", dice=[3])

    dealt = first(envelopes, "damage-dealt")
    assert (dealt["rolled"], dealt["taken"]) == (3, 0)
    assert "resource-adjusted" not in types(envelopes)
    assert hp(table, "bob") == 10


def test_a_combatant_brought_to_zero_hp_is_downed_and_all_its_melees_end():
    """Bob is in melee with Alice and with Dave; Dave's blow drops him, and "one loses
    consciousness" ends both melees."""
    table = encounter()
    hex_map(table)
    add(table, "alice", (2, 5), side="pcs", skills=MELEE)
    add(table, "dave", (4, 5), side="pcs", skills=MELEE)
    add(table, "bob", (3, 5), hp=4)
    start(table, 1, 2, 3)
    attack(table, "alice", "bob", dice=[99])
    end_turn(table, "alice")
    attack(table, "dave", "bob", dice=[10])
    assert in_melee(state_of(table), "alice", "bob") and in_melee(state_of(table), "bob", "dave")

    envelopes = answer(table, "bob", "pass", dice=[6])

    assert first(envelopes, "resource-adjusted")["after"] == -2
    assert "combatant-downed" in types(envelopes)
    ended = [e.data for e in envelopes if e.type == "melee-ended"]
    assert sorted(tuple(e["combatants"]) for e in ended) == [("alice", "bob"), ("bob", "dave")]
    assert all(e["reason"] == "out-of-fight" for e in ended)
    assert state_of(table).melee == ()


def test_an_attack_on_a_downed_combatant_is_refused():
    table = encounter()
    hex_map(table)
    add(table, "alice", (2, 5), side="pcs", skills=MELEE)
    add(table, "bob", (3, 5), hp=1)
    start(table, 1, 50)
    table.send({"type": "adjust-resource", "combatant_id": "bob", "delta": -1})

    error = refused(table, {"type": "attack", "combatant_id": "alice", "target": "bob"}, dice=[10])

    assert error.code == "attack/target-down"


def test_a_prone_target_gives_the_melee_attacker_a_boon_and_itself_a_bane_on_dodge():
    table = duel()
    table.send({"type": "apply-condition", "combatant_id": "bob", "condition": "prone"})

    # 75 with a boon's tens die of 2: the lower, 25, is kept.
    envelopes = attack(table, "alice", "bob", dice=[75, 2])

    check = first(envelopes, "attack-rolled")["check"]
    assert (check["boons"], check["dice"], check["roll"]) == (1, [75, 2], 25)
    assert first(envelopes, "attack-rolled")["response"]["dodge_banes"] == 1
    # Bob's dodge from the ground: 40 with a bane's tens die of 9 keeps 90, a failure.
    dodged = answer(table, "bob", "dodge", dice=[40, 9, 4])
    assert first(dodged, "defended")["check"]["roll"] == 90
    assert hp(table, "bob") == 6


# --- ranged attacks -----------------------------------------------------------------------------


def archery(bob_at: tuple[int, int] = (8, 5), **options: object) -> Table:
    """Alice the archer at (0, 5) with a 60/180 longbow; Bob on the same row."""
    table = encounter(**options)
    hex_map(table, width=40, height=12)
    add(table, "alice", (0, 5), side="pcs", weapons=[BOW], skills=ARCHERY)
    add(table, "bob", bob_at)
    start(table, 1, 50)
    return table


def test_a_ranged_hit_inside_the_interval_allows_only_a_hard_dodge():
    table = archery((8, 5))

    envelopes = attack(table, "alice", "bob", dice=[30])

    rolled = first(envelopes, "attack-rolled")
    assert rolled["ranged"] and rolled["band"] == 0 and rolled["distance_feet"] == 40
    assert "melee-joined" not in types(envelopes)
    assert options(table, "bob") == ("dodge", "pass")
    dodged = answer(table, "bob", "dodge", dice=[26, 5])
    assert first(dodged, "defended")["check"]["target"] == 25
    assert first(dodged, "damage-dealt")["taken"] == 5


def test_a_ranged_hit_beyond_the_interval_allows_only_a_very_hard_dodge():
    table = archery((13, 5))

    envelopes = attack(table, "alice", "bob", dice=[30, 1])

    assert first(envelopes, "attack-rolled")["band"] == 1
    dodged = answer(table, "bob", "dodge", dice=[10])
    check = first(dodged, "defended")["check"]
    assert (check["difficulty"], check["target"], check["success"]) == ("very-hard", 10, True)


def test_a_ranged_attack_at_an_adjacent_target_puts_both_in_melee_and_allows_no_dodge():
    table = archery((1, 5))

    envelopes = attack(table, "alice", "bob", dice=[30, 4])

    assert types(envelopes) == [
        "action-begun",
        "attack-rolled",
        "melee-joined",
        "damage-dealt",
        "resource-adjusted",
    ]
    assert first(envelopes, "attack-rolled")["response"]["dodge"] is None
    assert in_melee(state_of(table), "alice", "bob")
    assert hp(table, "bob") == 6


def test_an_unaware_target_gets_no_dodge_against_a_ranged_attack():
    table = archery((8, 5))
    table.send({"type": "set-awareness", "combatant_id": "bob", "of": "alice", "aware": False})

    envelopes = attack(table, "alice", "bob", dice=[30, 5])

    assert first(envelopes, "attack-rolled")["response"]["dodge"] is None
    assert "reaction-window-opened" not in types(envelopes)
    assert first(envelopes, "damage-dealt")["taken"] == 5


def test_a_target_made_aware_again_may_dodge_again():
    table = archery((8, 5))
    table.send({"type": "set-awareness", "combatant_id": "bob", "of": "alice", "aware": False})
    table.send({"type": "set-awareness", "combatant_id": "bob", "of": "alice", "aware": True})

    attack(table, "alice", "bob", dice=[30])

    assert options(table, "bob") == ("dodge", "pass")


def test_only_the_gm_rules_on_awareness():
    table = archery((8, 5))

    error = refused(
        table,
        {"type": "set-awareness", "combatant_id": "bob", "of": "alice", "aware": False},
        actor=PLAYER,
    )

    assert error.code == "auth/gm-only"


# --- firing into a melee ------------------------------------------------------------------------


def into_a_melee(*others: str, **options: object) -> Table:
    """Bob is in melee with each of `others` (Alice's allies, who attacked and missed him);
    then it is Alice's turn, her longbow at (5, 0) five cells from Bob at (5, 5)."""
    table = encounter(**options)
    hex_map(table)
    spots = [(4, 5), (6, 5), (5, 6)]
    for cid, at in zip(others, spots, strict=False):
        add(table, cid, at, side="pcs", skills=MELEE)
    add(table, "alice", (5, 0), side="pcs", weapons=[BOW], skills=ARCHERY)
    add(table, "bob", (5, 5), skills=MELEE)
    start(table, *range(1, len(others) + 3))
    for cid in others:
        attack(table, cid, "bob", dice=[99])
        end_turn(table, cid)
    assert state_of(table).current == "alice"
    return table


def test_firing_into_a_melee_with_a_bane_takes_one_more_bane():
    table = into_a_melee("dave")

    # 70 with the bane's tens die of 1: the higher, 70, is kept; a miss by 10.
    envelopes = attack(table, "alice", "bob", dice=[70, 1])

    rolled = first(envelopes, "attack-rolled")
    assert rolled["into_melee"] == "bane" and rolled["band"] == 0
    assert (rolled["check"]["banes"], rolled["check"]["roll"]) == (1, 70)
    assert not rolled["hit"]


def test_firing_into_a_melee_with_a_bane_a_miss_strikes_no_one():
    table = into_a_melee("dave")

    envelopes = attack(table, "alice", "bob", dice=[70, 1])

    assert "stray-hit" not in types(envelopes) and "damage-dealt" not in types(envelopes)
    assert hp(table, "dave") == 10


def test_the_bane_is_the_option_unless_the_attack_says_risk():
    table = into_a_melee("dave", into_melee="risk")

    envelopes = attack(table, "alice", "bob", dice=[70, 1], into_melee="bane")

    assert first(envelopes, "attack-rolled")["into_melee"] == "bane"
    assert "stray-hit" not in types(envelopes)


def test_running_the_risk_takes_no_extra_bane():
    table = into_a_melee("dave")

    envelopes = attack(table, "alice", "bob", dice=[30, 5], into_melee="risk")

    rolled = first(envelopes, "attack-rolled")
    assert rolled["into_melee"] == "risk" and rolled["check"]["banes"] == 0 and rolled["hit"]
    # Bob is in melee: he gets no dodge, and the arrow lands at once.
    assert first(envelopes, "damage-dealt")["combatant_id"] == "bob"
    assert hp(table, "bob") == 5


def test_a_risky_miss_by_less_than_half_the_skill_strikes_the_other_member_of_the_melee():
    table = into_a_melee("dave", into_melee="risk")

    # Alice's ranged skill is 60: 70 misses by 10, less than 30.
    envelopes = attack(table, "alice", "bob", dice=[70, 6])

    stray = first(envelopes, "stray-hit")
    assert (stray["intended"], stray["struck"]) == ("bob", "dave")
    assert first(envelopes, "damage-dealt")["combatant_id"] == "dave"
    assert hp(table, "dave") == 4 and hp(table, "bob") == 10


def test_a_risky_miss_by_exactly_half_the_skill_strikes_no_one():
    table = into_a_melee("dave", into_melee="risk")

    envelopes = attack(table, "alice", "bob", dice=[90])

    assert "stray-hit" not in types(envelopes)
    assert hp(table, "dave") == 10


def test_a_risky_miss_by_more_than_half_the_skill_strikes_no_one():
    table = into_a_melee("dave", into_melee="risk")

    envelopes = attack(table, "alice", "bob", dice=[95])

    assert "stray-hit" not in types(envelopes) and "damage-dealt" not in types(envelopes)


def test_with_two_others_in_the_melee_a_die_picks_who_the_risky_miss_strikes():
    table = into_a_melee("dave", "erin", into_melee="risk")

    envelopes = attack(table, "alice", "bob", dice=[70, 2, 3])

    assert first(envelopes, "stray-hit")["struck"] == "erin"
    assert hp(table, "erin") == 7 and hp(table, "dave") == 10
    rolls = [r for e in envelopes for r in e.rolls]
    assert [(r["k"], r["value"]) for r in rolls] == [(100, 70), (2, 2), (8, 3)]


def test_a_target_in_melee_gets_no_dodge_against_a_ranged_hit():
    table = into_a_melee("dave")

    envelopes = attack(table, "alice", "bob", dice=[30, 1, 5])

    assert first(envelopes, "attack-rolled")["response"]["dodge"] is None
    assert first(envelopes, "damage-dealt")["taken"] == 5


# --- combat maneuvers ---------------------------------------------------------------------------


def maneuver(table: Table, cid: str, target: str, kind: str, dice: list[int]) -> list:
    return table.send(
        {"type": "maneuver", "combatant_id": cid, "target": target, "maneuver": kind}, dice=dice
    )


def grappling(**alice: object) -> Table:
    table = encounter()
    hex_map(table)
    add(table, "alice", (2, 5), side="pcs", skills={"athletics": 60, **MELEE}, **alice)
    add(table, "bob", (3, 5), skills=MELEE)
    start(table, 1, 50)
    return table


def test_a_trip_that_lands_leaves_the_target_prone():
    table = grappling()

    envelopes = maneuver(table, "alice", "bob", "trip", dice=[45])

    rolled = first(envelopes, "attack-rolled")
    assert rolled["maneuver"] == "trip" and rolled["check"]["skill"] == "athletics"
    assert options(table, "bob") == ("dodge", "parry", "pass")
    landed = answer(table, "bob", "pass")
    assert types(landed)[-2:] == ["maneuver-landed", "condition-applied"]
    assert state_of(table).table.combatants["bob"].has_condition("prone")


def test_a_dodged_trip_leaves_the_target_standing():
    table = grappling()
    maneuver(table, "alice", "bob", "trip", dice=[45])

    envelopes = answer(table, "bob", "dodge", dice=[20])

    assert "maneuver-landed" not in types(envelopes)
    assert not state_of(table).table.combatants["bob"].has_condition("prone")


def test_a_grapple_that_lands_holds_the_target():
    table = grappling()
    maneuver(table, "alice", "bob", "grapple", dice=[45])

    answer(table, "bob", "pass")

    bob = state_of(table).table.combatants["bob"]
    assert bob.has_condition("grappled")
    assert next(c for c in bob.conditions if c.name == "grappled").source == "alice"
    assert in_melee(state_of(table), "alice", "bob")


def grappled_bob() -> Table:
    table = grappling()
    maneuver(table, "alice", "bob", "grapple", dice=[45])
    answer(table, "bob", "pass")
    end_turn(table, "alice")
    return table


def test_a_grappled_combatant_must_pass_an_agility_check_before_it_moves():
    table = grappled_bob()

    envelopes = table.send({"type": "move", "combatant_id": "bob", "to": [4, 5]}, dice=[51])

    assert types(envelopes) == ["action-begun", "broke-free"]
    broke = first(envelopes, "broke-free")
    assert broke["held"] == "grappled" and not broke["check"]["success"]
    assert position(table, "bob") == (3, 5)
    assert state_of(table).turn.moves == 1


def test_a_grappled_combatant_that_breaks_free_moves_on():
    table = grappled_bob()

    # (3, 4) is still next to Alice: the step leaves no threat behind.
    envelopes = table.send({"type": "move", "combatant_id": "bob", "to": [3, 4]}, dice=[50])

    assert types(envelopes) == ["action-begun", "broke-free", "condition-removed", "moved"]
    assert first(envelopes, "broke-free")["check"]["success"]
    assert position(table, "bob") == (3, 4)
    assert not state_of(table).table.combatants["bob"].has_condition("grappled")


def test_a_grapple_ends_when_the_melee_ends():
    table = grappling()
    maneuver(table, "alice", "bob", "grapple", dice=[45])
    answer(table, "bob", "pass")

    # Alice walks away: Bob (in melee with her) may strike as she goes, and lets it pass.
    table.send({"type": "move", "combatant_id": "alice", "to": [0, 5]})
    envelopes = answer(table, "bob", "pass")

    ended = first(envelopes, "melee-ended")
    assert ended["reason"] == "moved-apart"
    removed = first(envelopes, "condition-removed")
    assert (removed["combatant_id"], removed["condition"]) == ("bob", "grappled")
    assert not state_of(table).table.combatants["bob"].conditions


def test_a_disarm_that_lands_drops_the_targets_weapon():
    table = grappling()

    envelopes = maneuver(table, "alice", "bob", "disarm", dice=[45])

    assert first(envelopes, "attack-rolled")["check"]["skill"] == "melee"
    landed = answer(table, "bob", "pass")
    dropped = first(landed, "wielded")
    assert (dropped["combatant_id"], dropped["weapon"], dropped["dropped"]) == ("bob", None, True)
    assert state_of(table).wielding["bob"] is None


def test_a_disarmed_combatant_threatens_nothing():
    table = grappling()
    maneuver(table, "alice", "bob", "disarm", dice=[45])
    answer(table, "bob", "pass")

    assert threatens(state_of(table), "bob") == frozenset()
    envelopes = table.send({"type": "move", "combatant_id": "alice", "to": [0, 5]})

    assert "opportunity-raised" not in types(envelopes)
    assert first(envelopes, "melee-ended")["reason"] == "moved-apart"


def test_a_disarmed_weapon_cannot_strike_until_picked_up_with_an_action():
    table = grappling()
    maneuver(table, "alice", "bob", "disarm", dice=[45])
    answer(table, "bob", "pass")
    end_turn(table, "alice")

    sword = {"type": "attack", "combatant_id": "bob", "target": "alice", "weapon": "sword"}
    error = refused(table, sword, dice=[5])
    assert error.code == "attack/weapon-dropped"

    picked = table.send({"type": "wield", "combatant_id": "bob", "weapon": "sword"})

    assert first(picked, "action-begun")["kind"] == "other"
    assert state_of(table).wielding["bob"] == "sword" and not state_of(table).dropped["bob"]
    error = refused(table, {"type": "attack", "combatant_id": "bob", "target": "alice"}, dice=[5])
    assert error.code == "turn/other-action-used"


def test_a_disarm_with_a_bow_in_hand_rolls_unarmed():
    table = encounter()
    hex_map(table)
    add(table, "alice", (2, 5), side="pcs", weapons=[BOW], skills={"ranged": 90, "unarmed": 35})
    add(table, "bob", (3, 5))
    start(table, 1, 50)

    envelopes = maneuver(table, "alice", "bob", "disarm", dice=[30])

    rolled = first(envelopes, "attack-rolled")
    assert (rolled["check"]["skill"], rolled["check"]["target"]) == ("unarmed", 35)


def test_there_is_nothing_to_disarm_from_empty_hands():
    table = encounter()
    hex_map(table)
    add(table, "alice", (2, 5), side="pcs")
    add(table, "bob", (3, 5), weapons=[])
    start(table, 1, 50)

    error = refused(
        table,
        {"type": "maneuver", "combatant_id": "alice", "target": "bob", "maneuver": "disarm"},
        dice=[10],
    )

    assert error.code == "maneuver/nothing-to-disarm"


def test_a_maneuver_beyond_reach_is_refused():
    table = encounter()
    hex_map(table)
    add(table, "alice", (1, 5), side="pcs")
    add(table, "bob", (3, 5))
    start(table, 1, 50)

    error = refused(
        table,
        {"type": "maneuver", "combatant_id": "alice", "target": "bob", "maneuver": "trip"},
        dice=[10],
    )

    assert error.code == "maneuver/out-of-reach"


def test_a_maneuver_in_a_threatened_cell_provokes_no_attack_of_opportunity():
    """Combat maneuvers "count as attacks for the purposes of triggering attacks of
    opportunity (namely, they don't)": Charlie's sword threatens Alice as she trips Bob."""
    table = encounter()
    hex_map(table)
    add(table, "alice", (2, 5), side="pcs", skills={"athletics": 60})
    add(table, "bob", (3, 5))
    add(table, "charlie", (2, 4))
    start(table, 1, 50, 60)
    assert Cell(x=2, y=5) in threatens(state_of(table), "charlie")

    envelopes = maneuver(table, "alice", "bob", "trip", dice=[45])

    assert "opportunity-raised" not in types(envelopes)
    assert first(envelopes, "attack-rolled")["maneuver"] == "trip"


# --- wielding -----------------------------------------------------------------------------------


def test_wielding_is_free_and_changes_the_weapon_in_hand():
    table = encounter()
    hex_map(table)
    add(table, "alice", (2, 5), side="pcs", weapons=[SPEAR, SWORD])
    add(table, "bob", (4, 5))
    start(table, 1, 50)
    assert state_of(table).wielding["alice"] == "pike"

    envelopes = table.send({"type": "wield", "combatant_id": "alice", "weapon": "sword"})

    assert types(envelopes) == ["wielded"]
    assert state_of(table).wielding["alice"] == "sword"
    assert state_of(table).turn.actions == 0


@pytest.mark.parametrize(("weapon", "provoked"), [("pike", True), ("sword", False)])
def test_wielding_a_shorter_weapon_shrinks_the_threatened_cells(weapon: str, provoked: bool):
    """The pike threatens Bob two cells away, so his stepping back provokes; once Alice
    wields her sword instead (free, on her turn), it does not."""
    table = encounter()
    hex_map(table)
    add(table, "alice", (2, 5), side="pcs", weapons=[SPEAR, SWORD])
    add(table, "bob", (4, 5))
    start(table, 1, 50)
    if weapon == "sword":
        table.send({"type": "wield", "combatant_id": "alice", "weapon": "sword"})
    end_turn(table, "alice")

    envelopes = table.send({"type": "move", "combatant_id": "bob", "to": [6, 5]})

    assert ("opportunity-raised" in types(envelopes)) is provoked


def test_wielding_out_of_turn_is_refused():
    table = duel()

    error = refused(table, {"type": "wield", "combatant_id": "bob", "weapon": None})

    assert error.code == "turn/not-your-turn"


def test_attacking_with_another_weapon_takes_it_in_hand_first():
    table = encounter()
    hex_map(table)
    add(table, "alice", (2, 5), side="pcs", weapons=[BOW, SWORD], skills=MELEE)
    add(table, "bob", (3, 5))
    start(table, 1, 50)

    envelopes = attack(table, "alice", "bob", dice=[40], weapon="sword")

    assert types(envelopes)[:3] == ["action-begun", "wielded", "attack-rolled"]
    assert state_of(table).wielding["alice"] == "sword"


# --- surrender and the GM's checks --------------------------------------------------------------


def test_a_surrender_ends_the_combatants_melees_and_takes_it_out_of_the_fight():
    table = duel()
    attack(table, "alice", "bob", dice=[99])
    end_turn(table, "alice")

    envelopes = table.send({"type": "surrender", "combatant_id": "bob"})

    assert types(envelopes)[:2] == ["surrendered", "melee-ended"]
    assert first(envelopes, "melee-ended")["reason"] == "surrendered"
    assert first(envelopes, "turn-ended")["reason"] == "out-of-fight"
    assert state_of(table).melee == ()
    assert state_of(table).current == "alice"
    error = refused(table, {"type": "attack", "combatant_id": "alice", "target": "bob"}, dice=[1])
    assert error.code == "attack/target-down"


def test_a_player_cannot_surrender_someone_else():
    table = duel()

    error = refused(table, {"type": "surrender", "combatant_id": "bob"}, actor=PLAYER)

    assert error.code == "auth/not-your-combatant"


def test_the_gm_calls_for_a_check_with_boons_and_banes():
    table = duel()

    envelopes = table.send(
        {
            "type": "call-check",
            "combatant_id": "bob",
            "skill": "agility",
            "difficulty": "hard",
            "boons": 2,
            "banes": 1,
            "reason": "the bridge sways",
        },
        dice=[85, 2],
    )

    called = first(envelopes, "check-called")
    check = called["check"]
    assert called["reason"] == "the bridge sways"
    assert (check["skill"], check["target"], check["dice"], check["roll"]) == (
        "agility",
        25,
        [85, 2],
        25,
    )
    assert check["success"]
    assert state_of(table).turn.actions == 0


def test_only_the_gm_calls_for_checks():
    table = duel()

    error = refused(
        table, {"type": "call-check", "combatant_id": "alice", "skill": "agility"}, actor=PLAYER
    )

    assert error.code == "auth/gm-only"
