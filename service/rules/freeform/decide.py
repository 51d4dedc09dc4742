"""Deciding freeform commands. Freeform has no seed: its rules are the ordinary initiative
conventions of d20 games, written down in docs/rules/freeform.md (cited as "freeform §n")."""

from __future__ import annotations

from collections import defaultdict

from service.domain import reactions
from service.domain.clocks import ClockExpired
from service.domain.common import CombatantDowned, CombatantRevived, EncounterStarted
from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Command, Event
from service.domain.reactions import ReactionWindowClosed
from service.rules.freeform.commands import (
    CallForReadied,
    Delay,
    EndTurn,
    Ready,
    Rejoin,
    RollInitiative,
    SetInitiative,
    TriggerReady,
)
from service.rules.freeform.events import (
    ActionReadied,
    DelayEnded,
    InitiativeRolled,
    ReadiedActionTriggered,
    TurnDelayed,
)
from service.rules.freeform.evolve import evolve
from service.rules.freeform.state import FreeformState
from service.rules.freeform.turns import (
    TURN_CLOCK,
    begin_turn,
    pass_turn,
    start_first_turn,
    successor,
)


def decide_own(state: FreeformState, command: Command, ctx: DecideContext) -> list[Event]:
    if state.table.phase == "ended":
        raise RuleViolation("encounter/ended", "the encounter has ended", rule="freeform §3")
    match command:
        case RollInitiative():
            return _then_wake(state, roll_initiative(state, command, ctx), ctx)
        case SetInitiative():
            return _then_wake(state, set_initiative(state, command, ctx), ctx)
        case EndTurn():
            actor = _turn_owner(state, command.combatant_id, ctx)
            return pass_turn(state, actor, "done", ctx)
        case Delay():
            actor = _turn_owner(state, command.combatant_id, ctx)
            return _delay(state, actor, "delayed", ctx)
        case Rejoin():
            return rejoin(state, command, ctx)
        case Ready():
            actor = _turn_owner(state, command.combatant_id, ctx)
            readied = ctx.emit(
                ActionReadied(combatant_id=actor, action=command.action, trigger=command.trigger)
            )
            # freeform §5: the turn passes on from a state that holds the readied action, so
            # a lone readier's own next turn sees it lapse.
            return [readied, *pass_turn(evolve(state, readied), actor, "readied", ctx)]
        case TriggerReady():
            return [trigger_ready(state, command.combatant_id, ctx)]
        case CallForReadied():
            return call_for_readied(state, command, ctx)
    raise RuleViolation("command/unknown", f"freeform does not know '{command}'")


def follow_up(
    state: FreeformState, command: Command, events: list[Event], ctx: DecideContext
) -> list[Event]:
    out: list[Event] = []
    for event in events:
        match event:
            case EncounterStarted():
                missing = [
                    c.name
                    for cid, c in state.table.combatants.items()
                    if cid not in state.initiative
                ]
                if missing:
                    raise RuleViolation(
                        "initiative/missing",
                        "roll initiative first for: " + ", ".join(missing),
                        rule="freeform §1",
                    )
                out += start_first_turn(state, ctx)
            case ClockExpired(clock_id=clock_id, owner=owner) if clock_id == TURN_CLOCK:
                if owner is not None and owner == state.current:
                    out += _timed_out(state, owner, ctx)
            case CombatantDowned(combatant_id=downed) if downed == state.current:
                # freeform §7: a combatant who goes down on its turn and gets no turns
                # while down loses the rest of this one.
                if state.options.skip_downed:
                    out += pass_turn(state, downed, "downed", ctx)
            case CombatantRevived():
                out += _wake(state, ctx)
            case ReactionWindowClosed(reactions=answers) if state.table.phase == "running":
                if event.trigger.get("kind") == "readied":
                    for combatant_id, option in answers:
                        if option == "act" and combatant_id in state.readied:
                            out.append(_triggered(state, combatant_id, ctx))
    return out


