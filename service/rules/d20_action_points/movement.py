"""Moving in d20-action-points: the path and feet of a move, run or charge (slowed by
difficult terrain), crawling, standing up and dropping prone (d20-action-points Action
Points, Environment Modifiers)."""

from __future__ import annotations

from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.grid import Cell, distance, on_map, terrain_at
from service.domain.grid_paths import find_path
from service.domain.messages import Event
from service.rules.d20_action_points import action_points, attacks
from service.rules.d20_action_points.action_points import ActionName
from service.rules.d20_action_points.battlefield import BY_NAME, surroundings
from service.rules.d20_action_points.combatants import CELL_FEET, stats_of
from service.rules.d20_action_points.commands import Move
from service.rules.d20_action_points.events import DroppedProne, Moved, StoodUp
from service.rules.d20_action_points.state import D20State
from service.rules.d20_action_points.turns import begin_action

SLOWING = frozenset({"mud", "dense-foliage"})


def travel(
    state: D20State, cid: str, action: ActionName, to: Cell | None, feet: int | None
) -> tuple[tuple[Cell, ...] | None, int, int]:
    """Where a move, run or charge takes a combatant: the path on a map, the feet walked and
    the feet allowed: the movement rate less 10 feet for each kind of difficult terrain on
    the way (Environment Modifiers: "costing you 10 feet"), doubled for a run or charge."""
    combatant = state.table.combatants[cid]
    speed = stats_of(combatant).speed
    around = set(surroundings(state, cid))
    grid = state.table.map
    if to is None:
        allowed = action_points.feet(action, attacks.movement_rate(speed, around))
        walked = allowed if feet is None else feet
        if walked > allowed:
            raise RuleViolation(
                "move/too-far",
                f"{combatant.name} can cover {allowed} feet with that action, not {walked}",
                rule=action_points.ACTION_POINTS,
                details={"allowed": allowed},
            )
        return None, walked, allowed
    if grid is None or combatant.position is None:
        raise RuleViolation("move/no-map", "without a map (or a token) give feet, not a cell")
    if not on_map(grid, to):
        raise RuleViolation("map/off-map", f"cell {to} is not on the map")
    occupied = state.table.occupancy(cid)
    if to in occupied:
        raise RuleViolation("map/occupied", f"someone already stands at {to}")
    found = find_path(
        grid, combatant.position, to, occupied, combatant.side, straight=state.table.straight_paths
    )
    if found is None:
        raise RuleViolation("map/no-path", f"{combatant.name} has no path to {to}")
    if state.options.environment:
        for cell in found.cells:
            around |= {BY_NAME[t] for t in terrain_at(grid, cell).tags if t in SLOWING}
    allowed = action_points.feet(action, attacks.movement_rate(speed, around))
    walked = found.cost * CELL_FEET
    if walked > allowed:
        raise RuleViolation(
            "move/too-far",
            f"{combatant.name} needs {walked} feet to reach {to} and can cover {allowed}",
            rule=action_points.ACTION_POINTS,
            details={"allowed": allowed, "needed": walked},
        )
    return tuple(found.cells), walked, allowed


def move(state: D20State, command: Move, ctx: DecideContext) -> list[Event]:
    action: ActionName = "run" if command.run else "move"
    paid = begin_action(state, command.combatant_id, action, ctx)
    path, walked, allowed = travel(state, command.combatant_id, action, command.to, command.feet)
    moved = ctx.emit(
        Moved(
            combatant_id=command.combatant_id, how=action, feet=walked, allowed=allowed, path=path
        )
    )
    return [*paid, moved]


def crawl(
    state: D20State, cid: str, to: Cell | None, ctx: DecideContext, *, feet: int | None = None
) -> list[Event]:
    """Action Points, Crawl: "Allows prone character to move five feet" (`feet`, as in a
    move, may say less; without a map it is the feet crawled)."""
    combatant = state.table.combatant(cid)
    if not combatant.has_condition("prone"):
        raise RuleViolation(
            "crawl/not-prone",
            f"{combatant.name} is standing; crawling is for the prone",
            rule=action_points.ACTION_POINTS,
        )
    allowed = action_points.CRAWL_FEET
    if feet is not None and feet > allowed:
        raise RuleViolation(
            "move/too-far",
            f"{combatant.name} can crawl {allowed} feet, not {feet}",
            rule=action_points.ACTION_POINTS,
            details={"allowed": allowed},
        )
    paid = begin_action(state, cid, "crawl", ctx)
    path = None
    grid = state.table.map
    if to is not None:
        if grid is None or combatant.position is None:
            raise RuleViolation("move/no-map", "without a map (or a token) crawl without a cell")
        if not on_map(grid, to) or distance(grid, combatant.position, to) != 1:
            raise RuleViolation(
                "move/too-far",
                "a crawl goes five feet: one cell",
                rule=action_points.ACTION_POINTS,
            )
        if any(c.position == to and not c.out_of_fight for c in state.table.combatants.values()):
            raise RuleViolation("map/occupied", f"someone already stands at {to}")
        path = (combatant.position, to)
    walked = allowed if feet is None or path is not None else feet
    return [
        *paid,
        ctx.emit(Moved(combatant_id=cid, how="crawl", feet=walked, allowed=allowed, path=path)),
    ]


def stand_up(state: D20State, cid: str, ctx: DecideContext) -> list[Event]:
    combatant = state.table.combatant(cid)
    if not combatant.has_condition("prone"):
        raise RuleViolation(
            "stand/not-prone",
            f"{combatant.name} is already standing",
            rule=action_points.ACTION_POINTS,
        )
    return [*begin_action(state, cid, "stand-up", ctx), ctx.emit(StoodUp(combatant_id=cid))]


def drop_prone(state: D20State, cid: str, ctx: DecideContext) -> list[Event]:
    combatant = state.table.combatant(cid)
    if combatant.has_condition("prone"):
        raise RuleViolation(
            "prone/already", f"{combatant.name} is already prone", rule=action_points.ACTION_POINTS
        )
    return [*begin_action(state, cid, "drop-prone", ctx), ctx.emit(DroppedProne(combatant_id=cid))]
