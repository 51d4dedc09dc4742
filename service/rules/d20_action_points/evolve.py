"""How d20-action-points events change the state. Total and pure: the events every ruleset
shares here, then each mechanic's own fold (the round, actions, casualties); evolve only
folds, it never validates."""

from __future__ import annotations

from service.domain.common import (
    CombatantAdded,
    CombatantDowned,
    CombatantRemoved,
    CombatantUpdated,
    EncounterEnded,
    EncounterStarted,
)
from service.domain.frozen import replace
from service.domain.messages import Event
from service.domain.reactions import ReactionWindowOpened
from service.domain.ruleset import with_table
from service.rules.d20_action_points.evolve_actions import evolve_actions
from service.rules.d20_action_points.evolve_casualties import evolve_casualties
from service.rules.d20_action_points.evolve_combatant import (
    take_out,
)
from service.rules.d20_action_points.evolve_round import evolve_round
from service.rules.d20_action_points.state import (
    Arms,
    D20State,
    D20Stats,
)

FOLDS = (evolve_round, evolve_actions, evolve_casualties)


def evolve(state: D20State, event: Event) -> D20State:
    return evolve_own(with_table(state, event), event)


def applied(state: D20State, events: list[Event]) -> D20State:
    for event in events:
        state = evolve(state, event)
    return state


def evolve_own(state: D20State, event: Event) -> D20State:
    match event:
        case EncounterStarted():
            return replace(state, {"phase": "before"})
        case EncounterEnded():
            return replace(state, {"phase": "ended", "current": None, "turn": None, "pending": ()})
        case CombatantAdded():
            return _arm(state, event.combatant_id, event.stats)
        case CombatantUpdated() if event.stats is not None:
            return _arm(state, event.combatant_id, event.stats)
        case CombatantRemoved():
            return _without(state, event.combatant_id)
        case CombatantDowned():
            return take_out(state, event.combatant_id)
        case ReactionWindowOpened():
            return _settled(state, event.trigger.get("resolves"))
    for fold in FOLDS:
        folded = fold(state, event)
        if folded is not None:
            return folded
    return state


def _arm(state: D20State, cid: str, block: D20Stats) -> D20State:
    arms = Arms(carried=block.weapons, wielding=block.wielding)
    return replace(state, {"arms": {**state.arms, cid: arms}})


def _settled(state: D20State, resolves: object) -> D20State:
    if resolves is None:
        return state
    return replace(state, {"pending": tuple(p for p in state.pending if p.id != resolves)})


def _without(state: D20State, gone: str) -> D20State:
    state = take_out(state, gone)
    return replace(
        state,
        {
            "queue": tuple(c for c in state.queue if c != gone),
            "arms": {k: v for k, v in state.arms.items() if k != gone},
            "initiative": {k: v for k, v in state.initiative.items() if k != gone},
            "delayed": {k: v for k, v in state.delayed.items() if k != gone},
            "charged": {k: v for k, v in state.charged.items() if k != gone},
            "environment": {k: v for k, v in state.environment.items() if k != gone},
            "pending": tuple(p for p in state.pending if gone not in (p.actor, p.target)),
        },
    )
