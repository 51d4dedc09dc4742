"""Moving on the tactical grid (hex-tactical Movement on the Tactical Grid, Moving Past an
Enemy, Attacks of Opportunity, the Square Tactical Grids variant): cells per move, the two
actions of a turn, blocking, explicit paths, threatened cells, reserved moves, overwatch and
passing an enemy."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.context import GM, Actor
from service.domain.envelope import Envelope
from service.rules.hex_tactical import RULESET
from tests.rules.harness import Table
from tests.rules.hex_tactical.given import (
    BOW,
    DAGGER,
    PLAYER,
    SPEAR,
    add,
    answer,
    encounter,
    first,
    hex_map,
    position,
    refused,
    square_map,
    start,
    state_of,
    types,
)

SHORTBOW = {"name": "shortbow", "kind": "ranged", "damage": "1d6", "range": "10/20"}


def send(
    table: Table, command: dict[str, Any], dice: list[int] | None = None, actor: Actor = GM
) -> list[Envelope]:
    return table.send(command, actor=actor, dice=dice)


def move(cid: str, to: tuple[int, int], path: list[list[int]] | None = None) -> dict[str, Any]:
    command: dict[str, Any] = {"type": "move", "combatant_id": cid, "to": list(to)}
    if path is not None:
        command["path"] = path
    return command


def attack(cid: str, target: str) -> dict[str, Any]:
    return {"type": "attack", "combatant_id": cid, "target": target}


def end_turn(cid: str) -> dict[str, Any]:
    return {"type": "end-turn", "combatant_id": cid}


def xy(cell: dict[str, int]) -> tuple[int, int]:
    return (cell["x"], cell["y"])


def paths(envelopes: list[Envelope]) -> list[list[tuple[int, int]]]:
    return [[xy(c) for c in e.data["path"]] for e in envelopes if e.type == "moved"]


def overlay(table: Table, actor: Actor = PLAYER) -> dict[str, Any]:
    for action in RULESET.legal_actions(state_of(table), actor):
        if action.type == "move":
            return action.params
    raise AssertionError("no move among the legal actions")


def reachable(table: Table, actor: Actor = PLAYER) -> dict[tuple[int, int], int]:
    return {xy(c["cell"]): c["cost"] for c in overlay(table, actor)["reachable"]}


def runner_and_orc(
    runner_at: tuple[int, int] = (0, 0),
    orc_at: tuple[int, int] = (11, 11),
    runner: dict[str, Any] | None = None,
    orc: dict[str, Any] | None = None,
    **options: Any,
) -> Table:
    """The runner (a PC) and an orc on an open 12 x 12 hex map; the runner's turn."""
    table = encounter(**options)
    hex_map(table)
    add(table, "runner", runner_at, side="pcs", **(runner or {}))
    add(table, "orc", orc_at, **(orc or {}))
    start(table, 1, 2)
    return table


def on_track(*others: tuple[str, int, str], width: int = 12) -> Table:
    """The runner at (0, 0) on a one-hex-wide track, with (id, x, side) others on it."""
    table = encounter()
    hex_map(table, width=width, height=1)
    add(table, "runner", (0, 0), side="pcs")
    for cid, x, side in others:
        add(table, cid, (x, 0), side=side)
    start(table, *range(1, len(others) + 2))
    return table


# --- cells per move and the two actions of a turn -------------------------------------------------


@pytest.mark.parametrize(
    ("speed", "cell_feet", "cells"),
    [(30, 5, 6), (20, 5, 4), (25, 5, 5), (34, 5, 6), (30, 10, 3)],
)
def test_a_move_covers_speed_over_the_cell_size_cells(
    speed: int, cell_feet: int, cells: int
) -> None:
    table = runner_and_orc(runner={"speed": speed}, cell_feet=cell_feet)
    assert overlay(table)["budget"] == cells
    assert refused(table, move("runner", (cells + 1, 0)), actor=PLAYER).code == "move/too-far"

    sent = send(table, move("runner", (cells, 0)), actor=PLAYER)

    assert first(sent, "moved")["cost"] == cells
    assert position(table, "runner") == (cells, 0)


