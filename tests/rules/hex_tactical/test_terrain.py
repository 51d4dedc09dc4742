"""Terrain on the tactical grid (hex-tactical Moving through Terrain Types, Terrain Effects,
Three Dimensional Movement): difficult ground doubles the cost and, stood in, is a bane on
Dodge; impassable cells; slippery (prone) and mired (stuck) ground; damage for passing and for
staying; height as a wall or as cover; and standing up from prone."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.context import GM, Actor
from service.domain.envelope import Envelope
from service.rules.hex_tactical import RULESET
from tests.rules.harness import Table
from tests.rules.hex_tactical.given import (
    BOW,
    PLAYER,
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
)

MUD = {"kind": "difficult"}
OIL = {"tags": ["slippery"]}
MIRE = {"tags": ["mired"]}
FIRE = {"damage": {"passing": "1d4", "stationary": "1d6"}}


def send(
    table: Table, command: dict[str, Any], dice: list[int] | None = None, actor: Actor = PLAYER
) -> list[Envelope]:
    return table.send(command, actor=actor, dice=dice)


def move(cid: str, to: tuple[int, int], path: list[list[int]] | None = None) -> dict[str, Any]:
    command: dict[str, Any] = {"type": "move", "combatant_id": cid, "to": list(to)}
    if path is not None:
        command["path"] = path
    return command


def end_turn(cid: str) -> dict[str, Any]:
    return {"type": "end-turn", "combatant_id": cid}


def xy(cell: dict[str, int]) -> tuple[int, int]:
    return (cell["x"], cell["y"])


def paths(envelopes: list[Envelope]) -> list[list[tuple[int, int]]]:
    return [[xy(c) for c in e.data["path"]] for e in envelopes if e.type == "moved"]


def conditions(table: Table, cid: str) -> list[str]:
    return [c.name for c in state_of(table).table.combatants[cid].conditions]


def move_option(table: Table) -> dict[str, Any]:
    for action in RULESET.legal_actions(state_of(table), PLAYER):
        if action.type == "move":
            return action.params
    raise AssertionError("no move among the legal actions")


def track(
    terrain: dict[int, dict[str, Any]], runner_at: int = 0, width: int = 12, **options: Any
) -> Table:
    """The runner (a PC, 30 ft: 6 cells a move) on a one-hex-wide track whose cells x have
    `terrain[x]`; an orc far off at the east end. The runner's turn."""
    table = encounter(**options)
    cells = [{"cell": [x, 0], "terrain": t} for x, t in terrain.items()]
    hex_map(table, width=width, height=1, terrain=cells)
    add(table, "runner", (runner_at, 0), side="pcs")
    add(table, "orc", (width - 1, 0))
    start(table, 1, 2)
    return table


def next_turn_of_runner(table: Table) -> None:
    send(table, end_turn("runner"))
    send(table, end_turn("orc"), actor=GM)
    assert state_of(table).current == "runner"


# --- difficult terrain ----------------------------------------------------------------------------


def test_difficult_terrain_costs_double() -> None:
    table = track({1: MUD, 2: MUD})

    sent = send(table, move("runner", (3, 0)))

    assert first(sent, "moved")["cost"] == 2 + 2 + 1


def test_difficult_terrain_shows_its_double_cost_in_the_overlay() -> None:
    table = track({2: MUD})

    cells = {xy(c["cell"]): (c["cost"], c["hazards"]) for c in move_option(table)["reachable"]}

    assert cells[(1, 0)] == (1, [])
    assert cells[(2, 0)] == (3, ["difficult"])
    assert cells[(5, 0)] == (6, ["difficult"])  # the hazards met on the way
    assert (6, 0) not in cells


def orc_ends_its_move_on(terrain: dict[str, Any] | None) -> Table:
    """The orc steps onto (4, 3), whose terrain is `terrain`, next to the runner's sword at
    (3, 3), and ends its turn; then the runner's turn."""
    table = encounter()
    cells = [] if terrain is None else [{"cell": [4, 3], "terrain": terrain}]
    hex_map(table, terrain=cells)
    add(table, "runner", (3, 3), side="pcs", skills={"melee": 90})
    add(table, "orc", (6, 3))
    start(table, 2, 1)
    send(table, move("orc", (4, 3)), actor=GM)
    send(table, end_turn("orc"), actor=GM)
    return table


