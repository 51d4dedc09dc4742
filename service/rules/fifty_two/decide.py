"""Deciding fifty-two commands, and what follows by itself: the initiative chart after the
start, the phases of the opening, spent turns, new rounds and the decision clock."""

from __future__ import annotations

from service.domain.clocks import ClockExpired
from service.domain.common import CombatantAdded, EncounterStarted
from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Command, Event
from service.rules.fifty_two import actions, opening, spells, turns
from service.rules.fifty_two.commands import (
    AddCards,
    AddSurpriseCard,
    Cast,
    ChooseColumns,
    ChooseFoe,
    Deal,
    EndTurn,
    ExecuteAttack,
    HoldAction,
    Move,
    OtherAction,
    PassSurprise,
    RaiseInitiative,
    ReflexSave,
    RemoveCard,
    RemovePair,
    SetRange,
    StandUp,
    Step,
    SurpriseAttack,
    SuspendSpell,
    TakeCard,
)
from service.rules.fifty_two.events import SurprisePassed
from service.rules.fifty_two.evolve import evolve
from service.rules.fifty_two.state import FiftyTwoState

TURN_ACTIONS = (
    ChooseFoe,
    RemoveCard,
    AddCards,
    RemovePair,
    ExecuteAttack,
    RaiseInitiative,
    OtherAction,
    Move,
    Step,
    Cast,
    SuspendSpell,
)


class Run:
    """Events decided so far and the state they lead to."""

    def __init__(self, state: FiftyTwoState, ctx: DecideContext) -> None:
        self.state, self.ctx, self.events = state, ctx, list[Event]()

    def emit(self, events: list[Event]) -> None:
        for event in events:
            self.state = evolve(self.state, event)
            self.events.append(event)

    def settle(self) -> list[Event]:
        """The opening moves on when a phase is done; then turns and rounds."""
        while True:
            step = _next_step(self.state, self.ctx)
            if not step:
                return self.events
            self.emit(step)


def _next_step(state: FiftyTwoState, ctx: DecideContext) -> list[Event]:
    match state.phase:
        case "surprise" if not state.surprise_left:
            return opening.column_choice(state, ctx)
        case "surprise" | "surprise-cards" if _first_down(state):
            # A combatant downed in the surprise round makes no surprise move.
            return [ctx.emit(SurprisePassed(combatant_id=state.surprise_left[0]))]
        case "surprise-cards" if not state.surprise_left:
            return opening.surprise_cards_done(ctx)
        case "running" if state.pending_spell is not None:
            return []
        case "running":
            turn = state.turn
            if turn is not None and not turn.acted:
                casting = state.castings.get(turn.combatant_id)
                if casting is not None and casting.complete:
                    return spells.due(state, turn.combatant_id, ctx)
            return turns.next_turn(state, ctx)
    return []


def _first_down(state: FiftyTwoState) -> bool:
    left = state.surprise_left
    return bool(left) and state.table.combatants[left[0]].out_of_fight


