"""Attacks and what follows them: reach, range bands and the marching order, Armor Class
with cover, prone and a charge, the d20 with advantage, damage and the natural 20, then
defeat, the death check, morale, an interrupted spell and special attacks; and the reaction
windows for a broken combatant's choice, parting shots, a failed disarm's counter and readied
actions (d20-action-points Melee Attack, Ranged Attacks, Resolving Damage, Killing Monsters
and Character Death, Check Morale, Special Attack Conditions, Environment Modifiers)."""

from __future__ import annotations

from service.domain import reactions
from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.grid import distance, terrain_at
from service.domain.messages import Event
from service.domain.reactions import ReactionWindowClosed
from service.domain.table import Combatant
from service.domain.table_rules import adjust_pool
from service.rules.d20_action_points import attacks, morale
from service.rules.d20_action_points.attacks import Circumstance, Reach
from service.rules.d20_action_points.events import (
    AttackRolled,
    DeathChecked,
    Defeated,
    Fled,
    Killed,
    LevelDrained,
    MoraleChecked,
    PoisonSaved,
    SpellInterrupted,
    Surrendered,
)
from service.rules.d20_action_points.evolve import CELL_FEET, evolve, feet_between, parting_shooters
from service.rules.d20_action_points.state import D20State, D20Stats, Pending, Weapon
from service.rules.d20_action_points.turns import is_pc, stats_of

DEATH = "d20-action-points Killing Monsters and Character Death"
SPECIAL = "d20-action-points Special Attack Conditions"
MARCHING = "d20-action-points Marching Order"
BACKSTAB = "d20-action-points Backstab"
# Charge!: "attack with a +2 but suffer a -2 to their Armor Class in the following round".
CHARGE_BONUS = 2
CHARGE_AC = -2
UNARMED = Weapon(name="unarmed strike", kind="melee", damage="1d2")
BY_NAME: dict[str, Circumstance] = {
    "fog": attacks.FOG,
    "darkness": attacks.DARKNESS,
    "mud": attacks.MUD,
    "dense-foliage": attacks.DENSE_FOLIAGE,
    "half-cover": attacks.HALF_COVER,
    "mostly-covered": attacks.MOSTLY_COVERED,
}
COVERS = (attacks.HALF_COVER, attacks.MOSTLY_COVERED)


# --- what surrounds a combatant ---------------------------------------------------------


def surroundings(state: D20State, cid: str) -> list[Circumstance]:
    """The optional Environment Modifiers around a combatant: the GM's, for it or for
    everyone, and the terrain tags of its cell on the map."""
    if not state.options.environment:
        return []
    names: set[str] = {*state.environment.get("*", ()), *state.environment.get(cid, ())}
    combatant = state.table.combatants.get(cid)
    grid = state.table.map
    if grid is not None and combatant is not None and combatant.position is not None:
        names |= set(terrain_at(grid, combatant.position).tags) & BY_NAME.keys()
    return [BY_NAME[name] for name in sorted(names)]


def rank_of(state: D20State, cid: str) -> int | None:
    """A combatant's rank in its side's marching order, counting only ranks with someone
    still in the fight (the rank behind steps up); None off the order or on a map."""
    table = state.table
    combatant = table.combatants.get(cid)
    marching = state.marching.get(combatant.side) if combatant is not None else None
    if marching is None or table.map is not None:
        return None
    live = [
        rank
        for rank in (
            tuple(c for c in r if c in table.combatants and not table.combatants[c].out_of_fight)
            for r in marching.ranks
        )
        if rank
    ]
    return next((number for number, rank in enumerate(live) if cid in rank), None)


def armor_class(state: D20State, target: Combatant, reach: Reach) -> int:
    """AC against this attack: the base, the best cover (environment or the
    marching order), prone against ranged attacks, a charge's -2."""
    around = surroundings(state, target.id)
    covers = [c for c in around if c in COVERS]
    if (rank_of(state, target.id) or 0) > 0:
        # Marching Order: "a middle of the party player ... 0-50% coverage ... +2 AC".
        covers.append(attacks.HALF_COVER)
    applied = [max(covers, key=lambda c: c.ac)] if covers else []
    if state.options.environment and target.has_condition("prone"):
        applied.append(attacks.PRONE)
    ac = attacks.armor_class(stats_of(target).ac, reach, applied)
    if state.charged.get(target.id, 0) >= state.round:
        ac += CHARGE_AC
    return ac