def test_ending_a_move_in_difficult_terrain_is_a_bane_on_dodge() -> None:
    table = orc_ends_its_move_on(MUD)
    sent = send(table, {"type": "attack", "combatant_id": "runner", "target": "orc"}, dice=[30])
    assert first(sent, "attack-rolled")["response"]["dodge_banes"] == 1

    dodged = answer(table, "orc", "dodge", dice=[25, 6, 3])

    check = first(dodged, "defended")["check"]
    assert (check["banes"], check["dice"], check["roll"]) == (1, [25, 6], 65)
    assert not check["success"]
    assert first(dodged, "damage-dealt")["taken"] == 3


def test_on_firm_ground_the_same_dodge_roll_succeeds() -> None:
    table = orc_ends_its_move_on(None)
    send(table, {"type": "attack", "combatant_id": "runner", "target": "orc"}, dice=[30])

    dodged = answer(table, "orc", "dodge", dice=[25])

    check = first(dodged, "defended")["check"]
    assert (check["banes"], check["dice"], check["success"]) == (0, [25], True)


def test_difficult_terrain_leaves_a_parry_as_it_was() -> None:
    table = orc_ends_its_move_on(MUD)
    send(table, {"type": "attack", "combatant_id": "runner", "target": "orc"}, dice=[30])

    parried = answer(table, "orc", "parry", dice=[15])

    check = first(parried, "defended")["check"]
    assert (check["banes"], check["dice"], check["success"]) == (0, [15], True)


# --- impassable terrain ---------------------------------------------------------------------------


def test_impassable_terrain_stops_a_move() -> None:
    table = track({2: {"kind": "impassable"}})

    assert refused(table, move("runner", (2, 0))).code == "move/impassable"
    assert refused(table, move("runner", (3, 0))).code == "move/too-far"
    assert {xy(c["cell"]) for c in move_option(table)["reachable"]} == {(1, 0)}


# --- slippery ground ------------------------------------------------------------------------------


def test_slippery_ground_a_failed_agility_check_lays_the_mover_prone_and_ends_the_move() -> None:
    table = track({2: OIL})

    sent = send(table, move("runner", (4, 0)), dice=[80])

    assert types(sent) == ["action-begun", "moved", "terrain-checked", "condition-applied"]
    checked = first(sent, "terrain-checked")
    assert (checked["terrain"], checked["check"]["skill"], checked["check"]["success"]) == (
        "slippery", "agility", False,
    )  # fmt: skip
    assert first(sent, "condition-applied")["condition"] == "prone"
    assert position(table, "runner") == (2, 0)
    assert conditions(table, "runner") == ["prone"]


def test_slippery_ground_a_passed_agility_check_lets_the_move_go_on() -> None:
    table = track({2: OIL})

    sent = send(table, move("runner", (4, 0)), dice=[20])

    assert types(sent) == ["action-begun", "moved", "terrain-checked", "moved"]
    assert paths(sent) == [[(0, 0), (1, 0), (2, 0)], [(2, 0), (3, 0), (4, 0)]]
    assert position(table, "runner") == (4, 0)
    assert conditions(table, "runner") == []


def test_slippery_ground_is_marked_on_the_move_overlay() -> None:
    table = track({2: OIL})

    cells = {xy(c["cell"]): c["hazards"] for c in move_option(table)["reachable"]}

    assert (cells[(1, 0)], cells[(2, 0)], cells[(3, 0)]) == ([], ["slippery"], ["slippery"])


# --- mired ground ---------------------------------------------------------------------------------


def test_mired_ground_a_failed_agility_check_leaves_the_mover_stuck_and_ends_the_move() -> None:
    table = track({2: MIRE})

    sent = send(table, move("runner", (4, 0)), dice=[80])

    assert types(sent) == ["action-begun", "moved", "terrain-checked", "condition-applied"]
    assert first(sent, "condition-applied")["condition"] == "stuck"
    assert position(table, "runner") == (2, 0)


def test_stuck_persists_so_condition_applied_reports_no_end_of_turn() -> None:
    table = track({2: MIRE})

    applied = first(send(table, move("runner", (4, 0)), dice=[80]), "condition-applied")

    assert applied["condition"] == "stuck"
    assert applied["rounds"] is None and applied["ends"] is None


