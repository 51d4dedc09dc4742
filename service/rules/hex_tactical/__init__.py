"""`hex-tactical`: the Tactical Combat variant on a hex (or square) grid — terrain, threatened
cells, attacks of opportunity, cover and ranged bands (seed: shared/seeds/hex-tactical.txt).

The seed is a variant of a narrative system it never states; Fray's base system, a d100
roll-under with boons and banes, is in `base.py`. The seed has no numbered sections; code,
errors and tests cite it by its headings, as `hex-tactical Attacks of Opportunity`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from service.domain.common import MoveToken
from service.domain.context import Actor, DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Command, Event
from service.domain.narration import Names, narrate_with
from service.domain.ruleset import RulesetBase
from service.domain.table import Pool
from service.domain.views import ActionOption
from service.rules.hex_tactical import decide, views
from service.rules.hex_tactical.commands import COMMANDS
from service.rules.hex_tactical.events import EVENTS
from service.rules.hex_tactical.evolve import evolve_own
from service.rules.hex_tactical.state import HexOptions, HexState, HexStats


class HexTactical(RulesetBase[HexState]):
    name = "hex-tactical"
    version = "1.1.0"
    title = "Tactical Combat on a hex grid"
    options_model = HexOptions
    state_model = HexState
    stats_model = HexStats
    commands = COMMANDS
    events = EVENTS

    def decide(self, state: HexState, command: Command, ctx: DecideContext) -> list[Event]:
        if isinstance(command, MoveToken) and not ctx.actor.is_gm:
            # hex-tactical Movement on the Tactical Grid: a move spends an action and may
            # provoke; the shared move-token stays the GM's correction.
            raise RuleViolation(
                "move/use-move",
                "on the tactical grid players move with `move`, which spends a move action and "
                "may provoke attacks of opportunity; move-token is for the GM",
                rule="hex-tactical Movement on the Tactical Grid",
            )
        return super().decide(state, command, ctx)

    def decide_own(self, state: HexState, command: Command, ctx: DecideContext) -> list[Event]:
        return decide.decide_own(state, command, ctx)

    def evolve_own(self, state: HexState, event: Event) -> HexState:
        return evolve_own(state, event)

    def follow_up(
        self, state: HexState, command: Command, events: list[Event], ctx: DecideContext
    ) -> list[Event]:
        return decide.follow_up(state, command, events, ctx)

    def pools(self, stats: BaseModel) -> dict[str, Pool]:
        assert isinstance(stats, HexStats)
        return {"hp": Pool(current=stats.hp, max=stats.hp)}

    def round(self, state: HexState) -> int:
        return state.round

    def phase_label(self, state: HexState) -> str:
        return views.phase_label(state)

    def acting(self, state: HexState) -> list[str]:
        return [state.current] if state.current is not None else []

    def legal_actions(self, state: HexState, viewer: Actor) -> list[ActionOption]:
        return views.legal_actions(state, viewer)

    def narrate(self, kind: str, data: dict[str, Any], names: Names) -> str:
        return narrate_with(views.NARRATION, kind, data, names)


RULESET = HexTactical()