def vision(state: D20State, attacker: Combatant, target: Combatant) -> list[Circumstance]:
    """Fog and darkness around either end of the attack; darkvision sees through darkness."""
    around = {*surroundings(state, attacker.id), *surroundings(state, target.id)}
    out = [c for c in around if c is attacks.FOG]
    if attacks.DARKNESS in around:
        out.append(attacks.darkness(stats_of(attacker).darkvision))
    return out


def engaged_foes(state: D20State, cid: str) -> list[str]:
    """Foes toe-to-toe with a combatant: adjacent on a map; without one, those it has
    exchanged melee blows with and neither has moved away since (interpretation)."""
    table = state.table
    me = table.combatants[cid]
    if table.map is not None and me.position is not None:
        return [
            c.id
            for c in table.combatants.values()
            if c.side != me.side
            and not c.out_of_fight
            and c.position is not None
            and distance(table.map, me.position, c.position) <= 1
        ]
    return [c for c in state.engaged.get(cid, ()) if not table.combatants[c].out_of_fight]


# --- an attack --------------------------------------------------------------------------


def weapon_for(state: D20State, cid: str, name: str | None, rule: str) -> Weapon:
    """The named weapon, which must be in hand, or the one in hand, or bare hands."""
    arms = state.arms.get(cid)
    combatant = state.table.combatants[cid]
    if name is None:
        return arms.in_hand if arms is not None and arms.in_hand is not None else UNARMED
    if name == UNARMED.name:
        return UNARMED
    weapon = arms.weapon(name) if arms is not None else None
    if weapon is None:
        raise RuleViolation(
            "attack/unknown-weapon", f"{combatant.name} carries no '{name}'", rule=rule
        )
    if arms is not None and arms.wielding != name:
        raise RuleViolation(
            "attack/not-in-hand",
            f"{combatant.name} must draw the {name} first (equip-item, a standard action)",
            rule=rule,
        )
    return weapon


def check_reach(
    state: D20State, attacker: Combatant, target: Combatant, weapon: Weapon, feet: int | None
) -> int:
    """Melee needs the target within reach (a map's adjacent cell, two with a reach weapon)
    and, on a marching order, the front rank (the second with a reach weapon). Ranged and
    thrown weapons: the range bands. Returns the range penalty."""
    if weapon.kind == "melee":
        grid = state.table.map
        if grid is not None and attacker.position is not None and target.position is not None:
            cells = distance(grid, attacker.position, target.position)
            if cells > (2 if weapon.reach else 1):
                raise RuleViolation(
                    "attack/out-of-reach",
                    f"{target.name} is {cells * CELL_FEET} feet away, "
                    f"beyond the {weapon.name}'s reach",
                    rule=attacks.MELEE,
                )
        rank = rank_of(state, attacker.id)
        if rank is not None and rank > (1 if weapon.reach else 0):
            raise RuleViolation(
                "marching/not-in-front",
                f"{attacker.name} is in rank {rank + 1}; only the front rank fights in melee "
                "(a reach weapon from the second)",
                rule=MARCHING,
            )
        return 0
    short, long = weapon.bands
    return attacks.range_penalty(feet_between(state, attacker, target, feet), short, long)


