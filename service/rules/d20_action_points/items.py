"""Items in hand and on the ground in d20-action-points: dropping an item (free), and
equipping one: drawing a weapon, picking one up within reach, or using an item
(d20-action-points Action Points)."""

from __future__ import annotations

from typing import Any

from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.grid import distance
from service.domain.messages import Event
from service.domain.table import Combatant
from service.rules.d20_action_points import action_points
from service.rules.d20_action_points.commands import EquipItem
from service.rules.d20_action_points.events import ItemDropped, ItemEquipped
from service.rules.d20_action_points.state import D20State
from service.rules.d20_action_points.turns import begin_action


def drop_item(state: D20State, cid: str, name: str | None, ctx: DecideContext) -> list[Event]:
    combatant = state.table.combatant(cid)
    arms = state.arms.get(cid)
    weapon = None
    if arms is not None:
        weapon = arms.in_hand if name is None else arms.weapon(name)
    if weapon is None:
        what = "nothing in hand" if name is None else f"no '{name}'"
        raise RuleViolation(
            "item/not-carried",
            f"{combatant.name} has {what} to drop",
            rule=action_points.ACTION_POINTS,
        )
    return [
        *begin_action(state, cid, "drop-item", ctx),
        ctx.emit(ItemDropped(combatant_id=cid, weapon=weapon)),
    ]


def equip_item(state: D20State, command: EquipItem, ctx: DecideContext) -> list[Event]:
    """Action Points, Equip Item: "Draw a weapon, Put on a ring, Drink a Potion, Use a
    Device, Open a Door or Pick Something up"."""
    cid = command.combatant_id
    combatant = state.table.combatant(cid)
    if command.weapon is None and command.description is None:
        raise RuleViolation(
            "equip/what",
            "name the weapon to draw or pick up, or describe the item used",
            rule=action_points.ACTION_POINTS,
        )
    if command.weapon is None:
        paid = begin_action(state, cid, "equip-item", ctx)
        return [*paid, ctx.emit(ItemEquipped(combatant_id=cid, description=command.description))]
    arms = state.arms.get(cid)
    carried = arms.weapon(command.weapon) if arms is not None else None
    picked = False
    if carried is None:
        carried = _lying_near(state, combatant, command.weapon)
        picked = True
    elif arms is not None and arms.wielding == command.weapon:
        raise RuleViolation(
            "item/already-in-hand",
            f"{combatant.name} already holds the {command.weapon}",
            rule=action_points.ACTION_POINTS,
        )
    paid = begin_action(state, cid, "equip-item", ctx)
    equipped = ctx.emit(
        ItemEquipped(
            combatant_id=cid, weapon=carried, picked_up=picked, description=command.description
        )
    )
    return [*paid, equipped]


def _lying_near(state: D20State, combatant: Combatant, name: str) -> Any:
    grid = state.table.map
    for item in state.ground:
        if item.weapon.name != name:
            continue
        if grid is None or combatant.position is None or item.cell is None:
            return item.weapon
        if distance(grid, combatant.position, item.cell) <= 1:
            return item.weapon
    raise RuleViolation(
        "item/not-here",
        f"{combatant.name} carries no '{name}' and none lies within reach",
        rule=action_points.ACTION_POINTS,
    )