def test_two_moves_make_a_turn_and_it_ends_by_itself() -> None:
    table = runner_and_orc()
    send(table, move("runner", (6, 0)), actor=PLAYER)

    sent = send(table, move("runner", (6, 6)), actor=PLAYER)

    assert types(sent) == ["action-begun", "moved", "turn-ended", "turn-started"]
    assert first(sent, "turn-ended")["reason"] == "actions-spent"
    assert state_of(table).current == "orc"
    assert position(table, "runner") == (6, 6)


def test_a_move_may_come_before_the_other_action() -> None:
    table = runner_and_orc(orc_at=(7, 0))
    send(table, move("runner", (6, 0)), actor=PLAYER)

    sent = send(table, attack("runner", "orc"), dice=[90], actor=PLAYER)

    assert types(sent)[:2] == ["action-begun", "attack-rolled"]
    assert first(sent, "turn-ended")["reason"] == "actions-spent"


def test_a_move_may_come_after_the_other_action() -> None:
    table = runner_and_orc(orc_at=(3, 0), runner={"weapons": [BOW]})
    send(table, attack("runner", "orc"), dice=[90], actor=PLAYER)

    sent = send(table, move("runner", (0, 3)), actor=PLAYER)

    assert paths(sent)[0][0] == (0, 0)
    assert first(sent, "turn-ended")["reason"] == "actions-spent"


def test_a_turn_has_no_second_other_action() -> None:
    table = runner_and_orc(orc_at=(1, 0))
    send(table, attack("runner", "orc"), dice=[90], actor=PLAYER)

    error = refused(table, attack("runner", "orc"), dice=[90], actor=PLAYER)

    assert error.code == "turn/other-action-used"


def test_a_turn_has_no_third_action() -> None:
    table = runner_and_orc()
    send(table, move("runner", (3, 0)), actor=PLAYER)
    send(table, move("runner", (6, 0)), actor=PLAYER)

    error = refused(table, move("runner", (7, 0)), actor=PLAYER)

    assert error.code == "turn/not-your-turn"


def test_a_refused_move_appends_nothing_and_spends_no_action() -> None:
    table = runner_and_orc()

    refused(table, move("runner", (11, 0)), actor=PLAYER)

    assert state_of(table).turn.actions == 0
    send(table, move("runner", (6, 0)), actor=PLAYER)
    send(table, move("runner", (11, 0)), actor=PLAYER)
    assert position(table, "runner") == (11, 0)


# --- enemies, allies, walls -----------------------------------------------------------------------


def test_entering_a_cell_next_to_an_enemy_is_free() -> None:
    table = runner_and_orc(orc_at=(5, 0))

    sent = send(table, move("runner", (4, 0)), actor=PLAYER)

    assert types(sent) == ["action-begun", "moved"]


def test_leaving_that_cell_for_one_the_enemy_does_not_threaten_provokes() -> None:
    table = runner_and_orc(orc_at=(5, 0))
    send(table, move("runner", (4, 0)), actor=PLAYER)

    sent = send(table, move("runner", (2, 0)), actor=PLAYER)

    raised = first(sent, "opportunity-raised")
    assert (raised["threateners"], xy(raised["cell"])) == (["orc"], (4, 0))


def test_stepping_between_two_cells_the_enemy_threatens_provokes_nothing() -> None:
    table = runner_and_orc(runner_at=(4, 0), orc_at=(5, 0))

    sent = send(table, move("runner", (4, 1)), actor=PLAYER)

    assert types(sent) == ["action-begun", "moved"]


def test_an_enemys_cell_blocks_so_the_move_goes_around() -> None:
    table = runner_and_orc(runner_at=(0, 1), orc_at=(1, 1), orc={"weapons": []})

    sent = send(table, move("runner", (2, 1)), actor=PLAYER)

    (walked,) = paths(sent)
    assert (1, 1) not in walked
    assert first(sent, "moved")["cost"] == 3


