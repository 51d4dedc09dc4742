"""`freeform`: a full initiative tracker for systems Fray does not model."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from service.domain.common import RemoveCombatant
from service.domain.context import Actor, DecideContext
from service.domain.messages import Command, Event
from service.domain.narration import Names, narrate_with
from service.domain.ruleset import RulesetBase
from service.domain.table import Pool
from service.domain.views import ActionOption
from service.rules.freeform import decide, views
from service.rules.freeform.commands import COMMANDS
from service.rules.freeform.events import EVENTS
from service.rules.freeform.evolve import evolve_own
from service.rules.freeform.state import FreeformOptions, FreeformState, FreeformStats
from service.rules.freeform.turns import pass_turn


class Freeform(RulesetBase[FreeformState]):
    name = "freeform"
    version = "1.1.0"
    title = "Freeform initiative tracker"
    options_model = FreeformOptions
    state_model = FreeformState
    stats_model = FreeformStats
    commands = COMMANDS
    events = EVENTS

    def decide_own(self, state: FreeformState, command: Command, ctx: DecideContext) -> list[Event]:
        return decide.decide_own(state, command, ctx)

    def decide(self, state: FreeformState, command: Command, ctx: DecideContext) -> list[Event]:
        if isinstance(command, RemoveCombatant) and command.combatant_id == state.current:
            # The current actor leaves: hand the turn on first, then remove them.
            ctx.require_gm("remove a combatant")
            handover = pass_turn(state, command.combatant_id, "removed", ctx, tick=False)
            return handover + super().decide(self.apply(state, handover), command, ctx)
        return super().decide(state, command, ctx)

    def evolve_own(self, state: FreeformState, event: Event) -> FreeformState:
        return evolve_own(state, event)

    def follow_up(
        self, state: FreeformState, command: Command, events: list[Event], ctx: DecideContext
    ) -> list[Event]:
        return decide.follow_up(state, command, events, ctx)

    def pools(self, stats: BaseModel) -> dict[str, Pool]:
        assert isinstance(stats, FreeformStats)
        return {} if stats.hp is None else {"hp": Pool(current=stats.hp, max=stats.hp)}

    def round(self, state: FreeformState) -> int:
        return state.round

    def phase_label(self, state: FreeformState) -> str:
        if state.table.phase == "running" and state.current is not None:
            return f"round {state.round}: {state.table.combatants[state.current].name}'s turn"
        return state.table.phase

    def acting(self, state: FreeformState) -> list[str]:
        return [state.current] if state.current is not None else []

    def legal_actions(self, state: FreeformState, viewer: Actor) -> list[ActionOption]:
        return views.legal_actions(state, viewer)

    def narrate(self, kind: str, data: dict[str, Any], names: Names) -> str:
        return narrate_with(views.NARRATION, kind, data, names)


RULESET = Freeform()
