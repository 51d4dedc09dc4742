"""Whose turn comes next: the order, rounds, delay, ready, timed conditions, the turn timer."""

from __future__ import annotations

from service.domain.clocks import start_clock, stop_clock
from service.domain.context import DecideContext
from service.domain.messages import Event
from service.domain.table_rules import tick_conditions
from service.rules.freeform.events import (
    ReadiedActionLapsed,
    RoundStarted,
    TurnEnded,
    TurnStarted,
)
from service.rules.freeform.evolve import evolve
from service.rules.freeform.state import FreeformState

TURN_CLOCK = "turn"


def may_act(state: FreeformState, combatant_id: str) -> bool:
    combatant = state.table.combatants.get(combatant_id)
    if combatant is None or combatant_id in state.delayed:
        return False
    return not (combatant.out_of_fight and state.options.skip_downed)


def successor(
    state: FreeformState, after: str | None, leaving: str | None = None
) -> tuple[str | None, bool]:
    """The next combatant who may act after `after`, and whether a new round begins.

    `leaving` is never chosen: a combatant being removed does not get the next turn.
    """
    order = state.order
    if not order:
        return None, False
    start = order.index(after) + 1 if after in order else 0
    for step in range(len(order)):
        position = start + step
        candidate = order[position % len(order)]
        if candidate != leaving and may_act(state, candidate):
            return candidate, after is not None and position >= len(order)
    return None, False


def begin_turn(
    state: FreeformState, combatant_id: str, round_number: int, ctx: DecideContext
) -> list[Event]:
    resumed = combatant_id in state.resuming
    events: list[Event] = [
        ctx.emit(TurnStarted(combatant_id=combatant_id, round=round_number, resumed=resumed))
    ]
    if combatant_id in state.readied:
        # freeform §5: a readied action lasts until the readier's next turn comes up.
        events.append(ctx.emit(ReadiedActionLapsed(combatant_id=combatant_id)))
    if not resumed:
        # freeform §4, §6: a delayer's resumed turn is the turn it delayed, already started.
        events += tick_conditions(state.table, combatant_id, "start-of-turn", ctx)
    limit = state.options.turn_time_limit
    if limit is not None:
        name = state.table.combatants[combatant_id].name
        events.append(
            start_clock(
                state.table.clocks,
                TURN_CLOCK,
                limit,
                ctx,
                label=f"{name}'s turn",
                owner=combatant_id,
            )
        )
    return events


def start_first_turn(state: FreeformState, ctx: DecideContext) -> list[Event]:
    first, _ = successor(state, None)
    events: list[Event] = [ctx.emit(RoundStarted(round=1))]
    if first is not None:
        events += begin_turn(state, first, 1, ctx)
    return events


def pass_turn(
    state: FreeformState,
    combatant_id: str,
    reason: str,
    ctx: DecideContext,
    tick: bool = True,
) -> list[Event]:
    """End `combatant_id`'s turn and start the next one (a new round when the order wraps).

    When nobody may act (everyone else delays or is down) the turn passes to no one and the
    turn timer stops; the next combatant able to act takes the turn (freeform §3).
    """
    events: list[Event] = [ctx.emit(TurnEnded(combatant_id=combatant_id, reason=reason))]
    if tick:
        events += tick_conditions(state.table, combatant_id, "end-of-turn", ctx)
    after = _evolved(state, events)
    leaving = combatant_id if reason == "removed" else None
    following, wrapped = successor(after, combatant_id, leaving)
    if following is None:
        return events + stop_clock(state.table.clocks, TURN_CLOCK, ctx)
    round_number = state.round + 1 if wrapped else state.round
    if wrapped:
        events.append(ctx.emit(RoundStarted(round=round_number)))
    return events + begin_turn(_evolved(state, events), following, round_number, ctx)


def _evolved(state: FreeformState, events: list[Event]) -> FreeformState:
    for event in events:
        state = evolve(state, event)
    return state
