"""Cover on the map: the GM placing and removing cover objects, taking cover behind partial
cover, and striking a cover object to wear its durability down (hex-tactical Cover, and its
Target Inanimate Object)."""

from __future__ import annotations

from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.grid import Cell, distance, on_map
from service.domain.messages import Event
from service.rules.hex_tactical import base
from service.rules.hex_tactical.commands import PlaceCover
from service.rules.hex_tactical.events import CoverPlaced, CoverRemoved, CoverTaken, ObjectStruck
from service.rules.hex_tactical.geometry import (
    COVER,
    band,
    between,
    cover_at,
    cover_cells_next_to,
    position,
)
from service.rules.hex_tactical.state import CoverObject, HexState, cell_key, stats_of
from service.rules.hex_tactical.turns import ActionKind, begin_action
from service.rules.hex_tactical.weapons import take_in_hand, weapon_named

OBJECT = "hex-tactical Cover (Target Inanimate Object)"


def take_cover(state: HexState, cid: str, ctx: DecideContext) -> list[Event]:
    """hex-tactical Cover: next to partial cover with an action left, a successful Dodge
    makes it total cover until the start of this combatant's next turn."""
    # "has an action left": the other action, or else the second move (interpretation).
    kind: ActionKind = "move" if state.turn.other else "other"
    begun = begin_action(state, cid, kind, "take cover", ctx, COVER)
    here = position(state, cid)
    cells = cover_cells_next_to(state, here, "partial") if here is not None else []
    combatant = state.table.combatants[cid]
    if not cells:
        raise RuleViolation(
            "cover/none-adjacent", f"{combatant.name} stands next to no partial cover", rule=COVER
        )
    result = base.check(
        ctx,
        "dodge",
        stats_of(combatant).dodge,
        f"{combatant.name} takes cover",
        difficulty=state.options.take_cover_difficulty,
        roller=cid,
    )
    return [begun, ctx.emit(CoverTaken(combatant_id=cid, cells=tuple(cells), check=result))]


def place_cover(state: HexState, command: PlaceCover, ctx: DecideContext) -> list[Event]:
    ctx.require_gm("place cover")
    grid = state.table.map
    if grid is None or not on_map(grid, command.cell):
        raise RuleViolation("map/off-map", f"cell {command.cell} is not on the map")
    if cell_key(command.cell) in state.cover:
        raise RuleViolation("cover/occupied", f"cell {command.cell} already holds cover")
    for combatant in state.table.combatants.values():
        if combatant.position == command.cell and not combatant.out_of_fight:
            raise RuleViolation("map/occupied", f"{combatant.name} stands on {command.cell}")
    cover = CoverObject(
        cell=command.cell,
        name=command.name,
        kind=command.kind,
        durability=command.durability,
        armor=command.armor,
    )
    return [ctx.emit(CoverPlaced(cover=cover))]


def remove_cover(state: HexState, cell: Cell, ctx: DecideContext) -> list[Event]:
    ctx.require_gm("remove cover")
    if cell_key(cell) not in state.cover:
        raise RuleViolation("cover/none-there", f"there is no cover object on {cell}")
    return [ctx.emit(CoverRemoved(cell=cell))]


def target_object(
    state: HexState, cid: str, cell: Cell, weapon_name: str | None, ctx: DecideContext
) -> list[Event]:
    """Target Inanimate Object: an attack roll at a cover object (it cannot dodge); damage
    less its armor wears its durability down, and at 0 the cover is destroyed."""
    begun = begin_action(state, cid, "other", "target an object", ctx, OBJECT)
    grid = state.table.map
    cover = state.cover.get(cell_key(cell))
    if cover is None:
        what = "map terrain that cannot be destroyed" if cover_at(state, cell) else "no cover"
        raise RuleViolation("object/not-destructible", f"{cell} holds {what}", rule=OBJECT)
    if cover.durability is None:
        raise RuleViolation(
            "object/not-destructible", f"the {cover.name} cannot be destroyed", rule=OBJECT
        )
    weapon = weapon_named(state, cid, weapon_name)
    here = position(state, cid)
    assert grid is not None and here is not None
    cells = distance(grid, here, cell)
    banes = 0
    if weapon.kind == "melee":
        if cells > weapon.reach:
            raise RuleViolation(
                "attack/out-of-reach", f"the {cover.name} is out of reach", rule=OBJECT
            )
    else:
        shot = band(weapon, cells * state.options.cell_feet)
        if shot is None:
            raise RuleViolation(
                "attack/out-of-range", f"the {cover.name} is out of range", rule=OBJECT
            )
        if any(cover_at(state, c) == "total" for c in between(grid, here, cell)):
            raise RuleViolation(
                "attack/total-cover",
                f"total cover stands between {state.table.combatants[cid].name} and the "
                f"{cover.name}",
                rule=OBJECT,
            )
        banes = shot
    attacker = state.table.combatants[cid]
    result = base.check(
        ctx,
        weapon.skill_name,
        stats_of(attacker).score(weapon.skill_name),
        f"{attacker.name} strikes the {cover.name}",
        banes=banes,
        roller=cid,
    )
    rolled = damage = 0
    left = cover.durability
    if result.success:
        rolled = max(0, ctx.roll(weapon.damage, f"{weapon.name} damage", roller=cid).total)
        damage = max(0, rolled - cover.armor)
        left = max(0, cover.durability - damage)
    wielded = take_in_hand(state, cid, weapon, ctx)  # emitted before the strike, as it is listed
    struck = ctx.emit(
        ObjectStruck(
            combatant_id=cid,
            cell=cell,
            name=cover.name,
            weapon=weapon.name,
            check=result,
            rolled=rolled,
            damage=damage,
            durability=left,
            destroyed=left == 0,
        )
    )
    return [begun, *wielded, struck]
