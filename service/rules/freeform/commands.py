"""Freeform commands: an initiative tracker for systems Fray does not model."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from service.domain.messages import Command


class RollInitiative(Command):
    """Roll initiative for the named combatants (default: everyone without one).

    Combatants sharing a `group` stat roll once together (group initiative for similar foes).
    """

    type: Literal["roll-initiative"] = "roll-initiative"
    combatant_ids: list[str] | None = Field(default=None, max_length=200)
    reroll: bool = False


class SetInitiative(Command):
    """Initiative rolled at the table: the total as the player announced it."""

    type: Literal["set-initiative"] = "set-initiative"
    combatant_id: str
    total: int = Field(ge=-1000, le=1000)


class EndTurn(Command):
    type: Literal["end-turn"] = "end-turn"
    combatant_id: str | None = None


class Delay(Command):
    """Step out of the order; `rejoin` later to act right after whoever is acting then."""

    type: Literal["delay"] = "delay"
    combatant_id: str | None = None


class Rejoin(Command):
    type: Literal["rejoin"] = "rejoin"
    combatant_id: str


class Ready(Command):
    """Hold an action for a trigger; readying ends the turn."""

    type: Literal["ready"] = "ready"
    combatant_id: str | None = None
    action: str = Field(min_length=1, max_length=200)
    trigger: str = Field(min_length=1, max_length=200)


class TriggerReady(Command):
    """The trigger happened: the readied combatant acts now, just before the current actor."""

    type: Literal["trigger-ready"] = "trigger-ready"
    combatant_id: str


class CallForReadied(Command):
    """Ask everyone holding a readied action whether this trigger sets it off."""

    type: Literal["call-for-readied"] = "call-for-readied"
    trigger: str = Field(min_length=1, max_length=200)


FreeformCommand = (
    RollInitiative
    | SetInitiative
    | EndTurn
    | Delay
    | Rejoin
    | Ready
    | TriggerReady
    | CallForReadied
)
COMMANDS = FreeformCommand.__args__
