"""freeform §4 Delay: step out of the order, rejoin right after whoever is acting."""

from __future__ import annotations

from tests.rules.freeform.given import (
    BRAMLI,
    add,
    end_turns,
    fight,
    only,
    refused,
    state_of,
    types,
)


def test_delaying_ends_the_turn_and_steps_out_of_the_order():
    table = fight("ash", "birch", "cedar")

    delayed = table.send({"type": "delay"})

    assert types(delayed) == ["turn-delayed", "turn-ended", "turn-started"]
    assert delayed[1].data == {"combatant_id": "ash", "reason": "delayed"}
    assert delayed[2].data["combatant_id"] == "birch"
    assert state_of(table).delayed == ("ash",)


def test_a_delaying_combatant_is_passed_over_until_it_rejoins():
    table = fight("ash", "birch", "cedar")
    table.send({"type": "delay"})

    end_turns(table, 2)

    assert state_of(table).round == 2 and state_of(table).current == "birch"


def test_a_rejoining_combatant_acts_right_after_whoever_is_acting():
    table = fight("ash", "birch", "cedar")
    table.send({"type": "delay"})

    rejoined = table.send({"type": "rejoin", "combatant_id": "ash"})

    assert types(rejoined) == ["delay-ended"]
    assert rejoined[0].data == {"combatant_id": "ash", "after": "birch"}
    assert state_of(table).order == ("birch", "ash", "cedar") and state_of(table).current == "birch"
    resumed = table.send({"type": "end-turn"})
    assert resumed[1].data == {"combatant_id": "ash", "round": 1, "resumed": True}
    assert state_of(table).resuming == ()


def test_a_delayer_may_rejoin_in_a_later_round_and_keeps_its_new_place():
    table = fight("ash", "birch", "cedar")
    table.send({"type": "delay"})
    end_turns(table, 2)  # birch and cedar; round 2 begins with birch

    table.send({"type": "rejoin", "combatant_id": "ash"})
    end_turns(table, 3)  # birch, ash (resumed), cedar

    assert state_of(table).order == ("birch", "ash", "cedar")
    assert state_of(table).round == 3 and state_of(table).current == "birch"


def test_delayers_rejoining_during_the_same_turn_act_in_the_order_they_rejoined():
    table = fight("ash", "birch", "cedar", "dogwood")
    table.send({"type": "delay"})
    table.send({"type": "delay"})

    table.send({"type": "rejoin", "combatant_id": "birch"})
    second = table.send({"type": "rejoin", "combatant_id": "ash"})

    assert second[0].data == {"combatant_id": "ash", "after": "birch"}
    assert state_of(table).order == ("cedar", "birch", "ash", "dogwood")


def test_rejoining_when_nobody_is_acting_takes_up_the_turn_at_once():
    table = fight("ash", "birch")
    table.send({"type": "delay"})
    alone = table.send({"type": "delay"})
    assert types(alone) == ["turn-delayed", "turn-ended"]
    assert state_of(table).current is None

    rejoined = table.send({"type": "rejoin", "combatant_id": "ash"})

    assert types(rejoined) == ["delay-ended", "turn-started"]
    assert rejoined[0].data == {"combatant_id": "ash", "after": None}
    assert rejoined[1].data == {"combatant_id": "ash", "round": 1, "resumed": True}
    assert state_of(table).order == ("ash", "birch")


def test_only_a_delaying_combatant_can_rejoin():
    table = fight("ash", "birch")

    violation = refused(table, {"type": "rejoin", "combatant_id": "birch"})

    assert violation.code == "turn/not-delaying" and violation.rule == "freeform §4"


def test_a_player_rejoins_only_its_own_combatant():
    table = fight("goblin", "bramli", "ash")
    table.send({"type": "delay"})

    violation = refused(table, {"type": "rejoin", "combatant_id": "goblin"}, actor=BRAMLI)

    assert violation.code == "auth/not-your-combatant"


def test_a_player_delays_and_rejoins_its_own_combatant():
    table = fight("bramli", "goblin", "ash")

    table.send({"type": "delay", "combatant_id": "bramli"}, actor=BRAMLI)
    rejoined = table.send({"type": "rejoin", "combatant_id": "bramli"}, actor=BRAMLI)

    assert rejoined[0].data == {"combatant_id": "bramli", "after": "goblin"}


def test_delaying_does_not_count_as_the_end_of_the_turn_for_durations():
    table = fight("ash", "birch")
    table.send(
        {"type": "apply-condition", "combatant_id": "ash", "condition": "dazed", "rounds": 1}
    )

    delayed = table.send({"type": "delay"})
    table.send({"type": "rejoin", "combatant_id": "ash"})
    resumed_end = table.send({"type": "end-turn"}) + table.send({"type": "end-turn"})

    assert only(delayed, "condition-expired") == []
    assert only(resumed_end, "condition-expired") == [{"combatant_id": "ash", "condition": "dazed"}]


def test_a_resumed_turn_does_not_repeat_start_of_turn_durations():
    table = fight("ash", "birch")
    table.send(
        {"type": "apply-condition", "combatant_id": "birch", "condition": "burning", "rounds": 2,
         "ends": "start-of-turn"}
    )  # fmt: skip
    first_start = table.send({"type": "end-turn"})
    table.send({"type": "delay"})  # birch delays; ash's round 2 turn begins
    table.send({"type": "rejoin", "combatant_id": "birch"})

    resumed = table.send({"type": "end-turn"})

    assert only(first_start, "condition-ticked") == [
        {"combatant_id": "birch", "condition": "burning", "rounds_left": 1}
    ]
    assert resumed[-1].data == {"combatant_id": "birch", "round": 2, "resumed": True}
    assert only(resumed, "condition-ticked") + only(resumed, "condition-expired") == []
    assert state_of(table).table.combatants["birch"].conditions[0].rounds == 1


def test_a_delayer_removed_from_the_encounter_leaves_the_delayed_list():
    table = fight("ash", "birch")
    table.send({"type": "delay"})

    table.send({"type": "remove-combatant", "combatant_id": "ash"})

    assert state_of(table).delayed == () and state_of(table).order == ("birch",)


def test_a_newcomer_is_not_delaying():
    table = fight("ash", "birch")
    add(table, "cedar")

    assert refused(table, {"type": "rejoin", "combatant_id": "cedar"}).code == "turn/not-delaying"
