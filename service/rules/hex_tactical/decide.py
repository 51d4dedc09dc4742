"""Deciding hex-tactical commands, and what follows by itself once the table is quiet:
queued interruptions open their reaction windows (or resume a paused action) one at a time,
closed windows resolve, spent turns end and the next combatant's turn begins."""

from __future__ import annotations

from service.domain.clocks import ClockExpired
from service.domain.common import CombatantAdded, CombatantDowned, EncounterStarted
from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Command, Event
from service.domain.reactions import ReactionWindowClosed
from service.domain.settling import Settle
from service.rules.hex_tactical import (
    attacks,
    cover,
    defence,
    maneuvers,
    movement,
    opportunity,
    reservations,
    rulings,
    turns,
    weapons,
)
from service.rules.hex_tactical.commands import (
    Attack,
    CallCheck,
    EndTurn,
    Move,
    Overwatch,
    PassEnemy,
    PlaceCover,
    RemoveCover,
    ReserveMove,
    SetAwareness,
    Surrender,
    TakeCover,
    TargetObject,
    UseItem,
    UseManeuver,
    UseSkill,
    Wield,
)
from service.rules.hex_tactical.evolve import evolve
from service.rules.hex_tactical.hazards import end_melees
from service.rules.hex_tactical.state import HexState, Pending, Reservation


class Run(Settle[HexState]):
    def evolve(self, state: HexState, event: Event) -> HexState:
        return evolve(state, event)

    def resolve(self, state: HexState, closed: ReactionWindowClosed) -> list[Event]:
        return resolve(state, closed, self.ctx)

    def active(self, state: HexState) -> bool:
        return state.phase == "running"

    def open_next(self, state: HexState) -> list[Event] | None:
        return open_next(state, state.pending[0], self.ctx) if state.pending else None

    def next_step(self, state: HexState) -> list[Event]:
        return turns.next_turn(state, self.ctx)


def open_next(state: HexState, item: Pending, ctx: DecideContext) -> list[Event]:
    match item.kind:
        case "defence":
            return defence.open_defence(state, item, ctx)
        case "opportunity":
            return opportunity.open_opportunity(state, item, ctx)
        case "reserved":
            return reservations.open_reserved(state, item, ctx)
    assert item.paused is not None
    return movement.resume(state, item.id, item.paused, ctx)


def resolve(state: HexState, closed: ReactionWindowClosed, ctx: DecideContext) -> list[Event]:
    match closed.trigger.get("kind"):
        case "attack":
            return defence.resolve_defence(state, closed, ctx)
        case "opportunity-attack":
            return opportunity.resolve_opportunity(state, closed, ctx)
        case "overwatch":
            return reservations.resolve_overwatch(state, closed, ctx)
        case "reserved-move" if closed.reactions:
            reservation = Reservation.model_validate(closed.trigger["reservation"])
            runner = str(closed.trigger["actor"])
            return movement.reserved_run(state, runner, reservation, ctx)
    return []


def decide_own(state: HexState, command: Command, ctx: DecideContext) -> list[Event]:
    if state.phase == "ended":
        raise RuleViolation("encounter/ended", "the encounter has ended")
    run = Run(state, ctx)
    run.emit(_decide(state, command, ctx))
    return run.settle()


def _decide(state: HexState, command: Command, ctx: DecideContext) -> list[Event]:
    match command:
        case Move():
            return movement.move(state, command, ctx)
        case PassEnemy():
            return movement.pass_enemy(state, command, ctx)
        case ReserveMove():
            return reservations.reserve_move(state, command, ctx)
        case Overwatch():
            return reservations.overwatch(state, command.combatant_id, command.weapon, ctx)
        case Attack():
            return attacks.attack(state, command, ctx)
        case UseManeuver():
            return maneuvers.maneuver(state, command, ctx)
        case TakeCover():
            return cover.take_cover(state, command.combatant_id, ctx)
        case UseSkill():
            return opportunity.use_skill(state, command, ctx)
        case UseItem():
            return opportunity.use_item(state, command, ctx)
        case TargetObject():
            return cover.target_object(
                state, command.combatant_id, command.cell, command.weapon, ctx
            )
        case Wield():
            return weapons.wield(state, command.combatant_id, command.weapon, ctx)
        case EndTurn():
            return turns.end_turn(state, command.combatant_id, ctx)
        case Surrender():
            return rulings.surrender(state, command.combatant_id, ctx)
        case PlaceCover():
            return cover.place_cover(state, command, ctx)
        case RemoveCover():
            return cover.remove_cover(state, command.cell, ctx)
        case SetAwareness():
            return rulings.set_awareness(
                state, command.combatant_id, command.of, command.aware, ctx
            )
        case CallCheck():
            return rulings.call_check(state, command, ctx)
    raise RuleViolation("command/unknown", f"hex-tactical does not know '{command}'")


def follow_up(
    state: HexState, command: Command, events: list[Event], ctx: DecideContext
) -> list[Event]:
    """After shared commands: initiative at the start, a late joiner's initiative, the end of
    a downed combatant's melees, resolutions of closed windows, a turn clock's expiry, and
    whatever the order does next."""
    run = Run(state, ctx)
    for event in events:
        match event:
            case EncounterStarted():
                if run.state.table.map is None:
                    raise RuleViolation(
                        "encounter/no-map",
                        "tactical combat is played on a map: set one with set-map first",
                        rule="hex-tactical The Tactical Grid",
                    )
                run.emit(turns.begin(run.state, ctx))
            case CombatantAdded() if run.state.round > 0 and run.state.phase == "running":
                run.emit(turns.join(run.state, event.combatant_id, ctx))
            case CombatantDowned():
                run.emit(end_melees(run.state, event.combatant_id, "out-of-fight", ctx))
            case ReactionWindowClosed() if run.state.phase != "ended":
                run.emit(resolve(run.state, event, ctx))
            case ClockExpired(clock_id=turns.TURN_CLOCK) if run.state.phase == "running":
                run.emit(turns.timed_out(run.state, ctx))
    return run.settle()
