"""How Delver's Deep events change the state. Total and pure: one match over event types."""

from __future__ import annotations

from typing import Any

from service.domain.common import (
    CombatantAdded,
    CombatantRemoved,
    EncounterEnded,
    EncounterStarted,
)
from service.domain.frozen import replace
from service.domain.messages import Event
from service.domain.reactions import ReactionWindowOpened
from service.domain.ruleset import with_table
from service.rules.delvers_deep.events import (
    AttackRolled,
    Braced,
    CheckRolled,
    DamageTaken,
    Defended,
    Dodged,
    DodgeFailed,
    Encouraged,
    Focused,
    Improvised,
    Interacted,
    InteractionAnswered,
    Moved,
    OrderFixed,
    ReactionRefused,
    Recovered,
    ReflexBoosted,
    ReflexRolled,
    Reloaded,
    RoundStarted,
    SpellCast,
    TurnEnded,
    TurnStarted,
)
from service.rules.delvers_deep.state import (
    DelversState,
    Effect,
    EffectKind,
    Pending,
    PendingKind,
    Reflex,
    Turn,
)


def evolve(state: DelversState, event: Event) -> DelversState:
    return evolve_own(with_table(state, event), event)


def evolve_own(state: DelversState, event: Event) -> DelversState:
    match event:
        case EncounterStarted():
            return replace(state, {"phase": "reflex"})
        case EncounterEnded():
            return replace(state, {"phase": "ended", "current": (), "turns": {}, "pending": ()})
        case CombatantAdded():
            if state.phase == "running" and event.stats.kind == "pc":
                return replace(state, {"pc_order": (*state.pc_order, event.combatant_id)})
            return state
        case CombatantRemoved():
            return _without(state, event.combatant_id)
        case ReflexRolled():
            return replace(
                state, {"reflex": {**state.reflex, event.combatant_id: Reflex(roll=event.roll)}}
            )
        case ReflexBoosted():
            old = state.reflex.get(event.combatant_id, Reflex(roll=0))
            boosted = replace(old, {"spent": old.spent + event.points})
            return replace(state, {"reflex": {**state.reflex, event.combatant_id: boosted}})
        case OrderFixed():
            return replace(state, {"pc_order": event.order, "phase": "running"})
        case RoundStarted():
            return replace(state, {"round": event.round, "acted": (), "last_side": None})
        case TurnStarted():
            return _turn_started(state, event)
        case TurnEnded():
            return _turn_ended(state, event.combatant_id)
        case Recovered():
            return _turn(state, event.combatant_id, recovered=True)
        case Moved():
            state = _acted(state, event.combatant_id, moves=1)
            if event.path:
                state = _place(state, event.combatant_id, event)
            if event.provokes:
                state = _queue(
                    state,
                    "opportunity",
                    event.combatant_id,
                    event.combatant_id,
                    attackers=event.provokes,
                )
            return state
        case AttackRolled():
            if not event.reaction:
                state = _acted(state, event.attacker)
            if event.unloads:
                fired = (*state.unloaded.get(event.attacker, ()), event.weapon)
                state = replace(state, {"unloaded": {**state.unloaded, event.attacker: fired}})
            if event.hit:
                state = _queue(
                    state,
                    "hit",
                    event.attacker,
                    event.target,
                    weapon=event.weapon,
                    damage=event.damage,
                    tags=event.tags,
                )
            return state
        case Reloaded():
            left = tuple(w for w in state.unloaded.get(event.combatant_id, ()) if w != event.weapon)
            state = replace(state, {"unloaded": {**state.unloaded, event.combatant_id: left}})
            return _acted(state, event.combatant_id)
        case SpellCast():
            state = _acted(state, event.combatant_id)
            if event.success and event.damage > 0 and event.target is not None:
                state = _queue(
                    state,
                    "hit",
                    event.combatant_id,
                    event.target,
                    weapon=event.spell,
                    damage=event.damage,
                    tags=event.tags,
                )
            return state
        case Improvised():
            return _acted(state, event.combatant_id)
        case Interacted():
            state = _acted(state, event.combatant_id)
            if event.partner is not None:
                state = _queue(
                    state,
                    "interact",
                    event.combatant_id,
                    event.partner,
                    description=event.description,
                )
            return state
        case Braced():
            state = _effect(state, event.combatant_id, event.combatant_id, "brace")
            return _acted(state, event.combatant_id, braced=True)
        case Defended():
            state = _effect(state, event.combatant_id, event.combatant_id, "defend")
            return _acted(state, event.combatant_id, defended=True)
        case Focused():
            state = _effect(state, event.combatant_id, event.combatant_id, "focus")
            return _acted(state, event.combatant_id, focused=True)
        case Encouraged():
            state = _effect(state, event.combatant_id, event.target, "encourage")
            turn = state.turns.get(event.combatant_id)
            targets = (*(turn.encouraged if turn else ()), event.target)
            return _acted(state, event.combatant_id, encouraged=targets)
        case ReactionWindowOpened():
            return _settled(state, event.trigger.get("resolves"))
        case DamageTaken():
            return _settled(state, event.resolves)
        case CheckRolled() | Dodged() | DodgeFailed() | ReactionRefused() | InteractionAnswered():
            return state
    return state


