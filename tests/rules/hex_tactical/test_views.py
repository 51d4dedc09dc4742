"""What hex-tactical shows a front end: the acting combatant's legal actions with what a VTT
needs for its overlays (the move's budget, the reachable cells with their cost, the enemies a
path provokes and the hazards on it, the threatened cells of each side, the targets of each
weapon with range band, cover and banes), the GM's own actions, the phase label, the summary,
and one sentence for every event.
"""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.context import GM, Actor
from service.domain.narration import COMMON, namer
from service.domain.views import ActionOption
from service.rules.hex_tactical import RULESET
from service.rules.hex_tactical.events import EVENTS
from service.rules.hex_tactical.views import NARRATION
from tests.rules.harness import Table
from tests.rules.hex_tactical.given import (
    BOW,
    PLAYER,
    SWORD,
    add,
    answer,
    encounter,
    hex_map,
    start,
    state_of,
)

OBSERVER = Actor("watcher", "observer")
MUD = {"kind": "difficult", "tags": ["mud"]}


def offered(table: Table, viewer: Actor = PLAYER) -> dict[str, list[ActionOption]]:
    found: dict[str, list[ActionOption]] = {}
    for option in RULESET.legal_actions(state_of(table), viewer):
        found.setdefault(option.type, []).append(option)
    return found


def move_option(table: Table, viewer: Actor = PLAYER) -> dict[str, Any]:
    (option,) = offered(table, viewer)["move"]
    return option.params


def reachable(table: Table, viewer: Actor = PLAYER) -> dict[tuple[int, int], dict[str, Any]]:
    return {
        (entry["cell"]["x"], entry["cell"]["y"]): entry
        for entry in move_option(table, viewer)["reachable"]
    }


def cells(listed: list[dict[str, int]]) -> set[tuple[int, int]]:
    return {(c["x"], c["y"]) for c in listed}


def targets(table: Table, weapon: str, viewer: Actor = PLAYER) -> dict[str, dict[str, Any]]:
    option = next(o for o in offered(table, viewer)["attack"] if o.params["weapon"] == weapon)
    return {entry["id"]: entry for entry in option.params["targets"]}


def the_mud() -> Table:
    """Shin-deep mud fills columns 3 and 4; oil slicks (2, 3); Alice (2, 5) has a sword and
    Bob (1, 5) stands next to her; Carl is far off at (9, 5)."""
    terrain = [{"cell": [x, y], "terrain": MUD} for x in (3, 4) for y in range(12)]
    terrain += [
        {"cell": [2, 3], "terrain": {"tags": ["slippery"]}},
        {"cell": [1, 7], "terrain": {"kind": "difficult", "tags": ["mired"]}},
        {"cell": [0, 5], "terrain": {"damage": {"passing": "1d4", "stationary": "1d6"}}},
    ]
    table = encounter()
    hex_map(table, terrain=terrain)
    add(table, "alice", (2, 5), side="pcs", weapons=[SWORD, BOW])
    add(table, "bob", (1, 5))
    add(table, "carl", (9, 5))
    start(table, 1, 50, 60)
    return table


# --- the move overlay ---------------------------------------------------------------------------


def test_the_move_option_holds_the_budget_of_speed_over_cell_size():
    table = the_mud()

    overlay = move_option(table)

    assert overlay["budget"] == 6
    here = reachable(table)
    assert (2, 5) not in here  # where Alice stands
    assert (1, 5) not in here and (9, 5) not in here  # where others stand
    assert here[(2, 4)]["cost"] == 1 and here[(1, 6)]["cost"] == 1
    assert max(entry["cost"] for entry in here.values()) == 6


def test_a_slower_combatant_has_a_smaller_budget():
    table = encounter()
    hex_map(table)
    add(table, "alice", (2, 5), side="pcs", speed=20)
    add(table, "bob", (9, 9))
    start(table, 1, 50)

    assert move_option(table)["budget"] == 4
    assert all(entry["cost"] <= 4 for entry in reachable(table).values())


