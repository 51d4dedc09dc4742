"""How combat-ii events change the state. Total and pure: one match over event types."""

from __future__ import annotations

from service.domain.common import CombatantAdded, CombatantRemoved, EncounterEnded
from service.domain.frozen import replace
from service.domain.messages import Event
from service.domain.ruleset import with_table
from service.rules.combat_ii.events import (
    AmbushSet,
    AttackRolled,
    CastingProgressed,
    CheckRolled,
    CriticalRolled,
    DamageRolled,
    EffectApplied,
    EffectEnded,
    InitiativeRolled,
    IntentionCancelled,
    IntentionDeclared,
    Moved,
    PhaseBegan,
    PhaseEnded,
    ReadyEnded,
    Rested,
    ReturnReady,
    RoundBegan,
    SequenceSet,
    SpeedChanged,
    SpellBegun,
    SpellCompleted,
    SpellRuined,
    TangentEstablished,
    WeaponDropped,
    WeaponReadied,
)
from service.rules.combat_ii.state import CombatIIState, Fighter, Intention
from service.rules.combat_ii.stats import CombatIIStats

HIDDEN = "hide in shadows"
"""The skill check (§4 Agility) whose success hides a thief from those who noticed it."""

_NOT_COUNTED = frozenset({"free", "extra"})


def evolve(state: CombatIIState, event: Event) -> CombatIIState:
    return evolve_own(with_table(state, event), event)


def fighter(state: CombatIIState, cid: str) -> Fighter:
    return state.fighters.get(cid) or Fighter()


def _with(state: CombatIIState, cid: str, **changes: object) -> CombatIIState:
    updated = replace(fighter(state, cid), changes)
    return replace(state, {"fighters": {**state.fighters, cid: updated}})


def evolve_own(state: CombatIIState, event: Event) -> CombatIIState:
    match event:
        case EncounterEnded():
            return replace(state, {"stage": "ended", "intentions": {}})
        case CombatantAdded():
            stats: CombatIIStats = event.stats
            new = Fighter(in_hand=stats.in_hand(), components=stats.components_in_hand)
            return replace(state, {"fighters": {**state.fighters, event.combatant_id: new}})
        case CombatantRemoved():
            fighters = {k: v for k, v in state.fighters.items() if k != event.combatant_id}
            intentions = {k: v for k, v in state.intentions.items() if k != event.combatant_id}
            return replace(state, {"fighters": fighters, "intentions": intentions})
        case AmbushSet():
            return replace(state, {"surprised": event.surprised, "ambushers": event.ambushers})
        case RoundBegan():
            fighters = {
                cid: replace(f, {"used": {}, "top_factor": f.factor})
                for cid, f in state.fighters.items()
            }
            return replace(state, {"round": event.round, "fighters": fighters})
        case InitiativeRolled():
            return replace(state, {"rolls": event.rolls, "tracks": event.tracks})
        case PhaseBegan():
            fighters = {
                cid: replace(f, {"phase_factor": f.factor}) for cid, f in state.fighters.items()
            }
            return replace(
                state,
                {
                    "phase": event.phase, "tick": event.tick, "intentions": {},
                    "stage": "intentions", "fighters": fighters,
                },
            )  # fmt: skip
        case IntentionDeclared():
            intentions = {**state.intentions, event.combatant_id: event.intention}
            return replace(state, {"intentions": intentions})
        case PhaseEnded():
            return replace(state, {"intentions": {}})
        case IntentionCancelled():
            return _cancelled(state, event)
        case CheckRolled() if event.check.ability == HIDDEN and event.check.passed:
            # PH: a thief hidden in shadows is lost to sight, unnoticed again (§2 D backstab).
            return _with(state, event.combatant_id, noticed_by=())
        case ReturnReady():
            mine = fighter(state, event.combatant_id)
            returns = {**mine.returns, **dict.fromkeys(event.against, event.until)}
            return _with(state, event.combatant_id, returns=returns)
        case AttackRolled():
            return _noticed(_attacked(state, event), event.attacker, event.target)
        case CriticalRolled(kind="miss"):
            return _fumbled(state, event)
        case DamageRolled() if event.amount > 0:
            return _with(state, event.target, damaged_tick=state.tick)
        case EffectApplied():
            mine = fighter(state, event.combatant_id)
            kept = tuple(e for e in mine.effects if e.name != event.effect.name)
            return _with(state, event.combatant_id, effects=(*kept, event.effect))
        case EffectEnded():
            mine = fighter(state, event.combatant_id)
            kept = tuple(e for e in mine.effects if e.name != event.name)
            return _with(state, event.combatant_id, effects=kept)
        case SpellBegun():
            return _begun(state, event)
        case CastingProgressed():
            casting = fighter(state, event.combatant_id).casting
            if casting is None:
                return state
            progressed = replace(casting, {"left": event.left, "rounds": event.rounds})
            return _with(state, event.combatant_id, casting=progressed)
        case SpellCompleted():
            return _completed(state, event)
        case TangentEstablished():
            mine = fighter(state, event.combatant_id)
            tangents = {**mine.tangents, event.target: event.tangents}
            return _with(state, event.combatant_id, tangents=tangents)
        case SpellRuined():
            return _with(state, event.combatant_id, casting=None, ruined_round=state.round)
        case Moved():
            return _place(state, event)
        case SpeedChanged():
            mine = fighter(state, event.combatant_id)
            top = max(mine.top_factor, event.factor)
            return _with(state, event.combatant_id, factor=event.factor, top_factor=top)
        case WeaponDropped():
            return _dropped(state, event)
        case WeaponReadied():
            return _readied(state, event)
        case ReadyEnded():
            return _with(state, event.combatant_id, ready=None, covering=(), ambush=False)
        case SequenceSet():
            return _with(
                state,
                event.combatant_id,
                sequence=event.sequence,
                rest_until=event.rest_until,
                cast_rest_until=event.cast_rest_until,
                spells_in_row=event.spells_in_row,
            )
        case Rested():
            mine = fighter(state, event.combatant_id)
            total = event.counted
            recovered = total if event.new_day else mine.recovered_today + total
            return _with(state, event.combatant_id, recovered_today=recovered)
    return state


