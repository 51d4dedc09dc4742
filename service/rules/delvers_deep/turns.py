"""Whose turn it is: reflex rolls, the PC order, alternating slots, ambush, rounds
(delvers-deep 4.1 Combat Order, Ambush, Taking a Turn), and the turn timer."""

from __future__ import annotations

from typing import Literal

from service.domain.clocks import start_clock, stop_clock
from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Event
from service.domain.table import Combatant
from service.rules.delvers_deep.events import (
    OrderFixed,
    ReflexBoosted,
    ReflexRolled,
    RoundStarted,
    TurnEnded,
    TurnStarted,
)
from service.rules.delvers_deep.points import acting_turn, auto_recovery, maximum, pay
from service.rules.delvers_deep.state import DelversState, Side

ORDER = "delvers-deep 4.1 Combat Order"
AMBUSH = "delvers-deep 4.1 Ambush"
TAKING_A_TURN = "delvers-deep 4.1 Taking a Turn"
TURN_CLOCK = "turn"


def is_pc(combatant: Combatant) -> bool:
    return combatant.stats.get("kind") == "pc"


def side_of(combatant: Combatant) -> Side:
    return "pcs" if is_pc(combatant) else "gm"


def other(side: Side) -> Side:
    return "gm" if side == "pcs" else "pcs"


def waiting(state: DelversState, side: Side) -> list[str]:
    """Who of a side has yet to act this round, in the order they would act."""
    table = state.table
    if side == "pcs":
        late = [c for c in table.combatants if c not in state.pc_order]
        ids = [c for c in (*state.pc_order, *late) if c in table.combatants]
    else:
        ids = list(table.combatants)
    return [
        c
        for c in ids
        if side_of(table.combatants[c]) == side
        and not table.combatants[c].out_of_fight
        and c not in state.acted
    ]


def next_side(state: DelversState) -> Side | None:
    """The side of the next slot: alternate, or the side with turns left once the other has
    none (4.1 Combat Order); in an ambush round the ambushers all go first (4.1 Ambush)."""
    ambush = state.options.ambush
    if state.round == 1 and ambush is not None:
        wanted: Side = ambush
    elif state.last_side is None:
        wanted = state.options.first_side
    else:
        wanted = other(state.last_side)
    for side in (wanted, other(wanted)):
        if waiting(state, side):
            return side
    return None


def anyone_could_act(state: DelversState) -> bool:
    return any(not c.out_of_fight for c in state.table.combatants.values())


def roll_reflex(state: DelversState, ctx: DecideContext, ids: list[str]) -> list[Event]:
    """delvers-deep 4.1 Combat Order: players roll one d6 for each PC."""
    table = state.table
    return [
        ctx.emit(
            ReflexRolled(
                combatant_id=c,
                roll=ctx.die(6, purpose=f"reflex: {table.combatants[c].name}", roller=c),
            )
        )
        for c in ids
        if is_pc(table.combatants[c])
    ]


def boost_reflex(state: DelversState, cid: str, points: int, ctx: DecideContext) -> list[Event]:
    combatant = state.table.combatant(cid)
    ctx.require_control(cid, combatant.name)
    if state.phase != "reflex" or cid not in state.reflex:
        raise RuleViolation(
            "order/not-rolling",
            "REF can raise a reflex roll only while the order is being rolled",
            rule=ORDER,
        )
    paid = pay(state, cid, {"ref": points}, ctx, rule=ORDER)
    total = state.reflex[cid].total + points
    boosted = ReflexBoosted(combatant_id=cid, points=points, total=total)
    return [ctx.emit_ahead(boosted, of=paid), *paid]


def pc_order(state: DelversState) -> tuple[str, ...]:
    """Highest result first; ties to the higher maximum REF, then by id (interpretation)."""
    table = state.table

    def key(cid: str) -> tuple[int, int, str]:
        return (-state.reflex[cid].total, -maximum(table.combatants[cid], "ref"), cid)

    return tuple(sorted((c for c in state.reflex if c in table.combatants), key=key))


def fix_order(state: DelversState, ctx: DecideContext) -> list[Event]:
    ctx.require_gm("fix the combat order")
    if state.phase != "reflex":
        raise RuleViolation("order/not-rolling", "the order is not being rolled", rule=ORDER)
    return [ctx.emit(OrderFixed(order=pc_order(state))), ctx.emit(RoundStarted(round=1))]


