"""Which deadlines an append records or cancels: read off the clock and window events.

A clock's deadline is keyed "clock:<id>", a reaction window's "window:<id>"; the same key
again moves the deadline, so a restarted clock never fires for its old time. An ended
encounter's audit is an outbox entry too, keyed "audit", due at once and with no command:
a worker audits the stream rather than sending one (docs/architecture.md, "The audit
worker").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.domain.clocks import (
    ClockExpired,
    ClockPaused,
    ClockResumed,
    ClockStarted,
    ClockStopped,
)
from service.domain.messages import Event
from service.domain.reactions import ReactionWindowClosed, ReactionWindowOpened
from service.domain.roll_requests import ROLLS_DEADLINE, CommandReleased, RollRequested
from service.domain.table import Table

AUDIT = "audit"
# A webhook delivery an append owes: "webhook:<webhook id>:<version>" (service.app.webhooks),
# delivered by its own worker job, never fired as a command.
WEBHOOK = "webhook:"


@dataclass(frozen=True, slots=True)
class DeadlineChange:
    key: str
    due: str | None  # ISO time; None cancels the key
    command: dict[str, Any] | None = None


def audit_due(at: str) -> DeadlineChange:
    """The audit of a stream that ends (or goes on after its end) with an append at `at`.
    The same key again moves it: one audit per encounter waits, of its latest append."""
    return DeadlineChange(AUDIT, at)


def is_audit(key: str) -> bool:
    return key == AUDIT


def is_delivery(key: str) -> bool:
    return key.startswith(WEBHOOK)


def fires_command(key: str) -> bool:
    """Whether the outbox entry is a deadline a worker fires as a system command."""
    return not (is_audit(key) or is_delivery(key))


def deadline_changes(events: list[Event], armed: int, streak: int = 0) -> list[DeadlineChange]:
    """The net change per key, last event wins. `armed` is the encounter's version after
    the append, `streak` the timeouts in a row it leaves (service.domain.idle)."""
    changes: dict[str, DeadlineChange] = {}
    for event in events:
        match event:
            case ClockStarted() | ClockResumed():
                key = f"clock:{event.clock_id}"
                command = expiry(event.clock_id, event.generation, armed, streak)
                changes[key] = DeadlineChange(key, event.deadline, command)
            case ClockPaused() | ClockExpired() | ClockStopped():
                key = f"clock:{event.clock_id}"
                changes[key] = DeadlineChange(key, None)
            case ReactionWindowOpened() if event.deadline is not None:
                key = f"window:{event.window_id}"
                command = {"type": "close-reaction-window", "window_id": event.window_id}
                changes[key] = DeadlineChange(key, event.deadline, command)
            case ReactionWindowClosed():
                key = f"window:{event.window_id}"
                changes[key] = DeadlineChange(key, None)
            case RollRequested():
                command = {"type": "expire-roll-requests", "request_id": event.request_id}
                changes[ROLLS_DEADLINE] = DeadlineChange(ROLLS_DEADLINE, event.deadline, command)
            case CommandReleased():
                changes[ROLLS_DEADLINE] = DeadlineChange(ROLLS_DEADLINE, None)
    return list(changes.values())


def table_deadlines(before: Table, after: Table, armed: int) -> list[DeadlineChange]:
    """Deadlines that make the outbox match `after`, e.g. once a rewind restored it.

    A running clock or an open window with a deadline in `after` is (re)armed; any other
    clock or window known to either table is cancelled.
    """
    changes: dict[str, DeadlineChange] = {}
    for clock_id in sorted({*before.clocks, *after.clocks}):
        key = f"clock:{clock_id}"
        clock = after.clocks.get(clock_id)
        if clock is not None and clock.status == "running" and clock.deadline is not None:
            command = expiry(clock_id, clock.generation, armed, 0)
            changes[key] = DeadlineChange(key, clock.deadline, command)
        else:
            changes[key] = DeadlineChange(key, None)
    for window_id in sorted({*before.windows, *after.windows}):
        key = f"window:{window_id}"
        window = after.windows.get(window_id)
        if window is not None and window.open and window.deadline is not None:
            command = {"type": "close-reaction-window", "window_id": window_id}
            changes[key] = DeadlineChange(key, window.deadline, command)
        else:
            changes[key] = DeadlineChange(key, None)
    held = after.held
    if held is not None and held.open_requests() and held.deadline is not None:
        command = {"type": "expire-roll-requests", "request_id": held.requests[-1].id}
        changes[ROLLS_DEADLINE] = DeadlineChange(ROLLS_DEADLINE, held.deadline, command)
    elif before.held is not None:
        changes[ROLLS_DEADLINE] = DeadlineChange(ROLLS_DEADLINE, None)
    return list(changes.values())


def expiry(clock_id: str, generation: int, armed: int, streak: int) -> dict[str, Any]:
    """The `expire-clock` a worker sends at the deadline."""
    return {
        "type": "expire-clock",
        "clock_id": clock_id,
        "generation": generation,
        "armed_version": armed,
        "idle_streak": streak,
    }