def _noticed(state: CombatIIState, attacker: str, target: str) -> CombatIIState:
    """§2 D "previously unnoticed": an attack makes attacker and target each aware of the
    other."""
    for one, other in ((attacker, target), (target, attacker)):
        if one in state.fighters and other not in fighter(state, one).noticed_by:
            state = _with(state, one, noticed_by=(*fighter(state, one).noticed_by, other))
    return state


def _attacked(state: CombatIIState, event: AttackRolled) -> CombatIIState:
    mine = fighter(state, event.attacker)
    used = dict(mine.used)
    if event.kind not in _NOT_COUNTED:
        used[event.weapon] = used.get(event.weapon, 0) + 1
    # An effect that ends with the next attack outlasts the rest of the routine it came from.
    effects = tuple(e for e in mine.effects if not (e.ends_on_attack and e.starts < state.tick))
    changes: dict[str, object] = {
        "used": used,
        "attacked_round": state.round,
        "attacked_tick": state.tick,
        "effects": effects,
    }
    if event.kind in ("set", "cover"):
        changes |= {"ready": None, "covering": (), "ambush": False}
    if event.kind == "touch":
        changes["charged"] = None
    elif _counts_ammunition(state, event.attacker, event.weapon):
        changes["missiles_spent"] = _plus_one(mine.missiles_spent, event.weapon)
    return _with(state, event.attacker, **changes)


def _fumbled(state: CombatIIState, event: CriticalRolled) -> CombatIIState:
    """§4 Critical Miss; "MW ... 50% chance of missile breakage due to misfire": the shot's
    missile, already spent, is counted broken too."""
    cid, weapon = event.combatant_id, event.missile_broken
    changes: dict[str, object] = {"fumbled_tick": state.tick}
    if weapon is not None and _counts_ammunition(state, cid, weapon):
        changes["missiles_broken"] = _plus_one(fighter(state, cid).missiles_broken, weapon)
    return _with(state, cid, **changes)


def _counts_ammunition(state: CombatIIState, cid: str, weapon: str) -> bool:
    """A missile weapon that gives `ammunition` in the stat block: each shot spends one."""
    combatant = state.table.combatants.get(cid)
    if combatant is None:
        return False
    # The table keeps the stat block as its event's JSON, read here and never validated again.
    weapons: list[dict[str, object]] = combatant.stats.get("weapons", [])
    return any(w["name"] == weapon and w.get("ammunition") is not None for w in weapons)


def _plus_one(counts: dict[str, int], key: str) -> dict[str, int]:
    return {**counts, key: counts.get(key, 0) + 1}


