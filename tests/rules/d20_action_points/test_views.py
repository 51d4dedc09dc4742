"""What d20-action-points shows: legal actions with their action point costs, the summary's
phase, round and who acts, and a sentence for every event."""

from __future__ import annotations

from typing import Any

from service.domain.context import GM, Actor
from service.domain.narration import namer
from service.domain.views import ActionOption
from service.rules.d20_action_points import RULESET
from service.rules.d20_action_points.events import EVENTS
from service.rules.d20_action_points.views import NARRATION
from tests.rules.d20_action_points.given import (
    PLAYER,
    act,
    duel,
    encounter,
    initiative,
    monster,
    pc,
    refused,
    start,
    state_of,
)
from tests.rules.harness import Table

OBSERVER = Actor("watcher", "observer")


def offered(table: Table, viewer: Actor = PLAYER) -> dict[str, list[ActionOption]]:
    options: dict[str, list[ActionOption]] = {}
    for option in RULESET.legal_actions(state_of(table), viewer):
        options.setdefault(option.type, []).append(option)
    return options


def labels(table: Table, viewer: Actor = PLAYER) -> dict[str, dict[str, Any]]:
    return {o.label: o.cost or {} for group in offered(table, viewer).values() for o in group}


def test_the_turns_actions_are_offered_with_their_action_point_costs():
    table = duel()

    costs = labels(table)

    assert costs["Move 30 feet"] == {"ap": 2}
    assert costs["Run 60 feet"] == {"ap": 5}
    assert costs["Attack with the longsword"] == {"ap": 3}
    assert costs["Charge!"] == {"ap": 5}
    assert costs["Drop prone"] == {"ap": 0}
    assert costs["Ready an action"] == {"ap": 3}
    assert offered(table)["attack"][0].targets == ["foe"]


def test_an_action_the_points_left_cannot_pay_for_is_not_offered():
    table = duel()
    act(table, {"type": "attack", "combatant_id": "hero", "target": "foe"}, dice=[2])

    costs = labels(table)

    assert "Move 30 feet" in costs
    assert "Attack with the longsword" not in costs
    assert "Run 60 feet" not in costs
    assert "Delay: act later this round" not in costs


def test_without_action_points_the_cost_is_the_turns_action():
    table = duel(action_points=False)

    assert labels(table)["Attack with the longsword"] == {"action": 1}
    assert labels(table)["Drop prone"] == {}
    act(table, {"type": "attack", "combatant_id": "hero", "target": "foe"}, dice=[2])
    assert "Move 30 feet" not in labels(table)
    assert "Drop prone" in labels(table)


def test_a_prone_combatant_is_offered_standing_and_crawling_not_moving():
    table = duel()
    act(table, {"type": "drop-prone", "combatant_id": "hero"})

    costs = labels(table)

    assert costs["Stand up"] == {"ap": 2} and costs["Crawl 5 feet"] == {"ap": 2}
    assert "Move 30 feet" not in costs and "Charge!" not in costs


def test_a_grappled_combatant_is_offered_only_breaking_free_and_free_actions():
    table = encounter()
    pc(table, "hero", weapons=[])
    monster(table, "foe", strength=3)
    start(table)
    initiative(table, 5, 15)
    act(table, {"type": "drop-item", "combatant_id": "foe"})
    act(table, {"type": "grapple", "combatant_id": "foe", "target": "hero"}, dice=[15, 2])
    act(table, {"type": "end-turn", "combatant_id": "foe"})

    kinds = set(offered(table))

    assert {"break-free", "talk", "end-turn"} <= kinds
    assert not kinds & {"attack", "move", "charge", "delay", "ready", "cast-spell"}


def test_players_see_only_their_own_turns_actions_and_observers_none():
    table = encounter()
    pc(table, "hero")
    monster(table, "foe")
    start(table)
    initiative(table, 5, 15)

    assert "attack" in offered(table, GM)
    assert "attack" not in offered(table, PLAYER)
    assert offered(table, OBSERVER) == {}


def test_before_combat_the_gm_is_offered_the_surprise_check_and_the_party_its_approach():
    table = encounter()
    pc(table, "hero", wisdom=3)
    monster(table, "foe")
    table.send({"type": "start-encounter"})

    assert "surprise-check" in offered(table, GM)
    table.send({"type": "surprise-check"}, dice=[2])
    assert "choose-approach" in offered(table, PLAYER)
    assert "surprise-check" not in offered(table, GM)


