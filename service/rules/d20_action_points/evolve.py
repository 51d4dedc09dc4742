"""How d20-action-points events change the state. Total and pure: one match over event
types."""

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
from service.domain.grid import distance
from service.domain.messages import Event
from service.domain.reactions import ReactionWindowOpened
from service.domain.ruleset import with_table
from service.domain.table import Combatant, Condition, Pool
from service.rules.d20_action_points.events import (
    ActionDeclared,
    ActionReadied,
    ActionTaken,
    ApproachChosen,
    AttackRolled,
    BreakFreeRolled,
    Charged,
    CombatBegan,
    DeathChecked,
    Defeated,
    DisarmRolled,
    DroppedProne,
    EnvironmentSet,
    Evading,
    Fled,
    GrappleRolled,
    HeroicPointSpent,
    InitiativeRolled,
    ItemDropped,
    ItemEquipped,
    Killed,
    LevelDrained,
    MarchingOrderSet,
    MoraleChecked,
    Moved,
    NegotiationRuled,
    PointGifted,
    ReadiedTriggered,
    Released,
    RoundStarted,
    SpellCast,
    SpellInterrupted,
    StoodUp,
    SurpriseChecked,
    Surrendered,
    TurnDelayed,
    TurnEnded,
    TurnSkipped,
    TurnStarted,
)
from service.rules.d20_action_points.state import (
    Arms,
    D20State,
    D20Stats,
    Declaration,
    GroundItem,
    Marching,
    Pending,
    PendingKind,
    Turn,
    Weapon,
)

CELL_FEET = 5
PRONE, HIDDEN, GRAPPLED, PINNED, BROKEN = "prone", "hidden", "grappled", "pinned", "broken"


def evolve(state: D20State, event: Event) -> D20State:
    return evolve_own(with_table(state, event), event)


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
            return _out_of_fight(state, event.combatant_id)
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
        case Moved():
            if event.path:
                state = _combatant(state, event.combatant_id, position=event.path[-1])
            state = _let_go(_disengaged(state, event.combatant_id), event.combatant_id)
            return _triggers(state, event.combatant_id, "moves")
        case StoodUp():
            return _uncondition(state, event.combatant_id, PRONE)
        case DroppedProne():
            return _condition(state, event.combatant_id, PRONE)
        case ItemDropped():
            state = _lose(state, event.combatant_id, event.weapon.name)
            return _to_ground(state, event.weapon, event.combatant_id)
        case ItemEquipped():
            return _equipped(state, event)
        case AttackRolled():
            return _attacked(state, event)
        case SpellCast():
            declared = {k: v for k, v in state.declared.items() if k != event.combatant_id}
            state = replace(state, {"declared": declared})
            return _triggers(state, event.combatant_id, "casts")
        case SpellInterrupted():
            declared = {k: v for k, v in state.declared.items() if k != event.combatant_id}
            return replace(state, {"declared": declared})
        case ReadiedTriggered():
            return _queue(state, "readied", event.target, event.target, (event.combatant_id,))
        case ActionReadied():
            return replace(state, {"readied": {**state.readied, event.combatant_id: event.readied}})
        case Charged():
            return replace(
                state, {"charged": {**state.charged, event.combatant_id: event.until_round}}
            )
        case DisarmRolled() if not event.success:
            return _queue(state, "disarm-counter", event.target, event.combatant_id)
        case DisarmRolled() if event.weapon is not None:
            state = _lose(state, event.target, event.weapon.name)
            if event.taken:
                return _hold(state, event.combatant_id, event.weapon)
            return _to_ground(state, event.weapon, event.target)
        case GrappleRolled() if event.outcome != "failed":
            state = _condition(state, event.target, GRAPPLED, source=event.combatant_id)
            state = replace(
                state, {"grappled": {**state.grappled, event.target: event.combatant_id}}
            )
            if event.outcome == "pinned":
                state = _condition(state, event.target, PINNED, source=event.combatant_id)
                state = replace(state, {"pinned": (*state.pinned, event.target)})
            return state
        case BreakFreeRolled() if event.success:
            return _freed(state, event.combatant_id)
        case Released():
            for held, grappler in state.grappled.items():
                if grappler == event.combatant_id and held == event.target:
                    state = _freed(state, held)
            return state
        case MoraleChecked() if event.broken:
            state = _condition(state, event.combatant_id, BROKEN)
            return _queue(state, "broken", event.combatant_id, event.combatant_id)
        case Fled():
            state = _uncondition(state, event.combatant_id, BROKEN)
            state = _condition(state, event.combatant_id, "fled")
            state = _out_of_fight(state, event.combatant_id)
            if not parting_shooters(state, event.combatant_id):
                return state
            return _queue(state, "fled", event.combatant_id, event.combatant_id)
        case Surrendered():
            state = _uncondition(state, event.combatant_id, BROKEN)
            state = _condition(state, event.combatant_id, "surrendered")
            arms = state.arms.get(event.combatant_id, Arms())
            for weapon in arms.carried:
                state = _to_ground(state, weapon, event.combatant_id)
            state = replace(state, {"arms": {**state.arms, event.combatant_id: Arms()}})
            return _out_of_fight(state, event.combatant_id)
        case Defeated():
            return _out_of_fight(
                _condition(state, event.combatant_id, "defeated"), event.combatant_id
            )
        case DeathChecked():
            return _out_of_fight(
                _condition(state, event.combatant_id, event.outcome), event.combatant_id
            )
        case Killed():
            return _out_of_fight(_condition(state, event.combatant_id, "dead"), event.combatant_id)
        case LevelDrained():
            return _drained(state, event)
        case ReactionWindowOpened():
            return _settled(state, event.trigger.get("resolves"))
    return state