def _begun(state: CombatIIState, event: SpellBegun) -> CombatIIState:
    """A casting begins: the round's casting (§2 A), except a contact power's tangent, which
    is counted against the round's tangents instead (§2 B)."""
    mine = fighter(state, event.combatant_id)
    changes: dict[str, object] = {
        "casting": event.casting,
        "components": mine.components and not event.casting.material,
        "charged": None,
    }
    if event.casting.tangent:
        made = mine.tangents_in_round if mine.tangent_round == state.round else 0
        changes |= {"tangent_round": state.round, "tangents_in_round": made + 1}
    else:
        changes["cast_round"] = state.round
    return _with(state, event.combatant_id, **changes)


def _completed(state: CombatIIState, event: SpellCompleted) -> CombatIIState:
    casting = fighter(state, event.combatant_id).casting
    changes: dict[str, object] = {
        "casting": None,
        "charged": event.spell if event.touch else None,
    }
    if casting is not None and casting.tangent:
        changes["tangent_tick"] = state.tick
    else:
        changes |= {"completed_round": state.round, "completed_tick": state.tick}
    if casting is not None and casting.enhances:
        changes["enhanced_tick"] = state.tick
    return _with(state, event.combatant_id, **changes)


def _cancelled(state: CombatIIState, event: IntentionCancelled) -> CombatIIState:
    """§1 E: the checked swing spends the routine's attack; the cancelled or interrupted
    spell is the round's casting (System I) and starts the casting delay (System II)."""
    cid = event.combatant_id
    intentions = {**state.intentions, cid: Intention(kind="stand")}
    changes: dict[str, object] = {"cast_round": state.round, "completed_tick": state.tick}
    if event.what == "spell":
        del intentions[cid]
        changes["casting"] = None
    elif event.what == "attack":
        used = dict(fighter(state, cid).used)
        for weapon in event.weapons:
            used[weapon] = used.get(weapon, 0) + 1
        changes = {"used": used, "attacked_round": state.round, "attacked_tick": state.tick}
    return replace(_with(state, cid, **changes), {"intentions": intentions})


def _place(state: CombatIIState, event: Moved) -> CombatIIState:
    combatant = state.table.combatants.get(event.combatant_id)
    if combatant is None or not event.path:
        return state
    moved = replace(combatant, {"position": event.path[-1]})
    table = replace(state.table, {"combatants": {**state.table.combatants, moved.id: moved}})
    return replace(state, {"table": table})


def _dropped(state: CombatIIState, event: WeaponDropped) -> CombatIIState:
    mine = fighter(state, event.combatant_id)
    if event.how == "string-broken":
        broken = tuple(sorted({*mine.string_broken, event.weapon}))
        return _with(state, event.combatant_id, string_broken=broken)
    in_hand = tuple(w for w in mine.in_hand if w != event.weapon)
    dropped = tuple(sorted({*mine.dropped, event.weapon}))
    lying = {w: c for w, c in mine.dropped_at.items() if w != event.weapon}
    if event.at is not None:
        lying[event.weapon] = event.at
    return _with(state, event.combatant_id, in_hand=in_hand, dropped=dropped, dropped_at=lying)


def _readied(state: CombatIIState, event: WeaponReadied) -> CombatIIState:
    mine = fighter(state, event.combatant_id)
    match event.what:
        case "draw" if event.weapon is not None:
            held = tuple(w for w in mine.in_hand if w != event.weapon)
            in_hand = (*held[-1:], event.weapon) if len(held) >= 2 else (*held, event.weapon)
            dropped = tuple(w for w in mine.dropped if w != event.weapon)
            lying = {w: c for w, c in mine.dropped_at.items() if w != event.weapon}
            return _with(
                state, event.combatant_id, in_hand=in_hand, dropped=dropped, dropped_at=lying
            )
        case "swap" if event.weapon is not None:
            return _with(state, event.combatant_id, in_hand=(event.weapon,))
        case "components":
            return _with(state, event.combatant_id, components=True)
        case "restring":
            broken = tuple(w for w in mine.string_broken if w != event.weapon)
            return _with(state, event.combatant_id, string_broken=broken)
        case "set" | "cover" | "ambush":
            return _with(
                state,
                event.combatant_id,
                ready=event.ready,
                covering=event.cells,
                ambush=event.what == "ambush",
            )
    return state