def _idle(state: FreeformState) -> bool:
    """Running, and nobody's turn: everyone who could act was delaying or down."""
    return state.table.phase == "running" and state.current is None


def _wake(state: FreeformState, ctx: DecideContext) -> list[Event]:
    """freeform §3: when nobody could act, the first who now can takes the turn."""
    if not _idle(state):
        return []
    first, _ = successor(state, None)
    return [] if first is None else begin_turn(state, first, state.round, ctx)


def _then_wake(state: FreeformState, events: list[Event], ctx: DecideContext) -> list[Event]:
    after = state
    for event in events:
        after = evolve(after, event)
    return events + _wake(after, ctx)


def _timed_out(state: FreeformState, owner: str, ctx: DecideContext) -> list[Event]:
    match state.options.on_turn_timeout:
        case "end-turn":
            return pass_turn(state, owner, "timeout", ctx)
        case "delay":
            return _delay(state, owner, "timeout", ctx)
        case "record":
            return []


def _delay(state: FreeformState, actor: str, reason: str, ctx: DecideContext) -> list[Event]:
    # freeform §4: delaying is not taking a turn, so end-of-turn durations wait; the turn
    # passes on from a state where the delayer already stands aside, so it cannot be next.
    delayed = ctx.emit(TurnDelayed(combatant_id=actor))
    return [delayed, *pass_turn(evolve(state, delayed), actor, reason, ctx, tick=False)]


def roll_initiative(
    state: FreeformState, command: RollInitiative, ctx: DecideContext
) -> list[Event]:
    table = state.table
    wanted = command.combatant_ids
    if wanted is None:
        ids = [
            c
            for c in table.combatants
            if (command.reroll or c not in state.initiative) and ctx.actor.controls(c)
        ]
    else:
        ids = list(dict.fromkeys(wanted))
        for combatant_id in ids:
            table.combatant(combatant_id)
            if combatant_id in state.initiative and not command.reroll:
                raise RuleViolation(
                    "initiative/already-rolled",
                    f"{table.combatants[combatant_id].name} already has initiative; "
                    "send reroll: true to roll again",
                    rule="freeform §1",
                )
    for combatant_id in ids:
        ctx.require_control(combatant_id, table.combatants[combatant_id].name)
    groups: dict[str, list[str]] = defaultdict(list)
    for combatant_id in ids:
        group = table.combatants[combatant_id].stats.get("group")
        groups[f"group:{group}" if group else f"one:{combatant_id}"].append(combatant_id)
    # freeform §2: a late member of a group that has rolled joins the group's roll.
    shared = {} if command.reroll else _group_rolls(state)
    events: list[Event] = []
    for members in groups.values():
        # freeform §2: similar foes in a group act together on one roll.
        first = table.combatants[members[0]]
        group = first.stats.get("group")
        label = f"group {group}" if group else first.name
        known = shared.get(group) if group else None
        if known is not None:
            rolled, tiebreak = known
        else:
            # A group's roll is rolled for its first member.
            die, tie = state.options.initiative_die, state.options.tiebreak_die
            rolled = ctx.roll(die, purpose=f"initiative: {label}", roller=first.id).total
            tiebreak = ctx.die(tie, purpose=f"initiative tie-break: {label}", roller=first.id)
        for combatant_id in members:
            modifier = int(table.combatants[combatant_id].stats.get("initiative_modifier", 0))
            events.append(
                ctx.emit(
                    InitiativeRolled(
                        combatant_id=combatant_id,
                        roll=rolled,
                        modifier=modifier,
                        total=rolled + modifier,
                        tiebreak=tiebreak,
                        group=group,
                    )
                )
            )
    return events


def _group_rolls(state: FreeformState) -> dict[str, tuple[int, int]]:
    """Each group's roll and tie-break, from the first of its members with initiative."""
    rolls: dict[str, tuple[int, int]] = {}
    for combatant_id, entry in state.initiative.items():
        combatant = state.table.combatants.get(combatant_id)
        group = combatant.stats.get("group") if combatant is not None else None
        if group and group not in rolls:
            rolls[group] = (entry.total - entry.modifier, entry.tiebreak)
    return rolls


