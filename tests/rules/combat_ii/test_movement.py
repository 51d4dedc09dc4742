"""combat-ii §1 F and §2 D Movement: a third of the current MV per phase (Table 3), speed
changes, momentum and stopping short, closing, withdrawing and fleeing, set weapons and
covered areas, races for a square, and the half-segment incremental option."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.envelope import Envelope
from tests.rules.combat_ii.cast import attack, duel, effects, fighter_of, of_type, only, stand
from tests.rules.combat_ii.given import refused, state_of
from tests.rules.harness import Table

SHORTBOW = {"name": "shortbow", "kind": "missile", "speed": 7, "damage": "1d6", "bow": True}
RUN = [10]
"""The STR check to speed up to 3x MV or faster (§2 D, PH p. 120): 10 passes STR 10."""


def move(
    table: Table, cid: str, to: tuple[int, int], dice: list[int] | None = None, **more: Any
) -> list[Envelope]:
    return table.send({"type": "move", "combatant_id": cid, "to": list(to), **more}, dice=dice)


def moving(cid: str, to: tuple[int, int], **more: Any) -> dict[str, Any]:
    return {"type": "move", "combatant_id": cid, "to": list(to), **more}


def cells(moved: dict[str, Any]) -> list[tuple[int, int]]:
    return [(c["x"], c["y"]) for c in moved["path"]]


def at(table: Table, cid: str) -> tuple[int, int]:
    position = state_of(table).table.combatants[cid].position
    assert position is not None
    return (position.x, position.y)


def runway(fighter: dict[str, Any] | None = None) -> Table:
    """The fighter at (0, 0) on an 80-square lane, the ogre far off at (79, 4)."""
    return duel(fighter=fighter, ogre_at=(79, 4), width=80)


# --- Table 3: a third of the current MV a phase ------------------------------------------------


@pytest.mark.parametrize(
    ("mv", "speed", "squares"),
    [
        pytest.param(3, None, 1, id="MV 3: 1"),
        pytest.param(6, None, 2, id="MV 6: 2"),
        pytest.param(9, None, 3, id="MV 9: 3"),
        pytest.param(12, None, 4, id="MV 12: 4"),
        pytest.param(12, 2, 8, id="MV 12 at 2x (24): 8"),
        pytest.param(12, 3, 12, id="MV 12 at 3x (36): 12"),
        pytest.param(15, 3, 15, id="MV 15 at 3x (45): 15"),
    ],
)
def test_a_phase_moves_a_third_of_the_current_mv(mv: int, speed: int | None, squares: int) -> None:
    """§1 F: "each combatant may move up to 1/3 his current MV (a walking knight with a 12 MV
    can move 4 per phase)"; §2 D Table 3: MV 3 is 1 square a phase, MV 36 is 12."""
    table = runway({"mv": mv})
    stand(table, "ogre")

    running = RUN if speed is not None and speed >= 3 else None
    moved = only(move(table, "fighter", (79, 0), dice=running, speed=speed), "moved")

    assert len(cells(moved)) - 1 == squares
    assert at(table, "fighter") == (squares, 0)
    assert fighter_of(table, "fighter").factor == (speed or 1)
    assert table.replayed() == table.state


def test_a_combatant_on_the_map_can_go_no_further_than_its_squares() -> None:
    table = runway()
    stand(table, "ogre")

    moved = only(move(table, "fighter", (2, 0)), "moved")

    assert cells(moved) == [(0, 0), (1, 0), (2, 0)]
    assert table.replayed() == table.state


# --- §2 D Change of Current MV -----------------------------------------------------------------


def test_from_a_standstill_a_combatant_reaches_at_most_3x_mv_in_a_phase() -> None:
    """§2 D Acceleration: "Movement from standstill to walking speed (base MV) is automatic.
    Additionally, a combatant may further accelerate up to 2x base MV per phase"."""
    table = runway()
    stand(table, "ogre")

    assert refused(table, moving("fighter", (79, 0), speed=4)).code == "move/too-fast"
    move(table, "fighter", (79, 0), dice=RUN, speed=3)

    assert fighter_of(table, "fighter").factor == 3
    assert table.replayed() == table.state


