"""The loop of a ruleset whose reactions wait in a queue: after a command, emit its events
(a closed reaction window resolves at once), then open the queued windows one at a time and,
once the table is quiet, let the order move on by itself (delvers-deep, d20-action-points).
"""

from __future__ import annotations

from typing import Generic

from service.domain.context import DecideContext
from service.domain.messages import Event
from service.domain.reactions import ReactionWindowClosed
from service.domain.ruleset import S


class Settle(Generic[S]):
    """Events decided so far and the state they lead to. A ruleset supplies the hooks."""

    def __init__(self, state: S, ctx: DecideContext) -> None:
        self.state, self.ctx, self.events = state, ctx, list[Event]()

    def evolve(self, state: S, event: Event) -> S:
        raise NotImplementedError

    def resolve(self, state: S, closed: ReactionWindowClosed) -> list[Event]:
        """What the reactions of a closed window do."""
        raise NotImplementedError

    def active(self, state: S) -> bool:
        """Whether the order runs: the fight is under way."""
        raise NotImplementedError

    def open_next(self, state: S) -> list[Event] | None:
        """The window the head of the queue calls for, or None when nothing is queued."""
        raise NotImplementedError

    def next_step(self, state: S) -> list[Event]:
        """What the order does by itself once the table is quiet; nothing: it waits."""
        raise NotImplementedError

    def emit(self, events: list[Event]) -> None:
        for event in events:
            self.state = self.evolve(self.state, event)
            self.events.append(event)
            if isinstance(event, ReactionWindowClosed) and self.state.table.phase != "ended":
                self.emit(self.resolve(self.state, event))

    def settle(self) -> list[Event]:
        """One window at a time: the queue first, then the order moves on by itself."""
        while self.active(self.state) and not self.state.table.open_windows():
            opened = self.open_next(self.state)
            if opened is not None:
                self.emit(opened)
                continue
            step = self.next_step(self.state)
            if not step:
                break
            self.emit(step)
        return self.events