def feet_between(state: D20State, a: Combatant, b: Combatant, given: int | None) -> int:
    grid = state.table.map
    if grid is not None and a.position is not None and b.position is not None:
        return distance(grid, a.position, b.position) * CELL_FEET
    return given or 0


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


def _declaration(event: ActionDeclared) -> Declaration:
    return Declaration(
        action=event.action, spell=event.spell, weapon=event.weapon, initiative=event.initiative
    )


def _arm(state: D20State, cid: str, block: D20Stats) -> D20State:
    arms = Arms(carried=block.weapons, wielding=block.wielding)
    return replace(state, {"arms": {**state.arms, cid: arms}})


def _combatant(state: D20State, cid: str, **changes: object) -> D20State:
    combatant = state.table.combatants.get(cid)
    if combatant is None:
        return state
    changed: Combatant = replace(combatant, changes)
    table = replace(state.table, {"combatants": {**state.table.combatants, cid: changed}})
    return replace(state, {"table": table})


def _condition(state: D20State, cid: str, name: str, source: str | None = None) -> D20State:
    combatant = state.table.combatants.get(cid)
    if combatant is None or combatant.has_condition(name):
        return state
    return _combatant(
        state, cid, conditions=(*combatant.conditions, Condition(name=name, source=source))
    )


def _uncondition(state: D20State, cid: str, name: str) -> D20State:
    combatant = state.table.combatants.get(cid)
    if combatant is None or not combatant.has_condition(name):
        return state
    kept = tuple(c for c in combatant.conditions if c.name != name)
    return _combatant(state, cid, conditions=kept)


def _out_of_fight(state: D20State, cid: str) -> D20State:
    state = _combatant(state, cid, out_of_fight=True)
    for held, grappler in list(state.grappled.items()):
        if cid in (held, grappler):
            state = _freed(state, held)
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