@pytest.mark.parametrize(
    ("first", "fastest"),
    [
        pytest.param(1, 3, id="walking: up to 3x"),
        pytest.param(2, 4, id="2x: up to 4x"),
        pytest.param(3, 5, id="3x: up to 5x, 'in two phases'"),
    ],
)
def test_a_moving_combatant_gains_at_most_2x_mv_a_phase(first: int, fastest: int) -> None:
    """§2 D Acceleration: "up to 2x base MV per phase (reaching maximum movement of 5x MV in
    two phases)"."""
    table = runway()
    stand(table, "ogre")
    move(table, "fighter", (79, 0), dice=RUN if first >= 3 else None, speed=first)
    stand(table, "ogre")

    if fastest < 5:
        assert refused(table, moving("fighter", (79, 0), speed=fastest + 1)).code == (
            "move/too-fast"
        )
    moved = only(move(table, "fighter", (79, 0), dice=RUN, speed=fastest), "moved")

    assert len(cells(moved)) - 1 == 4 * fastest
    assert table.replayed() == table.state


def test_a_combatants_top_speed_caps_its_acceleration() -> None:
    """§2 D: "Apply the new rate immediately, after using PH rules for chances for success
    based on Strength (p. 120)": the stat block's top multiple of MV."""
    table = runway({"max_speed": 2})
    stand(table, "ogre")

    assert refused(table, moving("fighter", (79, 0), speed=3)).code == "move/too-fast"
    move(table, "fighter", (79, 0), speed=2)
    stand(table, "ogre")
    assert refused(table, moving("fighter", (79, 0), speed=3)).code == "move/too-fast"
    assert table.replayed() == table.state


def sprint(table: Table) -> None:
    """3x MV in phase 1, 4x in phase 2: the fighter stands at (28, 0) moving 4x (MV 48)."""
    stand(table, "ogre")
    move(table, "fighter", (79, 0), dice=RUN, speed=3)
    stand(table, "ogre")
    move(table, "fighter", (79, 0), dice=RUN, speed=4)
    assert (at(table, "fighter"), fighter_of(table, "fighter").factor) == ((28, 0), 4)
    stand(table, "ogre")


ROUND_END = [5, 7, 3]
"""Phase 3's command ends the round: the runner's CON check for its top speed (passed),
then round 2's initiative."""


def test_slowing_drops_at_most_two_factors_at_once() -> None:
    """§2 D Deceleration: "A character moving at any speed may decelerate by 2 factors
    immediately, and may come to a full stop by the end of a phase"."""
    table = runway()
    sprint(table)

    slowed = move(table, "fighter", (79, 0), dice=ROUND_END, speed=0)

    assert of_type(slowed, "speed-changed")[0]["factor"] == 2
    assert fighter_of(table, "fighter").factor == 0  # stopped by the end of the phase
    assert table.replayed() == table.state


def test_still_accelerated_a_runner_must_cover_half_its_squares() -> None:
    """§2 D Deceleration: "If, after the 2 factors have been subtracted from current MV, the
    combatant is still moving at an accelerated rate, he must move at least half his current
    MV per phase due to momentum": 4x less 2 is MV 24, 8 squares, at least 4 of them."""
    table = runway()
    sprint(table)

    violation = refused(table, moving("fighter", (31, 0), speed=1))
    assert violation.code == "move/momentum"
    slowed = move(table, "fighter", (32, 0), dice=ROUND_END, speed=1)

    assert cells(only(slowed, "moved"))[-1] == (32, 0)
    assert fighter_of(table, "fighter").factor == 1
    assert table.replayed() == table.state