def test_the_summary_names_the_phase_the_round_and_who_acts():
    table = duel()

    summary = RULESET.summary(state_of(table), GM)

    assert summary.phase == "round 1: Hero's turn"
    assert summary.round == 1
    assert summary.acting == ["hero"]
    hero = next(c for c in summary.combatants if c.id == "hero")
    assert hero.health is not None and hero.health.current == 12


def test_every_event_of_the_ruleset_has_its_own_sentence():
    kinds = {model.model_fields["type"].default for model in EVENTS}

    assert kinds <= NARRATION.keys()


def test_a_fight_is_narrated_one_sentence_per_event():
    table = duel()
    act(table, {"type": "attack", "combatant_id": "hero", "target": "foe"}, dice=[14, 5, 3])
    names = namer(state_of(table).table.combatants)

    lines = [RULESET.narrate(e.type, e.data, names) for e in table.envelopes[1:]]

    assert "Hero attacks Foe with the longsword: d20 14 +2 = 16 against AC 12, a hit for 7." in (
        lines
    )
    assert "Foe checks morale: d20 3 +0 = 3 against DC 20: broken!" in lines
    assert all(line.endswith((".", "!", "\u201d")) for line in lines)


def test_in_mud_legal_actions_offer_the_move_and_run_the_mud_allows():
    # issue 27: mud costs 10 feet (Environment Modifiers), so a speed-30 hero moves 20, runs 40.
    table = duel()
    table.send({"type": "set-environment", "combatant_id": "hero", "circumstances": ["mud"]})

    moves = {o.label: o.params for o in offered(table)["move"]}
    charge = offered(table)["charge"][0]

    assert moves == {
        "Move 20 feet": {"run": False, "max_feet": 20},
        "Run 40 feet": {"run": True, "max_feet": 40},
    }
    assert charge.params == {"max_feet": 40}
    walk = {"type": "move", "combatant_id": "hero", "feet": moves["Move 20 feet"]["max_feet"]}
    assert act(table, walk)[-1].data["allowed"] == 20


def on_a_row(terrain: list[dict[str, Any]] | None = None) -> Table:
    """A 10 by 3 map, the hero (speed 30) at (0, 1), the foe at (9, 1); the hero's turn."""
    table = encounter()
    table.send({"type": "set-map", "map": {"kind": "square", "width": 10, "height": 3,
                                           "terrain": terrain or []}})  # fmt: skip
    pc(table, "hero", speed=30, position=(0, 1))
    monster(table, "foe", position=(9, 1))
    start(table)
    initiative(table, 15, 5)
    return table


def reached(option: ActionOption) -> dict[tuple[int, int], int]:
    return {(r["cell"]["x"], r["cell"]["y"]): r["cost"] for r in option.params["reachable"]}


def test_on_a_map_the_move_and_the_run_list_the_cells_they_reach():
    # A move of 30 feet goes 6 cells, a run 12 (5 feet a cell), never onto the foe's cell.
    table = on_a_row()

    walk, run = (reached(o) for o in offered(table)["move"])

    assert walk[(6, 1)] == 6 and (7, 1) not in walk
    assert run[(8, 1)] == 8 and (9, 1) not in run and (0, 1) not in run
    assert act(table, {"type": "move", "combatant_id": "hero", "to": [6, 1]})[-1].data["feet"] == 30


def test_mud_on_the_way_takes_its_10_feet_off_the_cells_listed():
    # Environment Modifiers: a path across the mud column at x = 1 costs 10 feet, so the
    # move's 30 feet end at x = 4, as the move itself allows (test_examples: mud on a map).
    mud = [{"cell": [1, y], "terrain": {"tags": ["mud"]}} for y in range(3)]
    table = on_a_row(mud)

    walk = reached(offered(table)["move"][0])

    assert walk[(4, 1)] == 4 and (5, 1) not in walk
    assert walk[(1, 1)] == 1
    error = refused(table, {"type": "move", "combatant_id": "hero", "to": [5, 1]})
    assert error.code == "move/too-far"


def test_mud_off_the_way_takes_nothing_off():
    # The straight path to (6, 1) passes beside the mud at (1, 2), not through it.
    table = on_a_row([{"cell": [1, 2], "terrain": {"tags": ["mud"]}}])

    walk = reached(offered(table)["move"][0])

    assert walk[(6, 1)] == 6
    assert act(table, {"type": "move", "combatant_id": "hero", "to": [6, 1]})[-1].data["feet"] == 30


def test_a_prone_combatants_crawl_offers_its_five_feet_as_data():
    table = duel()
    act(table, {"type": "drop-prone", "combatant_id": "hero"})

    assert offered(table)["crawl"][0].params == {"max_feet": 5}