def decide_own(state: FiftyTwoState, command: Command, ctx: DecideContext) -> list[Event]:
    if state.phase == "ended":
        raise RuleViolation("encounter/ended", "the encounter has ended")
    if isinstance(command, SetRange):
        return actions.set_range(state, command.combatant_id, command.opponents, ctx)
    if state.phase == "setup":
        raise RuleViolation(
            "encounter/not-started", "the fight has not started: add combatants, then start it"
        )
    pending = state.pending_spell
    if pending is not None and not isinstance(command, ReflexSave):
        target = state.table.combatants[pending.target].name
        raise RuleViolation(
            "spell/awaiting-save",
            f"{pending.spell} waits for {target} to decide on a Reflex save (reflex-save)",
            rule=spells.REFLEX,
        )
    run = Run(state, ctx)
    match command:
        case ReflexSave():
            run.emit(
                spells.reflex_save(
                    state, command.combatant_id, command.attempt, command.cover_feet, ctx
                )
            )
            if state.saves_hold_clock:
                # The spell has landed: the caster's turn goes on, with the clock afresh.
                _restart_clock(run)
        case ChooseColumns():
            run.emit(opening.choose_columns(state, command.modifier, ctx))
        case Deal():
            run.emit(opening.deal(state, command.deck, ctx))
        case SurpriseAttack():
            run.emit(opening.surprise_attack(state, command.combatant_id, command.target, ctx))
        case TakeCard():
            run.emit(opening.take_card(state, command.combatant_id, command.card, ctx))
        case AddSurpriseCard():
            run.emit(opening.add_surprise_card(state, command.combatant_id, command.column, ctx))
        case PassSurprise():
            run.emit(opening.pass_surprise(state, command.combatant_id, ctx))
        case HoldAction():
            run.emit(turns.hold(state, command.combatant_id, ctx))
        case EndTurn():
            run.emit(turns.end_turn(state, command.combatant_id, ctx))
        case StandUp():
            run.emit(actions.stand_up(state, command.combatant_id, ctx))
            _restart_clock(run)
        case _ if isinstance(command, TURN_ACTIONS):
            if not isinstance(command, ChooseFoe):
                turns.acting(state, command.combatant_id, ctx)
                actions.must_stand_first(state, command.combatant_id)
            run.emit(action(state, command, ctx))
            _restart_clock(run)
        case _:
            raise RuleViolation("command/unknown", f"fifty-two does not know '{command}'")
    return run.settle()


def _restart_clock(run: Run) -> None:
    turn = run.state.turn
    if run.state.saves_hold_clock and run.state.pending_spell is not None:
        return  # the clock waits with the spell (turns.hold_for_save)
    if turn is not None and turns.can_still_act(run.state, turn):
        # fifty-two §4.5: "Each action taken is a decision ... the clock restarts."
        run.emit(turns.clock(run.state, turn.combatant_id, run.ctx))


def action(state: FiftyTwoState, command: Command, ctx: DecideContext) -> list[Event]:
    match command:
        case ChooseFoe():
            return actions.choose_foe(state, command.combatant_id, command.foe, ctx)
        case RemoveCard():
            return actions.remove_card(state, command.combatant_id, command.card, ctx)
        case AddCards():
            return actions.add_cards(
                state, command.combatant_id, command.column, command.count, command.reshuffle, ctx
            )
        case RemovePair():
            return actions.remove_pair(state, command.combatant_id, command.cards, ctx)
        case ExecuteAttack():
            return actions.execute_attack(
                state, command.combatant_id, command.target, command.critical, ctx
            )
        case Move() | Step():
            return actions.move(
                state,
                command.combatant_id,
                command.type,
                command.leaves_range_of,
                command.enters_range_of,
                ctx,
            )
        case Cast():
            return spells.cast(state, command.combatant_id, command.spell, command.target, ctx)
        case SuspendSpell():
            return spells.suspend(state, command.combatant_id, ctx)
        case RaiseInitiative():
            return turns.raise_initiative(state, command.combatant_id, ctx)
        case OtherAction():
            return actions.other_action(
                state, command.combatant_id, command.kind, command.description, command.cost, ctx
            )
    return []


def follow_up(
    state: FiftyTwoState, command: Command, events: list[Event], ctx: DecideContext
) -> list[Event]:
    """After shared commands: initiative at the start, a decision clock's expiry, and
    whatever the order does next."""
    run = Run(state, ctx)
    for event in events:
        match event:
            case EncounterStarted():
                run.emit(opening.roll_initiative(run.state, ctx))
                while roll_offs := opening.roll_offs(run.state, ctx):
                    run.emit(roll_offs)
                run.emit(opening.chart(run.state, ctx))
                run.emit(opening.after_initiative(run.state, ctx))
            case CombatantAdded() if run.state.phase != "setup":
                raise RuleViolation(
                    "combatant/after-start",
                    "fifty-two deals the field for the combatants at the start: add them before",
                    rule="fifty-two §4",
                )
            case ClockExpired(clock_id=turns.DECISION_CLOCK) if run.state.phase == "running":
                run.emit(turns.timed_out(run.state, ctx))
    return run.settle()
