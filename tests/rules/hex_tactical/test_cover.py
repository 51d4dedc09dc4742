"""hex-tactical Cover: partial cover (an upturned table, a low stone well) gives one bane on a
ranged attack whose line of fire passes through it next to the target and one boon on the
target's Dodge; taking cover makes it total until the taker's next turn; total cover (a truck)
stops the shot; Target Inanimate Object wears a cover object's durability down and destroys it.
Cover objects are the GM's to place and remove.

Alice the archer stands at (0, 5) with a 60/180 longbow; Bob is at (5, 5), 25 ft away on the
same row, so the line of fire runs along row 5. Every roll is a table die.
"""

from __future__ import annotations

from typing import Any

from service.domain.envelope import Envelope
from tests.rules.harness import Table
from tests.rules.hex_tactical.given import (
    BOW,
    PLAYER,
    SPEAR,
    add,
    answer,
    encounter,
    first,
    hex_map,
    refused,
    start,
    state_of,
    types,
)

TABLE = {"name": "upturned table", "kind": "partial"}
TRUCK = {"name": "truck", "kind": "total"}


def range_(
    terrain: list[dict[str, Any]] | None = None, bob_first: bool = False, **bob: Any
) -> Table:
    """Alice at (0, 5) with her longbow, Bob at (5, 5). Alice acts first unless `bob_first`."""
    table = encounter()
    hex_map(table, width=12, height=12, terrain=terrain)
    if bob_first:
        add(table, "bob", (5, 5), **bob)
        add(table, "alice", (0, 5), side="pcs", weapons=[BOW], skills={"ranged": 60})
    else:
        add(table, "alice", (0, 5), side="pcs", weapons=[BOW], skills={"ranged": 60})
        add(table, "bob", (5, 5), **bob)
    start(table, 1, 50)
    return table


def place(table: Table, at: tuple[int, int], cover: dict[str, Any], **extra: Any) -> None:
    table.send({"type": "place-cover", "cell": list(at), **cover, **extra})


def shoot(table: Table, dice: list[int]) -> list[Envelope]:
    return table.send({"type": "attack", "combatant_id": "alice", "target": "bob"}, dice=dice)


def shot_refused(table: Table) -> str:
    command = {"type": "attack", "combatant_id": "alice", "target": "bob"}
    return refused(table, command, dice=[10]).code


def end_turn(table: Table, cid: str) -> None:
    table.send({"type": "end-turn", "combatant_id": cid})


def tagged(at: tuple[int, int], tag: str, kind: str = "impassable") -> dict[str, Any]:
    return {"cell": list(at), "terrain": {"kind": kind, "tags": [tag]}}


# --- partial cover ------------------------------------------------------------------------------


def test_bob_behind_an_upturned_table_imposes_a_bane_on_alices_shot():
    table = range_()
    place(table, (4, 5), TABLE)

    # 30 with the bane's tens die of 7: the higher, 70, is kept; a miss.
    envelopes = shoot(table, dice=[30, 7])

    check = first(envelopes, "attack-rolled")["check"]
    assert (check["banes"], check["dice"], check["roll"], check["success"]) == (
        1,
        [30, 7],
        70,
        False,
    )


def test_bob_behind_an_upturned_table_has_a_boon_on_his_dodge():
    table = range_()
    place(table, (4, 5), TABLE)
    shoot(table, dice=[30, 1])

    # A hard Dodge (inside the interval): 30 misses 25, but the boon's tens die of 1 keeps 10.
    envelopes = answer(table, "bob", "dodge", dice=[30, 1])

    check = first(envelopes, "defended")["check"]
    assert (check["difficulty"], check["boons"], check["roll"]) == ("hard", 1, 10)
    assert check["success"]


def test_a_low_stone_well_on_the_map_is_partial_cover_too():
    table = range_(terrain=[tagged((4, 5), "partial-cover")])

    envelopes = shoot(table, dice=[30, 1])

    assert first(envelopes, "attack-rolled")["check"]["banes"] == 1
    assert first(envelopes, "attack-rolled")["response"]["dodge_boons"] == 1


def test_partial_cover_not_next_to_the_target_gives_nothing():
    table = range_()
    place(table, (2, 5), TABLE)

    envelopes = shoot(table, dice=[30])

    assert first(envelopes, "attack-rolled")["check"]["banes"] == 0
    assert first(envelopes, "attack-rolled")["response"]["dodge_boons"] == 0


def test_partial_cover_next_to_the_target_but_off_the_line_of_fire_gives_nothing():
    table = range_()
    place(table, (6, 5), TABLE)  # behind Bob
    place(table, (5, 4), {**TABLE, "name": "crate"})  # beside Bob

    envelopes = shoot(table, dice=[30])

    assert first(envelopes, "attack-rolled")["check"]["banes"] == 0


