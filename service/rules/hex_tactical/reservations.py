"""Reserved actions that wait for an enemy: a reserved move ("if the orc starts to move
toward me, I will run away") and overwatch; the step that sets one off, the window it opens
and the overwatch shot (hex-tactical Movement on the Tactical Grid, Ranged Combat). The
reserved run itself is a move, walked in movement.py."""

from __future__ import annotations

from service.domain.context import DecideContext
from service.domain.draws import MissingTableDice
from service.domain.errors import RuleViolation
from service.domain.grid import Cell, distance, on_map, terrain_at
from service.domain.messages import Event
from service.domain.reactions import ReactionWindowClosed
from service.rules.hex_tactical.attacks import strike
from service.rules.hex_tactical.commands import ReserveMove
from service.rules.hex_tactical.events import MoveReserved
from service.rules.hex_tactical.geometry import (
    RANGED,
    band,
    cover_against,
    enemies,
    feet_between,
    fighting,
)
from service.rules.hex_tactical.state import HexState, Pending, Reservation, stats_of
from service.rules.hex_tactical.turns import MOVEMENT, begin_action
from service.rules.hex_tactical.weapons import take_in_hand, weapon_named
from service.rules.hex_tactical.windows import open_window


def reserve_move(state: HexState, command: ReserveMove, ctx: DecideContext) -> list[Event]:
    """hex-tactical Movement: "even reserve a movement action ('if the orc starts to move
    toward me, I will run away')". It lasts until this combatant's next turn."""
    cid = command.combatant_id
    begun = begin_action(state, cid, "move", "reserve a move", ctx, MOVEMENT)
    grid = state.table.map
    if grid is None or state.table.combatants[cid].position is None:
        raise RuleViolation("move/no-map", "the tactical variant needs a map and a token on it")
    if not on_map(grid, command.to) or terrain_at(grid, command.to).kind == "impassable":
        raise RuleViolation("map/off-map", f"{command.to} is not a cell to run to")
    for watched in command.watch:
        other = state.table.combatant(watched)
        if not enemies(state, cid, watched):
            raise RuleViolation("move/not-an-enemy", f"{other.name} is not an enemy to watch")
    reservation = Reservation(kind="run", to=command.to, watch=tuple(command.watch))
    return [begun, ctx.emit(MoveReserved(combatant_id=cid, reservation=reservation))]


def overwatch(
    state: HexState, cid: str, weapon_name: str | None, ctx: DecideContext
) -> list[Event]:
    """hex-tactical Ranged Combat: a ranged weapon "gains access to the Overwatch (Combat
    Maneuver) action automatically" (its terms are Fray's: see the rules page)."""
    begun = begin_action(state, cid, "other", "overwatch", ctx, RANGED)
    weapon = weapon_named(state, cid, weapon_name)
    if weapon.kind != "ranged":
        raise RuleViolation(
            "overwatch/needs-ranged-weapon",
            f"overwatch takes a ranged weapon, and the {weapon.name} is not one",
            rule=RANGED,
        )
    reservation = Reservation(kind="overwatch", weapon=weapon.name)
    return [
        begun,
        *take_in_hand(state, cid, weapon, ctx),
        ctx.emit(MoveReserved(combatant_id=cid, reservation=reservation)),
    ]


def reservation_set_off(state: HexState, mover: str, here: Cell, there: Cell) -> str | None:
    """The first enemy (in initiative order) whose reserved move or overwatch this step sets
    off: a step toward a reserved runner, or into an overwatcher's range and line of fire."""
    grid = state.table.map
    assert grid is not None
    for cid in state.order:
        reservation = state.reservations.get(cid)
        if reservation is None or not fighting(state, cid) or not enemies(state, cid, mover):
            continue
        if reservation.watch and mover not in reservation.watch:
            continue
        where = state.table.combatants[cid].position
        if where is None:
            continue
        if reservation.kind == "run":
            if distance(grid, there, where) < distance(grid, here, where):
                return cid
        elif _in_sights(state, cid, reservation, mover, there):
            return cid
    return None


def _in_sights(
    state: HexState, cid: str, reservation: Reservation, mover: str, there: Cell
) -> bool:
    weapon = stats_of(state.table.combatants[cid]).weapon(reservation.weapon or "")
    where = state.table.combatants[cid].position
    if weapon is None or where is None:
        return False
    if band(weapon, feet_between(state, where, there)) is None:
        return False
    return cover_against(state, cid, mover, there)[0] != "total"


def open_reserved(state: HexState, item: Pending, ctx: DecideContext) -> list[Event]:
    reservation = item.reservation
    if reservation is None or not fighting(state, item.actor):
        return open_window(state, item, {"kind": "reserved"}, {}, ctx)
    option = "run" if reservation.kind == "run" else "shoot"
    trigger = {
        "kind": "reserved-move" if reservation.kind == "run" else "overwatch",
        "reservation": reservation.model_dump(mode="json"),
    }
    return open_window(state, item, trigger, {item.actor: (option,)}, ctx)


def resolve_overwatch(
    state: HexState, closed: ReactionWindowClosed, ctx: DecideContext
) -> list[Event]:
    shooter, mover = str(closed.trigger["actor"]), str(closed.trigger["target"])
    if not closed.reactions or not fighting(state, shooter) or not fighting(state, mover):
        return []
    reservation = Reservation.model_validate(closed.trigger["reservation"])
    try:
        weapon = weapon_named(state, shooter, reservation.weapon)
        return [
            *take_in_hand(state, shooter, weapon, ctx),
            *strike(state, shooter, mover, weapon, ctx, overwatch=True),
        ]
    except MissingTableDice:
        raise  # a die the table has yet to roll: the chance is still there
    except RuleViolation:
        return []  # out of range or behind total cover by now: the shot is not there
