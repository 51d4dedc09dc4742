"""What delvers-deep shows: legal actions with their costs, the summary, narration."""

from __future__ import annotations

from service.domain.context import GM
from service.domain.narration import namer
from service.rules.delvers_deep import RULESET
from service.rules.delvers_deep.events import EVENTS
from service.rules.delvers_deep.state import DelversTrigger
from tests.rules.delvers_deep.given import (
    PLAYER,
    creature,
    duel,
    encounter,
    only,
    pc,
    start,
    state_of,
)


def offered(table, viewer=PLAYER) -> dict[str, list]:
    out: dict[str, list] = {}
    for option in RULESET.legal_actions(table.state, viewer):
        out.setdefault(option.type, []).append(option)
    return out


def test_the_acting_pc_sees_each_action_with_its_cost():
    table = duel()

    actions = offered(table)

    assert [(o.label, o.cost) for o in actions["move"]] == [
        ('Move 4"', {}),
        ('Jog 6"', {"fort": 1}),
        ('Sprint 8"', {"fort": 2}),
    ]
    assert actions["attack"][0].cost == {"fort": 1} and actions["attack"][0].targets == ["foe"]
    assert actions["brace"][0].cost == {"fort": 1}
    assert actions["defend"][0].cost == {"ref": 1}
    assert actions["focus"][0].cost == {"will": 1}
    assert "end-turn" in actions and "pick" not in actions


def test_spent_stances_and_unaffordable_costs_are_not_offered():
    table = duel()
    table.send({"type": "adjust-resource", "combatant_id": "hero", "resource": "fort", "set": 1})
    table.send({"type": "brace", "combatant_id": "hero"}, actor=PLAYER)

    actions = offered(table)

    assert "brace" not in actions and "attack" not in actions
    assert [o.label for o in actions["move"]] == ['Move 4"']


def test_the_gm_sees_pick_in_its_slot_and_fix_order_while_rolling():
    table = encounter()
    pc(table, "hero")
    creature(table, "foe")
    table.send({"type": "start-encounter"}, dice=[2])
    assert "fix-order" in offered(table, GM) and "boost-reflex" in offered(table)
    table.send({"type": "fix-order"})
    table.send({"type": "end-turn", "combatant_id": "hero"}, actor=PLAYER)

    assert offered(table, GM)["pick"][0].targets == ["foe"]
    assert RULESET.summary(table.state).phase == "round 1: GM's slot — choosing who acts"


def test_the_summary_names_the_slot_and_who_acts():
    table = duel()

    summary = RULESET.summary(table.state)

    assert summary.phase == "round 1: PCs' slot — Hero" and summary.acting == ["hero"]
    assert summary.round == 1
    assert summary.combatants[0].pools["fort"].max == 4


def test_every_event_type_has_its_own_sentence():
    table = duel()
    names = namer(table.state.table.combatants)
    samples = {
        "reflex-rolled": {"combatant_id": "hero", "roll": 4},
        "reflex-boosted": {"combatant_id": "hero", "points": 1, "total": 5},
        "order-fixed": {"order": ["hero"]},
        "round-started": {"round": 2},
        "turn-started": {"combatant_ids": ["foe"], "round": 1, "side": "gm"},
        "turn-ended": {"combatant_id": "hero", "reason": "done"},
        "recovered": {"combatant_id": "hero", "fort": 1, "ref": 0, "will": 0, "discarded": 1},
        "moved": {"combatant_id": "hero", "distance": 8, "sprint": 2, "cost": {"fort": 2}},
        "attack-rolled": {
            "attacker": "foe",
            "target": "hero",
            "weapon": "sword",
            "dice": [5],
            "hit_on": 4,
            "hit": True,
            "damage": 3,
            "cost": {"fort": 1},
        },
        "reloaded": {"combatant_id": "hero", "weapon": "bow", "cost": {"fort": 1}},
        "spell-cast": {
            "combatant_id": "hero",
            "spell": "bolt",
            "target": "foe",
            "roll": 4,
            "dc": 4,
            "success": True,
        },
        "improvised": {
            "combatant_id": "hero",
            "description": "leap",
            "roll": 2,
            "dc": 4,
            "success": False,
            "cost": {},
        },
        "interacted": {"combatant_id": "hero", "description": "opens the door"},
        "interaction-answered": {"combatant_id": "foe", "actor": "hero", "participated": True},
        "braced": {"combatant_id": "hero", "dc": 2},
        "defended": {"combatant_id": "hero", "dc": 4},
        "focused": {"combatant_id": "hero", "dc": 3},
        "encouraged": {"combatant_id": "hero", "target": "foe", "dc": 3},
        "check-rolled": {
            "combatant_id": "hero",
            "check": "sanity",
            "roll": 3,
            "dc": 4,
            "success": False,
            "reason": "ghosts",
        },
        "dodged": {
            "combatant_id": "hero",
            "attacker": "foe",
            "weapon": "sword",
            "dice": [4],
            "dc": 3,
        },
        "dodge-failed": {
            "combatant_id": "hero",
            "attacker": "foe",
            "weapon": "sword",
            "dice": [1, 2],
            "dc": 3,
        },
        "reaction-refused": {"combatant_id": "hero", "reaction": "dodge", "reason": "no REF"},
        "damage-taken": {
            "combatant_id": "hero",
            "amount": 3,
            "rolled": 6,
            "source": "club",
            "halved": True,
        },
    }
    kinds = {model.model_fields["type"].default for model in EVENTS}
    assert kinds == set(samples)

    sentences = {kind: RULESET.narrate(kind, data, names) for kind, data in samples.items()}

    assert all(s.endswith(".") and not s.startswith(k.capitalize()) for k, s in sentences.items())
    assert sentences["moved"] == 'Hero sprints 8" for 2 FORT.'
    assert sentences["dodged"] == "Hero dodges Foe's sword: rolled 4 against 3+."
    assert sentences["damage-taken"] == "Hero takes 3 damage from club (halved)."
    assert len(set(sentences.values())) == len(sentences)