def test_cover_is_no_help_against_a_melee_attack():
    """Cover is against ranged attacks: Alice's pike reaches over the table to Bob."""
    table = encounter()
    hex_map(table)
    add(table, "alice", (3, 5), side="pcs", weapons=[SPEAR], skills={"melee": 60})
    add(table, "bob", (5, 5))
    start(table, 1, 50)
    place(table, (4, 5), TABLE)

    envelopes = table.send({"type": "attack", "combatant_id": "alice", "target": "bob"}, dice=[30])

    rolled = first(envelopes, "attack-rolled")
    assert rolled["check"]["banes"] == 0 and rolled["response"]["dodge_boons"] == 0


# --- total cover --------------------------------------------------------------------------------


def test_bob_behind_a_truck_cannot_be_shot():
    table = range_()
    place(table, (4, 5), TRUCK)

    assert shot_refused(table) == "attack/total-cover"


def test_a_fallen_redwood_on_the_map_is_total_cover():
    table = range_(terrain=[tagged((4, 5), "total-cover")])

    assert shot_refused(table) == "attack/total-cover"


def test_a_truck_anywhere_on_the_line_of_fire_stops_the_shot():
    table = range_()
    place(table, (2, 5), TRUCK)

    assert shot_refused(table) == "attack/total-cover"


# --- taking cover -------------------------------------------------------------------------------


def bob_takes_cover(dice: list[int]) -> tuple[Table, list[Envelope]]:
    table = range_(bob_first=True)
    place(table, (4, 5), TABLE)
    envelopes = table.send({"type": "take-cover", "combatant_id": "bob"}, dice=dice)
    return table, envelopes


def test_taking_cover_is_a_dodge_roll_that_makes_the_table_total_cover():
    table, envelopes = bob_takes_cover(dice=[40])

    taken = first(envelopes, "cover-taken")
    assert taken["check"]["skill"] == "dodge" and taken["check"]["success"]
    assert taken["cells"] == [{"x": 4, "y": 5}]
    end_turn(table, "bob")
    assert shot_refused(table) == "attack/total-cover"


def test_a_failed_dodge_leaves_the_cover_partial():
    table, envelopes = bob_takes_cover(dice=[60])

    assert not first(envelopes, "cover-taken")["check"]["success"]
    end_turn(table, "bob")
    assert first(shoot(table, dice=[30, 1]), "attack-rolled")["check"]["banes"] == 1


def test_taken_cover_is_total_until_the_start_of_the_takers_next_turn():
    table, _ = bob_takes_cover(dice=[40])
    end_turn(table, "bob")
    end_turn(table, "alice")
    assert state_of(table).current == "bob" and state_of(table).round == 2
    end_turn(table, "bob")

    envelopes = shoot(table, dice=[30, 1])

    assert first(envelopes, "attack-rolled")["check"]["banes"] == 1


def test_taking_cover_spends_the_turns_other_action_then_the_action_left():
    # hex-tactical Cover: "and has an action left": after the other action, the second move.
    table, taken = bob_takes_cover(dice=[40])
    assert first(taken, "action-begun")["kind"] == "other"

    again = table.send({"type": "take-cover", "combatant_id": "bob"}, dice=[40])
    assert first(again, "action-begun")["kind"] == "move"

    error = refused(table, {"type": "take-cover", "combatant_id": "bob"}, dice=[40])
    assert error.code in ("turn/no-actions-left", "turn/not-your-turn")


def test_moving_away_gives_up_the_cover_taken():
    table, _ = bob_takes_cover(dice=[40])
    assert state_of(table).taking_cover["bob"]

    table.send({"type": "move", "combatant_id": "bob", "to": [6, 6]})

    assert "bob" not in state_of(table).taking_cover


def test_taking_cover_with_no_partial_cover_adjacent_is_refused():
    table = range_(bob_first=True)
    place(table, (3, 5), TABLE)

    error = refused(table, {"type": "take-cover", "combatant_id": "bob"}, dice=[40])

    assert error.code == "cover/none-adjacent"


def test_a_truck_is_no_partial_cover_to_take():
    table = range_(bob_first=True)
    place(table, (4, 5), TRUCK)

    error = refused(table, {"type": "take-cover", "combatant_id": "bob"}, dice=[40])

    assert error.code == "cover/none-adjacent"


# --- target inanimate object ------------------------------------------------------------------


def strike_table(table: Table, dice: list[int]) -> list[Envelope]:
    return table.send({"type": "target-object", "combatant_id": "alice", "cell": [4, 5]}, dice=dice)


def test_striking_the_table_wears_its_durability_down_by_the_damage_less_its_armor():
    table = range_()
    place(table, (4, 5), TABLE, durability=6, armor=1)

    envelopes = strike_table(table, dice=[30, 4])

    struck = first(envelopes, "object-struck")
    assert (struck["rolled"], struck["damage"], struck["durability"]) == (4, 3, 3)
    assert not struck["destroyed"]
    assert struck["check"]["banes"] == 0  # it cannot dodge, and its cell is the target
    assert state_of(table).cover["4,5"].durability == 3


