"""Attacks of opportunity: the skill and item uses that raise one inside a threatened cell
(a move raises its own as it is walked, in movement.py), the window, each Threatener's
Initiative check and the attack it allows; and the paused skill or item use, performed once
nothing stands in its way (hex-tactical Attacks of Opportunity, Offensive Use of Skills,
Traits, and Abilities)."""

from __future__ import annotations

from service.domain.context import DecideContext
from service.domain.draws import MissingTableDice
from service.domain.errors import RuleViolation
from service.domain.messages import Event
from service.domain.reactions import ReactionWindowClosed
from service.rules.hex_tactical import base
from service.rules.hex_tactical.attacks import strike
from service.rules.hex_tactical.commands import UseItem, UseSkill
from service.rules.hex_tactical.events import (
    ItemUsed,
    OpportunityChecked,
    OpportunityRaised,
    SkillUsed,
)
from service.rules.hex_tactical.evolve import evolve
from service.rules.hex_tactical.geometry import fighting, position, threateners, wielded
from service.rules.hex_tactical.maneuvers import maneuver_roll
from service.rules.hex_tactical.state import (
    MANEUVER_OPPORTUNIST,
    MANEUVERS,
    HexState,
    Paused,
    Pending,
    stats_of,
)
from service.rules.hex_tactical.turns import begin_action
from service.rules.hex_tactical.weapons import OFFENSIVE, UNARMED
from service.rules.hex_tactical.windows import open_window

AOO = "hex-tactical Attacks of Opportunity"


def open_opportunity(state: HexState, item: Pending, ctx: DecideContext) -> list[Event]:
    """Everything pauses; each threatener may try to seize the opportunity."""
    eligible: dict[str, tuple[str, ...]] = {}
    for cid in item.threateners:
        if not fighting(state, cid) or not fighting(state, item.target):
            continue
        options = ["attack"]
        if MANEUVER_OPPORTUNIST in stats_of(state.table.combatants[cid]).traits:
            armed = wielded(state, item.target) is not None
            options += [m for m in MANEUVERS if m != "disarm" or armed]
        eligible[cid] = tuple(options)
    trigger = {"kind": "opportunity-attack", "reason": item.reason}
    return open_window(state, item, trigger, eligible, ctx)


def resolve_opportunity(
    state: HexState, closed: ReactionWindowClosed, ctx: DecideContext
) -> list[Event]:
    """hex-tactical Attacks of Opportunity: "The Threatener must succeed on an Initiative
    check. If they do, they may make one attack roll as normal against the target" — a
    normal weapon attack, or a maneuver with a trait that allows it."""
    target = str(closed.trigger["target"])
    events: list[Event] = []
    for cid, option in closed.reactions:
        if not fighting(state, cid) or not fighting(state, target):
            continue
        threatener = state.table.combatants[cid]
        result = base.check(
            ctx,
            "initiative",
            stats_of(threatener).initiative,
            f"{threatener.name} seizes the opportunity",
            roller=cid,
        )
        made: list[Event] = [
            ctx.emit(OpportunityChecked(combatant_id=cid, target=target, check=result))
        ]
        if result.success:
            made += _seize(state, cid, target, option, ctx)
        for event in made:
            state = evolve(state, event)
        events += made
    return events


def _seize(state: HexState, cid: str, target: str, option: str, ctx: DecideContext) -> list[Event]:
    """The attack an opportunity allows, if it can still be made: what was offered at the
    window may have gone out of reach since (a policy answers before anyone looks)."""
    try:
        if option in MANEUVERS:
            return maneuver_roll(state, cid, target, option, ctx, opportunity=True)
        return strike(state, cid, target, wielded(state, cid) or UNARMED, ctx, opportunity=True)
    except MissingTableDice:
        raise  # a die the table has yet to roll: the chance is still there
    except RuleViolation:
        return []


def use_skill(state: HexState, command: UseSkill, ctx: DecideContext) -> list[Event]:
    cid = command.combatant_id
    begun = begin_action(state, cid, "other", f"use {command.skill}", ctx, OFFENSIVE)
    if not command.provokes and not ctx.actor.is_gm:
        raise RuleViolation(
            "skill/provokes-ruling",
            "offensive uses of skills provoke attacks of opportunity unless a ruling or trait "
            "says otherwise: only the GM sends `provokes: false`",
            rule=OFFENSIVE,
        )
    if command.target is not None:
        state.table.combatant(command.target)
    paused = Paused(
        action="skill",
        combatant_id=cid,
        skill=command.skill,
        description=command.description,
        target=command.target,
        difficulty=command.difficulty,
    )
    return [begun, *_provoking(evolve(state, begun), paused, command.provokes, "skill", ctx)]


def use_item(state: HexState, command: UseItem, ctx: DecideContext) -> list[Event]:
    cid = command.combatant_id
    begun = begin_action(state, cid, "other", f"use the {command.item}", ctx, AOO)
    names = {w.name for w in stats_of(state.table.combatants[cid]).weapons}
    if command.item in names:
        raise RuleViolation(
            "item/is-a-weapon", f"the {command.item} is a weapon: attack with it", rule=AOO
        )
    paused = Paused(
        action="item", combatant_id=cid, skill=command.item, description=command.description
    )
    return [begun, *_provoking(evolve(state, begun), paused, True, "item", ctx)]


def _provoking(
    state: HexState, paused: Paused, provokes: bool, reason: str, ctx: DecideContext
) -> list[Event]:
    """hex-tactical Attacks of Opportunity: using a provoking skill, or an item that is not a
    weapon, inside a threatened cell pauses to let the threateners strike first."""
    cid = paused.combatant_id
    here = position(state, cid)
    who = threateners(state, cid, here) if provokes and here is not None else ()
    if who:
        raised = ctx.emit(
            OpportunityRaised(
                combatant_id=cid,
                threateners=who,
                reason=reason,
                cell=here,
                paused=paused,
            )
        )
        return [raised]
    return perform(state, paused, ctx)


def perform(state: HexState, paused: Paused, ctx: DecideContext) -> list[Event]:
    """A skill or item use, once nothing stands in its way."""
    cid = paused.combatant_id
    combatant = state.table.combatants[cid]
    if paused.action == "item":
        return [
            ctx.emit(
                ItemUsed(
                    combatant_id=cid, item=paused.skill or "item", description=paused.description
                )
            )
        ]
    skill = paused.skill or "skill"
    result = base.check(
        ctx,
        skill,
        stats_of(combatant).score(skill),
        f"{combatant.name}: {paused.description}",
        difficulty=paused.difficulty,
        roller=cid,
    )
    return [
        ctx.emit(
            SkillUsed(
                combatant_id=cid,
                skill=skill,
                description=paused.description or skill,
                target=paused.target,
                check=result,
            )
        )
    ]
