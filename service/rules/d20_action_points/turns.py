"""The turns of a round: a turn's start with its action points (or its one action), the guard
and price every action pays, ending, delaying, gifting a point, the Heroic Point, the next
turn or round, the turn timer, and talking, the free action that is only its price
(d20-action-points Combat Round, Action Points, Gifting Action Points)."""

from __future__ import annotations

from service.domain.clocks import start_clock, stop_clock
from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Event
from service.domain.table_rules import adjust_pool
from service.rules.d20_action_points import action_points
from service.rules.d20_action_points.action_points import (
    ACTIONS,
    POINTS_PER_ROUND,
    ActionName,
    Budget,
)
from service.rules.d20_action_points.events import (
    ActionTaken,
    HeroicPointSpent,
    PointGifted,
    RoundStarted,
    Talked,
    TurnDelayed,
    TurnEnded,
    TurnSkipped,
    TurnStarted,
)
from service.rules.d20_action_points.initiative import ROUND, acts_this_round
from service.rules.d20_action_points.state import D20State, Turn

TURN_CLOCK = "turn"
# Interpretation: a Heroic Point under action points buys one standard action's points.
HEROIC_POINTS = action_points.CATEGORY_COST["standard"]
FREE_WHILE_GRAPPLED = frozenset({"break-free", "talk", "drop-item"})
STANDING = frozenset({"move", "run", "charge"})


def begin_turn(state: D20State, cid: str, ctx: DecideContext) -> list[Event]:
    """A turn begins with 5 action points and any gifted since (or one action); a delayed
    turn resumes with what it had when it was delayed, and the gifts made since."""
    combatant = state.table.combatants[cid]
    held = state.held.get(cid)
    gifts = state.gifts.get(cid, 0)
    if state.options.action_points:
        points = (held.points if held is not None else POINTS_PER_ROUND) + gifts
        started = ctx.emit(
            TurnStarted(combatant_id=cid, round=state.round, points=points, actions=0)
        )
    else:
        allowed = held.allowed if held is not None else 1
        started = ctx.emit(
            TurnStarted(combatant_id=cid, round=state.round, points=0, actions=allowed)
        )
    events: list[Event] = [started]
    limit = state.options.turn_time_limit
    if limit is not None:
        events.append(
            start_clock(
                state.table.clocks,
                TURN_CLOCK,
                limit,
                ctx,
                label=f"{combatant.name}'s turn",
                owner=cid,
            )
        )
    return events


def next_turn(state: D20State, ctx: DecideContext) -> list[Event]:
    """What the round does by itself once the table is quiet: the current turn ends when its
    combatant leaves the fight, the next in the order begins, or a new round starts."""
    if state.phase != "acting":
        return []
    if state.current is not None:
        combatant = state.table.combatants.get(state.current)
        if combatant is None:
            return [ctx.emit(TurnEnded(combatant_id=state.current, reason="removed"))]
        if combatant.out_of_fight:
            return [ctx.emit(TurnEnded(combatant_id=state.current, reason="out-of-fight"))]
        return []
    if state.queue:
        cid = state.queue[0]
        combatant = state.table.combatants.get(cid)
        if combatant is None or not acts_this_round(state, combatant):
            return [ctx.emit(TurnSkipped(combatant_id=cid, reason="out of the fight"))]
        return begin_turn(state, cid, ctx)
    return [
        *stop_clock(state.table.clocks, TURN_CLOCK, ctx),
        ctx.emit(RoundStarted(round=state.round + 1)),
    ]


def current_turn(state: D20State, cid: str, ctx: DecideContext, rule: str = ROUND) -> Turn:
    """The turn of a combatant that may act now, or a violation saying why not."""
    if state.phase != "acting":
        raise RuleViolation("turn/not-acting", "no one is taking a turn now", rule=rule)
    combatant = state.table.combatant(cid)
    ctx.require_control(cid, combatant.name)
    if state.current != cid or state.turn is None:
        raise RuleViolation("turn/not-your-turn", f"it is not {combatant.name}'s turn", rule=rule)
    if state.table.open_windows() or state.pending:
        raise RuleViolation(
            "reactions/window-open", "wait until the open reactions are resolved", rule=rule
        )
    return state.turn


def begin_action(state: D20State, cid: str, action: ActionName, ctx: DecideContext) -> list[Event]:
    """The guard every action passes, and its price: action points, or the turn's one
    action (a Heroic Point buys a second)."""
    turn = current_turn(state, cid, ctx, ACTIONS[action].rule)
    combatant = state.table.combatants[cid]
    if cid in state.grappled and action not in FREE_WHILE_GRAPPLED:
        raise RuleViolation(
            "grapple/must-break-free",
            f"{combatant.name} is grappled: the only action left is to try to break free "
            "(break-free)",
            rule=action_points.SPECIAL_MOVES,
        )
    if action in STANDING and combatant.has_condition("prone"):
        raise RuleViolation(
            "prone/stand-up-first",
            f"{combatant.name} is prone: stand up (a move action) or crawl five feet",
            rule=action_points.ACTION_POINTS,
        )
    if state.options.action_points:
        left = action_points.spend(turn.points, action)
        return [ctx.emit(ActionTaken(combatant_id=cid, action=action, points=turn.points - left))]
    taken = action_points.take_action(turn.actions, action, heroic_point=turn.allowed > 1)
    return [ctx.emit(ActionTaken(combatant_id=cid, action=action, counts=taken > turn.actions))]