def test_mired_ground_a_passed_check_walks_on() -> None:
    table = track({2: MIRE})

    sent = send(table, move("runner", (4, 0)), dice=[50])

    assert position(table, "runner") == (4, 0)
    assert "condition-applied" not in types(sent)


def test_mired_ground_the_next_move_first_rolls_agility_and_a_failure_spends_it() -> None:
    table = track({2: MIRE})
    send(table, move("runner", (4, 0)), dice=[80])

    sent = send(table, move("runner", (4, 0)), dice=[60])

    assert types(sent)[:2] == ["action-begun", "broke-free"]
    broke = first(sent, "broke-free")
    assert (broke["held"], broke["check"]["skill"], broke["check"]["success"]) == (
        "stuck", "agility", False,
    )  # fmt: skip
    assert "moved" not in types(sent)
    assert first(sent, "turn-ended")["reason"] == "actions-spent"
    assert position(table, "runner") == (2, 0)
    assert conditions(table, "runner") == ["stuck"]


def test_mired_ground_a_successful_check_frees_the_mover_and_the_move_goes_on() -> None:
    table = track({2: MIRE})
    send(table, move("runner", (4, 0)), dice=[80])
    next_turn_of_runner(table)

    sent = send(table, move("runner", (4, 0)), dice=[10])

    assert types(sent) == ["action-begun", "broke-free", "condition-removed", "moved"]
    assert paths(sent) == [[(2, 0), (3, 0), (4, 0)]]
    assert conditions(table, "runner") == []


def test_mired_ground_holds_until_a_check_succeeds_turn_after_turn() -> None:
    table = track({2: MIRE})
    send(table, move("runner", (4, 0)), dice=[80])
    next_turn_of_runner(table)
    send(table, move("runner", (4, 0)), dice=[90])
    send(table, move("runner", (4, 0)), dice=[90])
    send(table, end_turn("orc"), actor=GM)
    assert position(table, "runner") == (2, 0)

    send(table, move("runner", (4, 0)), dice=[5])

    assert position(table, "runner") == (4, 0)


# --- damaging terrain -----------------------------------------------------------------------------


def test_damaging_terrain_passing_through_it_deals_its_passing_dice() -> None:
    """Seed: "damage done to the character for passing through ... that cell"."""
    table = track({2: FIRE})

    sent = send(table, move("runner", (4, 0)), dice=[3])

    hurt = first(sent, "terrain-damaged")
    assert (hurt["kind"], hurt["expression"], hurt["taken"]) == ("passing", "1d4", 3)
    assert position(table, "runner") == (4, 0)


def test_damaging_terrain_entered_with_one_move_and_left_with_the_next_deals_passing_dice() -> None:
    table = track({2: FIRE})
    send(table, move("runner", (2, 0)))

    sent = send(table, move("runner", (4, 0)), dice=[3])

    hurt = first(sent, "terrain-damaged")
    assert (hurt["kind"], hurt["expression"], hurt["taken"]) == ("passing", "1d4", 3)
    assert first(sent, "resource-adjusted")["after"] == 7


def test_damaging_terrain_ending_a_turn_in_it_deals_its_stationary_dice() -> None:
    table = track({2: FIRE})
    send(table, move("runner", (2, 0)))

    sent = send(table, end_turn("runner"), dice=[5])

    hurt = first(sent, "terrain-damaged")
    assert (hurt["kind"], hurt["expression"], hurt["taken"]) == ("stationary", "1d6", 5)
    assert types(sent).index("terrain-damaged") < types(sent).index("turn-ended")


def test_damaging_terrain_stationary_dice_land_when_the_turn_ends_by_itself_too() -> None:
    table = track({2: FIRE})
    send(table, move("runner", (1, 0)))

    sent = send(table, move("runner", (2, 0)), dice=[6])

    assert first(sent, "terrain-damaged")["kind"] == "stationary"
    assert first(sent, "turn-ended")["reason"] == "actions-spent"


def test_damaging_terrain_leaving_it_at_the_start_of_a_turn_is_not_passing_through() -> None:
    table = track({2: FIRE}, runner_at=2)

    sent = send(table, move("runner", (4, 0)))

    assert "terrain-damaged" not in types(sent)


# --- elevation ------------------------------------------------------------------------------------


def ledge(height: int, **options: Any) -> Table:
    """A one-hex-wide track with cell (2, 0) raised `height` feet; the runner at (0, 0)."""
    return track({2: {"elevation": height}}, **options)


