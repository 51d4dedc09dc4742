"""Whose turn it is: initiative order (§5), holding (§5), +1 initiative (§5.2), the turn's
action points (§5.1), the decision clock (§4.5), new rounds with the one-time
re-sequencing (§6) and the hybrid row (Variations)."""

from __future__ import annotations

from service.domain.clocks import start_clock, stop_clock
from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Event
from service.rules.fifty_two import armor, initiative, layout, points, reflex
from service.rules.fifty_two.events import (
    ActionHeld,
    DiscardReshuffled,
    InitiativeRaised,
    InitiativeSet,
    RoundStarted,
    RowAdded,
    TurnEnded,
    TurnStarted,
)
from service.rules.fifty_two.sides import opposes, side_of, standing, stats_of
from service.rules.fifty_two.state import FiftyTwoState, Turn

ORDER = "fifty-two §5"
CLOCK = "fifty-two §4.5"
DECISION_CLOCK = "decision"


def acting(state: FiftyTwoState, cid: str | None, ctx: DecideContext) -> Turn:
    """The turn of `cid` (or of the one combatant the actor controls), or a refusal."""
    turn = state.turn
    if state.phase != "running" or turn is None:
        raise RuleViolation("turn/no-turn", "nobody is taking a turn now", rule=ORDER)
    cid = cid or turn.combatant_id
    combatant = state.table.combatant(cid)
    if turn.combatant_id != cid:
        now = state.table.combatants[turn.combatant_id].name
        raise RuleViolation(
            "turn/not-your-turn", f"it is {now}'s turn, not {combatant.name}'s", rule=ORDER
        )
    ctx.require_control(cid, combatant.name)
    return turn


def pay(turn: Turn, cost: int, what: str) -> None:
    if cost > turn.points:
        raise RuleViolation(
            "points/not-enough",
            f"{what} costs {cost} action point{'s' if cost != 1 else ''}; "
            f"{turn.points} {'is' if turn.points == 1 else 'are'} left",
            rule="fifty-two §5.2",
            details={"cost": cost, "points": turn.points},
        )


def _to_act(state: FiftyTwoState, cid: str) -> bool:
    combatant = state.table.combatants.get(cid)
    return combatant is not None and not combatant.out_of_fight and cid not in state.acted


def later_to_act(state: FiftyTwoState, cid: str) -> list[str]:
    """Who still acts after `cid` this round, in order: whom a hold waits for (§5)."""
    values = dict(state.chart)
    return [c for c, n in state.chart if n < values[cid] and _to_act(state, c)]


def next_up(state: FiftyTwoState) -> str | None:
    """fifty-two §5: the fastest combatant still standing who has not acted this round."""
    for cid, _ in state.chart:
        combatant = state.table.combatants.get(cid)
        if combatant is not None and not combatant.out_of_fight and cid not in state.acted:
            return cid
    return None


def decision_time(state: FiftyTwoState, cid: str) -> float | None:
    base = state.options.decision_seconds
    if base is None:
        return None
    side = side_of(state.table.combatants[cid])
    allies = len(standing(state.table, "allies"))
    enemies = len(standing(state.table, "enemies"))
    return points.decision_seconds(side, allies, enemies, base)


def clock(state: FiftyTwoState, cid: str, ctx: DecideContext) -> list[Event]:
    """fifty-two §4.5: every decision gets the clock afresh."""
    seconds = decision_time(state, cid)
    if seconds is None:
        return []
    name = state.table.combatants[cid].name
    return [
        start_clock(
            state.table.clocks,
            DECISION_CLOCK,
            seconds,
            ctx,
            label=f"{name}'s decision",
            owner=cid,
        )
    ]


def hold_for_save(state: FiftyTwoState, ctx: DecideContext) -> list[Event]:
    """While a spell waits for a Reflex save the decision clock stops (1.3.0 on): the save is
    the defender's decision, not timed (§8), and the caster, who has not decided anything
    yet, is not the one being waited for (§4.5: "20 seconds per decision")."""
    if not state.saves_hold_clock:
        return []
    return stop_clock(state.table.clocks, DECISION_CLOCK, ctx)


def begin_turn(state: FiftyTwoState, cid: str, ctx: DecideContext) -> list[Event]:
    """fifty-two §5.1: action points are the combat bonus (against the magic defense of the
    opponents in attack range) plus the one action everyone gets; §8 debts are paid first."""
    combatant = state.table.combatants[cid]
    opponents = [
        state.table.combatants[o]
        for o in state.engaged.get(cid, ())
        if o in state.table.combatants
        and state.table.combatants[o].side != combatant.side
        and not state.table.combatants[o].out_of_fight
    ]
    bonus = points.combat_bonus(stats_of(combatant), [stats_of(o).magic_defense for o in opponents])
    owed = state.debts.get(cid, 0)
    available = max(0, points.action_points(bonus.total) - owed)
    started = ctx.emit(
        TurnStarted(
            combatant_id=cid,
            round=state.round,
            bonus=bonus.total,
            terms=tuple(bonus.terms),
            points=available,
            owed=owed,
        )
    )
    return [started, *clock(state, cid, ctx)]