def end_turn(state: D20State, cid: str | None, ctx: DecideContext) -> list[Event]:
    if cid is None:
        if state.current is None or not ctx.actor.controls(state.current):
            raise RuleViolation(
                "turn/which-combatant", "name the combatant whose turn ends", rule=ROUND
            )
        cid = state.current
    turn = current_turn(state, cid, ctx)
    return [ctx.emit(TurnEnded(combatant_id=cid, points_left=turn.points))]


def delay(state: D20State, cid: str, until: str | None, ctx: DecideContext) -> list[Event]:
    """d20-action-points Action Points, Delay action: "take their turn at any time after
    their initiative turn". Interpretation: the whole turn, points and all, moves to after
    `until` (or to the end of the round); it costs the five points in that nothing may be
    spent before it."""
    rule = action_points.ACTION_POINTS
    turn = current_turn(state, cid, ctx, rule)
    name = state.table.combatants[cid].name
    if cid in state.grappled:
        raise RuleViolation(
            "grapple/must-break-free",
            f"{name} is grappled: the only action left is to try to break free (break-free)",
            rule=action_points.SPECIAL_MOVES,
        )
    if turn.spent:
        raise RuleViolation(
            "delay/after-acting",
            f"{name} has already acted this turn; a delay takes the whole turn",
            rule=rule,
        )
    if not state.queue:
        raise RuleViolation(
            "delay/nobody-after", f"nobody is left to act after {name} this round", rule=rule
        )
    if until is not None and until not in state.queue:
        who = state.table.combatant(until).name
        raise RuleViolation(
            "delay/not-later",
            f"{who} does not act later this round; {name} can wait for: "
            + ", ".join(state.table.combatants[c].name for c in state.queue),
            rule=rule,
            details={"later": list(state.queue)},
        )
    return [ctx.emit(TurnDelayed(combatant_id=cid, until=until))]


def gift_point(state: D20State, giver: str, to: str, ctx: DecideContext) -> list[Event]:
    rule = action_points.GIFTING
    me = state.table.combatant(giver)
    ctx.require_control(giver, me.name)
    receiver = state.table.combatant(to)
    if not state.options.action_points:
        raise RuleViolation(
            "gift/no-action-points", "points are gifted only with action points on", rule=rule
        )
    if state.phase != "acting":
        raise RuleViolation("turn/not-acting", "no one is taking a turn now", rule=rule)
    if me.out_of_fight:
        raise RuleViolation(
            "gift/out-of-fight", f"{me.name} is out of the fight and gifts nothing", rule=rule
        )
    if receiver.side != me.side or receiver.out_of_fight:
        raise RuleViolation(
            "gift/not-an-ally",
            f"{me.name} can gift a point only to an ally in the fight",
            rule=rule,
        )
    if state.current == giver and state.turn is not None:
        points = state.turn.points
    elif giver in state.acted:
        points = state.leftover.get(giver, 0)
    else:
        raise RuleViolation(
            "gift/not-left-over",
            f"{me.name} has not taken a turn yet this round; only left-over points are gifted",
            rule=rule,
        )
    receiver_acted = to in state.acted or state.current == to
    action_points.gift(
        Budget(giver, me.name, points, True),
        Budget(to, receiver.name, 0, receiver_acted),
        gifted=giver in state.givers,
    )
    return [ctx.emit(PointGifted(combatant_id=giver, to=to))]


def spend_heroic_point(state: D20State, cid: str, ctx: DecideContext) -> list[Event]:
    """Combat Round 5: "Optional: Spend a Heroic Point to gain an additional action"."""
    current_turn(state, cid, ctx)
    combatant = state.table.combatants[cid]
    heroic = combatant.pools.get("heroic")
    if heroic is None or heroic.current < 1:
        raise RuleViolation(
            "heroic/none-left", f"{combatant.name} has no Heroic Point to spend", rule=ROUND
        )
    if cid in state.heroic_used:
        raise RuleViolation(
            "heroic/once-a-round",
            f"{combatant.name} has already spent a Heroic Point this round",
            rule=ROUND,
        )
    points = HEROIC_POINTS if state.options.action_points else 0
    spent = adjust_pool(
        state.table, cid, "heroic", -1, None, None, "a Heroic Point", ctx, gm_override=False
    )
    spending = HeroicPointSpent(combatant_id=cid, points=points)
    return [ctx.emit_ahead(spending, of=spent), *spent]


def timed_out(state: D20State, ctx: DecideContext) -> list[Event]:
    """The turn clock ran out: `end-turn` ends the turn; `delay` moves it to the end of the
    round if nothing was spent yet and someone is left, else ends it; `record` only notes."""
    cid, turn = state.current, state.turn
    if cid is None or turn is None:
        return []
    match state.options.on_turn_timeout:
        case "record":
            return []
        case "delay" if not turn.spent and state.queue:
            return [ctx.emit(TurnDelayed(combatant_id=cid, until=None))]
        case _:
            return [
                ctx.emit(TurnEnded(combatant_id=cid, reason="timeout", points_left=turn.points))
            ]


def talk(state: D20State, cid: str, text: str, ctx: DecideContext) -> list[Event]:
    return [*begin_action(state, cid, "talk", ctx), ctx.emit(Talked(combatant_id=cid, text=text))]
