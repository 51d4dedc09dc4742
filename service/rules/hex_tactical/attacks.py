"""A weapon attack: the target it may take, the roll with its boons and banes (reach,
range bands, cover, firing into a melee), the melee it joins, what the target may answer a
hit with, and a risky shot's stray hit (hex-tactical Attacking, Melee Combat, Ranged
Combat)."""

from __future__ import annotations

from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.grid import distance, terrain_at
from service.domain.messages import Event
from service.rules.hex_tactical import base
from service.rules.hex_tactical.base import Difficulty
from service.rules.hex_tactical.commands import Attack
from service.rules.hex_tactical.events import AttackRolled, MeleeJoined, StrayHit
from service.rules.hex_tactical.evolve import evolve
from service.rules.hex_tactical.geometry import (
    COVER,
    MELEE,
    RANGED,
    band,
    cover_against,
    fighting,
    in_melee,
    pair,
    partners,
    position,
    wielded,
)
from service.rules.hex_tactical.hazards import PRONE, hurt
from service.rules.hex_tactical.state import AttackInfo, HexState, Maneuver, Weapon, stats_of
from service.rules.hex_tactical.turns import begin_action
from service.rules.hex_tactical.weapons import ATTACKING, take_in_hand, weapon_named


def check_target(state: HexState, attacker: str, target: str) -> None:
    victim = state.table.combatant(target)
    if target == attacker:
        raise RuleViolation("attack/self", "a combatant cannot attack itself", rule=ATTACKING)
    if not fighting(state, target):
        raise RuleViolation(
            "attack/target-down", f"{victim.name} is out of the fight", rule=ATTACKING
        )
    if position(state, attacker) is None or victim.position is None:
        raise RuleViolation(
            "attack/no-map", "the tactical variant needs both tokens on the map", rule=ATTACKING
        )


def attack(state: HexState, command: Attack, ctx: DecideContext) -> list[Event]:
    cid = command.combatant_id
    begun = begin_action(state, cid, "other", "attack", ctx, ATTACKING)
    weapon = weapon_named(state, cid, command.weapon)
    check_target(state, cid, command.target)
    events: list[Event] = [begun, *take_in_hand(state, cid, weapon, ctx)]
    for event in events:
        state = evolve(state, event)
    return events + strike(state, cid, command.target, weapon, ctx, into_melee=command.into_melee)


def strike(
    state: HexState,
    cid: str,
    target: str,
    weapon: Weapon,
    ctx: DecideContext,
    *,
    into_melee: str | None = None,
    opportunity: bool = False,
    overwatch: bool = False,
) -> list[Event]:
    """One weapon attack roll, and what follows it: a hit waits for the target's response;
    a melee attack, or a ranged one at an adjacent target, puts the two in melee."""
    grid = state.table.map
    here, there = position(state, cid), position(state, target)
    assert grid is not None and here is not None and there is not None
    attacker, victim = state.table.combatants[cid], state.table.combatants[target]
    cells = distance(grid, here, there)
    feet = cells * state.options.cell_feet
    boons = banes = 0
    shot_band: int | None = None
    mode = None
    cover = None
    others = [c for c in partners(state, target) if c != cid]
    if weapon.kind == "melee":
        if cells > weapon.reach:
            raise RuleViolation(
                "attack/out-of-reach",
                f"{victim.name} is {cells} cells away; the {weapon.name} reaches {weapon.reach}",
                rule=MELEE,
            )
        boons += victim.has_condition(PRONE)
    else:
        shot_band = band(weapon, feet)
        if shot_band is None:
            raise RuleViolation(
                "attack/out-of-range",
                f"{victim.name} is {feet} ft away, beyond the {weapon.name}'s maximum "
                f"range of {weapon.maximum} ft",
                rule=RANGED,
            )
        cover, _ = cover_against(state, cid, target)
        if cover == "total":
            raise RuleViolation(
                "attack/total-cover",
                f"{victim.name} is behind total cover: no ranged attack passes through it",
                rule=COVER,
            )
        banes += shot_band + (cover == "partial")
        if others:
            mode = into_melee or state.options.into_melee
            banes += mode == "bane"
    result = base.check(
        ctx,
        weapon.skill_name,
        stats_of(attacker).score(weapon.skill_name),
        f"{attacker.name}'s {weapon.name} at {victim.name}",
        boons=boons,
        banes=banes,
        roller=attacker.id,
    )
    # The melee is joined before the response is judged, but listed (and emitted) after the
    # roll, which lists the check's dice.
    events: list[Event] = []
    joined = weapon.kind == "melee" or cells == 1
    if joined and pair(cid, target) not in state.melee:
        events.append(MeleeJoined(combatants=pair(cid, target)))
    after = state
    for event in events:
        after = evolve(after, event)
    response = hit_info(after, cid, target, weapon, feet, cover) if result.success else None
    rolled = ctx.emit(
        AttackRolled(
            attacker=cid,
            target=target,
            weapon=weapon.name,
            ranged=weapon.kind == "ranged",
            check=result,
            hit=result.success,
            band=shot_band,
            distance_feet=feet,
            into_melee=mode,
            opportunity=opportunity,
            overwatch=overwatch,
            response=response,
        )
    )
    events = [rolled, *(ctx.emit(event) for event in events)]
    if mode == "risk" and base.within_half(result):
        events += _stray(state, cid, target, others, weapon, ctx)
    return events


