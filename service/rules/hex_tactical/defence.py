"""The target's response to a hit: the window offering a Dodge or a parry, the check that
answers it, and what an undefended hit does: damage less armor, or the maneuver's effect
(hex-tactical Attacking, Melee Combat, Ranged Combat, Terrain Effects, Cover)."""

from __future__ import annotations

from service.domain.context import DecideContext
from service.domain.messages import Event
from service.domain.reactions import ReactionWindowClosed
from service.rules.hex_tactical import base
from service.rules.hex_tactical.events import Defended, ManeuverLanded
from service.rules.hex_tactical.evolve import evolve
from service.rules.hex_tactical.geometry import fighting, wielded
from service.rules.hex_tactical.hazards import hurt
from service.rules.hex_tactical.maneuvers import maneuver_effect
from service.rules.hex_tactical.state import AttackInfo, HexState, Pending, stats_of
from service.rules.hex_tactical.windows import open_window


def open_defence(state: HexState, item: Pending, ctx: DecideContext) -> list[Event]:
    info = item.attack
    assert info is not None
    options = []
    if fighting(state, info.target):
        if info.dodge is not None:
            options.append("dodge")
        if info.parry:
            options.append("parry")
    if not options:
        return _lands(state, info, ctx, item.id)
    trigger = {"kind": "attack", "attack": info.model_dump(mode="json")}
    return open_window(state, item, trigger, {info.target: tuple(options)}, ctx)


def _lands(
    state: HexState, info: AttackInfo, ctx: DecideContext, resolves: int | None
) -> list[Event]:
    """An undefended hit: damage less armor, or the maneuver's effect."""
    target = info.target
    if info.maneuver is not None:
        landed = ctx.emit(
            ManeuverLanded(
                attacker=info.attacker,
                target=target,
                maneuver=info.maneuver,
                weapon=info.weapon,
                resolves=resolves,
            )
        )
        if target not in state.table.combatants:
            return [landed]
        return [landed, *maneuver_effect(state, info.attacker, target, info.maneuver, ctx)]
    damage = f"{info.weapon or 'attack'} damage"
    rolled = max(0, ctx.roll(info.damage, damage, roller=info.attacker).total)
    return hurt(state, target, rolled, info.attacker, info.weapon, resolves, ctx)


def resolve_defence(
    state: HexState, closed: ReactionWindowClosed, ctx: DecideContext
) -> list[Event]:
    info = AttackInfo.model_validate(closed.trigger["attack"])
    choice = next((option for cid, option in closed.reactions if cid == info.target), None)
    victim = state.table.combatants.get(info.target)
    if choice is None or victim is None or not fighting(state, info.target):
        return _lands(state, info, ctx, None)
    stats = stats_of(victim)
    if choice == "parry":
        held = wielded(state, info.target)
        skill = held.skill_name if held is not None else "unarmed"
        parries = f"{victim.name} parries"
        result = base.check(ctx, skill, stats.score(skill), parries, roller=victim.id)
    else:
        result = base.check(
            ctx,
            "dodge",
            stats.dodge,
            f"{victim.name} dodges",
            difficulty=info.dodge or "normal",
            boons=info.dodge_boons,
            banes=info.dodge_banes,
            roller=victim.id,
        )
    defended = ctx.emit(
        Defended(
            combatant_id=info.target,
            attacker=info.attacker,
            response=choice,
            check=result,
        )
    )
    if result.success:
        return [defended]
    return [defended, *_lands(evolve(state, defended), info, ctx, None)]
