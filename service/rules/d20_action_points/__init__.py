"""`d20-action-points`: a d20 combat round with an optional 5-action-point economy, ranged
bands, environment modifiers, spell casting against a DC, morale and special moves
(seed: shared/seeds/d20-action-points.txt).

The seed has no numbered sections; code, errors and tests cite it by its headings, as
`d20-action-points Gifting Action Points`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from service.domain.common import RemoveCombatant
from service.domain.context import Actor, DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Command, Event
from service.domain.narration import Names, narrate_with
from service.domain.ruleset import RulesetBase
from service.domain.table import Pool
from service.domain.views import ActionOption
from service.rules.d20_action_points import decide, views
from service.rules.d20_action_points.commands import COMMANDS
from service.rules.d20_action_points.events import EVENTS
from service.rules.d20_action_points.evolve import evolve_own
from service.rules.d20_action_points.state import D20Options, D20State, D20Stats


class D20ActionPoints(RulesetBase[D20State]):
    name = "d20-action-points"
    version = "1.1.0"
    title = "d20 with action points"
    options_model = D20Options
    state_model = D20State
    stats_model = D20Stats
    commands = COMMANDS
    events = EVENTS

    def decide(self, state: D20State, command: Command, ctx: DecideContext) -> list[Event]:
        # The round keeps who has acted, their points left over, gifts, delays and the
        # initiative queue by id: one who leaves the fight is taken down (hp 0), not removed.
        if isinstance(command, RemoveCombatant) and state.phase in ("declaring", "acting"):
            raise RuleViolation(
                "combatant/in-the-fight",
                "combat has begun: take a combatant out with adjust-resource (hp to 0) "
                "instead of removing it",
            )
        return super().decide(state, command, ctx)

    def decide_own(self, state: D20State, command: Command, ctx: DecideContext) -> list[Event]:
        return decide.decide_own(state, command, ctx)

    def evolve_own(self, state: D20State, event: Event) -> D20State:
        return evolve_own(state, event)

    def follow_up(
        self, state: D20State, command: Command, events: list[Event], ctx: DecideContext
    ) -> list[Event]:
        return decide.follow_up(state, command, events, ctx)

    def pools(self, stats: BaseModel) -> dict[str, Pool]:
        assert isinstance(stats, D20Stats)
        pools = {"hp": Pool(current=stats.hp, max=stats.hp)}
        if stats.mana:
            pools["mana"] = Pool(current=stats.mana, max=stats.mana)
        if stats.heroic_points:
            pools["heroic"] = Pool(current=stats.heroic_points, max=stats.heroic_points)
        return pools

    def round(self, state: D20State) -> int:
        return state.round

    def phase_label(self, state: D20State) -> str:
        return views.phase_label(state)

    def acting(self, state: D20State) -> list[str]:
        return [state.current] if state.current is not None else []

    def legal_actions(self, state: D20State, viewer: Actor) -> list[ActionOption]:
        return views.legal_actions(state, viewer)

    def narrate(self, kind: str, data: dict[str, Any], names: Names) -> str:
        return narrate_with(views.NARRATION, kind, data, names)


RULESET = D20ActionPoints()
