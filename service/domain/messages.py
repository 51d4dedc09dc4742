"""Base classes of commands and events, and how an event finds the draws it used.

Commands are imperative (`remove-pair`), events past tense (`pair-removed`); both are
frozen pydantic models discriminated on `type`. While a command is decided, each event
remembers how many draws had been made when it was built, so the pipeline can list in
each event's `rolls` the draws made since the previous event (DESIGN.md: "each event
lists the draws it used").
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from service.domain.draws import Roller, RollRecord

_DECIDING: ContextVar[Roller | None] = ContextVar("fray_deciding", default=None)
_MARKS: ContextVar[dict[int, int] | None] = ContextVar("fray_marks", default=None)


class Message(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class Command(Message):
    """Base of every command: subclasses set `type: Literal["..."]`."""


class Event(Message):
    """Base of every event: subclasses set `type: Literal["..."]`."""

    health_of: ClassVar[str | None] = None
    """Set on an event that is wholly about a combatant's health (a pool's change, damage
    taken): the field naming that combatant. With `hide_enemy_health`, players and
    observers of other sides are not told of the event at all."""

    def model_post_init(self, context: Any, /) -> None:
        marks = _MARKS.get()
        if marks is not None:
            roller = _DECIDING.get()
            marks[id(self)] = len(roller.records) if roller is not None else 0


@contextmanager
def deciding(roller: Roller) -> Iterator[dict[int, int]]:
    """Mark events built while a command is decided with the number of draws so far."""
    marks: dict[int, int] = {}
    roller_token = _DECIDING.set(roller)
    marks_token = _MARKS.set(marks)
    try:
        yield marks
    finally:
        _MARKS.reset(marks_token)
        _DECIDING.reset(roller_token)


def rolls_per_event(
    events: Sequence[Event], marks: dict[int, int], records: Sequence[RollRecord]
) -> list[list[RollRecord]]:
    """Split the command's draws among its events: each takes those made before it was built.

    Draws made after the last event was built belong to the last event.
    """
    out: list[list[RollRecord]] = []
    start = 0
    for position, event in enumerate(events):
        last = position == len(events) - 1
        upto = len(records) if last else max(start, marks.get(id(event), start))
        out.append(list(records[start:upto]))
        start = upto
    return out
