"""freeform §5 Ready: hold an action for a trigger; it fires before the current actor."""

from __future__ import annotations

import pytest

from service.domain.context import SYSTEM
from tests.rules.freeform.given import (
    BRAMLI,
    end_turns,
    fight,
    only,
    refused,
    state_of,
    types,
)

SHOOT = {"type": "ready", "action": "shoot", "trigger": "a goblin comes through the door"}


def test_readying_holds_the_action_and_ends_the_turn():
    table = fight("ash", "birch")

    ready = table.send(SHOOT)

    assert types(ready) == ["action-readied", "turn-ended", "turn-started"]
    assert ready[0].data == {
        "combatant_id": "ash", "action": "shoot", "trigger": "a goblin comes through the door",
    }  # fmt: skip
    assert ready[1].data == {"combatant_id": "ash", "reason": "readied"}
    assert state_of(table).readied["ash"].action == "shoot"


def test_readying_ends_the_turn_for_durations_too():
    table = fight("ash", "birch")
    table.send(
        {"type": "apply-condition", "combatant_id": "ash", "condition": "hasted", "rounds": 1}
    )

    ready = table.send(SHOOT)

    assert only(ready, "condition-expired") == [{"combatant_id": "ash", "condition": "hasted"}]


def test_a_triggered_readier_acts_and_moves_to_just_before_the_current_actor():
    table = fight("ash", "birch", "cedar")
    end_turns(table, 2)
    table.send(SHOOT)  # cedar readies; round 2 begins with ash

    fired = table.send({"type": "trigger-ready", "combatant_id": "cedar"})

    assert types(fired) == ["readied-action-triggered"]
    assert fired[0].data == {"combatant_id": "cedar", "action": "shoot", "before": "ash"}
    assert state_of(table).order == ("cedar", "ash", "birch")
    assert state_of(table).current == "ash" and state_of(table).readied == {}


def test_a_triggered_readier_does_not_act_again_until_its_new_place_comes_round():
    table = fight("ash", "birch", "cedar")
    end_turns(table, 2)
    table.send(SHOOT)
    table.send({"type": "trigger-ready", "combatant_id": "cedar"})

    after = table.send({"type": "end-turn"}) + table.send({"type": "end-turn"})

    turns = [(d["round"], d["combatant_id"]) for d in only(after, "turn-started")]
    assert turns == [(2, "birch"), (3, "cedar")]


def test_an_unused_readied_action_lapses_when_the_readiers_next_turn_starts():
    table = fight("ash", "birch")
    table.send(SHOOT)

    lapsed = table.send({"type": "end-turn"})

    assert types(lapsed) == [
        "turn-ended", "round-started", "turn-started", "readied-action-lapsed",
    ]  # fmt: skip
    assert lapsed[-1].data == {"combatant_id": "ash"} and state_of(table).readied == {}


def test_only_a_readied_action_can_be_triggered():
    table = fight("ash", "birch")

    violation = refused(table, {"type": "trigger-ready", "combatant_id": "birch"})

    assert violation.code == "turn/nothing-readied" and violation.rule == "freeform §5"


def test_a_player_triggers_its_own_readied_action_and_no_one_elses():
    table = fight("bramli", "goblin", "ash")
    table.send(SHOOT, actor=BRAMLI)
    table.send(SHOOT)

    fired = table.send({"type": "trigger-ready", "combatant_id": "bramli"}, actor=BRAMLI)
    violation = refused(table, {"type": "trigger-ready", "combatant_id": "goblin"}, actor=BRAMLI)

    assert fired[0].data["combatant_id"] == "bramli"
    assert violation.code == "auth/not-your-combatant"


def test_calling_for_readied_actions_opens_a_window_for_every_holder():
    table = fight("ash", "birch", "cedar")
    table.send(SHOOT)
    table.send(SHOOT)

    called = table.send({"type": "call-for-readied", "trigger": "the door opens"})

    assert types(called) == ["reaction-window-opened"]
    assert called[0].data == {
        "window_id": "w1",
        "trigger": {"kind": "readied", "text": "the door opens"},
        "eligible": {"ash": ["act", "pass"], "birch": ["act", "pass"]},
        "order": ["ash", "birch"],
        "deadline": "2026-01-01T12:00:30.000Z",
    }


def test_reaction_policies_answer_at_once_and_a_fully_answered_window_resolves():
    table = fight("ash", "birch", "cedar")
    table.send(SHOOT)
    table.send(SHOOT)
    for holder, option in (("ash", "act"), ("birch", "pass")):
        table.send(
            {"type": "set-reaction-policy", "combatant_id": holder,
             "policies": [{"option": option}]}
        )  # fmt: skip

    called = table.send({"type": "call-for-readied", "trigger": "the door opens"})

    assert types(called) == [
        "reaction-window-opened", "reaction-answered", "reaction-answered",
        "reaction-window-closed", "readied-action-triggered",
    ]  # fmt: skip
    answers = [
        (d["combatant_id"], d["option"], d["by_policy"]) for d in only(called, "reaction-answered")
    ]
    assert answers == [("ash", "act", True), ("birch", "pass", True)]
    assert only(called, "reaction-window-closed") == [
        {
            "window_id": "w1",
            "reason": "all-answered",
            "trigger": {"kind": "readied", "text": "the door opens"},
            "reactions": [["ash", "act"]],
        }
    ]
    assert only(called, "readied-action-triggered") == [
        {"combatant_id": "ash", "action": "shoot", "before": "cedar"}
    ]
    assert list(state_of(table).readied) == ["birch"]


