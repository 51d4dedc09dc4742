"""How morale and casualties change the d20-action-points state: a broken combatant queued to
choose, fleeing (with the parting shots it invites) or surrendering, a monster defeated, a
character's death check, a kill, and a level drained (d20-action-points Check Morale,
Killing Monsters and Character Death, Special Attack Conditions)."""

from __future__ import annotations

from service.domain.frozen import replace
from service.domain.messages import Event
from service.domain.table import Pool
from service.rules.d20_action_points.combatants import feet_between
from service.rules.d20_action_points.events import (
    DeathChecked,
    Defeated,
    Fled,
    Killed,
    LevelDrained,
    MoraleChecked,
    Surrendered,
)
from service.rules.d20_action_points.evolve_combatant import (
    BROKEN,
    add_condition,
    change_combatant,
    enqueue,
    remove_condition,
    take_out,
    to_ground,
)
from service.rules.d20_action_points.state import (
    Arms,
    D20State,
)


def evolve_casualties(state: D20State, event: Event) -> D20State | None:
    """The fold of morale and casualty events; None for any other event."""
    match event:
        case MoraleChecked() if event.broken:
            state = add_condition(state, event.combatant_id, BROKEN)
            return enqueue(state, "broken", event.combatant_id, event.combatant_id)
        case Fled():
            state = remove_condition(state, event.combatant_id, BROKEN)
            state = add_condition(state, event.combatant_id, "fled")
            state = take_out(state, event.combatant_id)
            if not parting_shooters(state, event.combatant_id):
                return state
            return enqueue(state, "fled", event.combatant_id, event.combatant_id)
        case Surrendered():
            state = remove_condition(state, event.combatant_id, BROKEN)
            state = add_condition(state, event.combatant_id, "surrendered")
            arms = state.arms.get(event.combatant_id, Arms())
            for weapon in arms.carried:
                state = to_ground(state, weapon, event.combatant_id)
            state = replace(state, {"arms": {**state.arms, event.combatant_id: Arms()}})
            return take_out(state, event.combatant_id)
        case Defeated():
            return take_out(
                add_condition(state, event.combatant_id, "defeated"), event.combatant_id
            )
        case DeathChecked():
            return take_out(
                add_condition(state, event.combatant_id, event.outcome), event.combatant_id
            )
        case Killed():
            return take_out(add_condition(state, event.combatant_id, "dead"), event.combatant_id)
        case LevelDrained():
            return _drained(state, event)
    return None


def parting_shooters(state: D20State, fleer: str) -> list[str]:
    """Check Morale: "If a player character (or monster) has a ranged weapon readied in
    hand, they can make one attack against the fleeing monster": foes holding a ranged or
    thrown weapon, within its longest range on a map."""
    table = state.table
    runner = table.combatants.get(fleer)
    if runner is None:
        return []
    shooters = []
    for foe in table.combatants.values():
        arms = state.arms.get(foe.id)
        weapon = arms.in_hand if arms is not None else None
        if foe.side == runner.side or foe.out_of_fight or weapon is None or weapon.kind == "melee":
            continue
        if feet_between(state, foe, runner, None) <= weapon.bands[1]:
            shooters.append(foe.id)
    return shooters


def _drained(state: D20State, event: LevelDrained) -> D20State:
    combatant = state.table.combatants.get(event.combatant_id)
    if combatant is None:
        return state
    # The hit points a level are the undrained stat block's: the next drain takes as many.
    stats = {**combatant.stats, "level": event.level, "hp_per_level": event.hp_per_level}
    hp = combatant.pools.get("hp", Pool(current=0))
    pools = {**combatant.pools, "hp": Pool(current=min(hp.current, event.max_hp), max=event.max_hp)}
    return change_combatant(state, event.combatant_id, stats=stats, pools=pools)
