"""freeform §8 Turn timer at an empty table: `idle_timeouts` timeouts in a row that nobody
answers pause the clocks until the GM resumes them (the rule every ruleset shares).

The worker's `expire-clock` carries what Fray wrote into it when it armed the deadline:
the encounter's version then (`armed_version`) and the timeouts in a row so far
(`idle_streak`). `timeout` below sends it as the worker would, armed at the current
version unless a test says otherwise.
"""

from __future__ import annotations

import pytest

from service.domain.context import GM, SYSTEM, Actor
from service.domain.envelope import Envelope
from tests.rules.freeform.given import BRAMLI, fight, only, refused, state_of, types
from tests.rules.harness import Table


def timeout(
    table: Table, streak: int, armed: int | None = None, actor: Actor = SYSTEM
) -> list[Envelope]:
    """The worker's expiry of the running turn clock, as Fray armed it."""
    clock = state_of(table).table.clocks["turn"]
    command = {"type": "expire-clock", "clock_id": "turn", "generation": clock.generation,
               "armed_version": table.version if armed is None else armed,
               "idle_streak": streak}  # fmt: skip
    table.wait(60)
    return table.send(command, actor=actor)


def test_a_round_of_timeouts_nobody_answers_pauses_the_clocks():
    table = fight("ash", "birch", turn_time_limit=60)

    first = timeout(table, streak=0)
    second = timeout(table, streak=1)

    assert types(first) == ["clock-expired", "turn-ended", "turn-started", "clock-started"]
    assert types(second) == ["clock-expired", "turn-ended", "round-started", "turn-started",
                             "clock-started", "clock-paused", "clocks-paused"]  # fmt: skip
    assert only(second, "clocks-paused") == [{"reason": "idle", "timeouts": 2}]
    assert only(second, "clock-paused") == [
        {"clock_id": "turn", "generation": 3, "remaining_ms": 60_000}
    ]
    assert state_of(table).table.clocks_on_hold
    assert state_of(table).table.clocks["turn"].status == "paused"


def test_a_round_is_one_timeout_per_combatant_still_in_the_fight():
    table = fight("ash", "birch", "cedar", turn_time_limit=60)
    table.send({"type": "adjust-resource", "combatant_id": "cedar", "resource": "hp", "set": 0})

    timeout(table, streak=0)

    assert types(timeout(table, streak=1))[-1] == "clocks-paused"


@pytest.mark.parametrize(
    ("idle_timeouts", "paused_after"),
    [
        pytest.param(3, 3, id="three timeouts"),
        pytest.param(1, 1, id="the first timeout"),
        pytest.param(0, None, id="0: never"),
    ],
)
def test_idle_timeouts_sets_how_many_timeouts_pause_the_clocks(idle_timeouts, paused_after):
    table = fight("ash", "birch", turn_time_limit=60, idle_timeouts=idle_timeouts)

    paused = [n for n in range(1, 6) if "clocks-paused" in types(timeout(table, streak=n - 1))]

    assert paused[:1] == ([] if paused_after is None else [paused_after])


@pytest.mark.parametrize(
    "between",
    [
        pytest.param(({"type": "add-note", "text": "back in a minute"}, BRAMLI), id="a player"),
        pytest.param(({"type": "roll", "expression": "1d20"}, GM), id="the GM"),
    ],
)
def test_any_command_between_two_timeouts_starts_the_count_again(between):
    table = fight("ash", "birch", turn_time_limit=60, dice="mixed")
    timeout(table, streak=0)
    armed = table.version  # the next turn's clock was armed here
    command, actor = between
    table.send(command, actor=actor)

    assert "clocks-paused" not in types(timeout(table, streak=1, armed=armed))
    assert "clocks-paused" in types(timeout(table, streak=1))


def test_an_expiry_the_gm_sends_is_the_gm_at_the_table():
    table = fight("ash", "birch", turn_time_limit=60)
    timeout(table, streak=0)

    assert "clocks-paused" not in types(timeout(table, streak=1, actor=GM))


def test_an_expiry_armed_before_fray_counted_counts_nothing():
    table = fight("ash", "birch", turn_time_limit=60, idle_timeouts=1)
    clock = state_of(table).table.clocks["turn"]

    older = {"type": "expire-clock", "clock_id": "turn", "generation": clock.generation}

    assert "clocks-paused" not in types(table.send(older, actor=SYSTEM))


def test_while_the_clocks_are_paused_a_turn_that_starts_starts_its_clock_paused():
    table = fight("bramli", "birch", turn_time_limit=60, idle_timeouts=1)
    timeout(table, streak=0)  # bramli's turn times out: birch's turn, the clocks paused
    table.send({"type": "end-turn"})  # the GM ends birch's turn

    back = table.send({"type": "end-turn"}, actor=BRAMLI)

    assert types(back) == ["turn-ended", "turn-started", "clock-started", "clock-paused"]
    assert state_of(table).table.clocks["turn"].status == "paused"
    assert state_of(table).table.clocks_on_hold


def test_the_gm_resumes_the_clocks_and_lifts_the_pause():
    table = fight("ash", "birch", turn_time_limit=60, idle_timeouts=1)
    timeout(table, streak=0)
    table.wait(3600)

    resumed = table.send({"type": "resume-clocks"})
    passed = table.send({"type": "end-turn"})

    assert types(resumed) == ["clock-resumed", "clocks-resumed"]
    assert resumed[0].data["deadline"] == "2026-01-01T13:02:00.000Z"  # the full minute left
    assert not state_of(table).table.clocks_on_hold
    assert types(passed) == ["turn-ended", "round-started", "turn-started", "clock-started"]


def test_a_player_may_not_resume_the_clocks():
    table = fight("bramli", "birch", turn_time_limit=60, idle_timeouts=1)
    timeout(table, streak=0)

    refused(table, {"type": "resume-clocks"}, actor=BRAMLI)


def test_a_table_that_timed_out_folds_back_to_the_same_state():
    table = fight("ash", "birch", turn_time_limit=60)
    timeout(table, streak=0)
    timeout(table, streak=1)
    table.send({"type": "resume-clocks"})

    assert table.replayed() == table.state
