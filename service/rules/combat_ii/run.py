"""The events a combat-ii command has decided so far and the state they lead to: what the
phase, attack, movement and spell steps pass along as they decide one after another."""

from __future__ import annotations

from service.domain.context import DecideContext
from service.domain.messages import Event
from service.rules.combat_ii.evolve import evolve
from service.rules.combat_ii.state import CombatIIState


class Run:
    """Events decided so far and the state they lead to."""

    def __init__(self, state: CombatIIState, ctx: DecideContext) -> None:
        self.state, self.ctx, self.events = state, ctx, list[Event]()

    def emit(self, events: list[Event]) -> None:
        for event in events:
            self.state = evolve(self.state, event)
            self.events.append(event)
