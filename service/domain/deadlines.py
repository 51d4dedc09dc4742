"""Which deadlines an append records or cancels: read off the clock and window events.

A clock's deadline is keyed "clock:<id>", a reaction window's "window:<id>"; the same key
again moves the deadline, so a restarted clock never fires for its old time.
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


@dataclass(frozen=True, slots=True)
class DeadlineChange:
    key: str
    due: str | None  # ISO time; None cancels the key
    command: dict[str, Any] | None = None


def deadline_changes(events: list[Event]) -> list[DeadlineChange]:
    """The net change per key, last event wins."""
    changes: dict[str, DeadlineChange] = {}
    for event in events:
        match event:
            case ClockStarted() | ClockResumed():
                key = f"clock:{event.clock_id}"
                command = {
                    "type": "expire-clock",
                    "clock_id": event.clock_id,
                    "generation": event.generation,
                }
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
    return list(changes.values())