def test_the_shin_deep_mud_costs_double():
    """Crossing a cell of mud costs what 10 feet of hardwood floor does: the cell two mud
    cells away costs 4, and one step past the mud 5."""
    here = reachable(the_mud())

    assert here[(3, 5)]["cost"] == 2
    assert here[(4, 5)]["cost"] == 4
    assert here[(5, 5)]["cost"] == 5
    assert "difficult" in here[(4, 5)]["hazards"]


def test_a_path_out_of_an_enemys_threat_names_the_threatener():
    here = reachable(the_mud())

    # (2, 6) is not next to Bob at (1, 5); (1, 6) is.
    assert here[(2, 6)]["provokes"] == ["bob"]
    assert here[(1, 6)]["provokes"] == []
    assert here[(2, 4)]["provokes"] == []


def test_the_hazards_on_the_way_are_listed():
    here = reachable(the_mud())

    assert here[(2, 3)]["hazards"] == ["slippery"]
    assert here[(1, 7)]["hazards"] == ["difficult", "mired"]
    assert here[(2, 4)]["hazards"] == []


def test_a_prone_combatant_has_half_its_move_once_it_stands():
    table = the_mud()
    table.send({"type": "apply-condition", "combatant_id": "alice", "condition": "prone"})

    assert move_option(table)["budget"] == 3
    assert all(entry["cost"] <= 3 for entry in reachable(table).values())


def test_threatened_cells_are_listed_per_side():
    table = the_mud()

    threatened = move_option(table)["threatened"]

    bob = {(2, 5), (2, 4), (1, 4), (0, 5), (0, 6), (1, 6)}
    carl = {(10, 5), (10, 4), (9, 4), (8, 5), (8, 6), (9, 6)}
    alice = {(3, 5), (3, 4), (2, 4), (1, 5), (1, 6), (2, 6)}
    assert cells(threatened["foes"]) == bob | carl
    assert cells(threatened["pcs"]) == alice


def test_a_bow_in_hand_threatens_no_cells():
    table = the_mud()
    table.send({"type": "wield", "combatant_id": "alice", "weapon": "longbow"})

    assert "pcs" not in move_option(table)["threatened"]


def test_a_combatant_in_melee_threatens_only_its_partners_cell():
    table = the_mud()
    table.send({"type": "attack", "combatant_id": "alice", "target": "bob"}, dice=[99])

    threatened = move_option(table)["threatened"]

    carl = {(10, 5), (10, 4), (9, 4), (8, 5), (8, 6), (9, 6)}
    assert cells(threatened["pcs"]) == {(1, 5)}
    assert cells(threatened["foes"]) == {(2, 5)} | carl


# --- attack options -----------------------------------------------------------------------------


def the_archery_range() -> Table:
    """Alice with a longbow at (0, 5); Bob at (8, 5) is 40 ft away, Carl at (13, 5) 65 ft
    and Dan at (37, 5) 185 ft; Erin stands next to Alice."""
    table = encounter()
    hex_map(table, width=40, height=12)
    add(table, "alice", (0, 5), side="pcs", weapons=[BOW, SWORD])
    add(table, "bob", (8, 5))
    add(table, "carl", (13, 5))
    add(table, "dan", (37, 5))
    add(table, "erin", (0, 6))
    start(table, 1, 50, 60, 70, 80)
    return table


def test_the_attack_option_lists_each_target_with_its_band():
    listed = targets(the_archery_range(), "longbow")

    assert listed["bob"] == {
        "id": "bob",
        "distance_feet": 40,
        "band": 0,
        "cover": None,
        "banes": 0,
        "in_melee": False,
        "can_dodge": True,
    }
    assert (listed["carl"]["band"], listed["carl"]["banes"]) == (1, 1)
    assert "dan" not in listed  # beyond 180 ft


def test_a_target_behind_partial_cover_is_listed_with_its_cover_and_one_more_bane():
    table = the_archery_range()
    table.send({"type": "place-cover", "cell": [12, 5], "name": "upturned table"})

    carl = targets(table, "longbow")["carl"]

    assert (carl["cover"], carl["banes"]) == ("partial", 2)


def test_a_target_behind_the_truck_is_not_listed():
    table = the_archery_range()
    table.send({"type": "place-cover", "cell": [12, 5], "name": "truck", "kind": "total"})

    assert "carl" not in targets(table, "longbow")


