"""Combat maneuvers: grapple, trip and disarm rolled as melee attacks that provoke no
attack of opportunity, and what each does when it lands (hex-tactical Offensive Use of
Skills, Traits, and Abilities)."""

from __future__ import annotations

from service.domain.common import ConditionApplied
from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.grid import distance
from service.domain.messages import Event
from service.rules.hex_tactical import base
from service.rules.hex_tactical.attacks import check_target, hit_info
from service.rules.hex_tactical.commands import UseManeuver
from service.rules.hex_tactical.events import AttackRolled, MeleeJoined, Wielded
from service.rules.hex_tactical.evolve import evolve
from service.rules.hex_tactical.geometry import pair, position, wielded
from service.rules.hex_tactical.hazards import GRAPPLED, PRONE
from service.rules.hex_tactical.state import HexState, Maneuver, stats_of
from service.rules.hex_tactical.turns import begin_action
from service.rules.hex_tactical.weapons import OFFENSIVE, UNARMED

MANEUVER_SKILL: dict[Maneuver, str] = {"grapple": "athletics", "trip": "athletics"}
"""The skill each maneuver rolls; a disarm rolls the wielded melee weapon's skill, or
`unarmed` with no melee weapon in hand (interpretation)."""


def maneuver(state: HexState, command: UseManeuver, ctx: DecideContext) -> list[Event]:
    """hex-tactical Offensive Use of Skills: grapple, trip and disarm are melee attacks that
    provoke no attack of opportunity."""
    cid = command.combatant_id
    begun = begin_action(state, cid, "other", command.maneuver, ctx, OFFENSIVE)
    check_target(state, cid, command.target)
    return [begun, *maneuver_roll(evolve(state, begun), cid, command.target, command.maneuver, ctx)]


def maneuver_roll(
    state: HexState,
    cid: str,
    target: str,
    kind: Maneuver,
    ctx: DecideContext,
    opportunity: bool = False,
) -> list[Event]:
    grid = state.table.map
    here, there = position(state, cid), position(state, target)
    assert grid is not None and here is not None and there is not None
    weapon = wielded(state, cid)
    reach = weapon.reach if weapon is not None and weapon.kind == "melee" else 1
    victim = state.table.combatants[target]
    cells = distance(grid, here, there)
    if cells > reach:
        raise RuleViolation(
            "maneuver/out-of-reach", f"{victim.name} is out of reach for a {kind}", rule=OFFENSIVE
        )
    if kind == "disarm" and wielded(state, target) is None:
        raise RuleViolation(
            "maneuver/nothing-to-disarm", f"{victim.name} holds no weapon", rule=OFFENSIVE
        )
    melee = weapon if weapon is not None and weapon.kind == "melee" else None
    skill = MANEUVER_SKILL.get(kind) or (melee.skill_name if melee is not None else "unarmed")
    attacker = state.table.combatants[cid]
    result = base.check(
        ctx,
        skill,
        stats_of(attacker).score(skill),
        f"{attacker.name} tries to {kind} {victim.name}",
        boons=int(victim.has_condition(PRONE)),
        roller=cid,
    )
    events: list[Event] = []
    if pair(cid, target) not in state.melee:
        events.append(MeleeJoined(combatants=pair(cid, target)))  # emitted after the roll
    after = state
    for event in events:
        after = evolve(after, event)
    used = weapon if weapon is not None and weapon.kind == "melee" else UNARMED
    response = None
    if result.success:
        response = hit_info(after, cid, target, used, 0, None, maneuver=kind)
    rolled = ctx.emit(
        AttackRolled(
            attacker=cid,
            target=target,
            weapon=used.name,
            maneuver=kind,
            check=result,
            hit=result.success,
            distance_feet=cells * state.options.cell_feet,
            opportunity=opportunity,
            response=response,
        )
    )
    return [rolled, *(ctx.emit(event) for event in events)]


def maneuver_effect(
    state: HexState, attacker: str, target: str, kind: Maneuver, ctx: DecideContext
) -> list[Event]:
    if kind == "trip":
        return [
            ctx.emit(
                ConditionApplied(
                    combatant_id=target, condition=PRONE, source=attacker, gm_override=False
                )
            )
        ]
    if kind == "grapple":
        return [
            ctx.emit(
                ConditionApplied(
                    combatant_id=target, condition=GRAPPLED, source=attacker, gm_override=False
                )
            )
        ]
    return [ctx.emit(Wielded(combatant_id=target, weapon=None, dropped=True))]
