"""delvers-deep 4.1 Taking a Turn and the Action Phase: recovery, two actions, costs,
once-per-turn stances, reloading, improvising and interacting."""

from __future__ import annotations

import pytest

from service.domain.context import Actor
from tests.rules.delvers_deep.given import (
    PLAYER,
    creature,
    duel,
    encounter,
    only,
    pc,
    pools,
    refused,
    start,
    state_of,
    types,
)

BOW = {
    "name": "crossbow",
    "kind": "ranged",
    "range": 12,
    "damage": "4",
    "loading": True,
    "reload_fort": 1,
}


def tired(**stats) -> object:
    """Hero at FORT 1 of 4, REF 0 of 4, WILL 4 of 4, recovering `recovery` points."""
    table = encounter()
    pc(table, "hero", **stats)
    creature(table, "foe")
    start(table, 3)
    table.send({"type": "adjust-resource", "combatant_id": "hero", "resource": "fort", "set": 1})
    table.send({"type": "adjust-resource", "combatant_id": "hero", "resource": "ref", "set": 0})
    return table


def test_recovery_fills_pools_up_to_their_maximum_and_discards_the_rest():
    table = tired(recovery=4)

    recovered = table.send(
        {"type": "recover", "combatant_id": "hero", "fort": 3, "will": 1}, actor=PLAYER
    )

    assert only(recovered, "recovered") == [
        {"combatant_id": "hero", "fort": 3, "ref": 0, "will": 0, "discarded": 1, "auto": False}
    ]
    assert pools(table, "hero") == {"hp": 10, "fort": 4, "ref": 0, "will": 4}


def test_recovery_cannot_exceed_the_recovery_points():
    table = tired(recovery=2)

    violation = refused(table, {"type": "recover", "combatant_id": "hero", "fort": 3}, actor=PLAYER)

    assert violation.code == "recovery/too-many" and violation.rule.endswith("Recovery Phase")


def test_unallocated_recovery_is_applied_in_order_before_the_first_action():
    table = tired(recovery=5, recovery_order=["ref", "fort"])

    defended = table.send({"type": "defend", "combatant_id": "hero"}, actor=PLAYER)

    assert types(defended)[:3] == ["recovered", "resource-adjusted", "resource-adjusted"]
    assert only(defended, "recovered")[0] == {
        "combatant_id": "hero",
        "fort": 1,
        "ref": 4,
        "will": 0,
        "discarded": 0,
        "auto": True,
    }
    assert pools(table, "hero")["ref"] == 3
    after = refused(table, {"type": "recover", "combatant_id": "hero", "fort": 1}, actor=PLAYER)
    assert after.code == "recovery/too-late"


def test_a_turn_has_two_actions():
    table = duel()
    table.send({"type": "brace", "combatant_id": "hero"}, actor=PLAYER)

    second = table.send({"type": "defend", "combatant_id": "hero"}, actor=PLAYER)

    assert types(second)[-2:] == ["turn-ended", "turn-started"] or "turn-ended" in types(second)
    assert only(second, "turn-ended") == [{"combatant_id": "hero", "reason": "actions-spent"}]


def test_a_third_action_is_refused_while_a_group_mate_still_acts():
    table = encounter(first_side="gm")
    pc(table, "hero")
    creature(table, "gob1", group="goblins")
    creature(table, "gob2", group="goblins")
    start(table, 3)
    table.send({"type": "pick", "combatant_ids": ["gob1", "gob2"]})
    table.send({"type": "brace", "combatant_id": "gob1"})
    table.send({"type": "move", "combatant_id": "gob1"})

    violation = refused(table, {"type": "defend", "combatant_id": "gob1"})

    assert violation.code == "turn/not-your-turn"
    assert state_of(table).current == ("gob2",)


@pytest.mark.parametrize(
    ("action", "code"),
    [
        pytest.param({"type": "brace"}, "actions/once-per-turn", id="brace twice"),
        pytest.param({"type": "defend"}, "actions/once-per-turn", id="defend twice"),
        pytest.param({"type": "focus"}, "actions/once-per-turn", id="focus twice"),
    ],
)
def test_stances_are_once_per_turn(action, code):
    table = duel()
    table.send({**action, "combatant_id": "hero"}, actor=PLAYER)

    violation = refused(table, {**action, "combatant_id": "hero"}, actor=PLAYER)

    assert violation.code == code


