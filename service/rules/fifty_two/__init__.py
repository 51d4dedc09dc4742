"""`fifty-two`: the playing-card field of battle. A deck laid out in columns is the shared
battlefield; action points remove, add and pair cards to create attack opportunities, and
armor decides which attacks register (seed: shared/seeds/fifty-two.txt)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from service.domain.common import RemoveCombatant
from service.domain.context import Actor, DecideContext
from service.domain.envelope import Envelope
from service.domain.errors import RuleViolation
from service.domain.messages import Command, Event
from service.domain.narration import Names, narrate_with
from service.domain.options import EncounterOptions
from service.domain.ruleset import RulesetBase
from service.domain.table import Pool
from service.domain.views import ActionOption, Blocked
from service.rules.fifty_two import decide, views
from service.rules.fifty_two.commands import COMMANDS
from service.rules.fifty_two.events import EVENT_SCHEMAS, EVENTS, UPCASTERS
from service.rules.fifty_two.evolve import evolve_own
from service.rules.fifty_two.state import FiftyTwoOptions, FiftyTwoState, FiftyTwoStats


class FiftyTwo(RulesetBase[FiftyTwoState]):
    name = "fifty-two"
    version = "1.3.0"
    title = "52: the playing-card field of battle"
    options_model = FiftyTwoOptions
    state_model = FiftyTwoState
    stats_model = FiftyTwoStats
    commands = COMMANDS
    events = EVENTS
    event_schemas = EVENT_SCHEMAS
    upcasters = UPCASTERS
    seed_sealed = True
    saves_hold_clock = True
    """§4.5 and §8: a spell waiting for a Reflex save stops the decision clock
    (`FiftyTwoState.saves_hold_clock`); False in the versions before 1.3.0."""

    def new_state(self, options: EncounterOptions) -> FiftyTwoState:
        state = super().new_state(options)
        return state.model_copy(update={"saves_hold_clock": self.saves_hold_clock})

    def decide(self, state: FiftyTwoState, command: Command, ctx: DecideContext) -> list[Event]:
        # The chart, the ranks, the surprise order and the turns hold every combatant from
        # the start on: one who leaves the fight is taken down (hp 0), not removed.
        if isinstance(command, RemoveCombatant) and state.phase != "setup":
            raise RuleViolation(
                "combatant/in-the-fight",
                "the fight has begun: take a combatant out with adjust-resource (hp to 0) "
                "instead of removing it",
            )
        return super().decide(state, command, ctx)

    def decide_own(self, state: FiftyTwoState, command: Command, ctx: DecideContext) -> list[Event]:
        return decide.decide_own(state, command, ctx)

    def evolve_own(self, state: FiftyTwoState, event: Event) -> FiftyTwoState:
        return evolve_own(state, event)

    def follow_up(
        self, state: FiftyTwoState, command: Command, events: list[Event], ctx: DecideContext
    ) -> list[Event]:
        return decide.follow_up(state, command, events, ctx)

    def pools(self, stats: BaseModel) -> dict[str, Pool]:
        assert isinstance(stats, FiftyTwoStats)
        return {"hp": Pool(current=stats.hp, max=stats.hp)}

    def round(self, state: FiftyTwoState) -> int:
        return state.round

    def phase_label(self, state: FiftyTwoState) -> str:
        names = state.table.combatants
        match state.phase:
            case "surprise" if state.surprise_left:
                return f"surprise round: {names[state.surprise_left[0]].name}"
            case "columns":
                return f"the {state.chooser} choose the columns"
            case "deal":
                return "the GM deals"
            case "surprise-cards":
                return "surprise moves on the field"
            case "running" if state.turn is not None:
                return f"round {state.round}: {names[state.turn.combatant_id].name}"
            case "running":
                return f"round {state.round}"
        return state.phase

    def acting(self, state: FiftyTwoState) -> list[str]:
        if state.phase == "running" and state.turn is not None:
            return [state.turn.combatant_id]
        if state.phase == "surprise" and state.surprise_left:
            return [state.surprise_left[0]]
        if state.phase == "surprise-cards":
            return list(state.surprise_left)
        return []

    def legal_actions(self, state: FiftyTwoState, viewer: Actor) -> list[ActionOption]:
        return views.legal_actions(state, viewer)

    def blocked(self, state: FiftyTwoState, viewer: Actor) -> list[Blocked]:
        return views.blocked(state, viewer)

    def redact_event(
        self, envelope: Envelope, viewer: Actor | None, state: FiftyTwoState
    ) -> dict[str, Any] | None:
        return views.seal(envelope, super().redact_event(envelope, viewer, state), viewer, state)

    def redact_state(self, state: FiftyTwoState, viewer: Actor | None) -> dict[str, Any]:
        return views.sealed_state(super().redact_state(state, viewer), state, viewer)

    def narrate(self, kind: str, data: dict[str, Any], names: Names) -> str:
        return narrate_with(views.NARRATION, kind, data, names)


RULESET = FiftyTwo()
