"""freeform §3 Turns and rounds: the order, ending turns, new rounds, leaving the fight."""

from __future__ import annotations

import pytest

from service.domain.context import GM
from service.rules.freeform import RULESET
from tests.rules.freeform.given import (
    BRAMLI,
    add,
    encounter,
    end_turns,
    fight,
    only,
    refused,
    set_initiative,
    state_of,
    types,
)


def test_starting_begins_round_one_with_the_highest_initiative():
    table = fight("ash", "birch", start=False)

    started = table.send({"type": "start-encounter"})

    assert types(started) == ["encounter-started", "round-started", "turn-started"]
    assert started[2].data == {"combatant_id": "ash", "round": 1, "resumed": False}
    assert state_of(table).current == "ash" and state_of(table).round == 1


def test_ending_a_turn_starts_the_next_in_the_order():
    table = fight("ash", "birch", "cedar")

    ended = table.send({"type": "end-turn"})

    assert types(ended) == ["turn-ended", "turn-started"]
    assert ended[0].data == {"combatant_id": "ash", "reason": "done"}
    assert ended[1].data["combatant_id"] == "birch" and ended[1].data["round"] == 1


def test_a_new_round_begins_when_the_order_wraps():
    table = fight("ash", "birch")
    table.send({"type": "end-turn"})

    wrapped = table.send({"type": "end-turn"})

    assert types(wrapped) == ["turn-ended", "round-started", "turn-started"]
    assert wrapped[1].data == {"round": 2}
    assert wrapped[2].data["combatant_id"] == "ash" and wrapped[2].data["round"] == 2


def test_a_lone_combatant_takes_every_turn_a_round_apart():
    table = fight("ash")

    again = table.send({"type": "end-turn"})

    assert types(again) == ["turn-ended", "round-started", "turn-started"]
    assert state_of(table).current == "ash" and state_of(table).round == 2


def test_three_rounds_of_play_with_delay_a_condition_and_a_fallen_foe():
    table = fight("ash", "bramli", "cedar")
    steps = [
        (GM, {"type": "end-turn"}),
        (BRAMLI, {"type": "end-turn", "combatant_id": "bramli"}),
        (GM, {"type": "apply-condition", "combatant_id": "ash", "condition": "slowed",
              "rounds": 2}),
        (GM, {"type": "end-turn"}),
        # round 2: ash delays, cedar falls, ash comes back in after Bramli
        (GM, {"type": "delay"}),
        (GM, {"type": "adjust-resource", "combatant_id": "cedar", "delta": -10}),
        (GM, {"type": "rejoin", "combatant_id": "ash"}),
        (BRAMLI, {"type": "end-turn"}),
        (GM, {"type": "end-turn"}),
        # round 3: cedar is down and skipped
        (BRAMLI, {"type": "end-turn"}),
        (GM, {"type": "end-turn"}),
    ]  # fmt: skip
    log = []
    for actor, command in steps:
        log += table.send(command, actor=actor)

    turns = [(d["round"], d["combatant_id"], d["resumed"]) for d in only(log, "turn-started")]
    assert turns == [
        (1, "bramli", False), (1, "cedar", False),
        (2, "ash", False), (2, "bramli", False), (2, "ash", True),
        (3, "bramli", False), (3, "ash", False),
        (4, "bramli", False),
    ]  # fmt: skip
    assert only(log, "round-started") == [{"round": 2}, {"round": 3}, {"round": 4}]
    assert only(log, "condition-ticked") == [
        {"combatant_id": "ash", "condition": "slowed", "rounds_left": 1}
    ]
    assert only(log, "condition-expired") == [{"combatant_id": "ash", "condition": "slowed"}]
    assert state_of(table).order == ("bramli", "ash", "cedar")
    assert table.replayed() == table.state


def test_a_turn_can_only_be_ended_by_naming_the_current_combatant():
    table = fight("ash", "birch")

    violation = refused(table, {"type": "end-turn", "combatant_id": "birch"})

    assert violation.code == "turn/not-your-turn" and violation.rule == "freeform §3"


def test_nobody_has_a_turn_before_the_start():
    table = fight("ash", start=False)

    violation = refused(table, {"type": "end-turn"})

    assert violation.code == "turn/no-turn" and violation.rule == "freeform §3"


def test_a_player_ends_its_own_combatants_turn():
    table = fight("bramli", "goblin")

    ended = table.send({"type": "end-turn"}, actor=BRAMLI)

    assert ended[0].data["combatant_id"] == "bramli" and ended[0].actor["role"] == "player"


@pytest.mark.parametrize(
    ("command", "code"),
    [
        pytest.param({"type": "end-turn"}, "auth/not-your-combatant",
                     id="end the goblin's turn"),
        pytest.param({"type": "end-turn", "combatant_id": "bramli"}, "turn/not-your-turn",
                     id="end its own turn out of turn"),
        pytest.param({"type": "delay"}, "auth/not-your-combatant", id="delay for the goblin"),
        pytest.param({"type": "ready", "action": "hit", "trigger": "it moves"},
                     "auth/not-your-combatant", id="ready for the goblin"),
    ],
)  # fmt: skip
def test_a_player_may_not_act_on_anothers_turn(command, code):
    table = fight("goblin", "bramli")

    assert refused(table, command, actor=BRAMLI).code == code


