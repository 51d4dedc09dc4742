"""How the events of a turn's actions change the d20-action-points state: moving, standing
and dropping prone, items dropped and equipped, attacks (engaging, giving a hidden attacker
away, a thrown weapon left on the ground), spells cast and interrupted, readied actions and
their triggers, the charge, disarms, grapples, breaking free and letting go
(d20-action-points Action Points, Melee Attack, Ranged Attacks, Casting Spells, Backstab,
Special Combat Moves and Actions)."""

from __future__ import annotations

from service.domain.frozen import replace
from service.domain.messages import Event
from service.rules.d20_action_points.events import (
    ActionReadied,
    AttackRolled,
    BreakFreeRolled,
    Charged,
    DisarmRolled,
    DroppedProne,
    GrappleRolled,
    ItemDropped,
    ItemEquipped,
    Moved,
    ReadiedTriggered,
    Released,
    SpellCast,
    SpellInterrupted,
    StoodUp,
)
from service.rules.d20_action_points.evolve_combatant import (
    GRAPPLED,
    HIDDEN,
    PINNED,
    PRONE,
    add_condition,
    change_combatant,
    enqueue,
    freed,
    hold,
    let_go,
    lose,
    remove_condition,
    to_ground,
)
from service.rules.d20_action_points.state import (
    Arms,
    D20State,
)


def evolve_actions(state: D20State, event: Event) -> D20State | None:
    """The fold of the events of actions; None for any other event."""
    match event:
        case Moved():
            if event.path:
                state = change_combatant(state, event.combatant_id, position=event.path[-1])
            state = let_go(_disengaged(state, event.combatant_id), event.combatant_id)
            return triggers(state, event.combatant_id, "moves")
        case StoodUp():
            return remove_condition(state, event.combatant_id, PRONE)
        case DroppedProne():
            return add_condition(state, event.combatant_id, PRONE)
        case ItemDropped():
            state = lose(state, event.combatant_id, event.weapon.name)
            return to_ground(state, event.weapon, event.combatant_id)
        case ItemEquipped():
            return _equipped(state, event)
        case AttackRolled():
            return _attacked(state, event)
        case SpellCast():
            declared = {k: v for k, v in state.declared.items() if k != event.combatant_id}
            state = replace(state, {"declared": declared})
            return triggers(state, event.combatant_id, "casts")
        case SpellInterrupted():
            declared = {k: v for k, v in state.declared.items() if k != event.combatant_id}
            return replace(state, {"declared": declared})
        case ReadiedTriggered():
            return enqueue(state, "readied", event.target, event.target, (event.combatant_id,))
        case ActionReadied():
            return replace(state, {"readied": {**state.readied, event.combatant_id: event.readied}})
        case Charged():
            return replace(
                state, {"charged": {**state.charged, event.combatant_id: event.until_round}}
            )
        case DisarmRolled() if not event.success:
            return enqueue(state, "disarm-counter", event.target, event.combatant_id)
        case DisarmRolled() if event.weapon is not None:
            state = lose(state, event.target, event.weapon.name)
            if event.taken:
                return hold(state, event.combatant_id, event.weapon)
            return to_ground(state, event.weapon, event.target)
        case GrappleRolled() if event.outcome != "failed":
            state = add_condition(state, event.target, GRAPPLED, source=event.combatant_id)
            state = replace(
                state, {"grappled": {**state.grappled, event.target: event.combatant_id}}
            )
            if event.outcome == "pinned":
                state = add_condition(state, event.target, PINNED, source=event.combatant_id)
                state = replace(state, {"pinned": (*state.pinned, event.target)})
            return state
        case BreakFreeRolled() if event.success:
            return freed(state, event.combatant_id)
        case Released():
            for held, grappler in state.grappled.items():
                if grappler == event.combatant_id and held == event.target:
                    state = freed(state, held)
            return state
    return None


def _disengaged(state: D20State, cid: str) -> D20State:
    if cid not in state.engaged and not any(cid in v for v in state.engaged.values()):
        return state
    engaged = {k: tuple(c for c in v if c != cid) for k, v in state.engaged.items() if k != cid}
    return replace(state, {"engaged": {k: v for k, v in engaged.items() if v}})


def _engage(state: D20State, a: str, b: str) -> D20State:
    engaged = dict(state.engaged)
    for one, other in ((a, b), (b, a)):
        if other not in engaged.get(one, ()):
            engaged[one] = (*engaged.get(one, ()), other)
    return replace(state, {"engaged": engaged})


def _attacked(state: D20State, event: AttackRolled) -> D20State:
    attacker, target = event.attacker, event.target
    # d20-action-points Backstab: "Once a blow is struck, the initial surprise advantage
    # effect is lost": any attack gives a hidden attacker away.
    state = remove_condition(state, attacker, HIDDEN)
    if event.how == "melee":
        victim = state.table.combatants.get(target)
        if victim is not None and not victim.out_of_fight:
            state = _engage(state, attacker, target)
    if event.how == "thrown":
        thrown = state.arms.get(attacker, Arms()).weapon(event.weapon)
        if thrown is not None:
            state = to_ground(lose(state, attacker, thrown.name), thrown, target)
    if event.reaction == "readied":
        state = replace(
            state, {"readied": {k: v for k, v in state.readied.items() if k != attacker}}
        )
    if event.reaction is None:
        state = triggers(state, attacker, "attacks")
    return state


def triggers(state: D20State, actor: str, kind: str) -> D20State:
    """Readied actions this action sets off (d20-action-points Action Points, Ready action):
    their trigger is this kind of action, by the combatant named or, when none is, by a foe."""
    me = state.table.combatants.get(actor)
    if me is None or not state.readied:
        return state
    ready = tuple(
        cid
        for cid, readied in state.readied.items()
        if cid != actor
        and readied.trigger == kind
        and (readied.by == actor if readied.by is not None else _foes(state, cid, actor))
    )
    return enqueue(state, "readied", actor, actor, ready) if ready else state


def _foes(state: D20State, a: str, b: str) -> bool:
    one, other = state.table.combatants.get(a), state.table.combatants.get(b)
    return one is not None and other is not None and one.side != other.side


def _equipped(state: D20State, event: ItemEquipped) -> D20State:
    if event.weapon is None:
        return state
    state = let_go(state, event.combatant_id)
    if event.picked_up:
        index = next(
            (i for i, g in enumerate(state.ground) if g.weapon.name == event.weapon.name), None
        )
        if index is not None:
            ground = state.ground[:index] + state.ground[index + 1 :]
            state = replace(state, {"ground": ground})
    return hold(state, event.combatant_id, event.weapon)
