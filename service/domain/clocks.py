"""Clocks: decision clocks and turn timers, opened by events that carry their deadline.

A clock is restarted by starting it again with the next generation; an expiry names the
generation it was scheduled for, so a stale one is recognised and decided as a no-op.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict

from service.domain.context import DecideContext
from service.domain.frozen import replace
from service.domain.messages import Event
from service.domain.timefmt import later, millis_between, parse_iso

ClockStatus = Literal["running", "paused", "expired", "stopped"]


class Clock(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    label: str
    owner: str | None = None
    duration_ms: int
    generation: int
    status: ClockStatus
    deadline: str | None = None
    remaining_ms: int | None = None


class ClockStarted(Event):
    type: Literal["clock-started"] = "clock-started"
    clock_id: str
    label: str
    owner: str | None = None
    duration_ms: int
    generation: int
    deadline: str


class ClockPaused(Event):
    type: Literal["clock-paused"] = "clock-paused"
    clock_id: str
    generation: int
    remaining_ms: int


class ClockResumed(Event):
    type: Literal["clock-resumed"] = "clock-resumed"
    clock_id: str
    generation: int
    deadline: str


class ClockExpired(Event):
    type: Literal["clock-expired"] = "clock-expired"
    clock_id: str
    generation: int
    owner: str | None = None


class ClockStopped(Event):
    type: Literal["clock-stopped"] = "clock-stopped"
    clock_id: str
    generation: int


class ClocksPaused(Event):
    """Every running clock was paused (the `clock-paused` events before this one say which),
    and the clocks stay paused until the GM resumes them: a clock that starts meanwhile
    starts paused. `idle`: `timeouts` clocks ran out in a row with nobody at the table."""

    type: Literal["clocks-paused"] = "clocks-paused"
    reason: Literal["idle"]
    timeouts: int


class ClocksResumed(Event):
    """The GM lifted the pause of `clocks-paused`."""

    type: Literal["clocks-resumed"] = "clocks-resumed"


ClockEvent = ClockStarted | ClockPaused | ClockResumed | ClockExpired | ClockStopped


def start_clock(
    clocks: Mapping[str, Clock],
    clock_id: str,
    seconds: float,
    ctx: DecideContext,
    *,
    label: str,
    owner: str | None = None,
) -> ClockStarted:
    """Start (or restart) a clock; a restart bumps the generation so the old deadline is stale."""
    previous = clocks.get(clock_id)
    generation = previous.generation + 1 if previous else 1
    return ctx.emit(
        ClockStarted(
            clock_id=clock_id,
            label=label,
            owner=owner,
            duration_ms=int(seconds * 1000),
            generation=generation,
            deadline=later(ctx.now, seconds),
        )
    )


def stop_clock(clocks: Mapping[str, Clock], clock_id: str, ctx: DecideContext) -> list[Event]:
    clock = clocks.get(clock_id)
    if clock is None or clock.status in ("stopped", "expired"):
        return []
    return [ctx.emit(ClockStopped(clock_id=clock_id, generation=clock.generation))]


def pause_all(clocks: Mapping[str, Clock], ctx: DecideContext) -> list[Event]:
    events: list[Event] = []
    for clock in sorted(clocks.values(), key=lambda c: c.id):
        if clock.status == "running" and clock.deadline is not None:
            remaining = max(0, millis_between(ctx.now, parse_iso(clock.deadline)))
            events.append(
                ctx.emit(
                    ClockPaused(
                        clock_id=clock.id, generation=clock.generation, remaining_ms=remaining
                    )
                )
            )
    return events


def resume_all(clocks: Mapping[str, Clock], ctx: DecideContext) -> list[Event]:
    events: list[Event] = []
    for clock in sorted(clocks.values(), key=lambda c: c.id):
        if clock.status == "paused":
            remaining = (clock.remaining_ms or 0) / 1000
            events.append(
                ctx.emit(
                    ClockResumed(
                        clock_id=clock.id,
                        generation=clock.generation,
                        deadline=later(ctx.now, remaining),
                    )
                )
            )
    return events


def expire_clock(
    clocks: Mapping[str, Clock], clock_id: str, generation: int, ctx: DecideContext
) -> list[Event]:
    """The expiry of a running clock at the generation it was scheduled for; else a no-op."""
    clock = clocks.get(clock_id)
    if clock is None or clock.status != "running" or clock.generation != generation:
        return []
    return [ctx.emit(ClockExpired(clock_id=clock_id, generation=generation, owner=clock.owner))]


def evolve_clocks(clocks: dict[str, Clock], event: ClockEvent) -> dict[str, Clock]:
    out = dict(clocks)
    match event:
        case ClockStarted():
            out[event.clock_id] = Clock(
                id=event.clock_id,
                label=event.label,
                owner=event.owner,
                duration_ms=event.duration_ms,
                generation=event.generation,
                status="running",
                deadline=event.deadline,
            )
        case ClockPaused():
            out[event.clock_id] = replace(
                out[event.clock_id],
                {"status": "paused", "deadline": None, "remaining_ms": event.remaining_ms},
            )
        case ClockResumed():
            out[event.clock_id] = replace(
                out[event.clock_id],
                {"status": "running", "deadline": event.deadline, "remaining_ms": None},
            )
        case ClockExpired():
            out[event.clock_id] = replace(
                out[event.clock_id], {"status": "expired", "deadline": None}
            )
        case ClockStopped():
            out[event.clock_id] = replace(
                out[event.clock_id], {"status": "stopped", "deadline": None}
            )
    return out