def test_a_slowing_runner_moves_at_the_speed_two_factors_down() -> None:
    """§2 D: "She subtracts two factors of movement immediately": 4x less 2 is 2x MV, 8
    squares this phase (the drop is applied once)."""
    table = runway()
    sprint(table)

    slowed = move(table, "fighter", (79, 0), dice=ROUND_END, speed=1)

    assert len(cells(only(slowed, "moved"))) - 1 == 8
    assert table.replayed() == table.state


def test_a_failed_attempt_to_stop_short_leaves_the_runner_fallen() -> None:
    """§2 D: "he must roll vs. dexterity with a -1 penalty for every 10' of slowdown
    distance he wishes to reduce, or fall prone for 1d4 phases (no attacks, no dexterity
    bonus, opponents receive +4 bonus to hit the fallen figure)"."""
    table = runway({"dexterity": 15})
    sprint(table)

    # DEX 15 at -3 needs 12 or less: 13 fails; 1d4 = 2 phases; the round ends
    fell = move(table, "fighter", (29, 0), dice=[13, 2, *ROUND_END], speed=1, stop_short=3)

    check = of_type(fell, "check-rolled")[0]["check"]
    assert (check["purpose"], check["modifier"], check["passed"]) == ("stop short", -3, False)
    assert of_type(fell, "moved") == []
    assert effects(table, "fighter") == {"fallen": 3 + 2}
    assert fighter_of(table, "fighter").factor == 0
    assert state_of(table).intentions["fighter"].kind == "helpless"  # round 2, phase 1
    assert table.replayed() == table.state


def test_a_passed_attempt_to_stop_short_needs_no_minimum() -> None:
    table = runway({"dexterity": 15})
    sprint(table)

    stopped = move(table, "fighter", (29, 0), dice=[12, *ROUND_END], speed=1, stop_short=3)

    assert of_type(stopped, "check-rolled")[0]["check"]["passed"] is True
    assert at(table, "fighter") == (29, 0)
    assert table.replayed() == table.state


# --- §2 D Closing, Withdrawing, Fleeing --------------------------------------------------------


def test_an_engaged_combatant_may_not_move_away_normally() -> None:
    """§2 D Closing Movement: "If a combatant comes within melee striking distance of the
    opponent ... the opponent may choose to withdraw or flee but may not continue to move
    away normally"."""
    table = duel()
    stand(table, "ogre")

    violation = refused(table, moving("fighter", (0, 3)))

    assert violation.code == "move/engaged"
    assert violation.rule == "combat-ii §2 D Movement"
    assert table.replayed() == table.state


@pytest.mark.parametrize(
    ("mv", "squares"),
    [
        pytest.param(12, 1, id="MV 12: 'just over 1 per phase'"),
        pytest.param(3, 1, id="MV 3: at least 1"),
        pytest.param(27, 3, id="MV 27: 3"),
        pytest.param(36, 4, id="MV 36: 4"),
    ],
)
def test_withdrawing_moves_a_third_of_a_phases_squares(mv: int, squares: int) -> None:
    """§2 D Withdrawing: "a retreating character must further cut movement to 1/3 MV base in
    order to withdraw from combat (making a 12 MV into just over 1 per phase)"."""
    table = duel(fighter={"mv": mv})
    stand(table, "ogre")

    withdrew = move(table, "fighter", (0, 4), mode="withdraw")

    moved = only(withdrew, "moved")
    assert (moved["mode"], len(cells(moved)) - 1) == ("withdraw", squares)
    assert of_type(withdrew, "attack-rolled") == []  # no free attack
    assert table.replayed() == table.state


def test_a_fleeing_combatant_moves_in_full_but_each_foe_gets_a_free_attack() -> None:
    """§2 D Fleeing: "A FLEEING combatant may make a normal move, but is still a ripe target
    for a free attack"."""
    table = duel()
    stand(table, "ogre")

    fled = move(table, "fighter", (0, 4), dice=[12, 3], mode="flee")

    free = only(fled, "attack-rolled")
    assert (free["attacker"], free["kind"], free["hit"]) == ("ogre", "free", True)
    assert table.types(fled).index("attack-rolled") < table.types(fled).index("moved")
    assert len(cells(only(fled, "moved"))) - 1 == 4
    assert fighter_of(table, "ogre").used == {}  # a free attack is no attack of the round
    assert table.replayed() == table.state