def _freed(state: D20State, held: str) -> D20State:
    state = _uncondition(_uncondition(state, held, GRAPPLED), held, PINNED)
    return replace(
        state,
        {
            "grappled": {k: v for k, v in state.grappled.items() if k != held},
            "pinned": tuple(c for c in state.pinned if c != held),
        },
    )


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
    state = _uncondition(state, attacker, HIDDEN)
    if event.how == "melee":
        victim = state.table.combatants.get(target)
        if victim is not None and not victim.out_of_fight:
            state = _engage(state, attacker, target)
    if event.how == "thrown":
        thrown = state.arms.get(attacker, Arms()).weapon(event.weapon)
        if thrown is not None:
            state = _to_ground(_lose(state, attacker, thrown.name), thrown, target)
    if event.reaction == "readied":
        state = replace(
            state, {"readied": {k: v for k, v in state.readied.items() if k != attacker}}
        )
    if event.reaction is None:
        state = _triggers(state, attacker, "attacks")
    return state


def _triggers(state: D20State, actor: str, kind: str) -> D20State:
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
    return _queue(state, "readied", actor, actor, ready) if ready else state


def _foes(state: D20State, a: str, b: str) -> bool:
    one, other = state.table.combatants.get(a), state.table.combatants.get(b)
    return one is not None and other is not None and one.side != other.side


def _queue(
    state: D20State, kind: PendingKind, actor: str, target: str, readied: tuple[str, ...] = ()
) -> D20State:
    number = state.pending_seq + 1
    item = Pending(id=number, kind=kind, actor=actor, target=target, readied=readied)
    return replace(state, {"pending": (*state.pending, item), "pending_seq": number})


def _lose(state: D20State, cid: str, name: str) -> D20State:
    arms = state.arms.get(cid, Arms())
    index = next((i for i, w in enumerate(arms.carried) if w.name == name), None)
    if index is None:
        return state
    carried = arms.carried[:index] + arms.carried[index + 1 :]
    wielding = None if arms.wielding == name else arms.wielding
    return replace(state, {"arms": {**state.arms, cid: Arms(carried=carried, wielding=wielding)}})


def _hold(state: D20State, cid: str, weapon: Weapon) -> D20State:
    arms = state.arms.get(cid, Arms())
    carried = arms.carried if arms.weapon(weapon.name) else (*arms.carried, weapon)
    return replace(
        state, {"arms": {**state.arms, cid: Arms(carried=carried, wielding=weapon.name)}}
    )


def _to_ground(state: D20State, weapon: Weapon, near: str) -> D20State:
    combatant = state.table.combatants.get(near)
    cell = combatant.position if combatant is not None else None
    item = GroundItem(weapon=weapon, near=near, cell=cell)
    return replace(state, {"ground": (*state.ground, item)})


def _let_go(state: D20State, grappler: str) -> D20State:
    """A grappler who moves away or takes a weapon in hand lets go (interpretation: a
    grapple needs "two free hands" and closeness to last)."""
    for held, holder in list(state.grappled.items()):
        if holder == grappler:
            state = _freed(state, held)
    return state


def _equipped(state: D20State, event: ItemEquipped) -> D20State:
    if event.weapon is None:
        return state
    state = _let_go(state, event.combatant_id)
    if event.picked_up:
        index = next(
            (i for i, g in enumerate(state.ground) if g.weapon.name == event.weapon.name), None
        )
        if index is not None:
            ground = state.ground[:index] + state.ground[index + 1 :]
            state = replace(state, {"ground": ground})
    return _hold(state, event.combatant_id, event.weapon)


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


def _drained(state: D20State, event: LevelDrained) -> D20State:
    combatant = state.table.combatants.get(event.combatant_id)
    if combatant is None:
        return state
    # The hit points a level are the undrained stat block's: the next drain takes as many.
    stats = {**combatant.stats, "level": event.level, "hp_per_level": event.hp_per_level}
    hp = combatant.pools.get("hp", Pool(current=0))
    pools = {**combatant.pools, "hp": Pool(current=min(hp.current, event.max_hp), max=event.max_hp)}
    return _combatant(state, event.combatant_id, stats=stats, pools=pools)


def _settled(state: D20State, resolves: object) -> D20State:
    if resolves is None:
        return state
    return replace(state, {"pending": tuple(p for p in state.pending if p.id != resolves)})


def _without(state: D20State, gone: str) -> D20State:
    state = _out_of_fight(state, gone)
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
