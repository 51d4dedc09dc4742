"""`delvers-deep`: Delver's Deep 4.1 combat. PCs and the GM alternate slots, FORT/REF/WILL
pools pay for two actions a turn, and dodges and opportunity attacks are reactions."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from service.domain.context import Actor, DecideContext
from service.domain.messages import Command, Event
from service.domain.narration import Names, narrate_with
from service.domain.ruleset import RulesetBase
from service.domain.table import Pool
from service.domain.views import ActionOption
from service.rules.delvers_deep import decide, views
from service.rules.delvers_deep.commands import COMMANDS
from service.rules.delvers_deep.events import EVENTS
from service.rules.delvers_deep.evolve import evolve_own
from service.rules.delvers_deep.state import (
    DelversOptions,
    DelversState,
    DelversStats,
    DelversTrigger,
)
from service.rules.delvers_deep.turns import next_side


class DelversDeep(RulesetBase[DelversState]):
    name = "delvers-deep"
    version = "1.2.0"
    title = "Delver's Deep"
    options_model = DelversOptions
    state_model = DelversState
    stats_model = DelversStats
    commands = COMMANDS
    events = EVENTS
    trigger_model = DelversTrigger

    def decide_own(self, state: DelversState, command: Command, ctx: DecideContext) -> list[Event]:
        return decide.decide_own(state, command, ctx)

    def evolve_own(self, state: DelversState, event: Event) -> DelversState:
        return evolve_own(state, event)

    def follow_up(
        self, state: DelversState, command: Command, events: list[Event], ctx: DecideContext
    ) -> list[Event]:
        return decide.follow_up(state, command, events, ctx)

    def pools(self, stats: BaseModel) -> dict[str, Pool]:
        assert isinstance(stats, DelversStats)
        return {
            "hp": Pool(current=stats.health, max=stats.health),
            "fort": Pool(current=stats.fort, max=stats.fort),
            "ref": Pool(current=stats.ref, max=stats.ref),
            "will": Pool(current=stats.will, max=stats.will),
        }

    def round(self, state: DelversState) -> int:
        return state.round

    def phase_label(self, state: DelversState) -> str:
        if state.phase == "reflex":
            return "reflex rolls"
        if state.phase != "running":
            return state.phase
        names = ", ".join(state.table.combatants[c].name for c in state.current)
        if names:
            side = "PCs'" if state.last_side == "pcs" else "GM's"
            return f"round {state.round}: {side} slot — {names}"
        if next_side(state) == "gm":
            return f"round {state.round}: GM's slot — choosing who acts"
        return f"round {state.round}"

    def acting(self, state: DelversState) -> list[str]:
        return list(state.current)

    def legal_actions(self, state: DelversState, viewer: Actor) -> list[ActionOption]:
        return views.legal_actions(state, viewer)

    def narrate(self, kind: str, data: dict[str, Any], names: Names) -> str:
        return narrate_with(views.NARRATION, kind, data, names)


RULESET = DelversDeep()