def test_the_winner_outruns_a_foe_that_already_struck_this_phase() -> None:
    """§2 D Fleeing: "EXCEPTION: the initiative winner may outrun the free attack if the
    opponent has struck earlier in the SAME PHASE and has a MV no greater than the one
    fleeing"."""
    table = duel()
    attack(table, "ogre", "fighter")

    fled = move(table, "fighter", (0, 4), dice=[12, 3], mode="flee")

    assert [r["kind"] for r in of_type(fled, "attack-rolled")] == ["attack"]
    assert at(table, "fighter") == (0, 4)
    assert table.replayed() == table.state


def test_a_faster_foe_gets_its_free_attack_though_it_struck_this_phase() -> None:
    """§2 D: the exception holds only if the opponent "has a MV no greater than the one
    fleeing"."""
    table = duel(ogre={"mv": 15})
    attack(table, "ogre", "fighter")

    fled = move(table, "fighter", (0, 4), dice=[2, 2], mode="flee")  # both swings miss

    assert [r["kind"] for r in of_type(fled, "attack-rolled")] == ["attack", "free"]
    assert table.replayed() == table.state


def test_a_fleeing_loser_gets_no_exception() -> None:
    table = duel()
    move(table, "ogre", (4, 4), mode="flee")

    # the fighter strikes at half-segment 3 (5, then 3 damage), then its free attack (2: miss)
    fled = attack(table, "fighter", "ogre", dice=[5, 3, 2])

    assert [r["kind"] for r in of_type(fled, "attack-rolled")] == ["attack", "free"]
    assert at(table, "ogre") == (4, 4)
    assert table.replayed() == table.state


# --- §2 D Setting Weapons / Readying Defence ---------------------------------------------------


def test_a_set_weapon_strikes_an_accelerated_foe_as_it_arrives() -> None:
    """§2 D: "During the movement phase, the opponent is subject to attack as soon as he
    moves into a defended area if he is accelerated"."""
    table = duel(ogre_at=(10, 0))
    table.send({"type": "set-weapon", "combatant_id": "ogre"})

    ran = move(table, "fighter", (9, 0), dice=[*RUN, 12, 3], speed=3)

    struck = only(ran, "attack-rolled")
    assert (struck["attacker"], struck["kind"], struck["hit"]) == ("ogre", "set", True)
    assert cells(of_type(ran, "moved")[0])[-1] == (9, 0)  # struck on entering its reach
    assert fighter_of(table, "ogre").ready is None  # the ready state ends with the attack
    assert table.replayed() == table.state


def test_a_set_weapon_lets_walking_closing_movement_pass() -> None:
    """§2 D: "Normal unconcealed closing movement between combatants receives no special
    readying bonus--the exchange of blows takes place as normal in the next phase"."""
    table = duel(ogre_at=(5, 0))
    table.send({"type": "set-weapon", "combatant_id": "ogre"})

    walked = move(table, "fighter", (4, 0))

    assert of_type(walked, "attack-rolled") == []
    assert at(table, "fighter") == (4, 0)
    assert fighter_of(table, "ogre").ready == "club"  # "maintained from phase to phase"
    assert table.replayed() == table.state


