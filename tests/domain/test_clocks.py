"""Clocks: start, restart, pause, resume, expire; stale expiries are no-ops."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from service.domain import clocks
from service.domain.clocks import Clock
from service.domain.context import GM, DecideContext
from service.domain.draws import Roller

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def at(now: datetime) -> DecideContext:
    return DecideContext(GM, now, Roller(seed=bytes(32), version=1))


def fold(events) -> dict[str, Clock]:
    state: dict[str, Clock] = {}
    for event in events:
        state = clocks.evolve_clocks(state, event)
    return state


def test_a_started_clock_carries_its_deadline():
    started = clocks.start_clock({}, "turn", 20, at(NOW), label="Bramli's decision")
    assert started.deadline == "2026-01-01T12:00:20.000Z" and started.generation == 1


def test_restarting_bumps_the_generation_so_the_old_expiry_is_stale():
    first = clocks.start_clock({}, "turn", 20, at(NOW), label="x")
    restarted = clocks.start_clock(
        fold([first]), "turn", 20, at(NOW + timedelta(seconds=5)), label="x"
    )
    assert restarted.generation == 2
    current = fold([first, restarted])
    assert clocks.expire_clock(current, "turn", 1, at(NOW)) == []
    assert [e.type for e in clocks.expire_clock(current, "turn", 2, at(NOW))] == ["clock-expired"]


def test_an_expired_clock_does_not_expire_twice():
    first = clocks.start_clock({}, "turn", 20, at(NOW), label="x")
    expired = clocks.expire_clock(fold([first]), "turn", 1, at(NOW))
    assert clocks.expire_clock(fold([first, *expired]), "turn", 1, at(NOW)) == []


def test_pause_keeps_the_remaining_time_and_resume_sets_a_new_deadline():
    start = clocks.start_clock({}, "turn", 20, at(NOW), label="x")
    state = fold([start])
    paused = clocks.pause_all(state, at(NOW + timedelta(seconds=15)))
    assert paused[0].remaining_ms == 5000  # type: ignore[attr-defined]
    state = fold([start, *paused])
    assert state["turn"].status == "paused" and clocks.expire_clock(state, "turn", 1, at(NOW)) == []
    resumed = clocks.resume_all(state, at(NOW + timedelta(hours=1)))
    assert resumed[0].deadline == "2026-01-01T13:00:05.000Z"  # type: ignore[attr-defined]
    assert fold([start, *paused, *resumed])["turn"].status == "running"


def test_stopping_a_stopped_clock_is_a_no_op():
    start = clocks.start_clock({}, "turn", 20, at(NOW), label="x")
    stopped = clocks.stop_clock(fold([start]), "turn", at(NOW))
    assert clocks.stop_clock(fold([start, *stopped]), "turn", at(NOW)) == []
