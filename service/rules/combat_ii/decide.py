"""Deciding combat-ii commands: intentions for the current phase (which resolve the phase
once everyone has declared), and the GM's surprise, ambush, skill checks and rest."""

from __future__ import annotations

from service.domain.clocks import ClockExpired
from service.domain.common import (
    CombatantAdded,
    CombatantDowned,
    CombatantRemoved,
    EncounterStarted,
)
from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Command, Event
from service.domain.table import Pool
from service.domain.table_rules import adjust_pool
from service.rules.combat_ii import mana, phases, recovery
from service.rules.combat_ii.abilities import skill_roll, surprise_roll
from service.rules.combat_ii.attacks import ruin
from service.rules.combat_ii.combatants import SURPRISED, skill_modifier
from service.rules.combat_ii.commands import Ambush, Cancel, Rest, SkillCheck, Surprise
from service.rules.combat_ii.events import (
    AmbushSet,
    CheckRolled,
    EffectApplied,
    IntentionCancelled,
    Rested,
    ReturnReady,
)
from service.rules.combat_ii.evolve import fighter
from service.rules.combat_ii.intentions import actor_of, intention_for
from service.rules.combat_ii.run import Run
from service.rules.combat_ii.state import CombatIIState, Effect
from service.rules.combat_ii.stats import stats_of


def decide_own(state: CombatIIState, command: Command, ctx: DecideContext) -> list[Event]:
    if state.stage == "ended":
        raise RuleViolation("encounter/ended", "the encounter has ended")
    match command:
        case Surprise():
            return surprise(state, command, ctx)
        case Ambush():
            return ambush(state, command, ctx)
        case SkillCheck():
            return skill_check(state, command, ctx)
        case Rest():
            return rest(state, command, ctx)
    cid = actor_of(command)
    assert cid is not None
    ctx.require_control(cid, state.table.combatant(cid).name)
    if state.stage != "intentions":
        raise RuleViolation(
            "encounter/not-running",
            "intentions are declared once the fight has started (start-encounter)",
        )
    if isinstance(command, Cancel):
        return cancel(state, cid, ctx)
    return phases.declare(state, cid, intention_for(state, command), ctx)


def cancel(state: CombatIIState, cid: str, ctx: DecideContext) -> list[Event]:
    """§1 E Simultaneous Actions: "the action may be canceled; however, a checked swing or a
    voluntarily interruption of a spell still constitutes an attack or the casting for the
    round". An attack (or touch) or cast declared this phase is called off before the phase
    resolves; a spell being cast or held is interrupted at any declaration."""
    combatant = state.table.combatant(cid)
    intention = state.intentions.get(cid)
    kind = intention.kind if intention is not None else None
    if combatant.out_of_fight:
        raise RuleViolation("intention/out-of-fight", f"{combatant.name} is out of the fight")
    if intention is not None and kind in ("attack", "touch"):
        return [
            ctx.emit(IntentionCancelled(combatant_id=cid, what="attack", weapons=intention.weapons))
        ]
    if intention is not None and kind == "cast":
        return [ctx.emit(IntentionCancelled(combatant_id=cid, what="cast", spell=intention.spell))]
    casting = fighter(state, cid).casting
    if casting is not None:
        return [ctx.emit(IntentionCancelled(combatant_id=cid, what="spell", spell=casting.spell))]
    raise RuleViolation(
        "cancel/nothing",
        f"{combatant.name} has no attack or spell to cancel: "
        + (f"it declared {kind}" if kind else "it has declared nothing this phase")
        + " (§1 E: an attack or a spell may be cancelled)",
        rule="combat-ii §1 E Simultaneous Actions",
    )


def surprise(state: CombatIIState, command: Surprise, ctx: DecideContext) -> list[Event]:
    """§2 F: before the fight, the GM names the surprised (they lose phase 1) and any
    ambushers (their weapons strike at SF 1 in phase 1, §2 D Ambush)."""
    ctx.require_gm("set surprise")
    if state.stage != "setup":
        raise RuleViolation(
            "surprise/started",
            "surprise is set before the fight starts; mid-fight, use `ambush`",
            rule="combat-ii §2 F",
        )
    for cid in (*command.surprised, *command.ambushers):
        state.table.combatant(cid)
    return [
        ctx.emit(AmbushSet(ambushers=tuple(command.ambushers), surprised=tuple(command.surprised)))
    ]


def ambush(state: CombatIIState, command: Ambush, ctx: DecideContext) -> list[Event]:
    """§2 F: an ambush mid-fight; the bushwhacked rolls for surprise (+1 while casting) and
    "must pass a surprise roll in order to return the attack" of its ambushers (`by`)."""
    ctx.require_gm("spring an ambush")
    if state.stage != "intentions":
        raise RuleViolation("encounter/not-running", "an ambush happens during the fight")
    cid = command.combatant_id
    bushwhacked = state.table.combatant(cid)
    for ambusher in map(state.table.combatant, command.by):
        if ambusher.side == bushwhacked.side:
            raise RuleViolation(
                "ambush/not-a-foe",
                f"{ambusher.name} is on {bushwhacked.name}'s side: name its ambushers in `by`",
                rule="combat-ii §2 F Surprise",
            )
    bonus = 1 if fighter(state, cid).casting is not None else 0
    rolled = surprise_roll(ctx, bonus, f"ambush on {bushwhacked.name}", roller=cid)
    events: list[Event] = [ctx.emit(CheckRolled(combatant_id=cid, check=rolled))]
    until = state.tick + 1
    if not rolled.passed:
        events.append(
            ctx.emit(EffectApplied(combatant_id=cid, effect=Effect(name=SURPRISED, until=until)))
        )
    elif command.by:
        events.append(
            ctx.emit(ReturnReady(combatant_id=cid, against=tuple(command.by), until=until))
        )
    return events


