"""freeform §6 Conditions with durations: rounds counted on the anchor's turns."""

from __future__ import annotations

from typing import Any

import pytest

from service.domain.errors import InvalidCommand
from tests.rules.freeform.given import BRAMLI, fight, only, refused, state_of, types
from tests.rules.harness import Table


def expiry(table: Table, condition: str, turns: int = 12) -> str:
    """End turns until `condition` runs out; say at which moment of whose turn it did."""
    round_number = state_of(table).round
    for _ in range(turns):
        moment = None
        for envelope in table.send({"type": "end-turn"}):
            if envelope.type == "turn-started":
                round_number = envelope.data["round"]
                moment = f"start of {envelope.data['combatant_id']}'s turn in round {round_number}"
            elif envelope.type == "turn-ended":
                moment = f"end of {envelope.data['combatant_id']}'s turn in round {round_number}"
            elif envelope.type == "condition-expired" and envelope.data["condition"] == condition:
                assert moment is not None
                return moment
    return "never"


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        pytest.param({"combatant_id": "ash", "rounds": 1}, "end of ash's turn in round 1",
                     id="on the acting combatant: this turn counts"),
        pytest.param({"combatant_id": "ash", "rounds": 2}, "end of ash's turn in round 2",
                     id="two rounds on the acting combatant"),
        pytest.param({"combatant_id": "ash", "rounds": 1, "ends": "start-of-turn"},
                     "start of ash's turn in round 2", id="until the start of its next turn"),
        pytest.param({"combatant_id": "birch", "rounds": 1}, "end of birch's turn in round 1",
                     id="on a combatant yet to act"),
        pytest.param({"combatant_id": "birch", "rounds": 1, "ends": "start-of-turn"},
                     "start of birch's turn in round 1", id="ends as its next turn starts"),
        pytest.param({"combatant_id": "birch", "rounds": 1, "anchor": "ash"},
                     "end of ash's turn in round 1", id="anchored on the caster's turn"),
        pytest.param({"combatant_id": "birch", "rounds": 2, "ends": "start-of-turn",
                      "anchor": "ash"},
                     "start of ash's turn in round 3", id="two rounds from the caster's start"),
        pytest.param({"combatant_id": "birch"}, "never", id="without rounds it lasts"),
    ],
)  # fmt: skip
def test_a_duration_runs_out_on_the_right_turn(condition: dict[str, Any], expected: str):
    table = fight("ash", "birch")  # during ash's turn in round 1
    table.send({"type": "apply-condition", "condition": "hexed", **condition})

    assert expiry(table, "hexed") == expected


def test_applying_a_condition_records_its_duration():
    table = fight("ash", "birch")

    applied = table.send(
        {"type": "apply-condition", "combatant_id": "birch", "condition": "stunned", "rounds": 2,
         "ends": "start-of-turn", "anchor": "ash", "source": "ash", "note": "failed a save"}
    )  # fmt: skip

    assert types(applied) == ["condition-applied"]
    assert applied[0].data == {
        "combatant_id": "birch", "condition": "stunned", "rounds": 2, "ends": "start-of-turn",
        "anchor": "ash", "source": "ash", "note": "failed a save", "gm_override": True,
    }  # fmt: skip


def test_each_anchor_turn_ticks_a_round_off():
    table = fight("ash", "birch")
    table.send(
        {"type": "apply-condition", "combatant_id": "birch", "condition": "blessed", "rounds": 3}
    )

    ticks = table.send({"type": "end-turn"}) + table.send({"type": "end-turn"})

    assert types(ticks) == [
        "turn-ended", "turn-started", "turn-ended", "condition-ticked", "round-started",
        "turn-started",
    ]  # fmt: skip
    assert only(ticks, "condition-ticked") == [
        {"combatant_id": "birch", "condition": "blessed", "rounds_left": 2}
    ]
    assert state_of(table).table.combatants["birch"].conditions[0].rounds == 2


def test_applying_a_condition_again_replaces_it():
    table = fight("ash", "birch")
    table.send({"type": "apply-condition", "combatant_id": "ash", "condition": "prone"})

    table.send(
        {"type": "apply-condition", "combatant_id": "ash", "condition": "prone", "rounds": 1}
    )

    conditions = state_of(table).table.combatants["ash"].conditions
    assert [(c.name, c.rounds) for c in conditions] == [("prone", 1)]


def test_the_gm_removes_a_condition_early():
    table = fight("ash", "birch")
    table.send({"type": "apply-condition", "combatant_id": "ash", "condition": "prone"})

    removed = table.send({"type": "remove-condition", "combatant_id": "ash", "condition": "prone"})

    assert removed[0].data == {"combatant_id": "ash", "condition": "prone", "gm_override": True}
    assert state_of(table).table.combatants["ash"].conditions == ()


def test_a_combatant_passed_over_while_down_does_not_count_down_its_conditions():
    table = fight("ash", "birch", "cedar")
    table.send({"type": "apply-condition", "combatant_id": "birch", "condition": "poisoned",
                "rounds": 1})  # fmt: skip
    table.send({"type": "adjust-resource", "combatant_id": "birch", "set": 0})

    assert expiry(table, "poisoned", turns=6) == "never"


@pytest.mark.parametrize(
    ("command", "actor", "code"),
    [
        pytest.param({"type": "apply-condition", "combatant_id": "ash", "condition": "prone"},
                     BRAMLI, "auth/gm-only", id="a player applies a condition"),
        pytest.param({"type": "remove-condition", "combatant_id": "ash", "condition": "prone"},
                     BRAMLI, "auth/gm-only", id="a player removes a condition"),
        pytest.param({"type": "remove-condition", "combatant_id": "ash", "condition": "dazed"},
                     None, "condition/not-present", id="remove a condition it does not have"),
        pytest.param({"type": "apply-condition", "combatant_id": "ash", "condition": "prone",
                      "rounds": 1, "anchor": "nobody"},
                     None, "combatant/unknown", id="anchor on an unknown combatant"),
        pytest.param({"type": "apply-condition", "combatant_id": "nobody", "condition": "prone"},
                     None, "combatant/unknown", id="a condition on an unknown combatant"),
    ],
)  # fmt: skip
def test_conditions_are_gm_adjudications_on_known_combatants(command, actor, code):
    table = fight("ash", "bramli")
    table.send({"type": "apply-condition", "combatant_id": "ash", "condition": "prone"})

    violation = refused(table, command, actor=actor) if actor else refused(table, command)

    assert violation.code == code


def test_a_duration_is_at_least_one_round():
    table = fight("ash")

    with pytest.raises(InvalidCommand) as caught:
        table.send(
            {"type": "apply-condition", "combatant_id": "ash", "condition": "prone", "rounds": 0}
        )

    assert caught.value.code == "command/invalid"