def strike(
    state: D20State,
    attacker_id: str,
    target_id: str,
    weapon: Weapon,
    ctx: DecideContext,
    *,
    feet: int | None = None,
    charge: bool = False,
    backstab: bool = False,
    advantage: bool = False,
    reaction: str | None = None,
    pounds: int | None = None,
) -> list[Event]:
    """One attack roll and its damage: d20 + ability + weapon + range + circumstances
    against AC, a tie hits (Melee Attack, Ranged Attacks); damage rolled once, bonuses
    added, doubled on a natural 20 (Resolving Damage)."""
    table = state.table
    attacker = table.combatant(attacker_id)
    target = table.combatant(target_id)
    _check_target(attacker, target, reaction)
    stats = stats_of(attacker)
    reach: Reach = "melee" if weapon.kind == "melee" else "ranged"
    if pounds is None:
        penalty = check_reach(state, attacker, target, weapon, feet)
    else:
        distance_feet = feet_between(state, attacker, target, feet)
        penalty = attacks.throw_penalty(distance_feet, stats.strength, pounds)
    multiplier = _backstab(attacker, target, weapon, stats) if backstab else None
    ability = stats.strength if reach == "melee" else stats.dexterity
    around = vision(state, attacker, target)
    modifier = ability + weapon.to_hit + penalty + attacks.attack_modifier(reach, around)
    if charge:
        modifier += CHARGE_BONUS
    edge = attacks.attack_edge(around)
    edge = attacks.net_edge(advantage or backstab or edge == "advantage", edge == "disadvantage")
    ac = armor_class(state, target, reach)
    verb = "attacks" if pounds is None else "throws at"
    purpose = f"{attacker.name} {verb} {target.name} ({weapon.name})"
    first = ctx.die(20, purpose=purpose)
    second = ctx.die(20, purpose=f"{purpose}, {edge}") if edge != "normal" else None
    natural = attacks.kept_die(first, second, edge)
    roll = attacks.attack(natural, modifier, ac)
    damage = 0
    if roll.hit and pounds is not None:
        damage = attacks.damage(attacks.thrown_damage(pounds), 0, roll.critical_hit)
    elif roll.hit:
        rolled = ctx.roll(weapon.damage, purpose=f"damage: {weapon.name} on {target.name}").total
        if multiplier is not None:
            rolled *= multiplier
        bonus = attacks.damage_bonus(reach, stats.strength, weapon.damage_bonus)
        damage = attacks.damage(rolled, bonus, roll.critical_hit)
    rolled_event = ctx.emit(
        AttackRolled(
            attacker=attacker_id,
            target=target_id,
            weapon=weapon.name,
            how=weapon.kind if pounds is None else "object",
            dice=(first,) if second is None else (first, second),
            natural=natural,
            modifier=modifier,
            total=roll.total,
            ac=ac,
            edge=edge,
            hit=roll.hit,
            critical_hit=roll.critical_hit,
            critical_fail=roll.critical_fail,
            damage=damage,
            feet=None if weapon.kind == "melee" else feet_between(state, attacker, target, feet),
            backstab=multiplier,
            reaction=reaction,
        )
    )
    after = evolve(state, rolled_event)
    events: list[Event] = [rolled_event]
    if roll.hit:
        events += hurt(
            after, target_id, damage, ctx, source=weapon.name, critical=roll.critical_hit
        )
        events += special_attack(_applied(after, events[1:]), attacker_id, target_id, weapon, ctx)
    return events


def throw(
    state: D20State,
    attacker_id: str,
    target_id: str,
    pounds: int,
    what: str,
    feet: int | None,
    ctx: DecideContext,
) -> list[Event]:
    """Throwing an object (Ranged Attacks): 20 feet + STR bonus - 1 foot a pound, 1 damage a
    pound, no STR to damage; DEX to hit as every ranged attack."""
    thing = Weapon(name=what, kind="thrown", damage="1", range=CELL_FEET)
    return strike(state, attacker_id, target_id, thing, ctx, feet=feet, pounds=pounds)


def _check_target(attacker: Combatant, target: Combatant, reaction: str | None) -> None:
    if attacker.id == target.id:
        raise RuleViolation("attack/self", f"{attacker.name} cannot attack itself")
    # A parting shot is at one who has left the fight by fleeing (Check Morale).
    if target.out_of_fight and reaction != "parting-shot":
        raise RuleViolation("attack/target-down", f"{target.name} is out of the fight")


def _backstab(attacker: Combatant, target: Combatant, weapon: Weapon, stats: D20Stats) -> int:
    """d20-action-points Backstab: a thief, hidden and behind (the GM's `hidden` condition),
    at a humanoid with a back, in melee."""
    if stats.backstab is None:
        raise RuleViolation(
            "backstab/no-multiplier", f"{attacker.name} has no backstab multiplier", rule=BACKSTAB
        )
    if not attacker.has_condition("hidden"):
        raise RuleViolation(
            "backstab/not-hidden",
            f"{attacker.name} must be hidden and behind {target.name} to backstab",
            rule=BACKSTAB,
        )
    victim = stats_of(target)
    if not victim.humanoid or not victim.has_back:
        raise RuleViolation(
            "backstab/no-back",
            f"{target.name} is not a humanoid with a back to stab",
            rule=BACKSTAB,
        )
    if weapon.kind != "melee":
        raise RuleViolation("backstab/melee-only", "a backstab is a melee attack", rule=BACKSTAB)
    return stats.backstab


def _applied(state: D20State, events: list[Event]) -> D20State:
    for event in events:
        state = evolve(state, event)
    return state


# --- damage and what follows ------------------------------------------------------------