@pytest.mark.parametrize(
    ("surprise", "stops_at"),
    [
        pytest.param(4, (4, 0), id="surprise check passed: moves on"),
        pytest.param(3, (2, 0), id="surprise check failed: stops"),
    ],
)
def test_a_covered_area_shoots_the_first_foe_to_enter(
    surprise: int, stops_at: tuple[int, int]
) -> None:
    """§2 D: "covering a small area such as a path, an open doorway, etc., with a missile
    weapon ... the opponent may only complete movement if he passes a surprise check. Even
    so, the combatant covering the area shoots or throws first"."""
    table = duel(ogre={"weapons": [SHORTBOW]}, ogre_at=(10, 4))
    table.send({"type": "cover-area", "combatant_id": "ogre", "cells": [[2, 0], [3, 0]]})

    walked = move(table, "fighter", (4, 0), dice=[12, 3, surprise])

    shot = only(walked, "attack-rolled")
    assert (shot["kind"], shot["weapon"]) == ("cover", "shortbow")
    check = only(walked, "check-rolled")["check"]
    assert (check["ability"], check["passed"]) == ("surprise", surprise > 3)
    assert at(table, "fighter") == stops_at
    assert table.replayed() == table.state


# --- §1 F: the race ----------------------------------------------------------------------------


def test_the_initiative_winner_wins_a_race_for_the_same_square() -> None:
    """§1 F: "if two or more combatants are attempting to race towards the same goal at the
    same speed, a slight advantage should go to the initiative winner"."""
    table = duel(ogre_at=(4, 0))
    move(table, "ogre", (2, 0))

    raced = move(table, "fighter", (2, 0))

    assert of_type(raced, "moved")[0]["combatant_id"] == "fighter"
    assert at(table, "fighter") == (2, 0)
    assert at(table, "ogre") != (2, 0)
    assert table.replayed() == table.state


# --- §2 D Movement Option: Half-Segment Incremental Movement -----------------------------------


def test_incremental_movement_moves_a_share_in_each_half_segment() -> None:
    """§2 D: "Movement occurs in 10' units divided evenly over each of the half-segments of
    a phase": MV 12's 4 squares go at half-segments 2, 3, 5 and 6."""
    table = duel(ogre_at=(29, 4), incremental_movement=True)
    stand(table, "ogre")

    walked = move(table, "fighter", (20, 0))

    moved = of_type(walked, "moved")
    assert [(m["half_segment"], len(cells(m)) - 1) for m in moved] == [
        (2, 1),
        (3, 1),
        (5, 1),
        (6, 1),
    ]
    assert at(table, "fighter") == (4, 0)
    assert table.replayed() == table.state


def test_incremental_movement_numbers_half_segments_as_the_round_does() -> None:
    """§1 Table 1 numbers a round's half-segments 1-18: phase 2's steps fall in 7-12."""
    table = duel(ogre_at=(29, 4), incremental_movement=True)
    stand(table, "ogre")
    stand(table, "fighter")
    stand(table, "ogre")

    walked = move(table, "fighter", (20, 0))  # phase 2: half-segments 7-12

    assert [m["half_segment"] for m in of_type(walked, "moved")] == [8, 9, 11, 12]
    assert table.replayed() == table.state


def test_a_free_attack_in_phase_2_falls_in_its_last_half_segment() -> None:
    """§1 Table 1: movement comes after phase 2's half-segments 7-12."""
    table = duel()
    stand(table, "ogre")
    stand(table, "fighter")
    stand(table, "ogre")

    fled = move(table, "fighter", (0, 4), dice=[2], mode="flee")

    assert only(fled, "attack-rolled")["half_segment"] == 12
    assert only(fled, "moved")["half_segment"] == 12
    assert table.replayed() == table.state


def test_incremental_movement_takes_a_fleeing_target_out_of_reach() -> None:
    """§2 D: the option "offers precise location of figures as the fight would naturally
    progress": a club swung at half-segment 4 cannot reach a target two squares away."""
    table = duel(incremental_movement=True)
    attack(table, "ogre", "fighter")

    # the winner flees: the ogre's free attack (12: hit, 3), then the fighter is at (0, 2) by
    # half-segment 4, two squares from the ogre's club
    fled = move(table, "fighter", (0, 4), dice=[12, 3], mode="flee")

    assert [r["kind"] for r in of_type(fled, "attack-rolled")] == ["free"]
    assert table.replayed() == table.state