def test_an_unaware_target_is_listed_as_unable_to_dodge():
    table = the_archery_range()
    table.send({"type": "set-awareness", "combatant_id": "bob", "of": "alice", "aware": False})

    assert targets(table, "longbow")["bob"]["can_dodge"] is False
    assert targets(table, "longbow")["carl"]["can_dodge"] is True


def test_a_melee_weapon_lists_only_the_targets_in_reach():
    listed = targets(the_archery_range(), "sword")

    assert listed == {"erin": {"id": "erin", "distance_feet": 5, "boons": 0}}


def test_an_adjacent_target_of_a_ranged_attack_is_listed_as_unable_to_dodge():
    """The shot puts Erin in melee with Alice, and a target in melee gets no dodge (see
    test_combat: the attack gives her none)."""
    assert targets(the_archery_range(), "longbow")["erin"]["can_dodge"] is False


def test_a_target_in_melee_with_another_is_listed_with_the_bane_of_firing_into_it():
    table = encounter()
    hex_map(table)
    add(table, "dave", (4, 5), side="pcs")
    add(table, "alice", (5, 0), side="pcs", weapons=[BOW])
    add(table, "bob", (5, 5))
    start(table, 1, 2, 50)
    table.send({"type": "attack", "combatant_id": "dave", "target": "bob"}, dice=[99])
    table.send({"type": "end-turn", "combatant_id": "dave"})

    bob = targets(table, "longbow")["bob"]

    assert (bob["in_melee"], bob["can_dodge"]) == (True, False)
    # The encounter's option is "bane": the attack takes one more (test_combat).
    assert bob["banes"] == 1


# --- what each viewer is offered ------------------------------------------------------------------


def test_the_acting_combatant_is_offered_its_turn():
    kinds = set(offered(the_mud()))

    assert {"move", "reserve-move", "attack", "maneuver", "use-skill", "use-item"} <= kinds
    assert {"end-turn", "wield", "overwatch", "surrender"} <= kinds
    assert "take-cover" not in kinds and "target-object" not in kinds


def test_once_the_other_action_is_spent_only_moves_are_left():
    table = the_mud()
    table.send({"type": "attack", "combatant_id": "alice", "target": "bob"}, dice=[99])

    kinds = set(offered(table))

    assert "move" in kinds and "end-turn" in kinds
    assert not kinds & {"attack", "maneuver", "use-skill", "use-item", "overwatch"}


def test_take_cover_and_target_object_are_offered_next_to_cover():
    table = the_mud()
    table.send({"type": "place-cover", "cell": [2, 4], "name": "crate", "durability": 4})

    found = offered(table)

    assert "take-cover" in found
    assert found["target-object"][0].params["cells"] == [{"x": 2, "y": 4}]


def test_take_cover_is_still_offered_with_the_move_left_after_an_attack():
    table = the_mud()
    table.send({"type": "place-cover", "cell": [2, 4], "name": "crate", "durability": 4})
    table.send({"type": "attack", "combatant_id": "alice", "target": "bob"}, dice=[99])

    assert "take-cover" in offered(table)


def test_a_skill_or_item_in_a_threatened_cell_is_marked_as_provoking():
    found = offered(the_mud())

    assert found["use-skill"][0].params == {"provokes": True}
    assert found["use-item"][0].params == {"provokes": True}


def test_observers_are_offered_nothing():
    assert RULESET.legal_actions(state_of(the_mud()), OBSERVER) == []


def test_a_player_is_not_offered_an_enemys_turn():
    table = the_mud()
    table.send({"type": "end-turn", "combatant_id": "alice"})

    kinds = set(offered(table, PLAYER))

    assert not kinds & {"move", "attack", "end-turn"}
    assert "move" in offered(table, GM)


def test_the_gm_is_offered_cover_awareness_and_checks():
    table = the_mud()

    kinds = set(offered(table, GM))

    assert {"place-cover", "set-awareness", "call-check", "pass-enemy"} <= kinds
    assert "remove-cover" not in kinds
    assert not {"place-cover", "set-awareness", "call-check"} & set(offered(table, PLAYER))
    table.send({"type": "place-cover", "cell": [6, 6], "name": "crate"})
    (remove,) = offered(table, GM)["remove-cover"]
    assert remove.params["cells"] == [{"x": 6, "y": 6}]


