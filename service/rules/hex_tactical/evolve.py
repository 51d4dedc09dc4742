"""How hex-tactical events change the state. Total and pure: one match over event types.

The queue of interruptions keeps hex-tactical's "pause all other actions": whatever an
interruption sets off (a hit to respond to, another opportunity) goes in front of the
paused actions waiting to resume, so the most recent interruption resolves first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from service.domain.common import (
    CombatantAdded,
    CombatantRemoved,
    CombatantUpdated,
    EncounterEnded,
    EncounterStarted,
)
from service.domain.frozen import replace
from service.domain.messages import Event
from service.domain.reactions import ReactionWindowOpened
from service.domain.ruleset import with_table
from service.rules.hex_tactical.events import (
    ActionBegun,
    ActionCut,
    ActionResumed,
    AttackRolled,
    AwarenessSet,
    CoverPlaced,
    CoverRemoved,
    CoverTaken,
    DamageDealt,
    Defended,
    InitiativeRolled,
    ManeuverLanded,
    MeleeEnded,
    MeleeJoined,
    Moved,
    MoveReserved,
    ObjectStruck,
    OpportunityRaised,
    OrderSet,
    ReservationTriggered,
    RoundStarted,
    Surrendered,
    TurnEnded,
    TurnStarted,
    Wielded,
)
from service.rules.hex_tactical.state import (
    HexState,
    Paused,
    Pending,
    PendingKind,
    Turn,
    cell_key,
)

V = TypeVar("V")


def evolve(state: HexState, event: Event) -> HexState:
    return evolve_own(with_table(state, event), event)


def evolve_own(state: HexState, event: Event) -> HexState:
    match event:
        case EncounterStarted():
            return replace(state, {"phase": "running"})
        case EncounterEnded():
            return replace(state, {"phase": "ended", "current": None, "pending": ()})
        case CombatantAdded():
            weapons = event.stats.weapons
            first = weapons[0].name if weapons else None
            return replace(state, {"wielding": {**state.wielding, event.combatant_id: first}})
        case CombatantUpdated() if event.stats is not None:
            names = [w.name for w in event.stats.weapons]
            held = state.wielding.get(event.combatant_id)
            if held in names:
                return state
            first = names[0] if names else None
            return replace(state, {"wielding": {**state.wielding, event.combatant_id: first}})
        case CombatantRemoved():
            return _without(state, event.combatant_id)
        case InitiativeRolled():
            rank = (event.degree, event.check.score, event.check.roll)
            return replace(state, {"initiative": {**state.initiative, event.combatant_id: rank}})
        case OrderSet():
            return replace(state, {"order": event.order})
        case RoundStarted():
            return replace(state, {"round": event.round, "acted": ()})
        case TurnStarted():
            cid = event.combatant_id
            return replace(
                state,
                {
                    "current": cid,
                    "acted": (*state.acted, cid),
                    "turn": Turn(),
                    # hex-tactical Cover: total "until the start of their next turn"; a
                    # reserved move lasts until then too.
                    "taking_cover": _drop(state.taking_cover, cid),
                    "reservations": _drop(state.reservations, cid),
                },
            )
        case TurnEnded():
            if state.current != event.combatant_id:
                return state
            return replace(state, {"current": None, "turn": Turn()})
        case ActionBegun():
            if state.current != event.combatant_id:
                return state
            turn = state.turn
            changes: dict[str, object] = {"actions": turn.actions + 1}
            if event.kind == "move":
                changes["moves"] = turn.moves + 1
            else:
                changes["other"] = True
            return replace(state, {"turn": replace(turn, changes)})
        case Moved():
            state = _place(state, event)
            # Taking cover holds while one stays put: a move gives it up (interpretation).
            state = replace(state, {"taking_cover": _drop(state.taking_cover, event.combatant_id)})
            if event.reserved:
                state = replace(
                    state, {"reservations": _drop(state.reservations, event.combatant_id)}
                )
            return state
        case MeleeJoined():
            pairs = tuple(sorted({*state.melee, event.combatants}))
            return replace(state, {"melee": pairs})
        case MeleeEnded():
            return replace(state, {"melee": tuple(p for p in state.melee if p != event.combatants)})
        case AttackRolled():
            if event.overwatch:
                state = replace(state, {"reservations": _drop(state.reservations, event.attacker)})
            if event.hit and event.response is not None:
                state = _queue(
                    state, "defence", event.attacker, event.target, attack=event.response
                )
            return state
        case OpportunityRaised():
            state = _queue(
                state,
                "opportunity",
                event.combatant_id,
                event.combatant_id,
                threateners=event.threateners,
                reason=event.reason,
            )
            return _queue_paused(state, event.paused)
        case ReservationTriggered():
            reservation = state.reservations.get(event.combatant_id)
            state = replace(state, {"reservations": _drop(state.reservations, event.combatant_id)})
            state = _queue(
                state,
                "reserved",
                event.combatant_id,
                event.mover,
                reason=event.kind,
                reservation=reservation,
            )
            return _queue_paused(state, event.paused)
        case ReactionWindowOpened():
            return _settled(state, event.trigger.get("resolves"))
        case ActionResumed() | ActionCut() | Defended() | DamageDealt() | ManeuverLanded():
            return _settled(state, event.resolves)
        case Wielded():
            return _wielded(state, event)
        case CoverPlaced():
            placed = cell_key(event.cover.cell)
            return replace(state, {"cover": {**state.cover, placed: event.cover}})
        case CoverRemoved():
            return replace(state, {"cover": _drop(state.cover, cell_key(event.cell))})
        case ObjectStruck():
            return _struck(state, event)
        case CoverTaken() if event.check.success:
            taking = {**state.taking_cover, event.combatant_id: event.cells}
            return replace(state, {"taking_cover": taking})
        case AwarenessSet():
            unaware = set(state.unaware.get(event.combatant_id, ()))
            if event.aware:
                unaware.discard(event.of)
            else:
                unaware.add(event.of)
            return replace(
                state, {"unaware": {**state.unaware, event.combatant_id: tuple(sorted(unaware))}}
            )
        case MoveReserved():
            reservations = {**state.reservations, event.combatant_id: event.reservation}
            return replace(state, {"reservations": reservations})
        case Surrendered():
            return replace(state, {"surrendered": (*state.surrendered, event.combatant_id)})
    return state


def _drop(mapping: Mapping[str, V], key: str) -> dict[str, V]:
    return {k: v for k, v in mapping.items() if k != key}


def _wielded(state: HexState, event: Wielded) -> HexState:
    cid = event.combatant_id
    dropped = state.dropped.get(cid, ())
    held = state.wielding.get(cid)
    if event.dropped and held is not None:
        dropped = (*dropped, held)
    elif event.weapon in dropped:
        dropped = tuple(w for w in dropped if w != event.weapon)
    return replace(
        state,
        {
            "wielding": {**state.wielding, cid: event.weapon},
            "dropped": {**state.dropped, cid: dropped},
        },
    )


def _struck(state: HexState, event: ObjectStruck) -> HexState:
    key = cell_key(event.cell)
    if event.destroyed:
        return replace(state, {"cover": _drop(state.cover, key)})
    cover = state.cover.get(key)
    if cover is None or event.durability is None:
        return state
    worn = replace(cover, {"durability": event.durability})
    return replace(state, {"cover": {**state.cover, key: worn}})


def _place(state: HexState, event: Moved) -> HexState:
    combatant = state.table.combatants.get(event.combatant_id)
    if combatant is None or not event.path:
        return state
    moved = replace(combatant, {"position": event.path[-1]})
    table = replace(state.table, {"combatants": {**state.table.combatants, moved.id: moved}})
    state = replace(state, {"table": table})
    if state.current == event.combatant_id:
        entered = (*state.turn.entered, *event.path[1:])
        state = replace(state, {"turn": replace(state.turn, {"entered": entered})})
    return state


def _queue(state: HexState, kind: PendingKind, actor: str, target: str, **data: Any) -> HexState:
    """Queue an item in front of the paused actions, behind other interruptions."""
    number = state.pending_seq + 1
    item = Pending(id=number, kind=kind, actor=actor, target=target, **data)
    pending = list(state.pending)
    at = next((i for i, p in enumerate(pending) if p.kind == "continue"), len(pending))
    pending.insert(at, item)
    return replace(state, {"pending": tuple(pending), "pending_seq": number})


def _queue_paused(state: HexState, paused: Paused | None) -> HexState:
    if paused is None:
        return state
    return _queue(state, "continue", paused.combatant_id, paused.combatant_id, paused=paused)


def _settled(state: HexState, resolves: object) -> HexState:
    if resolves is None:
        return state
    return replace(state, {"pending": tuple(p for p in state.pending if p.id != resolves)})


def _without(state: HexState, gone: str) -> HexState:
    return replace(
        state,
        {
            "order": tuple(c for c in state.order if c != gone),
            "initiative": _drop(state.initiative, gone),
            "acted": tuple(c for c in state.acted if c != gone),
            "wielding": _drop(state.wielding, gone),
            "dropped": _drop(state.dropped, gone),
            "melee": tuple(p for p in state.melee if gone not in p),
            "taking_cover": _drop(state.taking_cover, gone),
            "unaware": {
                k: tuple(c for c in v if c != gone) for k, v in state.unaware.items() if k != gone
            },
            "reservations": _drop(state.reservations, gone),
            "surrendered": tuple(c for c in state.surrendered if c != gone),
            "pending": tuple(
                p for p in state.pending if gone not in (p.actor, p.target, *p.threateners)
            ),
        },
    )