def _turn_started(state: DelversState, event: TurnStarted) -> DelversState:
    turns = dict(state.turns)
    taken = dict(state.turns_taken)
    effects = dict(state.effects)
    for cid in event.combatant_ids:
        turns[cid] = Turn()
        taken[cid] = taken.get(cid, 0) + 1
        # delvers-deep 4.1 Brace/Defend/Focus: "until the start of their next turn".
        effects[cid] = tuple(e for e in effects.get(cid, ()) if e.lasts != "start-of-next-turn")
    return replace(
        state,
        {
            "current": event.combatant_ids,
            "acted": (*state.acted, *event.combatant_ids),
            "last_side": event.side,
            "turns": turns,
            "turns_taken": taken,
            "effects": effects,
        },
    )


def _turn_ended(state: DelversState, cid: str) -> DelversState:
    number = state.turns_taken.get(cid, 0)
    # delvers-deep 4.1 Encourage: "until the end of their next turn".
    kept = tuple(
        e
        for e in state.effects.get(cid, ())
        if not (e.lasts == "end-of-next-turn" and e.after_turn < number)
    )
    return replace(
        state,
        {
            "current": tuple(c for c in state.current if c != cid),
            "turns": {k: v for k, v in state.turns.items() if k != cid},
            "effects": {**state.effects, cid: kept},
        },
    )


def _turn(state: DelversState, cid: str, **changes: object) -> DelversState:
    turn = state.turns.get(cid)
    if turn is None:
        return state
    return replace(state, {"turns": {**state.turns, cid: replace(turn, changes)}})


def _acted(state: DelversState, cid: str, moves: int = 0, **changes: object) -> DelversState:
    turn = state.turns.get(cid)
    if turn is None:
        return state
    counted = {"actions_used": turn.actions_used + 1, "moves": turn.moves + moves, **changes}
    return replace(state, {"turns": {**state.turns, cid: replace(turn, counted)}})


def _effect(state: DelversState, source: str, target: str, kind: EffectKind) -> DelversState:
    lasts = {
        "encourage": state.options.encourage_lasts,
        "focus": state.options.focus_lasts,
    }.get(kind, "start-of-next-turn")
    effect = Effect(
        kind=kind, source=source, after_turn=state.turns_taken.get(target, 0), lasts=lasts
    )
    return replace(
        state, {"effects": {**state.effects, target: (*state.effects.get(target, ()), effect)}}
    )


def _place(state: DelversState, cid: str, event: Moved) -> DelversState:
    combatant = state.table.combatants.get(cid)
    if combatant is None or not event.path:
        return state
    moved = replace(combatant, {"position": event.path[-1]})
    table = replace(state.table, {"combatants": {**state.table.combatants, cid: moved}})
    return replace(state, {"table": table})


def _queue(
    state: DelversState, kind: PendingKind, actor: str, target: str, **data: Any
) -> DelversState:
    number = state.pending_seq + 1
    item = Pending(id=number, kind=kind, actor=actor, target=target, **data)
    return replace(state, {"pending": (*state.pending, item), "pending_seq": number})


def _settled(state: DelversState, resolves: object) -> DelversState:
    if resolves is None:
        return state
    return replace(state, {"pending": tuple(p for p in state.pending if p.id != resolves)})


def _without(state: DelversState, gone: str) -> DelversState:
    return replace(
        state,
        {
            "reflex": {k: v for k, v in state.reflex.items() if k != gone},
            "pc_order": tuple(c for c in state.pc_order if c != gone),
            "current": tuple(c for c in state.current if c != gone),
            "turns": {k: v for k, v in state.turns.items() if k != gone},
            "effects": {k: v for k, v in state.effects.items() if k != gone},
            "pending": tuple(p for p in state.pending if gone not in (p.actor, p.target)),
        },
    )
