"""What hurts and what holds: damage and hit points, the end of a melee, and the terrain
effects of hex-tactical Terrain Effects (slippery, mired, damaging cells)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from service.domain.common import CombatantDowned, ConditionApplied, ConditionRemoved
from service.domain.context import DecideContext
from service.domain.grid import Cell, terrain_at
from service.domain.messages import Event
from service.domain.table_rules import adjust_pool
from service.rules.hex_tactical import base
from service.rules.hex_tactical.events import (
    DamageDealt,
    MeleeEnded,
    TerrainChecked,
    TerrainDamaged,
)
from service.rules.hex_tactical.geometry import MIRED, SLIPPERY, pair, partners, tagged
from service.rules.hex_tactical.state import HexState, stats_of

TERRAIN = "hex-tactical Terrain Effects"
PRONE, STUCK, GRAPPLED = "prone", "stuck", "grappled"
EndReason = Literal["moved-apart", "out-of-fight", "surrendered"]


def _lose_hp(
    state: HexState, cid: str, amount: int, reason: str, ctx: DecideContext
) -> list[Event]:
    if amount <= 0:
        return []
    events = adjust_pool(
        state.table, cid, "hp", -amount, None, None, reason, ctx, gm_override=False
    )
    if any(isinstance(e, CombatantDowned) for e in events):
        # hex-tactical Melee Combat: a melee lasts until "one loses consciousness".
        events += end_melees(state, cid, "out-of-fight", ctx)
    return events


def hurt(
    state: HexState,
    cid: str,
    rolled: int,
    attacker: str | None,
    weapon: str | None,
    resolves: int | None,
    ctx: DecideContext,
) -> list[Event]:
    """Damage less the target's armor (base system, interpretation), never below zero."""
    combatant = state.table.combatants.get(cid)
    if combatant is None:
        return [
            ctx.emit(DamageDealt(
                combatant_id=cid, attacker=attacker, weapon=weapon, rolled=rolled,
                armor=0, taken=0, resolves=resolves,
            ))
        ]  # fmt: skip
    armor = stats_of(combatant).armor
    taken = max(0, rolled - armor)
    dealt = ctx.emit(
        DamageDealt(
            combatant_id=cid,
            attacker=attacker,
            weapon=weapon,
            rolled=rolled,
            armor=armor,
            taken=taken,
            resolves=resolves,
        )
    )
    return [dealt, *_lose_hp(state, cid, taken, f"hit by {weapon or 'an attack'}", ctx)]


def end_melees(state: HexState, cid: str, reason: EndReason, ctx: DecideContext) -> list[Event]:
    return [e for other in partners(state, cid) for e in end_melee(state, cid, other, reason, ctx)]


def end_melee(
    state: HexState, a: str, b: str, reason: EndReason, ctx: DecideContext
) -> list[Event]:
    """A melee ends; a grapple between the two ends with it."""
    events: list[Event] = [ctx.emit(MeleeEnded(combatants=pair(a, b), reason=reason))]
    for held, holder in ((a, b), (b, a)):
        combatant = state.table.combatants.get(held)
        if combatant is None:
            continue
        if any(c.name == GRAPPLED and c.source == holder for c in combatant.conditions):
            events.append(
                ctx.emit(ConditionRemoved(combatant_id=held, condition=GRAPPLED, gm_override=False))
            )
    return events


def entering(state: HexState, cid: str, cell: Cell, ctx: DecideContext) -> list[Event]:
    """Slippery terrain: an Agility check or fall prone; mired: an Agility check or stuck.
    Either failure ends the move (the caller stops when a condition is applied)."""
    events: list[Event] = []
    combatant = state.table.combatants[cid]
    agility = stats_of(combatant).agility
    for tag, condition in ((SLIPPERY, PRONE), (MIRED, STUCK)):
        if not tagged(state, cell, tag):
            continue
        purpose = f"{combatant.name} on {tag} ground"
        result = base.check(ctx, "agility", agility, purpose, roller=cid)
        events.append(
            ctx.emit(TerrainChecked(combatant_id=cid, cell=cell, terrain=tag, check=result))
        )
        if not result.success:
            events.append(
                ctx.emit(
                    ConditionApplied(
                        combatant_id=cid,
                        condition=condition,
                        source=f"{tag} ground",
                        gm_override=False,
                    )
                )
            )
            return events
    return events


def _terrain_damage(
    state: HexState,
    cid: str,
    cell: Cell,
    kind: Literal["passing", "stationary"],
    ctx: DecideContext,
) -> list[Event]:
    grid = state.table.map
    if grid is None:
        return []
    spec = terrain_at(grid, cell).damage
    expression = None if spec is None else getattr(spec, kind)
    if expression is None:
        return []
    name = state.table.combatants[cid].name
    rolled = max(0, ctx.roll(expression, f"{name}: {kind} terrain damage", roller=cid).total)
    hurt_event = ctx.emit(
        TerrainDamaged(
            combatant_id=cid,
            cell=cell,
            kind=kind,
            expression=expression,
            rolled=rolled,
            taken=rolled,
        )
    )
    return [hurt_event, *_lose_hp(state, cid, rolled, f"{kind} terrain damage", ctx)]


def passing_damage(
    state: HexState, cid: str, cell: Cell, ctx: DecideContext, walking: Sequence[Cell] = ()
) -> list[Event]:
    """Leaving a damaging cell entered this turn (earlier, or on the stretch being walked,
    `walking`): its passing dice (interpretation)."""
    if state.current != cid or (cell not in state.turn.entered and cell not in walking):
        return []
    return _terrain_damage(state, cid, cell, "passing", ctx)


def stationary_damage(state: HexState, cid: str, ctx: DecideContext) -> list[Event]:
    """Ending a turn in a damaging cell: its stationary dice (interpretation)."""
    combatant = state.table.combatants.get(cid)
    if combatant is None or combatant.position is None or combatant.out_of_fight:
        return []
    return _terrain_damage(state, cid, combatant.position, "stationary", ctx)
