"""The attack actions of d20-action-points: a melee or ranged attack, a thrown object, the
full attack, and readying an action and setting it off (d20-action-points Action Points,
Melee Attack, Ranged Attacks)."""

from __future__ import annotations

from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Event
from service.rules.d20_action_points import action_points, attacks
from service.rules.d20_action_points.action_points import ActionName
from service.rules.d20_action_points.attack_roll import strike, throw
from service.rules.d20_action_points.battlefield import UNARMED, weapon_for
from service.rules.d20_action_points.combatants import stats_of
from service.rules.d20_action_points.commands import Attack, FullAttack, Ready, Throw
from service.rules.d20_action_points.events import ActionReadied, ReadiedTriggered
from service.rules.d20_action_points.evolve import applied
from service.rules.d20_action_points.state import D20State, Readied
from service.rules.d20_action_points.turns import begin_action


def attack(state: D20State, command: Attack, ctx: DecideContext) -> list[Event]:
    cid = command.combatant_id
    state.table.combatant(cid)
    state.table.combatant(command.target)
    weapon = weapon_for(state, cid, command.weapon, attacks.MELEE)
    action: ActionName = "melee-attack" if weapon.kind == "melee" else "ranged-attack"
    paid = begin_action(state, cid, action, ctx)
    return [
        *paid,
        *strike(
            applied(state, paid),
            cid,
            command.target,
            weapon,
            ctx,
            feet=command.feet,
            backstab=command.backstab,
        ),
    ]


def throw_object(state: D20State, command: Throw, ctx: DecideContext) -> list[Event]:
    cid = command.combatant_id
    state.table.combatant(command.target)
    paid = begin_action(state, cid, "ranged-attack", ctx)
    thrown = throw(
        applied(state, paid), cid, command.target, command.pounds, command.what, command.feet, ctx
    )
    return [*paid, *thrown]


def full_attack(state: D20State, command: FullAttack, ctx: DecideContext) -> list[Event]:
    """Action Points, Full attack: "If the character has multiple attacks then they make a
    full attack to use them all"; the targets are taken in turn, the last repeated."""
    cid = command.combatant_id
    for who in (cid, *command.targets):
        state.table.combatant(who)
    weapon = weapon_for(state, cid, command.weapon, attacks.MELEE)
    events = begin_action(state, cid, "full-attack", ctx)
    now = applied(state, events)
    count = stats_of(state.table.combatants[cid]).attacks
    for number in range(count):
        target = command.targets[min(number, len(command.targets) - 1)]
        if now.table.combatants[target].out_of_fight:
            continue
        arms = now.arms.get(cid)
        if weapon is not UNARMED and (arms is None or arms.wielding != weapon.name):
            break  # a thrown weapon has left the hand
        # Backstab: "the damage multiplier applies only to the first attack made".
        first = number == 0 and command.backstab
        made = strike(now, cid, target, weapon, ctx, feet=command.feet, backstab=first)
        now = applied(now, made)
        events += made
    return events


def ready(state: D20State, command: Ready, ctx: DecideContext) -> list[Event]:
    """Action Points, Ready action: "Prepare a specific action to respond to another specific
    future action". The 3 points pay for the response when it goes off (interpretation)."""
    cid = command.combatant_id
    combatant = state.table.combatant(cid)
    for other in (command.by, command.target):
        if other is not None:
            state.table.combatant(other)
    arms = state.arms.get(cid)
    if command.weapon is not None and (arms is None or arms.weapon(command.weapon) is None):
        raise RuleViolation(
            "attack/unknown-weapon",
            f"{combatant.name} carries no '{command.weapon}'",
            rule=action_points.ACTION_POINTS,
        )
    paid = begin_action(state, cid, "ready", ctx)
    readied = Readied(
        trigger=command.trigger,
        by=command.by,
        weapon=command.weapon,
        target=command.target,
        description=command.description,
        round=state.round,
    )
    return [*paid, ctx.emit(ActionReadied(combatant_id=cid, readied=readied))]


def trigger_readied(
    state: D20State, cid: str, target: str | None, ctx: DecideContext
) -> list[Event]:
    ctx.require_gm("say that a readied action's trigger happened")
    combatant = state.table.combatant(cid)
    readied = state.readied.get(cid)
    if readied is None:
        raise RuleViolation(
            "ready/nothing-readied",
            f"{combatant.name} has no readied action",
            rule=action_points.ACTION_POINTS,
        )
    chosen = target or readied.target
    if chosen is None:
        raise RuleViolation(
            "ready/which-target",
            "name who set the readied action off (target)",
            rule=action_points.ACTION_POINTS,
        )
    state.table.combatant(chosen)
    return [ctx.emit(ReadiedTriggered(combatant_id=cid, target=chosen))]