def hurt(
    state: D20State,
    target_id: str,
    amount: int,
    ctx: DecideContext,
    source: str,
    critical: bool = False,
) -> list[Event]:
    """Damage lowers hp; then a declared spell is interrupted, a fall to 0 or less defeats
    a monster or calls a character's death check, and a drop below half calls morale."""
    victim = state.table.combatants.get(target_id)
    hp = victim.pools.get("hp") if victim is not None else None
    if victim is None or hp is None or amount <= 0:
        return []
    before, after = hp.current, hp.current - amount
    events = adjust_pool(
        state.table, target_id, "hp", -amount, None, None, source, ctx, gm_override=False
    )
    events += interruption(state, target_id, ctx)
    if before > 0 >= after:
        events += fallen(state, victim, ctx)
    elif not victim.out_of_fight and morale.must_check(before, after, hp.max or before):
        events.append(morale_check(victim, critical, ctx))
    return events


def interruption(state: D20State, cid: str, ctx: DecideContext) -> list[Event]:
    """Casting Spells: "If a spell caster is injured BEFORE their turn in initiative, then
    their spell is interrupted (not cast) and mana is deducted from their mana pool"."""
    declared = state.declared.get(cid)
    combatant = state.table.combatants[cid]
    if declared is None or declared.spell is None or state.phase != "acting":
        return []
    if cid in state.acted or cid == state.current:
        return []
    spell = stats_of(combatant).spell(declared.spell)
    mana = combatant.pools.get("mana")
    if spell is None:
        return []
    cost = min(spell.cost, mana.current if mana else 0)
    events: list[Event] = [
        ctx.emit(SpellInterrupted(combatant_id=cid, spell=spell.name, mana=cost))
    ]
    if cost:
        events += adjust_pool(
            state.table,
            cid,
            "mana",
            -cost,
            None,
            None,
            f"{spell.name}, interrupted",
            ctx,
            gm_override=False,
        )
    return events


def fallen(state: D20State, victim: Combatant, ctx: DecideContext) -> list[Event]:
    """Killing Monsters and Character Death: "If a monster falls to zero or less hit points
    the monster is defeated ... If a character falls to zero or less hit points the death
    check is triggered." The seed does not say what the check is: the `death_check` option."""
    if not is_pc(victim):
        return [ctx.emit(Defeated(combatant_id=victim.id))]
    match state.options.death_check:
        case "dead":
            return [ctx.emit(DeathChecked(combatant_id=victim.id, outcome="dead"))]
        case "gm":
            return [ctx.emit(DeathChecked(combatant_id=victim.id, outcome="dying"))]
        case _:
            bonus = stats_of(victim).constitution
            dc = state.options.death_dc
            roll = ctx.die(20, purpose=f"death check: {victim.name}")
            total = roll + bonus
            return [
                ctx.emit(
                    DeathChecked(
                        combatant_id=victim.id,
                        roll=roll,
                        bonus=bonus,
                        total=total,
                        dc=dc,
                        outcome="unconscious" if total >= dc else "dead",
                    )
                )
            ]


def morale_check(victim: Combatant, critical: bool, ctx: DecideContext) -> MoraleChecked:
    stats = stats_of(victim)
    bonus = morale.morale_bonus(stats.morale, stats.wisdom)
    first = ctx.die(20, purpose=f"morale: {victim.name}")
    second = ctx.die(20, purpose=f"morale: {victim.name}, disadvantage") if critical else None
    check = morale.check_morale(first, bonus, critical, second)
    return ctx.emit(
        MoraleChecked(
            combatant_id=victim.id,
            dice=(first,) if second is None else (first, second),
            natural=check.natural,
            bonus=bonus,
            total=check.total,
            dc=check.dc,
            disadvantage=check.disadvantage,
            broken=check.broken,
        )
    )


def special_attack(
    state: D20State, attacker: str, target_id: str, weapon: Weapon, ctx: DecideContext
) -> list[Event]:
    """Special Attack Conditions: Energy Drain (no save: a level, or a monster's Hit Die, is
    lost; at level 1 the victim dies) and Poison (a CON save against the DC, or its effect:
    the weapon's poison damage, else death)."""
    victim = state.table.combatants.get(target_id)
    if weapon.special is None or victim is None or victim.out_of_fight:
        return []
    stats = stats_of(victim)
    if weapon.special == "energy-drain":
        if stats.level <= 1:
            return [ctx.emit(Killed(combatant_id=target_id, cause="energy drain"))]
        hp = victim.pools["hp"]
        max_hp = max(1, (hp.max or hp.current) - stats.hp_a_level)
        return [
            ctx.emit(
                LevelDrained(
                    combatant_id=target_id,
                    attacker=attacker,
                    level=stats.level - 1,
                    max_hp=max_hp,
                    hp_per_level=stats.hp_a_level,
                )
            )
        ]
    dc = weapon.save_dc or 10
    roll = ctx.die(20, purpose=f"save against poison: {victim.name}")
    total = roll + stats.constitution
    saved = ctx.emit(
        PoisonSaved(
            combatant_id=target_id,
            attacker=attacker,
            roll=roll,
            bonus=stats.constitution,
            total=total,
            dc=dc,
            saved=total >= dc,
        )
    )
    if total >= dc:
        return [saved]
    if weapon.poison is None:
        return [saved, ctx.emit(Killed(combatant_id=target_id, cause="poison"))]
    amount = max(0, ctx.roll(weapon.poison, purpose=f"poison: {victim.name}").total)
    return [saved, *hurt(evolve(state, saved), target_id, amount, ctx, "poison")]