def set_initiative(state: FreeformState, command: SetInitiative, ctx: DecideContext) -> list[Event]:
    combatant = state.table.combatant(command.combatant_id)
    ctx.require_control(combatant.id, combatant.name)
    modifier = int(combatant.stats.get("initiative_modifier", 0))
    tiebreak = ctx.die(
        state.options.tiebreak_die,
        purpose=f"initiative tie-break: {combatant.name}",
        roller=combatant.id,
    )
    return [
        ctx.emit(
            InitiativeRolled(
                combatant_id=combatant.id,
                roll=None,
                modifier=modifier,
                total=command.total,
                tiebreak=tiebreak,
                group=combatant.stats.get("group"),
            )
        )
    ]


def rejoin(state: FreeformState, command: Rejoin, ctx: DecideContext) -> list[Event]:
    combatant = state.table.combatant(command.combatant_id)
    ctx.require_control(combatant.id, combatant.name)
    if combatant.id not in state.delayed:
        raise RuleViolation(
            "turn/not-delaying", f"{combatant.name} is not delaying", rule="freeform §4"
        )
    # freeform §4: when nobody is acting the delayer takes up its turn at once.
    rejoined = ctx.emit(DelayEnded(combatant_id=combatant.id, after=_last_in_line(state)))
    return [rejoined, *_wake(evolve(state, rejoined), ctx)]


def _last_in_line(state: FreeformState) -> str | None:
    """Whom a rejoiner follows: the current actor, or the last who rejoined after it."""
    last = state.current
    while last in state.order:
        following = state.order[(state.order.index(last) + 1) % len(state.order)]
        if following not in state.resuming or following == state.current:
            break
        last = following
    return last


def trigger_ready(state: FreeformState, combatant_id: str, ctx: DecideContext) -> Event:
    combatant = state.table.combatant(combatant_id)
    ctx.require_control(combatant.id, combatant.name)
    if combatant_id not in state.readied:
        raise RuleViolation(
            "turn/nothing-readied", f"{combatant.name} has no readied action", rule="freeform §5"
        )
    return _triggered(state, combatant_id, ctx)


def _triggered(state: FreeformState, combatant_id: str, ctx: DecideContext) -> Event:
    # freeform §5: the readier acts now and its place moves to just before the current actor.
    return ctx.emit(
        ReadiedActionTriggered(
            combatant_id=combatant_id,
            action=state.readied[combatant_id].action,
            before=state.current,
        )
    )


def call_for_readied(
    state: FreeformState, command: CallForReadied, ctx: DecideContext
) -> list[Event]:
    ctx.require_gm("ask who reacts with a readied action")
    holders = [c for c in state.order if c in state.readied]
    if not holders:
        raise RuleViolation(
            "turn/nothing-readied", "nobody holds a readied action", rule="freeform §5"
        )
    table = state.table
    events = reactions.open_window(
        window_id=f"w{table.windows_opened + 1}",
        trigger={"kind": "readied", "text": command.trigger},
        eligible={c: ("act",) for c in holders},
        order=holders,
        ctx=ctx,
        seconds=state.options.reaction_window,
        policies=table.policies,
        resources=table.resources_of,
    )
    closed: list[Event] = [e for e in events if isinstance(e, ReactionWindowClosed)]
    if closed:
        after = state
        for event in events:
            after = evolve(after, event)
        events += follow_up(after, command, closed, ctx)
    return events


def _turn_owner(state: FreeformState, given: str | None, ctx: DecideContext) -> str:
    if state.table.phase != "running" or state.current is None:
        raise RuleViolation("turn/no-turn", "nobody's turn is running", rule="freeform §3")
    current = state.table.combatants[state.current]
    if given is not None and given != state.current:
        raise RuleViolation(
            "turn/not-your-turn", f"it is {current.name}'s turn, not {given}'s", rule="freeform §3"
        )
    ctx.require_control(current.id, current.name)
    return current.id