def test_an_enemy_in_a_corridor_leaves_no_way_past() -> None:
    table = on_track(("orc", 1, "foes"))

    assert refused(table, move("runner", (2, 0)), actor=PLAYER).code == "move/too-far"


def test_an_ally_may_be_passed() -> None:
    table = on_track(("ally", 1, "pcs"), ("orc", 11, "foes"))

    sent = send(table, move("runner", (2, 0)), actor=PLAYER)

    assert paths(sent) == [[(0, 0), (1, 0), (2, 0)]]


def test_a_move_may_not_end_on_an_ally() -> None:
    table = on_track(("ally", 1, "pcs"), ("orc", 11, "foes"))

    assert refused(table, move("runner", (1, 0)), actor=PLAYER).code == "move/occupied"


def test_a_move_may_not_end_on_an_enemy() -> None:
    table = on_track(("orc", 1, "foes"))

    assert refused(table, move("runner", (1, 0)), actor=PLAYER).code == "move/occupied"


def walled() -> Table:
    """The runner at (0, 1) and a wall (impassable) at (1, 1); the runner's turn."""
    table = encounter()
    hex_map(table, terrain=[{"cell": [1, 1], "terrain": {"kind": "impassable"}}])
    add(table, "runner", (0, 1), side="pcs")
    add(table, "orc", (11, 11))
    start(table, 1, 2)
    return table


def test_impassable_terrain_cannot_be_entered() -> None:
    table = walled()

    assert refused(table, move("runner", (1, 1)), actor=PLAYER).code == "move/impassable"


def test_impassable_terrain_is_walked_around() -> None:
    table = walled()

    sent = send(table, move("runner", (2, 1)), actor=PLAYER)

    assert (1, 1) not in paths(sent)[0]
    assert first(sent, "moved")["cost"] == 3
    assert (1, 1) not in reachable(walled())


# --- explicit paths -------------------------------------------------------------------------------


def test_a_given_path_is_walked_as_given() -> None:
    table = runner_and_orc()
    way = [[0, 1], [1, 1], [2, 0]]

    sent = send(table, move("runner", (2, 0), path=way), actor=PLAYER)

    assert paths(sent) == [[(0, 0), (0, 1), (1, 1), (2, 0)]]
    assert first(sent, "moved")["cost"] == 3


@pytest.mark.parametrize(
    ("to", "way", "code"),
    [
        pytest.param((2, 0), [[2, 0]], "move/bad-path", id="skips-a-cell"),
        pytest.param((2, 0), [[1, 0], [3, 0]], "move/bad-path", id="ends-elsewhere"),
        pytest.param((2, 0), [[1, 1], [2, 0]], "move/bad-path", id="not-an-edge"),
        pytest.param((2, 0), [[1, 0], [2, 0], [2, 0]], "move/bad-path", id="stands-still"),
        pytest.param((7, 0), [[x, 0] for x in range(1, 8)], "move/too-far", id="too-dear"),
    ],
)
def test_a_given_path_is_checked(to: tuple[int, int], way: list[list[int]], code: str) -> None:
    table = runner_and_orc()

    assert refused(table, move("runner", to, path=way), actor=PLAYER).code == code


def test_a_given_path_may_not_pass_through_an_enemy() -> None:
    table = runner_and_orc(orc_at=(2, 0), orc={"weapons": []})

    error = refused(table, move("runner", (3, 0), path=[[1, 0], [2, 0], [3, 0]]), actor=PLAYER)

    assert error.code == "move/blocked"


def test_a_given_path_may_not_cross_a_wall() -> None:
    table = walled()

    error = refused(table, move("runner", (2, 1), path=[[1, 1], [2, 1]]), actor=PLAYER)

    assert error.code == "move/bad-path"


# --- threatened cells: reach, melee, ranged, unarmed ----------------------------------------------