# --- reaction windows -------------------------------------------------------------------


def open_next(state: D20State, item: Pending, ctx: DecideContext) -> list[Event]:
    """Open the window the head of the queue calls for."""
    table = state.table
    trigger: dict[str, object] = {"resolves": item.id, "actor": item.actor, "target": item.target}
    eligible: dict[str, tuple[str, ...]] = {}
    match item.kind:
        case "broken":
            trigger["kind"] = "morale-broken"
            eligible = {item.target: ("flee", "surrender")}
        case "fled":
            trigger["kind"] = "parting-shot"
            eligible = {c: ("shoot",) for c in parting_shooters(state, item.target)}
        case "disarm-counter":
            trigger["kind"] = "disarm-counter"
            defender = table.combatants.get(item.actor)
            if defender is not None and not defender.out_of_fight:
                eligible = {item.actor: ("attack",)}
        case "readied":
            trigger["kind"] = "readied"
            eligible = {
                c: ("fire",)
                for c in item.readied
                if c in state.readied and not table.combatants[c].out_of_fight
            }
    return reactions.open_window(
        window_id=f"w{table.windows_opened + 1}",
        trigger=trigger,
        eligible=eligible,
        order=list(eligible),
        ctx=ctx,
        seconds=state.options.reaction_window,
        policies=table.policies,
        resources=table.resources_of,
    )


def resolve(state: D20State, closed: ReactionWindowClosed, ctx: DecideContext) -> list[Event]:
    trigger = closed.trigger
    actor, target = str(trigger.get("actor")), str(trigger.get("target"))
    chosen = dict(closed.reactions)
    match trigger.get("kind"):
        case "morale-broken":
            return break_off(state, target, chosen.get(target, "flee"), ctx)
        case "parting-shot":
            return _reactions(state, list(chosen), target, ctx, "parting-shot")
        case "disarm-counter":
            if actor in chosen:
                return _reactions(state, [actor], target, ctx, "counter", advantage=True)
        case "readied":
            return _reactions(state, list(chosen), actor, ctx, "readied")
    return []


def break_off(state: D20State, cid: str, choice: str, ctx: DecideContext) -> list[Event]:
    """Check Morale: a broken combatant flees at double its movement rate or surrenders;
    one who does not choose in time flees (interpretation)."""
    combatant = state.table.combatants.get(cid)
    if combatant is None:
        return []
    if choice == "surrender":
        return [ctx.emit(Surrendered(combatant_id=cid))]
    rate = attacks.movement_rate(stats_of(combatant).speed, surroundings(state, cid))
    return [ctx.emit(Fled(combatant_id=cid, feet=morale.FLIGHT_MULTIPLIER * rate))]


def _reactions(
    state: D20State,
    takers: list[str],
    default_target: str,
    ctx: DecideContext,
    kind: str,
    advantage: bool = False,
) -> list[Event]:
    events: list[Event] = []
    for cid in takers:
        combatant = state.table.combatants.get(cid)
        if combatant is None or combatant.out_of_fight:
            continue
        target = default_target
        weapon_name = None
        if kind == "readied":
            readied = state.readied.get(cid)
            if readied is None:
                continue
            target = readied.target or default_target
            weapon_name = readied.weapon
        victim = state.table.combatants.get(target)
        if victim is None or (victim.out_of_fight and kind != "parting-shot"):
            continue
        try:
            weapon = weapon_for(state, cid, weapon_name, attacks.RANGED)
            made = strike(state, cid, target, weapon, ctx, advantage=advantage, reaction=kind)
        except RuleViolation:
            # Out of reach or range by now, or the weapon is gone: the chance passes.
            continue
        state = _applied(state, made)
        events += made
    return events
