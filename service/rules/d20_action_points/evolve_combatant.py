"""The folds every d20-action-points mechanic shares: a combatant changed, a condition put on
or taken off, one taken out of the fight (freed from grapples, no longer engaged, readied,
declared or choosing), a grapple let go, a weapon lost, held or left on the ground, and a
choice or reaction queued. Pure: they only fold, never validate."""

from __future__ import annotations

from service.domain.frozen import replace
from service.domain.table import Combatant, Condition
from service.rules.d20_action_points.state import (
    Arms,
    D20State,
    GroundItem,
    Pending,
    PendingKind,
    Weapon,
)

PRONE, HIDDEN, GRAPPLED, PINNED, BROKEN = "prone", "hidden", "grappled", "pinned", "broken"


def change_combatant(state: D20State, cid: str, **changes: object) -> D20State:
    combatant = state.table.combatants.get(cid)
    if combatant is None:
        return state
    changed: Combatant = replace(combatant, changes)
    table = replace(state.table, {"combatants": {**state.table.combatants, cid: changed}})
    return replace(state, {"table": table})


def add_condition(state: D20State, cid: str, name: str, source: str | None = None) -> D20State:
    combatant = state.table.combatants.get(cid)
    if combatant is None or combatant.has_condition(name):
        return state
    return change_combatant(
        state, cid, conditions=(*combatant.conditions, Condition(name=name, source=source))
    )


def remove_condition(state: D20State, cid: str, name: str) -> D20State:
    combatant = state.table.combatants.get(cid)
    if combatant is None or not combatant.has_condition(name):
        return state
    kept = tuple(c for c in combatant.conditions if c.name != name)
    return change_combatant(state, cid, conditions=kept)


def take_out(state: D20State, cid: str) -> D20State:
    state = change_combatant(state, cid, out_of_fight=True)
    for held, grappler in list(state.grappled.items()):
        if cid in (held, grappler):
            state = freed(state, held)
    engaged = {k: tuple(c for c in v if c != cid) for k, v in state.engaged.items() if k != cid}
    return replace(
        state,
        {
            "engaged": engaged,
            "readied": {k: v for k, v in state.readied.items() if k != cid},
            "declared": {k: v for k, v in state.declared.items() if k != cid},
            # One who is out of the fight no longer chooses to flee or surrender.
            "pending": tuple(
                p for p in state.pending if not (p.kind == "broken" and p.target == cid)
            ),
        },
    )


def freed(state: D20State, held: str) -> D20State:
    state = remove_condition(remove_condition(state, held, GRAPPLED), held, PINNED)
    return replace(
        state,
        {
            "grappled": {k: v for k, v in state.grappled.items() if k != held},
            "pinned": tuple(c for c in state.pinned if c != held),
        },
    )


def let_go(state: D20State, grappler: str) -> D20State:
    """A grappler who moves away or takes a weapon in hand lets go (interpretation: a
    grapple needs "two free hands" and closeness to last)."""
    for held, holder in list(state.grappled.items()):
        if holder == grappler:
            state = freed(state, held)
    return state


def lose(state: D20State, cid: str, name: str) -> D20State:
    arms = state.arms.get(cid, Arms())
    index = next((i for i, w in enumerate(arms.carried) if w.name == name), None)
    if index is None:
        return state
    carried = arms.carried[:index] + arms.carried[index + 1 :]
    wielding = None if arms.wielding == name else arms.wielding
    return replace(state, {"arms": {**state.arms, cid: Arms(carried=carried, wielding=wielding)}})


def hold(state: D20State, cid: str, weapon: Weapon) -> D20State:
    arms = state.arms.get(cid, Arms())
    carried = arms.carried if arms.weapon(weapon.name) else (*arms.carried, weapon)
    return replace(
        state, {"arms": {**state.arms, cid: Arms(carried=carried, wielding=weapon.name)}}
    )


def to_ground(state: D20State, weapon: Weapon, near: str) -> D20State:
    combatant = state.table.combatants.get(near)
    cell = combatant.position if combatant is not None else None
    item = GroundItem(weapon=weapon, near=near, cell=cell)
    return replace(state, {"ground": (*state.ground, item)})


def enqueue(
    state: D20State, kind: PendingKind, actor: str, target: str, readied: tuple[str, ...] = ()
) -> D20State:
    number = state.pending_seq + 1
    item = Pending(id=number, kind=kind, actor=actor, target=target, readied=readied)
    return replace(state, {"pending": (*state.pending, item), "pending_seq": number})
