"""How freeform events change the state. Total and pure: one match over event types."""

from __future__ import annotations

from service.domain.common import CombatantRemoved, EncounterEnded
from service.domain.frozen import replace
from service.domain.messages import Event
from service.domain.ruleset import with_table
from service.rules.freeform.events import (
    ActionReadied,
    DelayEnded,
    InitiativeRolled,
    ReadiedActionLapsed,
    ReadiedActionTriggered,
    RoundStarted,
    TurnDelayed,
    TurnEnded,
    TurnStarted,
)
from service.rules.freeform.state import FreeformState, Initiative, Readied


def evolve(state: FreeformState, event: Event) -> FreeformState:
    return evolve_own(with_table(state, event), event)


def evolve_own(state: FreeformState, event: Event) -> FreeformState:
    match event:
        case InitiativeRolled():
            return _initiative(state, event)
        case RoundStarted():
            return replace(state, {"round": event.round})
        case TurnStarted():
            resuming = tuple(c for c in state.resuming if c != event.combatant_id)
            return replace(
                state, {"current": event.combatant_id, "round": event.round, "resuming": resuming}
            )
        case TurnEnded():
            return replace(state, {"current": None})
        case TurnDelayed():
            return replace(state, {"delayed": (*state.delayed, event.combatant_id)})
        case DelayEnded():
            delayed = tuple(c for c in state.delayed if c != event.combatant_id)
            order = state.order
            if event.after is not None:
                order = _move(order, event.combatant_id, event.after, after=True)
            resuming = (*state.resuming, event.combatant_id)
            return replace(state, {"delayed": delayed, "order": order, "resuming": resuming})
        case ActionReadied():
            readied = {
                **state.readied,
                event.combatant_id: Readied(action=event.action, trigger=event.trigger),
            }
            return replace(state, {"readied": readied})
        case ReadiedActionTriggered():
            readied = {k: v for k, v in state.readied.items() if k != event.combatant_id}
            order = _move(state.order, event.combatant_id, event.before, after=False)
            return replace(state, {"readied": readied, "order": order})
        case ReadiedActionLapsed():
            readied = {k: v for k, v in state.readied.items() if k != event.combatant_id}
            return replace(state, {"readied": readied})
        case CombatantRemoved():
            gone = event.combatant_id
            return replace(
                state,
                {
                    "initiative": {k: v for k, v in state.initiative.items() if k != gone},
                    "order": tuple(c for c in state.order if c != gone),
                    "delayed": tuple(c for c in state.delayed if c != gone),
                    "resuming": tuple(c for c in state.resuming if c != gone),
                    "readied": {k: v for k, v in state.readied.items() if k != gone},
                    "current": None if state.current == gone else state.current,
                },
            )
        case EncounterEnded():
            return replace(state, {"current": None})
    return state


def _initiative(state: FreeformState, event: InitiativeRolled) -> FreeformState:
    entry = Initiative(total=event.total, modifier=event.modifier, tiebreak=event.tiebreak)
    initiative = {**state.initiative, event.combatant_id: entry}
    if state.table.phase == "setup":
        order = tuple(sorted(initiative, key=lambda c: (initiative[c].key(), c)))
    elif event.combatant_id in state.order:
        order = state.order
    else:
        order = _insert(state.order, initiative, event.combatant_id)
    return replace(state, {"initiative": initiative, "order": order})


def _insert(
    order: tuple[str, ...], initiative: dict[str, Initiative], newcomer: str
) -> tuple[str, ...]:
    """Join a running order before the first combatant with a lower initiative."""
    key = (initiative[newcomer].key(), newcomer)
    for position, other in enumerate(order):
        if other in initiative and (initiative[other].key(), other) > key:
            return (*order[:position], newcomer, *order[position:])
    return (*order, newcomer)


def _move(order: tuple[str, ...], mover: str, anchor: str | None, after: bool) -> tuple[str, ...]:
    rest = [c for c in order if c != mover]
    if anchor is None or anchor not in rest:
        return (*rest, mover) if after else (mover, *rest)
    position = rest.index(anchor) + (1 if after else 0)
    return (*rest[:position], mover, *rest[position:])