def hit_info(
    state: HexState,
    attacker: str,
    target: str,
    weapon: Weapon,
    feet: int,
    cover: str | None,
    maneuver: Maneuver | None = None,
) -> AttackInfo:
    """What the target may answer a hit with. Against a ranged attack a Dodge is hard
    inside the interval and very hard beyond it, and only for a target not in melee that is
    aware of the attacker (hex-tactical Ranged Combat); a melee hit may be dodged or
    parried with a wielded melee weapon. Standing in difficult terrain is one bane on Dodge
    (hex-tactical Terrain Effects), partial cover one boon (Cover), prone one bane."""
    victim = state.table.combatants[target]
    grid = state.table.map
    assert grid is not None and victim.position is not None
    dodge: Difficulty | None = "normal"
    if weapon.kind == "ranged":
        aware = attacker not in state.unaware.get(target, ())
        if in_melee(state, target) or not aware:
            dodge = None
        else:
            dodge = "hard" if feet <= weapon.interval else "very-hard"
    held = wielded(state, target)
    parry = weapon.kind == "melee" and held is not None and held.kind == "melee"
    banes = int(terrain_at(grid, victim.position).kind == "difficult")
    banes += victim.has_condition(PRONE)
    return AttackInfo(
        attacker=attacker,
        target=target,
        weapon=weapon.name,
        ranged=weapon.kind == "ranged",
        maneuver=maneuver,
        damage=weapon.damage,
        dodge=dodge,
        dodge_boons=int(cover == "partial"),
        dodge_banes=banes,
        parry=parry,
    )


def _stray(
    state: HexState,
    cid: str,
    target: str,
    others: list[str],
    weapon: Weapon,
    ctx: DecideContext,
) -> list[Event]:
    """hex-tactical Ranged Combat: a risky miss by less than half the skill score strikes
    another in the melee; with several, a die chooses (interpretation: the seed leaves it to
    the Facilitator's discretion; a die keeps the table moving and the record auditable)."""
    # The Facilitator's discretion: the GM's die.
    struck = (
        others[0]
        if len(others) == 1
        else others[ctx.die(len(others), "stray shot", roller="gm") - 1]
    )
    rolled = max(0, ctx.roll(weapon.damage, f"{weapon.name} damage", roller=cid).total)
    stray = ctx.emit(StrayHit(attacker=cid, intended=target, struck=struck, weapon=weapon.name))
    return [stray, *hurt(evolve(state, stray), struck, rolled, cid, weapon.name, None, ctx)]