def test_players_see_the_start_of_a_fight_through_their_rolls():
    table = encounter()
    pc(table, "hero")
    start(table, 6)

    assert offered(table)["end-turn"][0].actor == "hero"


def test_with_hidden_health_a_player_sees_its_hit_land_but_not_its_damage_anywhere():
    """`hide_enemy_health`: the damage of a blow on a creature is its health, in the
    `attack-rolled`, the dodge window's trigger (event, state and summary) alike."""
    table = duel(hide_enemy_health=True)

    struck = table.send(
        {"type": "attack", "combatant_id": "hero", "weapon": "sword", "target": "foe"},
        actor=PLAYER,
        dice=[6, 3],
    )

    rolled, opened = (e for e in struck if e.type in ("attack-rolled", "reaction-window-opened"))
    shown = RULESET.redact_event(rolled, PLAYER, table.state)
    assert shown["data"]["hit"] is True and shown["data"]["damage"] is None
    assert [r["purpose"] for r in shown["rolls"]] == ["Hero's sword"]
    window = RULESET.redact_event(opened, PLAYER, table.state)["data"]["trigger"]
    assert window["kind"] == "attack" and window["damage"] is None
    state = RULESET.redact_state(table.state, PLAYER)
    assert [w["trigger"]["damage"] for w in state["table"]["windows"].values()] == [None]
    summary = RULESET.summary(table.state, PLAYER)
    assert [w.trigger["damage"] for w in summary.reaction_windows] == [None]
    assert only(struck, "attack-rolled")[0]["damage"] == 3
    assert RULESET.redact_event(rolled, GM, table.state) == rolled.to_dict()
    assert RULESET.summary(table.state, GM).reaction_windows[0].trigger["damage"] == 3
    DelversTrigger.model_validate(opened.data["trigger"])


def test_on_a_map_each_move_lists_the_cells_it_reaches_with_their_cost():
    """delvers-deep 4.1 Movement: 3" for a small PC, 5" jogging; 1 cell = 1", difficult
    terrain costs double, an enemy's cell blocks and no move ends on an occupied cell."""
    table = encounter()
    table.send(
        {"type": "set-map", "map": {"kind": "square", "width": 10, "height": 1, "terrain": [
            {"cell": [2, 0], "terrain": {"kind": "difficult"}}]}}
    )  # fmt: skip
    pc(table, "hero", size="small", position=(0, 0))
    creature(table, "foe", position=(5, 0))
    start(table, 3)

    walk, jog, sprint = offered(table)["move"]

    def cells(option):
        return [((r["cell"]["x"], r["cell"]["y"]), r["cost"]) for r in option.params["reachable"]]

    assert cells(walk) == [((1, 0), 1), ((2, 0), 3)]
    assert cells(jog) == [((1, 0), 1), ((2, 0), 3), ((3, 0), 4), ((4, 0), 5)]
    assert cells(sprint) == cells(jog)  # the foe at (5, 0) blocks the way on
    table.send({"type": "move", "combatant_id": "hero", "to": [4, 0], "sprint": 1}, actor=PLAYER)
    assert state_of(table).table.combatants["hero"].position.x == 4


def test_off_the_map_a_move_lists_no_cells():
    table = duel()

    assert all("reachable" not in o.params for o in offered(table)["move"])