def test_while_an_opportunity_is_open_the_mover_is_offered_no_turn_actions():
    table = the_mud()
    table.send({"type": "move", "combatant_id": "alice", "to": [2, 7]})

    kinds = set(offered(table, GM))

    assert not kinds & {"move", "attack", "end-turn"}
    (react,) = offered(table, GM)["answer-reaction"]
    assert (react.actor, react.params["options"]) == ("bob", ["attack", "pass"])


# --- phase, summary and narration ---------------------------------------------------------------


def test_the_phase_label_names_the_round_and_whose_turn_it_is():
    table = encounter()
    hex_map(table)
    add(table, "alice", (2, 5), side="pcs")
    add(table, "bob", (3, 5))
    assert RULESET.phase_label(state_of(table)) == "setup"

    start(table, 1, 50)
    assert RULESET.phase_label(state_of(table)) == "round 1: Alice's turn"

    table.send({"type": "end-encounter"})
    assert RULESET.phase_label(state_of(table)) == "ended"


def test_the_summary_names_the_phase_the_round_and_who_acts():
    table = the_mud()

    summary = RULESET.summary(state_of(table), GM)

    assert summary.phase == "round 1: Alice's turn"
    assert summary.round == 1 and summary.acting == ["alice"]
    alice = next(c for c in summary.combatants if c.id == "alice")
    assert alice.health is not None and alice.health.current == 10
    assert alice.position is not None and (alice.position.x, alice.position.y) == (2, 5)


def test_the_summary_shows_the_window_everything_waits_on():
    table = the_mud()
    table.send({"type": "move", "combatant_id": "alice", "to": [2, 7]})

    summary = RULESET.summary(state_of(table), GM)

    (window,) = summary.reaction_windows
    assert window.trigger["kind"] == "opportunity-attack" and list(window.eligible) == ["bob"]
    with pytest.warns(DeprecationWarning, match="eligible"):
        assert window.waiting_for == ["bob"]


def test_every_event_of_the_ruleset_has_its_own_sentence():
    kinds = {model.model_fields["type"].default for model in EVENTS}

    assert kinds <= NARRATION.keys()


def played_fight() -> Table:
    """A short fight at the oil slick, the mire and the brazier: a hit and a failed dodge, a
    fall, a broken crate, a reserved run, a spell that provokes, a break-away, a trip, a risky
    shot that strikes Alice, a surrender, getting stuck, taking cover and a rope."""
    terrain = [
        {"cell": [4, 6], "terrain": {"tags": ["slippery"]}},
        {"cell": [6, 3], "terrain": {"kind": "difficult", "tags": ["mired"]}},
        {"cell": [7, 3], "terrain": {"damage": {"passing": "1d4", "stationary": "1d6"}}},
    ]
    table = encounter()
    hex_map(table, terrain=terrain)
    add(table, "alice", (4, 5), side="pcs", skills={"melee": 60, "athletics": 60})
    add(table, "archer", (0, 5), side="pcs", weapons=[BOW], skills={"ranged": 60})
    add(table, "bob", (5, 5))
    add(table, "charlie", (8, 2))
    start(table, 1, 2, 3, 4)

    def send(command: dict[str, Any], dice: list[int] | None = None) -> None:
        table.send(command, dice=dice)

    def react(cid: str, option: str, dice: list[int] | None = None) -> None:
        answer(table, cid, option, dice=dice)

    send({"type": "place-cover", "cell": [9, 5], "name": "crate", "durability": 2})
    send({"type": "set-awareness", "combatant_id": "charlie", "of": "archer", "aware": False})
    send({"type": "call-check", "combatant_id": "bob", "skill": "agility"}, [30])
    # Round 1.
    send({"type": "attack", "combatant_id": "alice", "target": "bob"}, [40])
    react("bob", "dodge", [60, 3])
    send({"type": "move", "combatant_id": "alice", "to": [4, 6]}, [70])  # falls on the oil
    send({"type": "target-object", "combatant_id": "archer", "cell": [9, 5]}, [20, 5])
    send({"type": "reserve-move", "combatant_id": "archer", "to": [0, 8], "watch": ["bob"]})
    send({"type": "use-skill", "combatant_id": "bob", "skill": "arcana", "description": "a hex"})
    react("alice", "attack", [10, 20])
    react("bob", "pass", [2, 50])
    send({"type": "move", "combatant_id": "bob", "to": [2, 5]})  # sets off the archer's run
    react("archer", "run")
    react("alice", "pass")  # Bob breaks away from Alice
    send({"type": "move", "combatant_id": "charlie", "to": [7, 3]})
    send({"type": "end-turn", "combatant_id": "charlie"}, [3])  # the brazier burns
    # Round 2.
    send({"type": "move", "combatant_id": "alice", "to": [3, 5]})  # stands up first
    send({"type": "maneuver", "combatant_id": "alice", "target": "bob", "maneuver": "trip"}, [30])
    react("bob", "pass")
    send({"type": "wield", "combatant_id": "archer", "weapon": None})
    send({"type": "wield", "combatant_id": "archer", "weapon": "longbow"})
    send(
        {"type": "attack", "combatant_id": "archer", "target": "bob", "into_melee": "risk"},
        [70, 4],
    )
    send({"type": "end-turn", "combatant_id": "archer"})
    send({"type": "surrender", "combatant_id": "bob"})
    send({"type": "move", "combatant_id": "charlie", "to": [6, 3]}, [90])  # stuck in the mire
    send({"type": "move", "combatant_id": "charlie", "to": [5, 3]}, [90])
    # Round 3.
    send({"type": "place-cover", "cell": [3, 4], "name": "barrel"})
    send({"type": "take-cover", "combatant_id": "alice"}, [40])
    send({"type": "remove-cover", "cell": [3, 4]})
    send({"type": "end-turn", "combatant_id": "alice"})
    send({"type": "use-item", "combatant_id": "archer", "item": "rope"})
    send({"type": "end-encounter"})
    return table


