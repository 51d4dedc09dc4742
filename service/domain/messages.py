"""Base classes of commands and events.

Commands are imperative (`remove-pair`), events past tense (`pair-removed`); both are
frozen pydantic models discriminated on `type`. Which draws an event lists is decided by
where the rules emit it (`DecideContext.emit`, service/domain/context.py), not by the event.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict


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