def pike_guard(runner_at: tuple[int, int]) -> Table:
    """A guard with a pike (reach 2) at (5, 5); the runner at `runner_at`; the runner's turn."""
    return runner_and_orc(runner_at=runner_at, orc_at=(5, 5), orc={"weapons": [SPEAR]})


def test_a_reach_weapon_threatens_every_cell_in_its_reach() -> None:
    table = pike_guard((0, 0))

    threatened = {xy(c) for c in overlay(table)["threatened"]["foes"]}

    assert len(threatened) == 18  # the 6 hexes at 1 and the 12 at 2
    assert {(7, 5), (5, 3), (3, 7), (6, 5)} <= threatened
    assert (8, 5) not in threatened and (5, 5) not in threatened


def test_leaving_a_pikes_reach_provokes() -> None:
    table = pike_guard((7, 5))

    sent = send(table, move("runner", (8, 5)), actor=PLAYER)

    assert first(sent, "opportunity-raised")["threateners"] == ["orc"]


def test_the_pike_strikes_at_two_cells_as_the_runner_leaves() -> None:
    table = pike_guard((7, 5))
    send(table, move("runner", (8, 5)), actor=PLAYER)

    struck = answer(table, "orc", "attack", dice=[20, 15])

    rolled = first(struck, "attack-rolled")
    assert (rolled["weapon"], rolled["distance_feet"], rolled["opportunity"]) == ("pike", 10, True)


def test_moving_within_a_pikes_reach_provokes_nothing() -> None:
    table = pike_guard((7, 5))

    sent = send(table, move("runner", (6, 5), path=[[7, 4], [6, 4], [6, 5]]), actor=PLAYER)

    assert types(sent) == ["action-begun", "moved"]


def test_a_sword_threatens_only_the_six_neighbours() -> None:
    table = runner_and_orc(orc_at=(5, 5))

    threatened = {xy(c) for c in overlay(table)["threatened"]["foes"]}

    assert threatened == {(6, 5), (6, 4), (5, 4), (4, 5), (4, 6), (5, 6)}


def alice_fights_bob_and_carl_passes() -> Table:
    """Alice (a PC) and Bob in melee at (3, 3) and (4, 3); Carl, Bob's ally, at (2, 4), next to
    Alice; Carl's turn."""
    table = encounter()
    hex_map(table)
    add(table, "alice", (3, 3), side="pcs", skills={"melee": 60})
    add(table, "bob", (4, 3))
    add(table, "carl", (2, 4))
    start(table, 1, 2, 3)
    send(table, attack("alice", "bob"), dice=[95], actor=PLAYER)
    send(table, end_turn("alice"), actor=PLAYER)
    send(table, end_turn("bob"))
    return table


def test_a_combatant_in_melee_threatens_only_its_melee_partners() -> None:
    table = alice_fights_bob_and_carl_passes()

    threatened = overlay(table, GM)["threatened"]

    assert threatened["pcs"] == [{"x": 4, "y": 3}]


def test_leaving_a_cell_next_to_a_combatant_in_melee_with_another_provokes_nothing() -> None:
    table = alice_fights_bob_and_carl_passes()

    sent = send(table, move("carl", (0, 4)))

    assert types(sent) == ["action-begun", "moved"]


def test_a_melee_partner_stepping_to_another_cell_beside_alice_stays_in_melee_unprovoked() -> None:
    table = alice_fights_bob_and_carl_passes()
    send(table, end_turn("carl"))
    send(table, end_turn("alice"), actor=PLAYER)  # round 2

    sent = send(table, move("bob", (4, 2)))

    assert types(sent) == ["action-begun", "moved"]
    assert state_of(table).melee == (("alice", "bob"),)


