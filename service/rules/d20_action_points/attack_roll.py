"""One attack roll and its damage roll in d20-action-points: d20 + ability + weapon + range
+ circumstances against AC, advantage and disadvantage, the natural 20, a thrown object,
and the backstab (d20-action-points Melee Attack, Ranged Attacks, Resolving Damage,
Backstab)."""

from __future__ import annotations

from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Event
from service.domain.table import Combatant
from service.rules.d20_action_points import attacks
from service.rules.d20_action_points.attacks import Reach
from service.rules.d20_action_points.battlefield import (
    CHARGE_BONUS,
    armor_class,
    check_reach,
    vision,
)
from service.rules.d20_action_points.combatants import CELL_FEET, feet_between, stats_of
from service.rules.d20_action_points.damage import hurt, special_attack
from service.rules.d20_action_points.events import AttackRolled
from service.rules.d20_action_points.evolve import applied, evolve
from service.rules.d20_action_points.state import D20State, D20Stats, Weapon

BACKSTAB = "d20-action-points Backstab"


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
    first = ctx.die(20, purpose=purpose, roller=attacker.id)
    second = (
        ctx.die(20, purpose=f"{purpose}, {edge}", roller=attacker.id) if edge != "normal" else None
    )
    natural = attacks.kept_die(first, second, edge)
    roll = attacks.attack(natural, modifier, ac)
    damage = 0
    if roll.hit and pounds is not None:
        damage = attacks.damage(attacks.thrown_damage(pounds), 0, roll.critical_hit)
    elif roll.hit:
        damage_purpose = f"damage: {weapon.name} on {target.name}"
        rolled = ctx.roll(weapon.damage, purpose=damage_purpose, roller=attacker.id).total
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
        events += special_attack(applied(after, events[1:]), attacker_id, target_id, weapon, ctx)
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