def skill_check(state: CombatIIState, command: SkillCheck, ctx: DecideContext) -> list[Event]:
    """§4 Agility "THIEF ADJUSTMENTS": the GM calls for a thief skill; d100 against the stat
    block's percentage plus AGI's adjustment (move silently, hide in shadows, climb walls,
    with the option) or DEX's by PH Table 28."""
    ctx.require_gm("call for a thief skill check")
    if state.stage != "intentions":
        raise RuleViolation("encounter/not-running", "skill checks are called during the fight")
    cid, skill = command.combatant_id, command.skill
    combatant = state.table.combatant(cid)
    stats = stats_of(combatant)
    if not stats.thief:
        raise RuleViolation(
            "skill-check/not-thief",
            f"{combatant.name} is not a thief (set `thief` on the stat block) (§4 Agility)",
            rule="combat-ii §4 Agility",
        )
    chance = stats.skill_chance(skill)
    if chance is None:
        raise RuleViolation(
            "skill-check/no-chance",
            f"{combatant.name} has no {skill.replace('-', ' ')} percentage: set "
            f'`thief_skills["{skill}"]` on the stat block (§4 Agility)',
            rule="combat-ii §4 Agility",
        )
    modifier = skill_modifier(state, stats, skill)
    rolled = skill_roll(ctx, skill, chance, modifier, "called for by the GM", roller=cid)
    return [ctx.emit(CheckRolled(combatant_id=cid, check=rolled))]


def rest(state: CombatIIState, command: Rest, ctx: DecideContext) -> list[Event]:
    """§5 Mana Recovery, between fights; `interruptions` break the study (§5 Recovery
    Limit)."""
    ctx.require_gm("rest the casters")
    if state.stage == "intentions":
        raise RuleViolation("rest/in-fight", "casters rest between fights, not during one")
    if state.options.mana == "none":
        raise RuleViolation("rest/no-mana", "this encounter does not use a mana system (§5)")
    late = [i.after for i in command.interruptions if i.after >= command.minutes]
    if late:
        raise RuleViolation(
            "rest/interruption",
            f"an interruption comes during the {command.minutes} minutes of study; one after "
            f"{late[0]} minutes falls outside them",
            rule="combat-ii §5 Mana Recovery",
        )
    ids = command.combatant_ids or sorted(state.table.combatants)
    events: list[Event] = []
    for cid in ids:
        combatant = state.table.combatant(cid)
        caster = stats_of(combatant).caster
        if caster is None:
            continue
        mine = fighter(state, cid)
        already = 0 if command.new_day else mine.recovered_today
        limit = daily_limit(combatant.pools)
        got = recovery.recover(
            dict(combatant.pools), state.options.mana, state.options.mana_recovery,
            mana.highest_of(caster), command.hours, command.minutes, already, limit or 10_000,
            command.choose, command.interruptions,
        )  # fmt: skip
        table = state.table
        for pool, amount in sorted(got.restored.items()):
            if amount:
                events += adjust_pool(table, cid, pool, amount, None, None, "rest", ctx, False)
        events.append(
            ctx.emit(Rested(
                combatant_id=cid, hours=command.hours, minutes=got.minutes_used,
                restored=got.restored, counted=got.counted, new_day=command.new_day,
                interrupted_after=got.interrupted_after,
            ))
        )  # fmt: skip
    return events


def follow_up(
    state: CombatIIState, command: Command, events: list[Event], ctx: DecideContext
) -> list[Event]:
    run = Run(state, ctx)
    for event in events:
        match event:
            case EncounterStarted():
                run.emit(phases.begin(run.state, ctx))
            case CombatantDowned() | CombatantRemoved():
                if isinstance(event, CombatantDowned):
                    ruin(run, event.combatant_id, 0, "out of the fight")
                # The last combatant still to declare may be the one gone: the phase goes on.
                run.emit(phases.resolve_if_ready(run.state, ctx))
            case ClockExpired(clock_id=phases.CLOCK) if run.state.stage == "intentions":
                run.emit(phases.timed_out(run.state, ctx))
            case CombatantAdded():
                run.emit(mana_pools(run.state, event.combatant_id, ctx))
    return run.events


def daily_limit(pools: dict[str, Pool]) -> int:
    """§5 Recovery Limit: no more than the casting total in 24 hours (a level-L slot counts
    L points)."""
    total = 0
    for name, pool in pools.items():
        if name == "mana":
            total += pool.max or 0
        elif name.startswith("slots-"):
            total += int(name.removeprefix("slots-")) * (pool.max or 0)
    return total


def mana_pools(state: CombatIIState, cid: str, ctx: DecideContext) -> list[Event]:
    """§5: a caster's mana pools (or slots) under the encounter's mana system."""
    stats = stats_of(state.table.combatant(cid))
    if stats.caster is None or state.options.mana == "none":
        return []
    prime = stats.intelligence if stats.caster.kind == "wizard" else stats.wisdom
    options = state.options
    pools = mana.pools_for(
        stats.caster, options.mana, options.bonus_spells, options.starting_mana,
        stats.constitution, prime,
    )  # fmt: skip
    events: list[Event] = []
    table = state.table
    for name, pool in sorted(pools.items()):
        events += adjust_pool(table, cid, name, None, pool.current, pool.max, "mana", ctx, False)
    return events
