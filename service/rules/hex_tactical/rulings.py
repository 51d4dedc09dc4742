"""Leaving the fight and the GM's calls outside the attack rolls: a surrender (which ends
its melees, hex-tactical Melee Combat), who is aware of whom (which decides a Dodge against
a ranged attack, hex-tactical Ranged Combat), and a check the GM calls for."""

from __future__ import annotations

from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Event
from service.rules.hex_tactical import base
from service.rules.hex_tactical.commands import CallCheck
from service.rules.hex_tactical.events import AwarenessSet, CheckCalled, Surrendered
from service.rules.hex_tactical.geometry import fighting
from service.rules.hex_tactical.hazards import end_melees
from service.rules.hex_tactical.state import HexState, stats_of


def surrender(state: HexState, cid: str, ctx: DecideContext) -> list[Event]:
    combatant = state.table.combatant(cid)
    ctx.require_control(cid, combatant.name)
    if not fighting(state, cid):
        raise RuleViolation("surrender/not-fighting", f"{combatant.name} is out of the fight")
    return [ctx.emit(Surrendered(combatant_id=cid)), *end_melees(state, cid, "surrendered", ctx)]


def set_awareness(
    state: HexState, cid: str, of: str, aware: bool, ctx: DecideContext
) -> list[Event]:
    ctx.require_gm("rule on who is aware of whom")
    state.table.combatant(cid)
    state.table.combatant(of)
    if cid == of:
        raise RuleViolation("awareness/self", "a combatant is always aware of itself")
    return [ctx.emit(AwarenessSet(combatant_id=cid, of=of, aware=aware))]


def call_check(state: HexState, command: CallCheck, ctx: DecideContext) -> list[Event]:
    ctx.require_gm("call for a check")
    combatant = state.table.combatant(command.combatant_id)
    result = base.check(
        ctx,
        command.skill,
        stats_of(combatant).score(command.skill),
        f"{combatant.name}'s {command.skill} check",
        difficulty=command.difficulty,
        boons=command.boons,
        banes=command.banes,
        roller=combatant.id,
    )
    return [ctx.emit(CheckCalled(combatant_id=combatant.id, check=result, reason=command.reason))]