def test_the_gm_may_end_anyones_turn():
    table = fight("bramli", "goblin")

    ended = table.send({"type": "end-turn", "combatant_id": "bramli"}, actor=GM)

    assert ended[0].data["combatant_id"] == "bramli"


@pytest.mark.parametrize(
    "command",
    [
        pytest.param({"type": "end-turn"}, id="end a turn"),
        pytest.param({"type": "roll", "expression": "1d6"}, id="roll dice"),
        pytest.param({"type": "roll-initiative", "reroll": True}, id="roll initiative"),
        pytest.param({"type": "adjust-resource", "combatant_id": "ash", "delta": -1},
                     id="adjust hit points"),
    ],
)  # fmt: skip
def test_nothing_more_happens_once_the_encounter_has_ended(command):
    table = fight("ash", "birch")
    table.send({"type": "end-encounter", "reason": "they fled"})

    violation = refused(table, command, dice=[1, 1])

    assert violation.code == "encounter/ended"


def test_ending_the_encounter_reveals_the_seed_and_ends_the_turn():
    table = fight("ash", "birch")

    ended = table.send({"type": "end-encounter", "reason": "they fled"})

    assert types(ended) == ["encounter-ended"]
    assert ended[0].data == {"reason": "they fled", "seed": table.seed.hex()}
    assert state_of(table).current is None and state_of(table).table.phase == "ended"


@pytest.mark.parametrize(
    ("setup", "code"),
    [
        pytest.param("started", "encounter/already-started", id="start twice"),
        pytest.param("empty", "encounter/no-combatants", id="start with nobody"),
    ],
)
def test_an_encounter_starts_once_and_not_empty(setup, code):
    table = fight("ash") if setup == "started" else encounter()

    assert refused(table, {"type": "start-encounter"}).code == code


def test_removing_the_current_combatant_hands_the_turn_on():
    table = fight("ash", "birch", "cedar")

    removed = table.send({"type": "remove-combatant", "combatant_id": "ash"})

    assert types(removed) == ["turn-ended", "turn-started", "combatant-removed"]
    assert removed[0].data == {"combatant_id": "ash", "reason": "removed"}
    assert state_of(table).current == "birch" and state_of(table).order == ("birch", "cedar")


def test_removing_the_last_in_the_order_on_its_turn_starts_the_next_round():
    table = fight("ash", "birch")
    table.send({"type": "end-turn"})

    removed = table.send({"type": "remove-combatant", "combatant_id": "birch"})

    assert types(removed) == ["turn-ended", "round-started", "turn-started", "combatant-removed"]
    assert state_of(table).current == "ash" and state_of(table).round == 2


def test_removing_the_only_combatant_who_could_act_leaves_nobody_acting():
    table = fight("ash", "birch")
    table.send({"type": "adjust-resource", "combatant_id": "birch", "delta": -10})

    removed = table.send({"type": "remove-combatant", "combatant_id": "ash"})

    assert types(removed) == ["turn-ended", "combatant-removed"]
    assert state_of(table).current is None and "ash" not in state_of(table).table.combatants


def test_removing_someone_else_keeps_the_turn():
    table = fight("ash", "birch", "cedar")

    removed = table.send({"type": "remove-combatant", "combatant_id": "birch"})

    assert types(removed) == ["combatant-removed"]
    assert state_of(table).current == "ash" and state_of(table).order == ("ash", "cedar")


def test_only_the_gm_removes_combatants():
    table = fight("bramli", "goblin")

    violation = refused(table, {"type": "remove-combatant", "combatant_id": "bramli"}, actor=BRAMLI)

    assert violation.code == "auth/gm-only"


def test_the_summary_names_the_round_whose_turn_it_is_and_who_acts():
    table = fight("ash", "birch")
    table.send({"type": "end-turn"})
    state = state_of(table)

    assert RULESET.phase_label(state) == "round 1: Birch's turn"
    assert RULESET.acting(state) == ["birch"] and RULESET.round(state) == 1
    summary = RULESET.summary(state, GM, table.version)
    assert summary.round == 1 and summary.acting == ["birch"]


def test_before_the_start_the_phase_is_setup_and_nobody_acts():
    table = encounter()
    add(table, "ash")
    set_initiative(table, "ash", 5)

    assert RULESET.phase_label(state_of(table)) == "setup"
    assert RULESET.acting(state_of(table)) == [] and RULESET.round(state_of(table)) == 0


def test_turns_carry_on_round_after_round():
    table = fight("ash", "birch", "cedar")

    end_turns(table, 3 * 5)

    assert state_of(table).round == 6 and state_of(table).current == "ash"


def test_freeform_commands_after_the_end_cite_the_turn_rules():
    table = fight("ash")
    table.send({"type": "end-encounter"})

    violation = refused(table, {"type": "delay"})

    assert violation.code == "encounter/ended" and violation.rule == "freeform §3"