@pytest.mark.parametrize(("height", "option"), [(10, "impassable"), (15, "both"), (-10, "both")])
def test_elevation_impassable_a_step_of_10ft_or_more_blocks_the_move(
    height: int, option: str
) -> None:
    table = ledge(height, elevation=option)

    assert refused(table, move("runner", (3, 0))).code == "move/too-far"
    assert refused(table, move("runner", (2, 0))).code == "move/too-far"


def test_elevation_impassable_blocks_the_step_down_too() -> None:
    table = track({0: {"elevation": 10}}, elevation="impassable")

    assert refused(table, move("runner", (1, 0))).code == "move/too-far"


@pytest.mark.parametrize(("height", "option"), [(5, "impassable"), (10, "ignore"), (10, "cover")])
def test_elevation_a_lower_step_or_another_option_lets_the_move_pass(
    height: int, option: str
) -> None:
    table = ledge(height, elevation=option)

    send(table, move("runner", (3, 0)))

    assert position(table, "runner") == (3, 0)


def archer_below(height: int, **options: Any) -> Table:
    """An orc archer at (0, 3) on the ground and the runner at (4, 3), `height` feet up; the
    orc's turn."""
    table = encounter(**options)
    hex_map(table, terrain=[{"cell": [4, 3], "terrain": {"elevation": height}}])
    add(table, "runner", (4, 3), side="pcs")
    add(table, "orc", (0, 3), weapons=[BOW], skills={"ranged": 80})
    start(table, 2, 1)
    return table


@pytest.mark.parametrize("option", ["cover", "both"])
def test_elevation_cover_a_target_10ft_higher_has_partial_cover(option: str) -> None:
    table = archer_below(10, elevation=option)

    sent = send(
        table, {"type": "attack", "combatant_id": "orc", "target": "runner"}, [30, 7], actor=GM
    )

    rolled = first(sent, "attack-rolled")
    assert (rolled["check"]["banes"], rolled["check"]["roll"]) == (1, 70)
    assert rolled["response"]["dodge_boons"] == 1


@pytest.mark.parametrize(
    ("height", "option"), [(10, "ignore"), (10, "impassable"), (5, "cover"), (-10, "cover")]
)
def test_elevation_no_cover_when_lower_not_high_enough_or_not_ruled_so(
    height: int, option: str
) -> None:
    table = archer_below(height, elevation=option)

    sent = send(
        table, {"type": "attack", "combatant_id": "orc", "target": "runner"}, [30], actor=GM
    )

    assert first(sent, "attack-rolled")["check"]["banes"] == 0


# --- prone ----------------------------------------------------------------------------------------


def prone_runner() -> Table:
    table = track({})
    send(
        table, {"type": "apply-condition", "combatant_id": "runner", "condition": "prone"}, actor=GM
    )
    return table


def test_standing_up_from_prone_costs_half_the_move() -> None:
    table = prone_runner()
    assert move_option(table)["budget"] == 3

    sent = send(table, move("runner", (3, 0)))

    assert types(sent) == ["action-begun", "stood-up", "condition-removed", "moved"]
    assert first(sent, "stood-up")["cost"] == 3
    assert conditions(table, "runner") == []


def test_a_prone_mover_cannot_go_further_than_half_its_move() -> None:
    table = prone_runner()

    assert refused(table, move("runner", (4, 0))).code == "move/too-far"
    assert conditions(table, "runner") == ["prone"]


def test_slippery_ground_leaves_the_fallen_open_a_boon_to_melee_and_a_bane_on_dodge() -> None:
    table = track({2: OIL}, width=4)  # the orc stands at (3, 0)
    send(table, move("runner", (2, 0)), dice=[90])
    send(table, end_turn("runner"))

    sent = send(
        table, {"type": "attack", "combatant_id": "orc", "target": "runner"}, [70, 2], actor=GM
    )

    rolled = first(sent, "attack-rolled")
    assert (rolled["check"]["boons"], rolled["check"]["roll"], rolled["hit"]) == (1, 20, True)
    assert rolled["response"]["dodge_banes"] == 1

    # The orc's damage die (2) is the GM's to supply with the runner's dodge dice.
    dodged = answer(table, "runner", "dodge", dice=[25, 6, 2], actor=GM)

    assert first(dodged, "defended")["check"]["roll"] == 65
    assert first(dodged, "damage-dealt")["taken"] == 2
