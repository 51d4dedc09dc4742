"""Deciding Delver's Deep commands, and what follows by itself once the table is quiet:
queued hits and moves open their reaction windows one at a time, closed windows resolve,
spent turns end and the next slot begins."""

from __future__ import annotations

from service.domain.clocks import ClockExpired
from service.domain.common import CombatantAdded, EncounterStarted
from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Command, Event
from service.domain.reactions import ReactionWindowClosed
from service.domain.settling import Settle
from service.rules.delvers_deep import actions, attacks, turns
from service.rules.delvers_deep.commands import (
    Attack,
    BoostReflex,
    Brace,
    CallCheck,
    Cast,
    Defend,
    Encourage,
    EndTurn,
    FixOrder,
    Focus,
    Improvise,
    Interact,
    Move,
    Pick,
    Recover,
    Reload,
)
from service.rules.delvers_deep.events import OrderFixed, RoundStarted
from service.rules.delvers_deep.evolve import evolve
from service.rules.delvers_deep.points import begin_action
from service.rules.delvers_deep.state import DelversState

ACTION_RULES = {
    Move: actions.MOVEMENT,
    Attack: attacks.ATTACKS,
    Reload: attacks.RELOADING,
    Cast: actions.SPELLS,
    Improvise: actions.IMPROVISE,
    Interact: actions.INTERACT,
    Brace: actions.BRACE,
    Defend: actions.DEFEND,
    Focus: actions.FOCUS,
    Encourage: actions.ENCOURAGE,
}


class Run(Settle[DelversState]):
    def evolve(self, state: DelversState, event: Event) -> DelversState:
        return evolve(state, event)

    def resolve(self, state: DelversState, closed: ReactionWindowClosed) -> list[Event]:
        return attacks.resolve(state, closed, self.ctx)

    def active(self, state: DelversState) -> bool:
        return state.phase == "running"

    def open_next(self, state: DelversState) -> list[Event] | None:
        return attacks.open_next(state, state.pending[0], self.ctx) if state.pending else None

    def next_step(self, state: DelversState) -> list[Event]:
        return turns.next_turn(state, self.ctx)


def decide_own(state: DelversState, command: Command, ctx: DecideContext) -> list[Event]:
    if state.phase == "ended":
        raise RuleViolation("encounter/ended", "the encounter has ended")
    run = Run(state, ctx)
    match command:
        case BoostReflex():
            run.emit(turns.boost_reflex(state, command.combatant_id, command.points, ctx))
        case FixOrder():
            run.emit(turns.fix_order(state, ctx))
        case Pick():
            run.emit(turns.pick(state, command.combatant_ids, ctx))
        case Recover():
            run.emit(actions.recover(state, command, ctx))
        case EndTurn():
            run.emit(turns.end_turn(state, command.combatant_id, ctx))
        case CallCheck():
            run.emit(
                actions.call_check(state, command.combatant_id, command.check, command.reason, ctx)
            )
        case _:
            rule = ACTION_RULES.get(type(command))
            cid = getattr(command, "combatant_id", None)
            if rule is None or not isinstance(cid, str):
                raise RuleViolation("command/unknown", f"delvers-deep does not know '{command}'")
            run.emit(begin_action(state, cid, ctx, rule))
            run.emit(action(run.state, command, cid, ctx))
    return run.settle()


def action(state: DelversState, command: Command, cid: str, ctx: DecideContext) -> list[Event]:
    match command:
        case Move():
            return actions.move(state, command, ctx)
        case Attack():
            weapon = attacks.weapon_of(state, cid, command.weapon)
            return attacks.attack(state, cid, weapon, command.target, command.extra, ctx)
        case Reload():
            return attacks.reload(state, cid, attacks.weapon_of(state, cid, command.weapon), ctx)
        case Cast():
            return actions.cast(state, cid, command.spell, command.target, ctx)
        case Improvise():
            cost = {"fort": command.fort, "ref": command.ref, "will": command.will}
            return actions.improvise(state, cid, command.description, cost, command.dc, ctx)
        case Interact():
            return actions.interact(state, cid, command.description, command.with_, ctx)
        case Brace():
            return actions.stance(state, cid, "brace", ctx)
        case Defend():
            return actions.stance(state, cid, "defend", ctx)
        case Focus():
            return actions.stance(state, cid, "focus", ctx)
        case Encourage():
            return actions.encourage(state, cid, command.target, ctx)
    return []


def follow_up(
    state: DelversState, command: Command, events: list[Event], ctx: DecideContext
) -> list[Event]:
    """After shared commands: reflex rolls at the start, late PCs' rolls, resolutions of
    closed windows, a turn clock's expiry, and whatever the order does next."""
    run = Run(state, ctx)
    for event in events:
        match event:
            case EncounterStarted():
                pcs = [c for c, x in state.table.combatants.items() if turns.is_pc(x)]
                if pcs:
                    run.emit(turns.roll_reflex(run.state, ctx, pcs))
                else:
                    run.emit([ctx.emit(OrderFixed(order=())), ctx.emit(RoundStarted(round=1))])
            case CombatantAdded() if run.state.phase == "reflex":
                run.emit(turns.roll_reflex(run.state, ctx, [event.combatant_id]))
            case ReactionWindowClosed() if run.state.phase != "ended":
                # Windows the end of the encounter closes resolve nothing after it.
                run.emit(attacks.resolve(run.state, event, ctx))
            case ClockExpired(clock_id=turns.TURN_CLOCK) if run.state.phase == "running":
                run.emit(_timed_out(run.state, ctx))
    return run.settle()


def _timed_out(state: DelversState, ctx: DecideContext) -> list[Event]:
    """`on_turn_timeout` "delay" ends the turn too: the seed has no delay (4.1 Combat Order
    fixes the PCs' order; the GM picks creatures as slots come up)."""
    match state.options.on_turn_timeout:
        case "end-turn" | "delay":
            return turns.timed_out(state, ctx)
        case "record":
            return []
