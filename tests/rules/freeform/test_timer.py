"""freeform §8 Turn timer: each turn starts clock "turn" anew; its expiry acts per option."""

from __future__ import annotations

import pytest

from service.domain.context import SYSTEM
from tests.rules.freeform.given import fight, only, state_of, types
from tests.rules.harness import Table


def expire(table: Table, generation: int) -> list:
    return table.send(
        {"type": "expire-clock", "clock_id": "turn", "generation": generation}, actor=SYSTEM
    )


def test_every_turn_start_starts_the_turn_clock_with_a_new_generation():
    table = fight("ash", "birch", start=False, turn_time_limit=60)

    started = table.send({"type": "start-encounter"})
    table.wait(10)
    passed = table.send({"type": "end-turn"})

    assert only(started, "clock-started") == [
        {"clock_id": "turn", "label": "Ash's turn", "owner": "ash", "duration_ms": 60_000,
         "generation": 1, "deadline": "2026-01-01T12:01:00.000Z"}
    ]  # fmt: skip
    assert types(passed) == ["turn-ended", "turn-started", "clock-started"]
    assert passed[-1].data["generation"] == 2 and passed[-1].data["owner"] == "birch"
    assert passed[-1].data["deadline"] == "2026-01-01T12:01:10.000Z"


def test_without_a_time_limit_there_is_no_turn_clock():
    table = fight("ash", "birch")

    assert state_of(table).table.clocks == {}


def test_when_time_runs_out_the_turn_ends_by_default():
    table = fight("ash", "birch", turn_time_limit=60)
    table.wait(60)

    expired = expire(table, 1)

    assert types(expired) == ["clock-expired", "turn-ended", "turn-started", "clock-started"]
    assert expired[0].data == {"clock_id": "turn", "generation": 1, "owner": "ash"}
    assert expired[1].data == {"combatant_id": "ash", "reason": "timeout"}
    assert expired[-1].data["generation"] == 2 and state_of(table).current == "birch"


def test_a_stale_expiry_changes_nothing():
    table = fight("ash", "birch", turn_time_limit=60)
    table.send({"type": "end-turn"})  # generation 2 now runs for birch

    assert expire(table, 1) == []
    assert state_of(table).current == "birch"


def test_an_expiry_of_a_generation_not_yet_started_changes_nothing():
    table = fight("ash", "birch", turn_time_limit=60)

    assert expire(table, 7) == []


def test_an_expired_clock_does_not_expire_twice():
    table = fight("ash", "birch", turn_time_limit=60, on_turn_timeout="record")
    expire(table, 1)

    assert expire(table, 1) == []


@pytest.mark.parametrize(
    ("on_timeout", "kinds", "current", "delayed"),
    [
        pytest.param("end-turn",
                     ["clock-expired", "turn-ended", "turn-started", "clock-started"],
                     "birch", (), id="end-turn: the turn ends"),
        pytest.param("delay",
                     ["clock-expired", "turn-delayed", "turn-ended", "turn-started",
                      "clock-started"],
                     "birch", ("ash",), id="delay: the combatant delays"),
        pytest.param("record", ["clock-expired"], "ash", (), id="record: only noted"),
    ],
)  # fmt: skip
def test_what_a_timeout_does_is_an_option(on_timeout, kinds, current, delayed):
    table = fight("ash", "birch", turn_time_limit=30, on_turn_timeout=on_timeout)

    expired = expire(table, 1)

    assert types(expired) == kinds
    assert state_of(table).current == current and state_of(table).delayed == delayed


def test_a_timed_out_turn_does_not_count_for_end_of_turn_durations_when_it_delays():
    table = fight("ash", "birch", turn_time_limit=30, on_turn_timeout="delay")
    table.send({"type": "apply-condition", "combatant_id": "ash", "condition": "dazed",
                "rounds": 1})  # fmt: skip

    expired = expire(table, 1)

    assert only(expired, "condition-expired") == []


def test_the_clock_stops_when_nobody_is_left_to_act():
    table = fight("ash", "birch", turn_time_limit=30)
    table.send({"type": "delay"})

    alone = table.send({"type": "delay"})

    assert types(alone) == ["turn-delayed", "turn-ended", "clock-stopped"]
    assert state_of(table).table.clocks["turn"].status == "stopped"
    assert expire(table, 2) == []


def test_a_resumed_turn_gets_a_fresh_clock():
    table = fight("ash", "birch", turn_time_limit=30)
    table.send({"type": "delay"})
    table.send({"type": "rejoin", "combatant_id": "ash"})

    resumed = table.send({"type": "end-turn"})

    assert only(resumed, "clock-started")[0]["owner"] == "ash"
    assert only(resumed, "clock-started")[0]["generation"] == 3


def test_paused_clocks_do_not_expire_and_resume_with_the_time_left():
    table = fight("ash", "birch", turn_time_limit=60)
    table.wait(20)
    paused = table.send({"type": "pause-clocks"})
    table.wait(300)

    assert expire(table, 1) == []
    resumed = table.send({"type": "resume-clocks"})

    assert paused[0].data == {"clock_id": "turn", "generation": 1, "remaining_ms": 40_000}
    assert resumed[0].data["deadline"] == "2026-01-01T12:06:00.000Z"


def test_ending_the_encounter_stops_the_turn_clock():
    table = fight("ash", "birch", turn_time_limit=60)

    ended = table.send({"type": "end-encounter"})

    assert types(ended) == ["clock-stopped", "encounter-ended"]
    assert state_of(table).table.clocks["turn"].status == "stopped"
