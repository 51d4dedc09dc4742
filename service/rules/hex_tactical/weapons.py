"""The weapon in hand: looking a combatant's weapon up (fists when none is named or held),
taking another in hand, and picking up one a disarm knocked away (hex-tactical Attacking,
Melee Combat, Offensive Use of Skills, Traits, and Abilities)."""

from __future__ import annotations

from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Event
from service.rules.hex_tactical.events import Wielded
from service.rules.hex_tactical.geometry import wielded
from service.rules.hex_tactical.state import HexState, Weapon, stats_of
from service.rules.hex_tactical.turns import acting, begin_action

ATTACKING = "hex-tactical Attacking"
OFFENSIVE = "hex-tactical Offensive Use of Skills, Traits, and Abilities"
UNARMED = Weapon(name="unarmed", kind="melee", skill="unarmed", damage="1d3")
"""Fists: a melee attack (hex-tactical Melee Combat) that threatens no cells."""


def weapon_named(state: HexState, cid: str, name: str | None, picking_up: bool = False) -> Weapon:
    if name is None:
        return wielded(state, cid) or UNARMED
    combatant = state.table.combatants[cid]
    weapon = stats_of(combatant).weapon(name)
    if weapon is None:
        if name == UNARMED.name:
            return UNARMED
        raise RuleViolation(
            "attack/unknown-weapon", f"{combatant.name} has no weapon '{name}'", rule=ATTACKING
        )
    if name in state.dropped.get(cid, ()) and not picking_up:
        raise RuleViolation(
            "attack/weapon-dropped",
            f"{combatant.name}'s {name} was knocked away: picking it up (wield) takes an action",
            rule=OFFENSIVE,
        )
    return weapon


def take_in_hand(state: HexState, cid: str, weapon: Weapon, ctx: DecideContext) -> list[Event]:
    """Attacking with another of one's weapons takes it in hand first (free)."""
    if weapon is UNARMED or state.wielding.get(cid) == weapon.name:
        return []
    return [ctx.emit(Wielded(combatant_id=cid, weapon=weapon.name))]


def wield(state: HexState, cid: str, name: str | None, ctx: DecideContext) -> list[Event]:
    """Taking a weapon in hand is free on one's turn; picking up one a disarm knocked away
    takes the turn's other action (interpretation: the seed's base system is not given)."""
    acting(state, cid, ctx, ATTACKING)
    if name is not None:
        weapon = weapon_named(state, cid, name, picking_up=True)
        if weapon is UNARMED:
            name = None
    if state.wielding.get(cid) == name:
        what = f"the {name}" if name else "nothing"
        raise RuleViolation(
            "wield/already", f"{state.table.combatants[cid].name} already holds {what}"
        )
    if name in state.dropped.get(cid, ()):
        begun = begin_action(state, cid, "other", f"pick up the {name}", ctx, OFFENSIVE)
        return [begun, ctx.emit(Wielded(combatant_id=cid, weapon=name))]
    return [ctx.emit(Wielded(combatant_id=cid, weapon=name))]