def test_each_threatener_left_behind_may_strike_each_rolling_its_own_initiative() -> None:
    table = encounter()
    hex_map(table)
    add(table, "runner", (3, 3), side="pcs")
    add(table, "ann", (4, 3), skills={"melee": 60})
    add(table, "ben", (3, 4), skills={"melee": 60})
    start(table, 1, 2, 3)
    sent = send(table, move("runner", (1, 3)), actor=PLAYER)
    assert first(sent, "opportunity-raised")["threateners"] == ["ann", "ben"]
    answer(table, "ann", "attack")

    struck = answer(table, "ben", "attack", dice=[80, 10, 40])

    checks = [
        (e.data["combatant_id"], e.data["check"]["success"])
        for e in struck
        if e.type == "opportunity-checked"
    ]
    assert checks == [("ann", False), ("ben", True)]
    assert [e.data["attacker"] for e in struck if e.type == "attack-rolled"] == ["ben"]
    # The pass closes the window and ben's blow lands: ben's damage die is the GM's.
    answer(table, "runner", "pass", dice=[4], actor=GM)
    assert position(table, "runner") == (1, 3)


@pytest.mark.parametrize(
    "weapons", [pytest.param([BOW], id="ranged"), pytest.param([], id="unarmed")]
)
def test_ranged_weapons_and_bare_hands_threaten_nothing(weapons: list[dict[str, Any]]) -> None:
    table = runner_and_orc(runner_at=(4, 0), orc_at=(5, 0), orc={"weapons": weapons})
    assert "foes" not in overlay(table)["threatened"]

    sent = send(table, move("runner", (0, 0)), actor=PLAYER)

    assert "opportunity-raised" not in types(sent)


def test_wielding_a_melee_weapon_brings_back_the_threat() -> None:
    table = runner_and_orc(runner_at=(4, 0), orc_at=(5, 0), orc={"weapons": [BOW, DAGGER]})
    send(table, end_turn("runner"), actor=PLAYER)
    send(table, {"type": "wield", "combatant_id": "orc", "weapon": "dagger"})
    send(table, end_turn("orc"))

    sent = send(table, move("runner", (0, 0)), actor=PLAYER)

    assert first(sent, "opportunity-raised")["threateners"] == ["orc"]


# --- reserved moves -------------------------------------------------------------------------------


def reserved_runner(**orc: Any) -> Table:
    """The runner at (2, 2) reserved a move to (0, 2) watching the orc at (8, 2), and ended its
    turn: the orc's turn."""
    table = runner_and_orc(runner_at=(2, 2), orc_at=(8, 2), orc=orc)
    reserve = {"type": "reserve-move", "combatant_id": "runner", "to": [0, 2], "watch": ["orc"]}
    sent = send(table, reserve, actor=PLAYER)
    assert types(sent) == ["action-begun", "move-reserved"]
    assert state_of(table).turn.moves == 1
    send(table, end_turn("runner"), actor=PLAYER)
    return table


def test_a_reserved_move_pauses_the_enemy_that_steps_toward_the_reserver() -> None:
    table = reserved_runner()

    sent = send(table, move("orc", (5, 2)))

    assert types(sent) == [
        "action-begun", "moved", "reservation-triggered", "reaction-window-opened",
    ]  # fmt: skip
    assert paths(sent) == [[(8, 2), (7, 2)]]
    opened = first(sent, "reaction-window-opened")
    assert (opened["trigger"]["kind"], opened["eligible"]) == (
        "reserved-move", {"runner": ["run", "pass"]},
    )  # fmt: skip


def test_a_reserved_move_runs_and_then_the_enemys_move_resumes() -> None:
    table = reserved_runner()
    send(table, move("orc", (5, 2)))

    sent = answer(table, "runner", "run", actor=PLAYER)

    moves = [e.data for e in sent if e.type == "moved"]
    assert [(m["combatant_id"], m["reserved"]) for m in moves] == [
        ("runner", True), ("orc", False),
    ]  # fmt: skip
    assert types(sent).index("action-resumed") > types(sent).index("moved")
    assert (position(table, "runner"), position(table, "orc")) == ((0, 2), (5, 2))
    assert state_of(table).reservations == {}


