"""Deciding d20-action-points commands, and what follows by itself once the table is quiet:
queued choices and reactions open their windows one at a time, closed windows resolve, and
the round moves on to the next turn or the next round."""

from __future__ import annotations

from service.domain.clocks import ClockExpired
from service.domain.common import EncounterStarted
from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Command, Event
from service.domain.reactions import ReactionWindowClosed
from service.domain.settling import Settle
from service.rules.d20_action_points import (
    attacking,
    battlefield,
    before_combat,
    casting,
    initiative,
    items,
    movement,
    special_moves,
    turns,
    windows,
)
from service.rules.d20_action_points.commands import (
    Attack,
    BeginCombat,
    BreakFree,
    CastSpell,
    Charge,
    ChooseApproach,
    Crawl,
    Declare,
    Delay,
    Disarm,
    DropItem,
    DropProne,
    EndTurn,
    EquipItem,
    FullAttack,
    GiftPoint,
    Grapple,
    Move,
    Ready,
    RecordMonsterReaction,
    Release,
    ResolveEvasion,
    RollInitiative,
    RuleNegotiation,
    SetEnvironment,
    SetMarchingOrder,
    SpendHeroicPoint,
    StandUp,
    SurpriseCheck,
    Talk,
    Throw,
    TriggerReadied,
)
from service.rules.d20_action_points.evolve import evolve
from service.rules.d20_action_points.state import D20State


class Run(Settle[D20State]):
    def evolve(self, state: D20State, event: Event) -> D20State:
        return evolve(state, event)

    def resolve(self, state: D20State, closed: ReactionWindowClosed) -> list[Event]:
        return windows.resolve(state, closed, self.ctx)

    def active(self, state: D20State) -> bool:
        return state.phase == "acting"

    def open_next(self, state: D20State) -> list[Event] | None:
        return windows.open_next(state, state.pending[0], self.ctx) if state.pending else None

    def next_step(self, state: D20State) -> list[Event]:
        return turns.next_turn(state, self.ctx)


def decide_own(state: D20State, command: Command, ctx: DecideContext) -> list[Event]:
    if state.phase == "ended":
        raise RuleViolation("encounter/ended", "the encounter has ended")
    if state.phase == "setup" and not isinstance(command, SetMarchingOrder | SetEnvironment):
        raise RuleViolation("encounter/not-started", "start the encounter first (start-encounter)")
    run = Run(state, ctx)
    run.emit(_decide(state, command, ctx))
    return run.settle()


def _decide(state: D20State, command: Command, ctx: DecideContext) -> list[Event]:
    match command:
        case SetMarchingOrder():
            return before_combat.set_marching_order(state, command, ctx)
        case SetEnvironment():
            return battlefield.set_environment(state, command, ctx)
        case SurpriseCheck():
            return before_combat.surprise_check(state, command.monster, ctx)
        case RecordMonsterReaction():
            return before_combat.record_monster_reaction(state, command, ctx)
        case ChooseApproach():
            return before_combat.choose_approach(state, command, ctx)
        case ResolveEvasion():
            return before_combat.resolve_evasion(state, command.outcome, ctx)
        case RuleNegotiation():
            return before_combat.rule_negotiation(state, command, ctx)
        case BeginCombat():
            ctx.require_gm("begin the combat")
            return before_combat.begin_combat(state, ctx)
        case Declare():
            return initiative.declare(state, command, ctx)
        case RollInitiative():
            return initiative.roll_initiative(state, ctx)
        case EndTurn():
            return turns.end_turn(state, command.combatant_id, ctx)
        case Delay():
            return turns.delay(state, command.combatant_id, command.until, ctx)
        case GiftPoint():
            return turns.gift_point(state, command.combatant_id, command.to, ctx)
        case SpendHeroicPoint():
            return turns.spend_heroic_point(state, command.combatant_id, ctx)
        case Move():
            return movement.move(state, command, ctx)
        case Crawl():
            return movement.crawl(state, command.combatant_id, command.to, ctx, feet=command.feet)
        case StandUp():
            return movement.stand_up(state, command.combatant_id, ctx)
        case DropProne():
            return movement.drop_prone(state, command.combatant_id, ctx)
        case DropItem():
            return items.drop_item(state, command.combatant_id, command.weapon, ctx)
        case EquipItem():
            return items.equip_item(state, command, ctx)
        case Talk():
            return turns.talk(state, command.combatant_id, command.text, ctx)
        case Attack():
            return attacking.attack(state, command, ctx)
        case Throw():
            return attacking.throw_object(state, command, ctx)
        case FullAttack():
            return attacking.full_attack(state, command, ctx)
        case CastSpell():
            return casting.cast_spell(state, command, ctx)
        case Ready():
            return attacking.ready(state, command, ctx)
        case TriggerReadied():
            return attacking.trigger_readied(state, command.combatant_id, command.target, ctx)
        case Charge():
            return special_moves.charge(state, command, ctx)
        case Disarm():
            return special_moves.disarm(state, command.combatant_id, command.target, ctx)
        case Grapple():
            return special_moves.grapple(state, command.combatant_id, command.target, ctx)
        case BreakFree():
            return special_moves.break_free(state, command.combatant_id, ctx)
        case Release():
            return special_moves.release(state, command.combatant_id, ctx)
    raise RuleViolation("command/unknown", f"d20-action-points does not know '{command}'")


def follow_up(
    state: D20State, command: Command, events: list[Event], ctx: DecideContext
) -> list[Event]:
    """After shared commands: closed windows resolve, a turn clock's expiry, and whatever
    the round does next (a combatant the GM downs or removes ends its turn)."""
    run = Run(state, ctx)
    for event in events:
        match event:
            case EncounterStarted():
                pass
            case ReactionWindowClosed() if run.state.phase != "ended":
                run.emit(windows.resolve(run.state, event, ctx))
            case ClockExpired(clock_id=turns.TURN_CLOCK) if run.state.phase == "acting":
                run.emit(turns.timed_out(run.state, ctx))
    return run.settle()