def test_the_same_ally_is_encouraged_once_per_turn():
    table = encounter()
    pc(table, "hero")
    pc(table, "ally")
    creature(table, "foe")
    start(table, 6, 1)
    table.send({"type": "encourage", "combatant_id": "hero", "target": "ally"}, actor=PLAYER)

    again = {"type": "encourage", "combatant_id": "hero", "target": "ally"}
    assert refused(table, again, actor=PLAYER).code == "actions/once-per-turn"
    foe = {"type": "encourage", "combatant_id": "hero", "target": "foe"}
    assert refused(table, foe, actor=PLAYER).code == "encourage/not-an-ally"


@pytest.mark.parametrize(
    "command",
    [
        pytest.param({"type": "brace"}, id="brace without FORT"),
        pytest.param({"type": "defend"}, id="defend without REF"),
        pytest.param({"type": "move", "sprint": 2}, id="sprint without 2 FORT"),
        pytest.param(
            {"type": "attack", "weapon": "sword", "target": "foe", "extra": 1},
            id="melee with extra FORT",
        ),
    ],
)
def test_actions_without_the_points_are_refused(command):
    table = tired()
    table.send({"type": "adjust-resource", "combatant_id": "hero", "resource": "fort", "set": 0})

    violation = refused(table, {**command, "combatant_id": "hero"}, actor=PLAYER)

    assert (violation.code == "points/not-enough" and "4.1" in (violation.rule or "")) or (
        violation.rule == "delvers-deep 4.2 Stat Point Economy"
    )


def test_only_the_acting_combatant_acts_and_only_for_its_controller():
    table = encounter()
    pc(table, "hero")
    pc(table, "other")
    start(table, 6, 1)

    assert refused(table, {"type": "brace", "combatant_id": "other"}).code == ("turn/not-your-turn")
    stranger = Actor("p2", "player", frozenset({"other"}))
    assert refused(table, {"type": "brace", "combatant_id": "hero"}, actor=stranger).code == (
        "auth/not-your-combatant"
    )


def test_a_melee_attack_spends_extra_fort_for_damage():
    table = duel()

    struck = table.send(
        {"type": "attack", "combatant_id": "hero", "weapon": "sword", "target": "foe", "extra": 2},
        actor=PLAYER,
        dice=[4, 3],
    )

    rolled = only(struck, "attack-rolled")[0]
    assert (rolled["dice"], rolled["hit"], rolled["damage"], rolled["cost"]) == (
        [4],
        True,
        5,
        {"fort": 3},
    )


def test_a_ranged_attack_spends_extra_ref_on_a_stacked_roll_and_must_be_reloaded():
    table = duel()
    table.send(
        {
            "type": "update-combatant",
            "combatant_id": "hero",
            "stats": {**state_of(table).table.combatants["hero"].stats, "weapons": [BOW]},
        }
    )

    shot = table.send(
        {
            "type": "attack",
            "combatant_id": "hero",
            "weapon": "crossbow",
            "target": "foe",
            "extra": 2,
        },
        actor=PLAYER,
        dice=[1, 2, 5],
    )

    rolled = only(shot, "attack-rolled")[0]
    assert (rolled["dice"], rolled["hit"], rolled["cost"]) == ([1, 2, 5], True, {"ref": 3})
    table.send(
        {"type": "answer-reaction", "window_id": "w1", "combatant_id": "foe", "option": "pass"}
    )
    again = {"type": "attack", "combatant_id": "hero", "weapon": "crossbow", "target": "foe"}
    assert refused(table, again, actor=PLAYER, dice=[6]).code == "attack/not-loaded"
    reloaded = table.send(
        {"type": "reload", "combatant_id": "hero", "weapon": "crossbow"}, actor=PLAYER
    )
    assert only(reloaded, "reloaded") == [
        {"combatant_id": "hero", "weapon": "crossbow", "cost": {"fort": 1}}
    ]