def test_a_reserved_move_passed_up_lets_the_enemy_go_on() -> None:
    table = reserved_runner()
    send(table, move("orc", (5, 2)))

    sent = answer(table, "runner", "pass", actor=PLAYER)

    assert [m for m in paths(sent)] == [[(7, 2), (6, 2), (5, 2)]]
    assert position(table, "runner") == (2, 2)
    assert state_of(table).reservations == {}


def test_a_reserved_move_waits_while_the_enemy_steps_away() -> None:
    table = reserved_runner()

    sent = send(table, move("orc", (10, 2)))

    assert types(sent) == ["action-begun", "moved"]
    assert "runner" in state_of(table).reservations


def test_a_reserved_move_ignores_an_enemy_it_does_not_watch() -> None:
    table = encounter()
    hex_map(table)
    add(table, "runner", (2, 2), side="pcs")
    add(table, "orc", (8, 2))
    add(table, "goblin", (8, 4))
    start(table, 1, 2, 3)
    reserve = {"type": "reserve-move", "combatant_id": "runner", "to": [0, 2], "watch": ["orc"]}
    send(table, reserve, actor=PLAYER)
    send(table, end_turn("runner"), actor=PLAYER)
    send(table, end_turn("orc"))

    sent = send(table, move("goblin", (5, 4)))

    assert types(sent) == ["action-begun", "moved"]


def test_a_reserved_move_lapses_at_the_reservers_next_turn() -> None:
    table = reserved_runner()
    assert "runner" in state_of(table).reservations

    send(table, end_turn("orc"))

    assert state_of(table).current == "runner"
    assert state_of(table).reservations == {}


def test_a_reserved_run_may_itself_provoke_and_everything_resumes_in_turn() -> None:
    table = encounter()
    hex_map(table)
    add(table, "runner", (2, 2), side="pcs")
    add(table, "orc", (8, 2))
    add(table, "goblin", (2, 3))  # its sword threatens (2, 2) but not (1, 2)
    start(table, 1, 2, 3)
    reserve = {"type": "reserve-move", "combatant_id": "runner", "to": [0, 2], "watch": ["orc"]}
    send(table, reserve, actor=PLAYER)
    send(table, end_turn("runner"), actor=PLAYER)
    send(table, move("orc", (5, 2)))

    run = answer(table, "runner", "run", actor=PLAYER)

    raised = first(run, "opportunity-raised")
    assert (raised["combatant_id"], raised["threateners"]) == ("runner", ["goblin"])
    assert (position(table, "runner"), position(table, "orc")) == ((2, 2), (7, 2))

    resolved = answer(table, "goblin", "attack", dice=[20, 90])

    assert not first(resolved, "attack-rolled")["hit"]
    resumed = [e.data["combatant_id"] for e in resolved if e.type == "action-resumed"]
    assert resumed == ["runner", "orc"]
    assert (position(table, "runner"), position(table, "orc")) == ((0, 2), (5, 2))
    assert state_of(table).pending == ()


# --- overwatch ------------------------------------------------------------------------------------


def overwatching_archer() -> Table:
    """An archer at (0, 2) with a 10/20 shortbow (20 ft: 4 cells) on overwatch; an orc at
    (8, 2); the orc's turn."""
    table = encounter()
    hex_map(table)
    add(table, "archer", (0, 2), side="pcs", weapons=[SHORTBOW], skills={"ranged": 60})
    add(table, "orc", (8, 2))
    start(table, 1, 2)
    sent = send(table, {"type": "overwatch", "combatant_id": "archer"}, actor=PLAYER)
    assert types(sent) == ["action-begun", "move-reserved"]
    send(table, end_turn("archer"), actor=PLAYER)
    return table