def test_no_arrow_reaches_the_table_through_the_truck():
    table = range_()
    place(table, (4, 5), TABLE, durability=6, armor=1)
    place(table, (2, 5), TRUCK)

    command = {"type": "target-object", "combatant_id": "alice", "cell": [4, 5]}
    error = refused(table, command, dice=[30, 4])

    assert error.code == "attack/total-cover"


def test_a_missed_strike_leaves_the_table_whole():
    table = range_()
    place(table, (4, 5), TABLE, durability=6, armor=1)

    envelopes = strike_table(table, dice=[70])

    struck = first(envelopes, "object-struck")
    assert (struck["damage"], struck["durability"]) == (0, 6)
    assert "reaction-window-opened" not in types(envelopes)


def test_a_table_worn_to_nothing_is_destroyed_and_then_the_shot_has_no_bane():
    table = range_()
    place(table, (4, 5), TABLE, durability=3, armor=1)

    envelopes = strike_table(table, dice=[30, 8])

    struck = first(envelopes, "object-struck")
    assert struck["destroyed"] and struck["durability"] == 0
    assert state_of(table).cover == {}
    end_turn(table, "alice")
    end_turn(table, "bob")
    assert first(shoot(table, dice=[30]), "attack-rolled")["check"]["banes"] == 0


def test_map_cover_cannot_be_destroyed():
    table = range_(terrain=[tagged((4, 5), "partial-cover")])

    error = refused(
        table, {"type": "target-object", "combatant_id": "alice", "cell": [4, 5]}, dice=[30, 4]
    )

    assert error.code == "object/not-destructible"


def test_cover_placed_without_durability_cannot_be_destroyed():
    table = range_()
    place(table, (4, 5), TABLE)

    error = refused(
        table, {"type": "target-object", "combatant_id": "alice", "cell": [4, 5]}, dice=[30, 4]
    )

    assert error.code == "object/not-destructible"


def test_there_is_nothing_to_strike_in_an_empty_cell():
    table = range_()

    error = refused(
        table, {"type": "target-object", "combatant_id": "alice", "cell": [4, 5]}, dice=[30, 4]
    )

    assert error.code == "object/not-destructible"


# --- placing and removing cover -----------------------------------------------------------------


def test_the_gm_places_cover_and_players_may_not():
    table = range_()

    error = refused(table, {"type": "place-cover", "cell": [4, 5], **TABLE}, actor=PLAYER)
    assert error.code == "auth/gm-only"

    envelopes = table.send({"type": "place-cover", "cell": [4, 5], **TABLE, "durability": 5})
    placed = first(envelopes, "cover-placed")["cover"]
    assert (placed["name"], placed["kind"], placed["durability"]) == (
        "upturned table",
        "partial",
        5,
    )


def test_cover_cannot_be_placed_on_a_combatant():
    table = range_()

    error = refused(table, {"type": "place-cover", "cell": [5, 5], **TABLE})

    assert error.code == "map/occupied"


def test_cover_cannot_be_placed_on_other_cover():
    table = range_()
    place(table, (4, 5), TABLE)

    error = refused(table, {"type": "place-cover", "cell": [4, 5], **TRUCK})

    assert error.code == "cover/occupied"


def test_cover_cannot_be_placed_off_the_map():
    table = range_()

    error = refused(table, {"type": "place-cover", "cell": [40, 5], **TABLE})

    assert error.code == "map/off-map"


def test_the_gm_removes_cover_and_then_the_shot_has_no_bane():
    table = range_()
    place(table, (4, 5), TABLE)

    error = refused(table, {"type": "remove-cover", "cell": [4, 5]}, actor=PLAYER)
    assert error.code == "auth/gm-only"
    assert types(table.send({"type": "remove-cover", "cell": [4, 5]})) == ["cover-removed"]

    assert first(shoot(table, dice=[30]), "attack-rolled")["check"]["banes"] == 0


def test_there_is_no_cover_to_remove_from_an_empty_cell():
    table = range_()

    error = refused(table, {"type": "remove-cover", "cell": [4, 5]})

    assert error.code == "cover/none-there"


def test_a_move_may_not_end_on_a_cover_object():
    table = range_()
    place(table, (1, 5), TABLE)

    error = refused(table, {"type": "move", "combatant_id": "alice", "to": [1, 5]})

    assert error.code == "move/occupied"


def test_a_cover_object_blocks_a_path_through_its_cell():
    table = range_()
    place(table, (1, 5), TABLE)

    error = refused(
        table,
        {"type": "move", "combatant_id": "alice", "to": [2, 5], "path": [[1, 5], [2, 5]]},
    )

    assert error.code == "move/blocked"
