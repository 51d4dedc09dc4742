"""Whose turn it is and what a turn allows: initiative, the order, rounds, the two actions of
a turn, the end of a turn and the turn timer (hex-tactical: "the same action rules as
regular combat, as well as familiar concepts like Attacking and Initiative")."""

from __future__ import annotations

from typing import Literal

from service.domain.clocks import start_clock, stop_clock
from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Event
from service.rules.hex_tactical import base
from service.rules.hex_tactical.events import (
    ActionBegun,
    InitiativeRolled,
    OrderSet,
    RoundStarted,
    TurnEnded,
    TurnStarted,
)
from service.rules.hex_tactical.geometry import fighting
from service.rules.hex_tactical.hazards import stationary_damage
from service.rules.hex_tactical.state import HexState, stats_of

INITIATIVE = "hex-tactical (base system) Initiative"
MOVEMENT = "hex-tactical Movement on the Tactical Grid"
TURN_CLOCK = "turn"
ActionKind = Literal["move", "other"]


def roll_initiative(state: HexState, ids: list[str], ctx: DecideContext) -> list[Event]:
    """Each combatant makes an Initiative check (base system, interpretation)."""
    events: list[Event] = []
    for cid in ids:
        combatant = state.table.combatants[cid]
        score = stats_of(combatant).initiative
        purpose = f"initiative: {combatant.name}"
        result = base.check(ctx, "initiative", score, purpose, roller=cid)
        events.append(
            ctx.emit(InitiativeRolled(combatant_id=cid, check=result, degree=base.degree(result)))
        )
    return events


def order_after(state: HexState, rolled: list[Event], ctx: DecideContext) -> OrderSet:
    """Best degree of success first, then the higher score, then the lower roll, then id."""
    keys = dict(state.initiative)
    for event in rolled:
        if isinstance(event, InitiativeRolled):
            keys[event.combatant_id] = (event.degree, event.check.score, event.check.roll)
    ids = [c for c in keys if c in state.table.combatants]
    return ctx.emit(
        OrderSet(order=tuple(sorted(ids, key=lambda c: (-keys[c][0], -keys[c][1], keys[c][2], c))))
    )


def begin(state: HexState, ctx: DecideContext) -> list[Event]:
    rolled = roll_initiative(state, list(state.table.combatants), ctx)
    return [*rolled, order_after(state, rolled, ctx), ctx.emit(RoundStarted(round=1))]


def join(state: HexState, cid: str, ctx: DecideContext) -> list[Event]:
    """A combatant added mid-fight rolls and takes its place in the order."""
    rolled = roll_initiative(state, [cid], ctx)
    return [*rolled, order_after(state, rolled, ctx)]


def acting(state: HexState, cid: str, ctx: DecideContext, rule: str) -> None:
    """`cid` is the combatant whose turn it is, and the sender controls it."""
    combatant = state.table.combatant(cid)
    ctx.require_control(cid, combatant.name)
    if state.phase != "running":
        raise RuleViolation("turn/not-running", "the fight has not started", rule=rule)
    if state.current != cid:
        who = state.table.combatants[state.current].name if state.current else "nobody"
        raise RuleViolation(
            "turn/not-your-turn", f"it is not {combatant.name}'s turn (it is {who}'s)", rule=rule
        )
    if state.pending or state.table.open_windows():
        raise RuleViolation(
            "turn/wait-for-reactions",
            "everything pauses until the interruption in progress is resolved",
            rule="hex-tactical Attacks of Opportunity",
        )


def begin_action(
    state: HexState, cid: str, kind: ActionKind, what: str, ctx: DecideContext, rule: str
) -> ActionBegun:
    """hex-tactical Movement: two actions a turn: a move before or after the other action,
    or two moves. Never two other actions."""
    acting(state, cid, ctx, rule)
    name = state.table.combatants[cid].name
    turn = state.turn
    if turn.actions >= 2:
        raise RuleViolation(
            "turn/no-actions-left", f"{name} has used both actions this turn", rule=MOVEMENT
        )
    if kind == "other" and turn.other:
        raise RuleViolation(
            "turn/other-action-used",
            f"{name} has already taken this turn's other action; only a move is left",
            rule=MOVEMENT,
        )
    return ctx.emit(ActionBegun(combatant_id=cid, kind=kind, what=what))


def begin_turn(state: HexState, cid: str, ctx: DecideContext) -> list[Event]:
    events: list[Event] = [ctx.emit(TurnStarted(combatant_id=cid, round=state.round))]
    limit = state.options.turn_time_limit
    if limit is not None:
        name = state.table.combatants[cid].name
        events.append(
            start_clock(
                state.table.clocks, TURN_CLOCK, limit, ctx, label=f"{name}'s turn", owner=cid
            )
        )
    return events


def end_turn(state: HexState, cid: str | None, ctx: DecideContext) -> list[Event]:
    if cid is None:
        if state.current is None or not ctx.actor.controls(state.current):
            raise RuleViolation("turn/which-combatant", "name the combatant whose turn ends")
        cid = state.current
    acting(state, cid, ctx, MOVEMENT)
    return end_of_turn(state, cid, "done", ctx)


def end_of_turn(
    state: HexState,
    cid: str,
    reason: Literal["done", "actions-spent", "timeout"],
    ctx: DecideContext,
) -> list[Event]:
    """Stationary terrain damage lands as a turn ends in the cell (interpretation)."""
    return [
        *stationary_damage(state, cid, ctx),
        ctx.emit(TurnEnded(combatant_id=cid, reason=reason)),
    ]


def next_turn(state: HexState, ctx: DecideContext) -> list[Event]:
    """What the order does by itself once the table is quiet: end a spent turn, start the
    next combatant's turn, or a new round."""
    cid = state.current
    if cid is not None:
        if cid not in state.table.combatants:
            return [ctx.emit(TurnEnded(combatant_id=cid, reason="removed"))]
        if not fighting(state, cid):
            return [ctx.emit(TurnEnded(combatant_id=cid, reason="out-of-fight"))]
        if state.turn.actions >= 2:
            return end_of_turn(state, cid, "actions-spent", ctx)
        return []
    if state.round == 0:
        return []
    waiting = [c for c in state.order if c not in state.acted and fighting(state, c)]
    if waiting:
        return begin_turn(state, waiting[0], ctx)
    if any(fighting(state, c) for c in state.order):
        return [ctx.emit(RoundStarted(round=state.round + 1))]
    return stop_clock(state.table.clocks, TURN_CLOCK, ctx)


def timed_out(state: HexState, ctx: DecideContext) -> list[Event]:
    """The turn clock ran out: the turn ends as `end-turn` would (`delay` too: the base
    system has no delayed turn)."""
    if state.current is None or state.options.on_turn_timeout == "record":
        return []
    return end_of_turn(state, state.current, "timeout", ctx)