def test_overwatch_pauses_an_enemy_stepping_into_range() -> None:
    table = overwatching_archer()

    sent = send(table, move("orc", (2, 2)))

    assert paths(sent) == [[(8, 2), (7, 2), (6, 2), (5, 2), (4, 2)]]
    assert first(sent, "reservation-triggered")["kind"] == "overwatch"
    opened = first(sent, "reaction-window-opened")
    assert (opened["trigger"]["kind"], opened["eligible"]) == (
        "overwatch", {"archer": ["shoot", "pass"]},
    )  # fmt: skip


def test_overwatch_shoots_and_the_enemys_move_resumes() -> None:
    table = overwatching_archer()
    send(table, move("orc", (2, 2)))

    shot = answer(table, "archer", "shoot", dice=[30, 2], actor=PLAYER)

    rolled = first(shot, "attack-rolled")
    assert (rolled["overwatch"], rolled["band"], rolled["check"]["banes"]) == (True, 1, 1)
    assert rolled["hit"] and rolled["response"]["dodge"] == "very-hard"

    landed = answer(table, "orc", "pass", dice=[4])

    assert types(landed)[2:] == ["damage-dealt", "resource-adjusted", "action-resumed", "moved"]
    assert position(table, "orc") == (2, 2)
    assert state_of(table).reservations == {}


def test_overwatch_fires_once() -> None:
    table = overwatching_archer()
    send(table, move("orc", (4, 2)))
    answer(table, "archer", "pass", actor=PLAYER)

    sent = send(table, move("orc", (2, 2)))

    assert types(sent)[:2] == ["action-begun", "moved"]
    assert "reservation-triggered" not in types(sent)


def test_overwatch_an_enemy_already_in_range_sets_it_off_with_its_first_step() -> None:
    table = overwatching_archer()
    send(table, move("orc", (4, 2)))
    answer(table, "archer", "pass", actor=PLAYER)
    send(table, end_turn("orc"))
    send(table, {"type": "overwatch", "combatant_id": "archer"}, actor=PLAYER)
    send(table, end_turn("archer"), actor=PLAYER)

    sent = send(table, move("orc", (3, 3)))  # still 4 cells from the archer

    assert paths(sent) == [[(4, 2), (3, 3)]]
    assert first(sent, "reservation-triggered")["kind"] == "overwatch"


def test_overwatch_waits_while_the_enemy_moves_behind_a_truck_and_fires_as_it_steps_out() -> None:
    table = encounter()
    hex_map(table)
    add(table, "archer", (0, 3), side="pcs", weapons=[BOW], skills={"ranged": 60})
    add(table, "orc", (4, 3))
    send(table, {"type": "place-cover", "cell": [3, 3], "name": "truck", "kind": "total"})
    start(table, 1, 2)
    send(table, {"type": "overwatch", "combatant_id": "archer"}, actor=PLAYER)
    send(table, end_turn("archer"), actor=PLAYER)

    hidden = send(table, move("orc", (5, 3)))  # the line (0, 3)-(5, 3) crosses the truck

    assert types(hidden) == ["action-begun", "moved"]

    out = send(table, move("orc", (5, 1), path=[[5, 2], [5, 1]]))

    assert paths(out) == [[(5, 3), (5, 2)]]
    assert first(out, "reservation-triggered")["kind"] == "overwatch"


def test_overwatch_needs_a_ranged_weapon() -> None:
    table = runner_and_orc()

    error = refused(table, {"type": "overwatch", "combatant_id": "runner"}, actor=PLAYER)

    assert error.code == "overwatch/needs-ranged-weapon"


# --- passing an enemy -----------------------------------------------------------------------------


def ogre_in_the_way() -> Table:
    """The runner at (0, 0); an ogre at (1, 0) in the way to (3, 0); an imp at (0, 1), whose
    sword reaches (0, 0) and (1, 0) but not (2, 0). The runner's turn."""
    table = encounter()
    hex_map(table, width=6, height=2)
    add(table, "runner", (0, 0), side="pcs")
    add(table, "ogre", (1, 0))
    add(table, "imp", (0, 1))
    start(table, 1, 2, 3)
    return table


