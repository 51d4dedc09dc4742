"""Deciding and evolving the commands and events every ruleset shares."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import orjson
from pydantic import BaseModel, ValidationError

from service.domain import clocks, reactions
from service.domain.common import (
    AddCombatant,
    AddNote,
    AdjustResource,
    AnswerReaction,
    ApplyCondition,
    CloseReactionWindow,
    CombatantAdded,
    CombatantDowned,
    CombatantRemoved,
    CombatantRevived,
    CombatantUpdated,
    ConditionApplied,
    ConditionExpired,
    ConditionRemoved,
    ConditionTicked,
    DiceRolled,
    EncounterEnded,
    EncounterStarted,
    EndEncounter,
    ExpireClock,
    MapSet,
    MoveToken,
    NoteAdded,
    PauseClocks,
    PlaceToken,
    ReactionPolicySet,
    RemoveCombatant,
    RemoveCondition,
    ResourceAdjusted,
    ResumeClocks,
    Rewind,
    Rewound,
    Roll,
    SetMap,
    SetReactionPolicy,
    StartEncounter,
    TokenMoved,
    TokenPlaced,
    UpdateCombatant,
)
from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.grid import Cell, GridMap, on_map, terrain_at
from service.domain.grid_paths import find_path
from service.domain.ids import check_id
from service.domain.messages import Command, Event
from service.domain.table import Pool, Table, TurnMoment

PoolsFromStats = Callable[[BaseModel], dict[str, Pool]]


def validate_stats(model: type[BaseModel], stats: Mapping[str, Any]) -> BaseModel:
    try:
        # Strict, as commands are: a stat of the wrong JSON type is refused, never coerced.
        return model.model_validate_json(orjson.dumps(stats), strict=True)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'stats'}: {e['msg']}" for e in error.errors()
        )
        raise RuleViolation(
            "combatant/bad-stats", f"the stat block is not valid: {problems}"
        ) from None


def new_combatant_id(table: Table, name: str) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "combatant"
    candidate, n = base, 2
    while candidate in table.combatants:
        candidate, n = f"{base}-{n}", n + 1
    return candidate


def decide_common(
    table: Table,
    command: Command,
    ctx: DecideContext,
    stats_model: type[BaseModel],
    pools_from_stats: PoolsFromStats,
    reaction_seconds: float,
) -> list[Event]:
    if table.phase == "ended" and not isinstance(command, AddNote):
        # The seed is revealed at the end: reopening would make every later die predictable.
        raise RuleViolation("encounter/ended", "the encounter has ended")
    match command:
        case AddCombatant():
            return _add_combatant(table, command, ctx, stats_model, pools_from_stats)
        case UpdateCombatant():
            ctx.require_gm("change a combatant")
            table.combatant(command.combatant_id)
            stats = None
            if command.stats is not None:
                stats = validate_stats(stats_model, command.stats)
            return [
                ctx.emit(
                    CombatantUpdated[stats_model](  # type: ignore[valid-type]
                        combatant_id=command.combatant_id,
                        name=command.name,
                        epithet=command.epithet,
                        side=command.side,
                        controller=command.controller,
                        stats=stats,
                    )
                )
            ]
        case RemoveCombatant():
            ctx.require_gm("remove a combatant")
            table.combatant(command.combatant_id)
            return [ctx.emit(CombatantRemoved(combatant_id=command.combatant_id))]
        case SetMap():
            ctx.require_gm("set the map")
            for c in table.combatants.values():
                if c.position is not None and not on_map(command.map, c.position):
                    raise RuleViolation(
                        "map/token-off-map", f"{c.name} would be off the new map; move it first"
                    )
            return [ctx.emit(MapSet(map=command.map))]
        case PlaceToken():
            ctx.require_gm("place tokens")
            table.combatant(command.combatant_id)
            if command.cell is not None:
                _check_free_cell(table, command.cell, command.combatant_id)
            return [ctx.emit(TokenPlaced(combatant_id=command.combatant_id, cell=command.cell))]
        case MoveToken():
            return [move_token(table, command.combatant_id, command.to, ctx)]
        case StartEncounter():
            ctx.require_gm("start the encounter")
            if table.phase != "setup":
                raise RuleViolation(
                    "encounter/already-started", "the encounter has already started"
                )
            if not table.combatants:
                raise RuleViolation("encounter/no-combatants", "add combatants before starting")
            return [ctx.emit(EncounterStarted())]
        case EndEncounter():
            ctx.require_gm("end the encounter")
            stopped = [
                e for cid in sorted(table.clocks) for e in clocks.stop_clock(table.clocks, cid, ctx)
            ]
            closed = [e for w in table.open_windows() for e in reactions.close(w, "gm", ctx)]
            return [
                *stopped,
                *closed,
                ctx.emit(EncounterEnded(reason=command.reason, seed=ctx.revealed_seed())),
            ]
        case AdjustResource():
            ctx.require_gm("adjust hit points or resources")
            return adjust_pool(
                table,
                command.combatant_id,
                command.resource,
                command.delta,
                command.set,
                command.max,
                command.reason,
                ctx,
            )
        case ApplyCondition():
            ctx.require_gm("apply conditions")
            table.combatant(command.combatant_id)
            if command.anchor is not None:
                table.combatant(command.anchor)
            return [ctx.emit(ConditionApplied(**command.model_dump(exclude={"type"})))]
        case RemoveCondition():
            ctx.require_gm("remove conditions")
            if not table.combatant(command.combatant_id).has_condition(command.condition):
                raise RuleViolation(
                    "condition/not-present",
                    f"{command.combatant_id} does not have the condition '{command.condition}'",
                )
            return [
                ctx.emit(
                    ConditionRemoved(combatant_id=command.combatant_id, condition=command.condition)
                )
            ]
        case AddNote():
            if command.hidden:
                ctx.require_gm("write hidden notes")
            return [
                ctx.emit(NoteAdded(text=command.text, hidden=command.hidden, author=ctx.actor.id))
            ]
        case Rewind():
            ctx.require_gm("rewind the encounter")
            current = ctx.roller.version - 1
            if command.to_version >= current:
                raise RuleViolation(
                    "rewind/not-in-past",
                    f"can only rewind to a version before the current one ({current})",
                )
            return [ctx.emit(Rewound(to_version=command.to_version, from_version=current))]
        case SetReactionPolicy():
            ctx.require_control(command.combatant_id)
            table.combatant(command.combatant_id)
            return [
                ctx.emit(
                    ReactionPolicySet(combatant_id=command.combatant_id, policies=command.policies)
                )
            ]
        case AnswerReaction():
            ctx.require_control(command.combatant_id)
            return reactions.answer(
                table.windows.get(command.window_id), command.combatant_id, command.option, ctx
            )
        case CloseReactionWindow():
            ctx.require_gm("close a reaction window")
            return reactions.close(table.windows.get(command.window_id), "deadline", ctx)
        case PauseClocks():
            ctx.require_gm("pause the clocks")
            return clocks.pause_all(table.clocks, ctx)
        case ResumeClocks():
            ctx.require_gm("resume the clocks")
            resumed = clocks.resume_all(table.clocks, ctx)
            lifted: list[Event] = [ctx.emit(clocks.ClocksResumed())] if table.clocks_on_hold else []
            return resumed + lifted
        case ExpireClock():
            ctx.require_gm("expire a clock")
            return clocks.expire_clock(table.clocks, command.clock_id, command.generation, ctx)
        case Roll():
            return [roll(table, command, ctx)]
    raise RuleViolation("command/unknown", f"'{command}' is not a command every ruleset accepts")


def _add_combatant(
    table: Table,
    command: AddCombatant,
    ctx: DecideContext,
    stats_model: type[BaseModel],
    pools_from_stats: PoolsFromStats,
) -> list[Event]:
    ctx.require_gm("add combatants")
    combatant_id = command.combatant_id or new_combatant_id(table, command.name)
    check_id(combatant_id, "combatant")
    if combatant_id in table.combatants:
        raise RuleViolation("combatant/duplicate-id", f"'{combatant_id}' is already in use")
    stats = validate_stats(stats_model, command.stats)
    if command.position is not None:
        _check_free_cell(table, command.position, combatant_id)
    return [
        ctx.emit(
            CombatantAdded[stats_model](  # type: ignore[valid-type]
                combatant_id=combatant_id,
                name=command.name,
                epithet=command.epithet,
                side=command.side,
                controller=command.controller,
                stats=stats,
                pools=pools_from_stats(stats),
                position=command.position,
            )
        )
    ]


def _check_free_cell(table: Table, cell: Cell, mover: str) -> GridMap:
    if table.map is None:
        raise RuleViolation("map/none", "set a map before placing tokens")
    if not on_map(table.map, cell):
        raise RuleViolation("map/off-map", f"cell ({cell.x}, {cell.y}) is not on the map")
    if terrain_at(table.map, cell).kind == "impassable":
        raise RuleViolation("map/impassable", f"cell ({cell.x}, {cell.y}) is impassable")
    for other in table.combatants.values():
        if other.id != mover and other.position == cell and not other.out_of_fight:
            raise RuleViolation("map/occupied", f"{other.name} already stands there")
    return table.map


def move_token(table: Table, combatant_id: str, to: Cell, ctx: DecideContext) -> TokenMoved:
    """The cheapest legal path to `to`: terrain costs apply, enemies block, allies may be passed."""
    mover = table.combatant(combatant_id)
    ctx.require_control(combatant_id, mover.name)
    grid = _check_free_cell(table, to, combatant_id)
    if mover.position is None:
        raise RuleViolation("map/not-placed", f"{mover.name} has no position on the map yet")
    occupancy = table.occupancy(combatant_id)
    path = find_path(grid, mover.position, to, occupancy, mover.side, straight=table.straight_paths)
    if path is None:
        raise RuleViolation(
            "map/no-path", f"{mover.name} has no path to ({to.x}, {to.y}) past walls and enemies"
        )
    return ctx.emit(TokenMoved(combatant_id=combatant_id, path=tuple(path.cells), cost=path.cost))


def adjust_pool(
    table: Table,
    combatant_id: str,
    resource: str,
    delta: int | None,
    set_to: int | None,
    new_max: int | None,
    reason: str | None,
    ctx: DecideContext,
    gm_override: bool = True,
) -> list[Event]:
    combatant = table.combatant(combatant_id)
    if (delta is None) == (set_to is None):
        raise RuleViolation(
            "resource/delta-or-set", "give either a delta or a value to set, not both"
        )
    pool = combatant.pools.get(resource)
    if pool is None and set_to is None:
        names = ", ".join(sorted(combatant.pools)) or "none"
        raise RuleViolation(
            "resource/unknown", f"{combatant.name} has no '{resource}' (has: {names})"
        )
    before = pool.current if pool else 0
    after = set_to if set_to is not None else before + (delta or 0)
    events: list[Event] = [
        ctx.emit(
            ResourceAdjusted(
                combatant_id=combatant_id,
                resource=resource,
                before=before,
                after=after,
                max=new_max,
                reason=reason,
                gm_override=gm_override,
            )
        )
    ]
    if resource == "hp":
        if after <= 0 < before and not combatant.out_of_fight:
            events.append(ctx.emit(CombatantDowned(combatant_id=combatant_id)))
        elif before <= 0 < after and combatant.out_of_fight:
            events.append(ctx.emit(CombatantRevived(combatant_id=combatant_id)))
    return events


def tick_conditions(
    table: Table, turn_of: str, moment: TurnMoment, ctx: DecideContext
) -> list[Event]:
    """Timed conditions anchored on `turn_of` lose a round at this moment of its turn."""
    events: list[Event] = []
    for combatant in table.combatants.values():
        for condition in combatant.conditions:
            anchor = condition.anchor or combatant.id
            if condition.rounds is None or anchor != turn_of or condition.ends != moment:
                continue
            left = condition.rounds - 1
            if left <= 0:
                events.append(
                    ctx.emit(ConditionExpired(combatant_id=combatant.id, condition=condition.name))
                )
            else:
                events.append(
                    ctx.emit(
                        ConditionTicked(
                            combatant_id=combatant.id, condition=condition.name, rounds_left=left
                        )
                    )
                )
    return events


def roll(table: Table, command: Roll, ctx: DecideContext) -> DiceRolled:
    """Any roll the table asks for, drawn like every other die; a hidden one is the GM's."""
    if command.combatant_id is not None:
        combatant = table.combatant(command.combatant_id)
        ctx.require_control(combatant.id, combatant.name)
    if command.hidden:
        ctx.require_gm("roll in secret")
    # Rolled for the combatant named, else for the sender (see holding.may_roll).
    roller = command.combatant_id or ("gm" if ctx.actor.is_gm else ctx.actor.id)
    result = ctx.roll(command.expression, purpose=command.purpose, roller=roller)
    return ctx.emit(
        DiceRolled(
            expression=result.expression,
            total=result.total,
            text=result.text,
            purpose=command.purpose,
            combatant_id=command.combatant_id,
            by=ctx.actor.id,
            hidden=command.hidden,
        )
    )
