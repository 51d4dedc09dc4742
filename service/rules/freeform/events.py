"""Freeform events."""

from __future__ import annotations

from typing import Literal

from service.domain.messages import Event


class InitiativeRolled(Event):
    type: Literal["initiative-rolled"] = "initiative-rolled"
    combatant_id: str
    roll: int | None
    modifier: int
    total: int
    tiebreak: int
    group: str | None = None


class RoundStarted(Event):
    type: Literal["round-started"] = "round-started"
    round: int


class TurnStarted(Event):
    """`resumed`: a delayer takes up the turn it delayed (start-of-turn effects do not repeat)."""

    type: Literal["turn-started"] = "turn-started"
    combatant_id: str
    round: int
    resumed: bool = False


class TurnEnded(Event):
    type: Literal["turn-ended"] = "turn-ended"
    combatant_id: str
    reason: Literal["done", "timeout", "delayed", "readied", "removed", "downed"] = "done"


class TurnDelayed(Event):
    type: Literal["turn-delayed"] = "turn-delayed"
    combatant_id: str


class DelayEnded(Event):
    """A delaying combatant re-enters the order right after `after`."""

    type: Literal["delay-ended"] = "delay-ended"
    combatant_id: str
    after: str | None


class ActionReadied(Event):
    type: Literal["action-readied"] = "action-readied"
    combatant_id: str
    action: str
    trigger: str


class ReadiedActionTriggered(Event):
    """The readied combatant acts; its place in the order moves to just before `before`."""

    type: Literal["readied-action-triggered"] = "readied-action-triggered"
    combatant_id: str
    action: str
    before: str | None


class ReadiedActionLapsed(Event):
    type: Literal["readied-action-lapsed"] = "readied-action-lapsed"
    combatant_id: str


FreeformEvent = (
    InitiativeRolled
    | RoundStarted
    | TurnStarted
    | TurnEnded
    | TurnDelayed
    | DelayEnded
    | ActionReadied
    | ReadiedActionTriggered
    | ReadiedActionLapsed
)
EVENTS = FreeformEvent.__args__