def can_still_act(state: FiftyTwoState, turn: Turn) -> bool:
    """With no points left, only a free attack (against a vulnerable armor, §5.3) remains;
    a prone combatant needs the point to stand up first (§8.3)."""
    if state.table.combatants[turn.combatant_id].has_condition(reflex.PRONE):
        return turn.points >= reflex.STAND_UP_COST
    if turn.points > 0:
        return True
    if not (turn.normal or turn.critical):
        return False
    attacker = state.table.combatants[turn.combatant_id]
    weapon = stats_of(attacker).weapon
    return any(
        armor.execute_cost(weapon, stats_of(t)) == 0
        for t in state.table.combatants.values()
        if not t.out_of_fight and opposes(attacker, t, turn.foe)
    )


def next_turn(state: FiftyTwoState, ctx: DecideContext) -> list[Event]:
    """What the order does by itself: end a spent turn, start the next, or a new round."""
    turn = state.turn
    if turn is not None:
        combatant = state.table.combatants.get(turn.combatant_id)
        if combatant is None:
            return [ctx.emit(TurnEnded(combatant_id=turn.combatant_id, reason="removed"))]
        if combatant.out_of_fight:
            return [ctx.emit(TurnEnded(combatant_id=turn.combatant_id, reason="downed"))]
        if not can_still_act(state, turn):
            return [ctx.emit(TurnEnded(combatant_id=turn.combatant_id, reason="out-of-points"))]
        return []
    cid = next_up(state)
    if cid is not None:
        return begin_turn(state, cid, ctx)
    if standing(state.table):
        return new_round(state, ctx)
    return stop_clock(state.table.clocks, DECISION_CLOCK, ctx)


def new_round(state: FiftyTwoState, ctx: DecideContext) -> list[Event]:
    number = state.round + 1
    events: list[Event] = [ctx.emit(RoundStarted(round=number))]
    if number >= 2 and not state.resequenced:
        events.append(resequenced(state, ctx))
    if state.options.add_row_in_round == number and state.field is not None:
        events += add_row(state, ctx)
    return events


def resequenced(state: FiftyTwoState, ctx: DecideContext) -> InitiativeSet:
    """fifty-two §6: once per combat, at the start of round 2."""
    sides = {cid: side_of(c) for cid, c in state.table.combatants.items()}
    attackers = {
        victim: attacker
        for victim, attacker in state.last_attacker.items()
        if victim in sides and attacker in sides
    }
    chart = [(c, n) for c, n in state.chart if c in sides]
    slots = initiative.resequence(chart, sides, attackers)
    return ctx.emit(
        InitiativeSet(
            chart=tuple((s.combatant_id, s.initiative) for s in slots), reason="resequenced"
        )
    )


def add_row(state: FiftyTwoState, ctx: DecideContext) -> list[Event]:
    """fifty-two Variations: a card on top of each column in round 2 or 3."""
    assert state.field is not None
    field = state.field
    events: list[Event] = []
    needed = layout.to_shuffle(field, len(field.columns))
    if needed:
        order = tuple(ctx.shuffle(needed, "reshuffle the discard stack"))
        events.append(ctx.emit(DiscardReshuffled(pool=order)))
        field = layout.Battlefield(field.columns, (*field.pool, *order), (), field.depth)
    outcome = layout.add_row(field)
    return [*events, ctx.emit(RowAdded(cards=outcome.cards))]


def end_turn(state: FiftyTwoState, cid: str | None, ctx: DecideContext) -> list[Event]:
    turn = acting(state, cid, ctx)
    return [
        ctx.emit(TurnEnded(combatant_id=turn.combatant_id, reason="done", forfeited=turn.points))
    ]


def timed_out(state: FiftyTwoState, ctx: DecideContext) -> list[Event]:
    """fifty-two §4.5: "your combat round ends, and any action points not used are
    forfeited"."""
    turn = state.turn
    if turn is None:
        return []
    return [
        ctx.emit(TurnEnded(combatant_id=turn.combatant_id, reason="timeout", forfeited=turn.points))
    ]


def hold(state: FiftyTwoState, cid: str, ctx: DecideContext) -> list[Event]:
    """fifty-two §5: choosing not to act drops the combatant below the next to act."""
    turn = acting(state, cid, ctx)
    name = state.table.combatants[cid].name
    if turn.acted:
        raise RuleViolation(
            "turn/already-acted", f"{name} has already acted this turn and cannot hold", rule=ORDER
        )
    values = dict(state.chart)
    later = later_to_act(state, cid)
    if not later:
        raise RuleViolation(
            "turn/last-in-order",
            f"{name} is the last to act this round: there is nobody to hold for",
            rule=ORDER,
        )
    # fifty-two §5: "one less than the next combatant to act (if that initiative slot is
    # free) or ... the next lowest initiative slot that is vacant" (any combatant's).
    before, after = values[cid], values[later[0]] - 1
    while after in values.values():
        after -= 1
    return [ctx.emit(ActionHeld(combatant_id=cid, before=before, after=after))]


def raise_initiative(state: FiftyTwoState, cid: str, ctx: DecideContext) -> list[Event]:
    """fifty-two §5.2: +1 for one action point, on up to the next empty slot."""
    turn = acting(state, cid, ctx)
    pay(turn, 1, "+1 initiative")
    before = dict(state.chart)[cid]
    after = dict(initiative.plus_one(state.chart, cid))[cid]
    return [ctx.emit(InitiativeRaised(combatant_id=cid, before=before, after=after, cost=1))]
