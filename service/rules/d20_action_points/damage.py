"""What damage sets off in d20-action-points: hit points lost, a declared spell interrupted,
a monster defeated or a character's death check, the morale check below half, and the
special attack conditions (d20-action-points Resolving Damage, Casting Spells, Killing
Monsters and Character Death, Check Morale, Special Attack Conditions)."""

from __future__ import annotations

from service.domain.context import DecideContext
from service.domain.messages import Event
from service.domain.table import Combatant
from service.domain.table_rules import adjust_pool
from service.rules.d20_action_points import morale
from service.rules.d20_action_points.combatants import is_pc, stats_of
from service.rules.d20_action_points.events import (
    DeathChecked,
    Defeated,
    Killed,
    LevelDrained,
    MoraleChecked,
    PoisonSaved,
    SpellInterrupted,
)
from service.rules.d20_action_points.evolve import evolve
from service.rules.d20_action_points.state import D20State, Weapon

DEATH = "d20-action-points Killing Monsters and Character Death"
SPECIAL = "d20-action-points Special Attack Conditions"


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
            roll = ctx.die(20, purpose=f"death check: {victim.name}", roller=victim.id)
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
    # Check Morale: the creature makes the check ("The DM rolls d20 (5) plus the Goblin
    # Morale"): rolled for the victim, whose controller (or the GM) supplies it.
    first = ctx.die(20, purpose=f"morale: {victim.name}", roller=victim.id)
    second = (
        ctx.die(20, purpose=f"morale: {victim.name}, disadvantage", roller=victim.id)
        if critical
        else None
    )
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
    roll = ctx.die(20, purpose=f"save against poison: {victim.name}", roller=target_id)
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
    amount = max(
        0, ctx.roll(weapon.poison, purpose=f"poison: {victim.name}", roller=attacker).total
    )
    return [saved, *hurt(evolve(state, saved), target_id, amount, ctx, "poison")]
