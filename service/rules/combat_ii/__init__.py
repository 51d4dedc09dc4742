"""`combat-ii`: Combat II, the revised combat system for AD&D 2nd edition by Kevin L.
Seachrist (seed: shared/seeds/combat-ii.txt) — phase-based rounds of half-segments,
intentions declared losers first, simultaneous resolution, casting times against speed
factors, System II's continuous phases, criticals and mana. Code, errors and tests cite the
seed by section, as `combat-ii §2 D Charging`."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from service.domain.common import MoveToken
from service.domain.context import Actor, DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Command, Event
from service.domain.narration import Names, narrate_with
from service.domain.options import EncounterOptions
from service.domain.ruleset import RulesetBase
from service.domain.table import Pool
from service.domain.views import ActionOption, Blocked
from service.rules.combat_ii import decide, views
from service.rules.combat_ii.commands import COMMANDS
from service.rules.combat_ii.events import EVENTS
from service.rules.combat_ii.evolve import evolve_own
from service.rules.combat_ii.phases import waiting
from service.rules.combat_ii.state import CombatIIOptions, CombatIIState
from service.rules.combat_ii.stats import CombatIIStats


class CombatII(RulesetBase[CombatIIState]):
    name = "combat-ii"
    version = "1.2.0"
    unplaced_sf_null = True
    """1.1.0: `attack-rolled.sf` is null for the movement portion's blows (docs/rules)."""
    damage_text_faces = True
    """1.1.0: a weapon's `damage-rolled.text` shows the faces rolled, as a spell's does."""
    title = "Combat II: AD&D 2nd edition phase combat"
    options_model = CombatIIOptions
    state_model = CombatIIState
    stats_model = CombatIIStats
    commands = COMMANDS
    events = EVENTS

    def decide(self, state: CombatIIState, command: Command, ctx: DecideContext) -> list[Event]:
        if isinstance(command, MoveToken) and not ctx.actor.is_gm:
            raise RuleViolation(
                "move/use-move",
                "players move with `move`, declared as the phase's intention; move-token is "
                "the GM's correction",
                rule="combat-ii §1 F",
            )
        return super().decide(state, command, ctx)

    def new_state(self, options: EncounterOptions) -> CombatIIState:
        state = super().new_state(options)
        readings = {
            "unplaced_sf_null": self.unplaced_sf_null,
            "damage_text_faces": self.damage_text_faces,
        }
        return state.model_copy(update=readings)

    def decide_own(self, state: CombatIIState, command: Command, ctx: DecideContext) -> list[Event]:
        return decide.decide_own(state, command, ctx)

    def evolve_own(self, state: CombatIIState, event: Event) -> CombatIIState:
        return evolve_own(state, event)

    def follow_up(
        self, state: CombatIIState, command: Command, events: list[Event], ctx: DecideContext
    ) -> list[Event]:
        return decide.follow_up(state, command, events, ctx)

    def pools(self, stats: BaseModel) -> dict[str, Pool]:
        assert isinstance(stats, CombatIIStats)
        return {"hp": Pool(current=stats.hp, max=stats.hp)}

    def round(self, state: CombatIIState) -> int:
        return state.round

    def phase_label(self, state: CombatIIState) -> str:
        return views.phase_label(state)

    def acting(self, state: CombatIIState) -> list[str]:
        return waiting(state)

    def legal_actions(self, state: CombatIIState, viewer: Actor) -> list[ActionOption]:
        return views.legal_actions(state, viewer)

    def blocked(self, state: CombatIIState, viewer: Actor) -> list[Blocked]:
        return views.blocked(state, viewer)

    def summary_details(self, state: CombatIIState, viewer: Actor | None) -> dict[str, Any]:
        return views.details(state, viewer)

    def narrate(self, kind: str, data: dict[str, Any], names: Names) -> str:
        return narrate_with(views.NARRATION, kind, data, names)


RULESET = CombatII()