def test_a_played_fight_is_narrated_one_sentence_per_event():
    table = played_fight()
    names = namer(state_of(table).table.combatants)

    for envelope in table.envelopes:
        assert envelope.type in NARRATION or envelope.type in COMMON, envelope.type
        line = RULESET.narrate(envelope.type, envelope.data, names)
        assert line and line[0].isupper() and line.endswith("."), (envelope.type, line)
    played = {e.type for e in table.envelopes} & set(NARRATION)
    assert len(played) >= 30, sorted(set(NARRATION) - played)


def test_the_narration_tells_the_story():
    table = played_fight()
    names = namer(state_of(table).table.combatants)

    lines = [RULESET.narrate(e.type, e.data, names) for e in table.envelopes]

    assert "Alice and Bob are in melee." in lines
    assert "Bob gives Alice an opening; everything pauses." in lines
    assert "The shot meant for Bob strikes Alice instead." in lines
    assert "Bob surrenders." in lines
    assert "Bob's move sets off Archer's reserved move." in lines
    assert any(line.startswith("Archer strikes the crate:") for line in lines)


def test_the_narration_reads_as_english():
    names = namer({})

    def said(kind: str, **data: object) -> str:
        return RULESET.narrate(kind, data, names)

    agility = {"skill": "agility", "roll": 30, "target": 50, "difficulty": "normal"}
    check = {"check": {**agility, "success": True}}
    assert said("check-called", combatant_id="bob", **check).startswith("bob makes an agility")
    assert said("wielded", combatant_id="bob", weapon="longbow", dropped=False) == (
        "bob wields the longbow."
    )
    assert said("wielded", combatant_id="bob", weapon=None, dropped=True) == "bob is disarmed."
    trip = {
        "attacker": "alice", "target": "bob", "weapon": "sword", "maneuver": "trip",
        "hit": True, "opportunity": False, "overwatch": False, **check,
    }  # fmt: skip
    assert said("attack-rolled", **trip).startswith("alice tries to trip bob: ")
    moved = {"combatant_id": "bob", "path": [{"x": 0, "y": 0}, {"x": 1, "y": 0}], "cost": 1}
    assert said("moved", reserved=False, **moved) == "bob moves 1 cell to (1, 0) (cost 1)."