def test_an_improvised_action_pays_the_gms_cost_and_rolls_its_dc():
    table = duel()

    leap = table.send(
        {
            "type": "improvise",
            "combatant_id": "hero",
            "description": "leap the wall",
            "fort": 1,
            "dc": 4,
        },
        actor=PLAYER,
        dice=[3],
    )

    assert only(leap, "improvised") == [
        {
            "combatant_id": "hero",
            "description": "leap the wall",
            "roll": 3,
            "dc": 4,
            "success": False,
            "cost": {"fort": 1},
        }
    ]


def test_interacting_with_a_creature_lets_it_take_part_as_a_reaction():
    table = encounter()
    pc(table, "hero")
    pc(table, "ally")
    start(table, 6, 1)

    thrown = table.send(
        {
            "type": "interact",
            "combatant_id": "hero",
            "description": "throw the key",
            "with": "ally",
        },
        actor=PLAYER,
    )
    window = only(thrown, "reaction-window-opened")[0]
    assert window["eligible"] == {"ally": ["participate", "pass"]}
    caught = table.send(
        {
            "type": "answer-reaction",
            "window_id": window["window_id"],
            "combatant_id": "ally",
            "option": "participate",
        }
    )

    assert only(caught, "interaction-answered") == [
        {"combatant_id": "ally", "actor": "hero", "participated": True}
    ]


def test_a_gm_called_sanity_check_uses_the_improved_dc():
    table = duel()
    table.send({"type": "focus", "combatant_id": "hero"}, actor=PLAYER)

    check = table.send(
        {
            "type": "call-check",
            "combatant_id": "hero",
            "check": "sanity",
            "reason": "the ghost wails",
        },
        dice=[3],
    )

    assert only(check, "check-rolled")[0] == {
        "combatant_id": "hero",
        "check": "sanity",
        "roll": 3,
        "dc": 3,
        "success": True,
        "reason": "the ghost wails",
    }


def test_moving_on_a_map_is_limited_by_speed_and_enemies_block():
    table = encounter()
    table.send({"type": "set-map", "map": {"kind": "square", "width": 10, "height": 1}})
    pc(table, "hero", size="small", position=(0, 0))
    creature(table, "foe", position=(9, 0))
    start(table, 3)

    assert (
        refused(table, {"type": "move", "combatant_id": "hero", "to": [4, 0]}, actor=PLAYER).code
        == "move/too-far"
    )
    jogged = table.send(
        {"type": "move", "combatant_id": "hero", "to": [5, 0], "sprint": 1}, actor=PLAYER
    )
    assert only(jogged, "moved")[0]["distance"] == 5
    assert state_of(table).table.combatants["hero"].position.x == 5


def test_a_turn_ended_without_an_action_still_recovers():
    table = encounter()
    pc(table, "hero", fort=4, recovery=2)
    creature(table, "orc")
    start(table, 4)
    table.send({"type": "defend", "combatant_id": "hero"}, actor=PLAYER)
    table.send({"type": "brace", "combatant_id": "hero"}, actor=PLAYER)
    table.send({"type": "pick", "combatant_ids": ["orc"]})
    table.send({"type": "end-turn", "combatant_id": "orc"})
    assert state_of(table).current == ("hero",)

    ended = table.send({"type": "end-turn", "combatant_id": "hero"}, actor=PLAYER)

    assert types(ended)[0] == "recovered" and types(ended).index("turn-ended") > 0
    recovered = only(ended, "recovered")[0]
    assert recovered["auto"] and (recovered["fort"], recovered["ref"]) == (1, 1)
    assert pools(table, "hero")["fort"] == 4 and pools(table, "hero")["ref"] == 4


def test_any_ruleset_takes_a_plain_roll_for_what_the_rules_leave_to_the_table():
    table = encounter()
    pc(table, "hero")
    creature(table, "orc")
    start(table, 4)

    rolled = table.send(
        {"type": "roll", "expression": "2d6", "purpose": "contested FORT", "combatant_id": "hero"},
        actor=PLAYER,
        dice=[3, 5],
    )

    assert only(rolled, "dice-rolled")[0]["total"] == 8
    assert state_of(table).turns["hero"].actions_used == 0  # a roll is not an action