def pass_ogre(to: tuple[int, int] = (3, 0)) -> dict[str, Any]:
    return {"type": "pass-enemy", "combatant_id": "runner", "enemy": "ogre", "to": list(to)}


def test_passing_an_enemy_is_the_gms_to_approve() -> None:
    table = ogre_in_the_way()

    assert refused(table, pass_ogre(), actor=PLAYER, dice=[20]).code == "auth/gm-only"


def test_passing_an_enemy_with_a_failed_check_spends_the_move() -> None:
    table = ogre_in_the_way()

    sent = send(table, pass_ogre(), dice=[70])

    tried = first(sent, "pass-attempted")
    assert (tried["check"]["skill"], tried["check"]["success"]) == ("agility", False)
    assert "moved" not in types(sent)
    assert state_of(table).turn.moves == 1 and position(table, "runner") == (0, 0)


def test_passing_an_enemy_walks_through_its_cell_and_that_enemy_gets_no_opportunity() -> None:
    table = ogre_in_the_way()

    sent = send(table, pass_ogre(), dice=[20])

    raised = first(sent, "opportunity-raised")
    assert (raised["threateners"], xy(raised["cell"])) == (["imp"], (1, 0))
    assert paths(sent) == [[(0, 0), (1, 0)]]

    resumed = answer(table, "imp", "pass")

    assert paths(resumed) == [[(1, 0), (2, 0), (3, 0)]]
    assert "opportunity-raised" not in types(resumed)
    assert position(table, "runner") == (3, 0)


def test_passing_an_enemy_needs_an_enemy() -> None:
    table = ogre_in_the_way()
    command = {**pass_ogre(), "enemy": "runner"}

    assert refused(table, command, dice=[20]).code == "move/not-an-enemy"


# --- the square-grid variant ----------------------------------------------------------------------


def on_squares(
    diagonals: str, guard_at: tuple[int, int] = (11, 11), at: tuple[int, int] = (0, 0)
) -> Table:
    table = encounter()
    square_map(table, diagonals=diagonals)
    add(table, "runner", at, side="pcs")
    add(table, "guard", guard_at)
    start(table, 1, 2)
    return table


def test_square_alternate_diagonals_cost_1_2_1() -> None:
    table = on_squares("alternate")

    costs = reachable(table)

    assert [costs[(d, d)] for d in range(1, 5)] == [1, 3, 4, 6]
    assert (5, 5) not in costs
    sent = send(table, move("runner", (3, 3)), actor=PLAYER)
    assert first(sent, "moved")["cost"] == 4


def test_square_alternate_a_given_diagonal_path_pays_1_2_1() -> None:
    table = on_squares("alternate")

    sent = send(table, move("runner", (3, 3), path=[[1, 1], [2, 2], [3, 3]]), actor=PLAYER)

    assert first(sent, "moved")["cost"] == 4


def test_square_chebyshev_diagonals_cost_1() -> None:
    table = on_squares("chebyshev")

    assert reachable(table)[(6, 6)] == 6


def test_square_manhattan_moves_only_across_edges() -> None:
    table = on_squares("manhattan")
    assert reachable(table)[(1, 1)] == 2

    error = refused(table, move("runner", (1, 1), path=[[1, 1]]), actor=PLAYER)

    assert error.code == "move/bad-path"
    sent = send(table, move("runner", (1, 1)), actor=PLAYER)
    assert len(paths(sent)[0]) == 3


@pytest.mark.parametrize(
    ("diagonals", "provokes"), [("alternate", True), ("chebyshev", True), ("manhattan", False)]
)
def test_square_a_diagonal_neighbour_is_threatened_unless_moves_follow_edges_only(
    diagonals: str, provokes: bool
) -> None:
    table = on_squares(diagonals, guard_at=(5, 5), at=(6, 6))

    sent = send(table, move("runner", (6, 7)), actor=PLAYER)

    assert ("opportunity-raised" in types(sent)) is provokes