def pick(state: DelversState, ids: list[str], ctx: DecideContext) -> list[Event]:
    """The GM chooses who takes the GM's slot; a group of similar creatures may share it."""
    ctx.require_gm("choose who acts in the GM's slot")
    if state.phase != "running" or state.current or next_side(state) != "gm":
        raise RuleViolation("turn/not-gm-slot", "it is not the GM's slot to fill", rule=ORDER)
    chosen = list(dict.fromkeys(ids))
    free = waiting(state, "gm")
    for cid in chosen:
        combatant = state.table.combatant(cid)
        if cid not in free:
            raise RuleViolation(
                "turn/cannot-act",
                f"{combatant.name} is not a creature that may still act this round",
                rule=ORDER,
            )
    groups = {state.table.combatants[c].stats.get("group") for c in chosen}
    if len(chosen) > 1 and (len(groups) != 1 or None in groups):
        raise RuleViolation(
            "turn/not-a-group",
            "only creatures of the same group share a slot",
            rule=ORDER,
        )
    return begin_turn(state, tuple(chosen), "gm", ctx)


def begin_turn(
    state: DelversState, ids: tuple[str, ...], side: Side, ctx: DecideContext
) -> list[Event]:
    """A slot begins and, with `turn_time_limit`, its turn clock starts (a restart is the
    next generation, so the last slot's deadline goes stale)."""
    events: list[Event] = [ctx.emit(TurnStarted(combatant_ids=ids, round=state.round, side=side))]
    limit = state.options.turn_time_limit
    if limit is not None:
        # delvers-deep 4.1 Combat Order: creatures that "share the same slot" share its one
        # clock, which belongs to none of them.
        names = " and ".join(state.table.combatants[c].name for c in ids)
        owner = ids[0] if len(ids) == 1 else None
        events.append(
            start_clock(
                state.table.clocks, TURN_CLOCK, limit, ctx, label=f"{names}'s turn", owner=owner
            )
        )
    return events


def end_turn(state: DelversState, cid: str | None, ctx: DecideContext) -> list[Event]:
    if cid is None:
        controlled = [c for c in state.current if ctx.actor.controls(c)]
        if len(controlled) != 1:
            raise RuleViolation(
                "turn/which-combatant",
                "name the combatant whose turn ends",
                rule=TAKING_A_TURN,
            )
        cid = controlled[0]
    acting_turn(state, cid, ctx, TAKING_A_TURN)
    return end_of_turn(state, cid, "done", ctx)


def end_of_turn(
    state: DelversState, cid: str, reason: Literal["done", "timeout"], ctx: DecideContext
) -> list[Event]:
    # delvers-deep 4.1 Taking a Turn: every turn starts with the recovery phase, so a turn
    # ended without an action still recovers.
    return [*auto_recovery(state, cid, ctx), ctx.emit(TurnEnded(combatant_id=cid, reason=reason))]


def timed_out(state: DelversState, ctx: DecideContext) -> list[Event]:
    """The turn clock ran out: every turn of the slot ends as its controller's `end-turn`
    would, even while reactions are still to resolve; the next slot waits for them."""
    events: list[Event] = []
    for cid in state.current:
        if state.table.combatants[cid].out_of_fight:
            events.append(ctx.emit(TurnEnded(combatant_id=cid, reason="downed")))
        else:
            events += end_of_turn(state, cid, "timeout", ctx)
    return events


def finished(state: DelversState, cid: str, ctx: DecideContext) -> TurnEnded | None:
    """A turn that ends by itself: both actions used, or its combatant is out of the fight."""
    combatant = state.table.combatants.get(cid)
    if combatant is None:
        return ctx.emit(TurnEnded(combatant_id=cid, reason="removed"))
    if combatant.out_of_fight:
        return ctx.emit(TurnEnded(combatant_id=cid, reason="downed"))
    turn = state.turns.get(cid)
    if turn is not None and turn.actions_used >= 2:
        return ctx.emit(TurnEnded(combatant_id=cid, reason="actions-spent"))
    return None


def next_turn(state: DelversState, ctx: DecideContext) -> list[Event]:
    """What the order does by itself once the table is quiet: end spent turns, start the
    next PC's turn, or a new round. A GM slot waits for `pick`, untimed."""
    for cid in state.current:
        ended = finished(state, cid, ctx)
        if ended is not None:
            return [ended]
    if state.current:
        return []
    side = next_side(state)
    if side == "pcs":
        first = waiting(state, "pcs")[0]
        return begin_turn(state, (first,), "pcs", ctx)
    if side is None and anyone_could_act(state):
        return [ctx.emit(RoundStarted(round=state.round + 1))]
    return stop_clock(state.table.clocks, TURN_CLOCK, ctx)