def test_a_policy_for_another_kind_of_trigger_does_not_answer():
    table = fight("ash", "birch")
    table.send(SHOOT)
    table.send(
        {"type": "set-reaction-policy", "combatant_id": "ash",
         "policies": [{"option": "act", "trigger": "attack"}]}
    )  # fmt: skip

    called = table.send({"type": "call-for-readied", "trigger": "the door opens"})

    assert types(called) == ["reaction-window-opened"]


def test_the_last_answer_closes_the_window_and_fires_the_readied_actions():
    table = fight("bramli", "goblin", "ash")
    table.send(SHOOT, actor=BRAMLI)
    table.send(SHOOT)
    table.send({"type": "call-for-readied", "trigger": "the door opens"})
    table.send({"type": "answer-reaction", "window_id": "w1", "combatant_id": "goblin",
                "option": "act"})  # fmt: skip

    last = table.send(
        {"type": "answer-reaction", "window_id": "w1", "combatant_id": "bramli", "option": "act"},
        actor=BRAMLI,
    )

    assert types(last) == [
        "reaction-answered", "reaction-window-closed", "readied-action-triggered",
        "readied-action-triggered",
    ]  # fmt: skip
    assert [d["combatant_id"] for d in only(last, "readied-action-triggered")] == [
        "bramli", "goblin",
    ]  # fmt: skip
    assert state_of(table).order == ("bramli", "goblin", "ash")


def test_at_the_deadline_only_those_who_answered_act_fire():
    table = fight("ash", "birch", "cedar")
    table.send(SHOOT)
    table.send(SHOOT)
    table.send({"type": "call-for-readied", "trigger": "the door opens"})
    table.send({"type": "answer-reaction", "window_id": "w1", "combatant_id": "birch",
                "option": "act"})  # fmt: skip

    closed = table.send({"type": "close-reaction-window", "window_id": "w1"}, actor=SYSTEM)

    assert types(closed) == ["reaction-window-closed", "readied-action-triggered"]
    assert closed[0].data["reason"] == "deadline"
    assert list(state_of(table).readied) == ["ash"]


def test_a_window_with_no_time_closes_at_once_when_nobody_has_a_policy():
    table = fight("ash", "birch", reaction_window=0)
    table.send(SHOOT)

    called = table.send({"type": "call-for-readied", "trigger": "the door opens"})

    assert types(called) == ["reaction-window-opened", "reaction-window-closed"]
    assert called[1].data == {
        "window_id": "w1",
        "reason": "deadline",
        "trigger": {"kind": "readied", "text": "the door opens"},
        "reactions": [],
    }


def test_a_readied_action_that_lapsed_while_the_window_was_open_does_not_fire():
    table = fight("ash", "birch")
    table.send(SHOOT)
    table.send({"type": "call-for-readied", "trigger": "the door opens"})
    table.send({"type": "end-turn"})  # ash's next turn: the readied action lapses

    answered = table.send(
        {"type": "answer-reaction", "window_id": "w1", "combatant_id": "ash", "option": "act"}
    )

    assert types(answered) == ["reaction-answered", "reaction-window-closed"]


def test_ending_the_encounter_closes_the_window_without_firing_anything():
    table = fight("ash", "birch", "cedar")
    table.send(SHOOT)
    table.send(SHOOT)
    table.send({"type": "call-for-readied", "trigger": "the door opens"})
    table.send({"type": "answer-reaction", "window_id": "w1", "combatant_id": "ash",
                "option": "act"})  # fmt: skip

    ended = table.send({"type": "end-encounter"})

    assert types(ended) == ["reaction-window-closed", "encounter-ended"]


@pytest.mark.parametrize(
    ("holders", "actor", "code"),
    [
        pytest.param(("ash",), BRAMLI, "auth/gm-only", id="a player calls for readied actions"),
        pytest.param((), None, "turn/nothing-readied", id="nobody holds a readied action"),
    ],
)
def test_calling_for_readied_actions_is_for_the_gm_and_needs_a_holder(holders, actor, code):
    table = fight("ash", "birch")
    if holders:
        table.send(SHOOT)
    command = {"type": "call-for-readied", "trigger": "the door opens"}

    violation = refused(table, command, actor=actor) if actor else refused(table, command)

    assert violation.code == code


def test_a_lone_readier_sees_its_readied_action_lapse_as_its_next_turn_starts():
    table = fight("ash")

    ready = table.send(SHOOT)

    assert types(ready) == [
        "action-readied", "turn-ended", "round-started", "turn-started", "readied-action-lapsed",
    ]  # fmt: skip
    assert state_of(table).current == "ash" and state_of(table).readied == {}


def test_a_stream_with_a_reaction_policy_folds_back():
    table = fight("ash", "birch")

    table.send(
        {"type": "set-reaction-policy", "combatant_id": "ash", "policies": [{"option": "act"}]}
    )

    assert table.replayed() == table.state
