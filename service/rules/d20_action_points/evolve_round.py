"""How the events before combat and of the round change the d20-action-points state: the
marching order, the environment, the surprise check and the approach, the round's start,
declarations, initiative, turns started, ended, skipped and delayed, points spent and
gifted, and the Heroic Point (d20-action-points Marching Order, Setting Up An Encounter,
Combat Round, Declaring Actions, Rolling Initiative, Action Points, Gifting Action Points)."""

from __future__ import annotations

from service.domain.frozen import replace
from service.domain.messages import Event
from service.rules.d20_action_points.events import (
    ActionDeclared,
    ActionTaken,
    ApproachChosen,
    CombatBegan,
    EnvironmentSet,
    Evading,
    HeroicPointSpent,
    InitiativeRolled,
    MarchingOrderSet,
    NegotiationRuled,
    PointGifted,
    RoundStarted,
    SurpriseChecked,
    TurnDelayed,
    TurnEnded,
    TurnSkipped,
    TurnStarted,
)
from service.rules.d20_action_points.state import (
    D20State,
    Declaration,
    Marching,
    Turn,
)


def evolve_round(state: D20State, event: Event) -> D20State | None:
    """The fold of the events before combat and of the round; None for any other event."""
    match event:
        case MarchingOrderSet():
            marching = Marching(width=event.width, ranks=event.ranks)
            return replace(state, {"marching": {**state.marching, event.side: marching}})
        case EnvironmentSet():
            key = event.combatant_id or "*"
            environment = {k: v for k, v in state.environment.items() if k != key}
            if event.circumstances:
                environment[key] = event.circumstances
            return replace(state, {"environment": environment})
        case SurpriseChecked():
            return replace(state, {"surprise": event.result})
        case ApproachChosen() if event.approach == "negotiate":
            return replace(state, {"phase": "negotiating"})
        case Evading():
            return replace(state, {"phase": "evading"})
        case NegotiationRuled() if event.outcome == "pause":
            return replace(state, {"phase": "paused"})
        case CombatBegan():
            return replace(state, {"ambush": event.ambush})
        case RoundStarted():
            return replace(
                state,
                {
                    "round": event.round,
                    "phase": "declaring",
                    "ambush": state.ambush and event.round == 1,
                    "declared": {},
                    "initiative": {},
                    "queue": (),
                    "current": None,
                    "turn": None,
                    "acted": (),
                    "leftover": {},
                    "gifts": {},
                    "givers": (),
                    "heroic_used": (),
                    "delayed": {},
                    "held": {},
                },
            )
        case ActionDeclared():
            declared = {**state.declared, event.combatant_id: _declaration(event)}
            return replace(state, {"declared": declared})
        case InitiativeRolled():
            totals = {r.combatant_id: r.total for r in event.rolls}
            return replace(state, {"initiative": totals, "queue": event.order, "phase": "acting"})
        case TurnStarted():
            cid = event.combatant_id
            return replace(
                state,
                {
                    "current": cid,
                    "turn": Turn(points=event.points, allowed=event.actions),
                    "queue": tuple(c for c in state.queue if c != cid),
                    "readied": {k: v for k, v in state.readied.items() if k != cid},
                    "delayed": {k: v for k, v in state.delayed.items() if k != cid},
                    "held": {k: v for k, v in state.held.items() if k != cid},
                    "gifts": {k: v for k, v in state.gifts.items() if k != cid},
                },
            )
        case TurnEnded():
            return replace(
                state,
                {
                    "current": None,
                    "turn": None,
                    "acted": (*state.acted, event.combatant_id),
                    "leftover": {**state.leftover, event.combatant_id: event.points_left},
                },
            )
        case TurnSkipped():
            cid = event.combatant_id
            return replace(
                state,
                {
                    "queue": tuple(c for c in state.queue if c != cid),
                    "acted": (*state.acted, cid),
                },
            )
        case TurnDelayed():
            return _delayed(state, event)
        case ActionTaken():
            turn = state.turn
            if turn is None or state.current != event.combatant_id:
                return state
            spent = {
                "points": turn.points - event.points,
                "actions": turn.actions + (1 if event.counts else 0),
                "spent": True,
            }
            return replace(state, {"turn": replace(turn, spent)})
        case PointGifted():
            return _gifted(state, event)
        case HeroicPointSpent():
            turn = state.turn
            state = replace(state, {"heroic_used": (*state.heroic_used, event.combatant_id)})
            if turn is None:
                return state
            more = {
                "points": turn.points + event.points,
                "allowed": turn.allowed + (0 if event.points else 1),
                "heroic": True,
            }
            return replace(state, {"turn": replace(turn, more)})
    return None


def _declaration(event: ActionDeclared) -> Declaration:
    return Declaration(
        action=event.action, spell=event.spell, weapon=event.weapon, initiative=event.initiative
    )


def _delayed(state: D20State, event: TurnDelayed) -> D20State:
    cid = event.combatant_id
    queue = [c for c in state.queue if c != cid]
    at = queue.index(event.until) + 1 if event.until in queue else len(queue)
    queue.insert(at, cid)
    return replace(
        state,
        {
            "current": None,
            "turn": None,
            "queue": tuple(queue),
            "delayed": {**state.delayed, cid: event.until},
            "held": {**state.held, cid: state.turn} if state.turn is not None else state.held,
        },
    )


def _gifted(state: D20State, event: PointGifted) -> D20State:
    giver = event.combatant_id
    turn = state.turn
    if state.current == giver and turn is not None:
        state = replace(state, {"turn": replace(turn, {"points": turn.points - 1, "gifted": True})})
    else:
        state = replace(
            state, {"leftover": {**state.leftover, giver: state.leftover.get(giver, 0) - 1}}
        )
    gifts = {**state.gifts, event.to: state.gifts.get(event.to, 0) + 1}
    return replace(state, {"gifts": gifts, "givers": (*state.givers, giver)})
