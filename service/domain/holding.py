"""Deciding with roll requests (the `prompt` dice mode), for every ruleset alike.

`decide` is pure, so a command that needs a die someone else rolls is not special to any
ruleset: deciding it stops at the first die that is missing (`MissingTableDice`); Fray
holds the command and asks for that die. When the dice come in, the command is decided
again from the start with every face gathered so far; it either needs more (a damage die
after the hit) or decides. At the deadline it is decided with the gathered faces and the
seed rolls the rest. The held command lives in the table (`Table.held`), so the fold, and
so the auditor's re-run of `submit-roll` and `expire-roll-requests`, rebuild it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from service.domain.context import Actor, DecideContext
from service.domain.draws import MissingTableDice, NeededDie
from service.domain.errors import RuleViolation
from service.domain.frozen import replace
from service.domain.messages import Command, Event
from service.domain.roll_requests import (
    CommandHeld,
    CommandReleased,
    ExpireRollRequests,
    HeldCommand,
    RollRequested,
    RollSubmitted,
    SubmitRoll,
)
from service.domain.timefmt import later
from service.domain.views import ActionOption

RESOLVERS = frozenset({"submit-roll", "expire-roll-requests"})
"""Commands that decide the held command from the state: their dice are the gathered faces,
never dice sent with the request (the auditor re-runs them so)."""


class Decider(Protocol):
    def decide(self, state: Any, command: Command, ctx: DecideContext) -> list[Event]: ...

    def parse_command(self, raw: Any, *, strict: bool = True) -> Command: ...


def may_roll(actor: Actor, roller: str) -> bool:
    """Whether `actor` may roll a die for `roller`: the GM any, a player its combatants'
    (and a die rolled for no combatant, a player's own `roll`, rolled for the actor)."""
    if roller == "gm":
        return actor.is_gm
    return actor.controls(roller) or roller == actor.id


def default_roller(command: Command) -> str:
    """Who rolls a die the rules name no roller for: the command's combatant, else the GM."""
    combatant_id = getattr(command, "combatant_id", None)
    return combatant_id if isinstance(combatant_id, str) else "gm"


def decide(ruleset: Decider, state: Any, command: Command, ctx: DecideContext) -> list[Event]:
    held: HeldCommand | None = state.table.held
    if isinstance(command, SubmitRoll):
        return _submit(ruleset, state, held, command, ctx)
    if isinstance(command, ExpireRollRequests):
        return _expire(ruleset, state, held, command, ctx)
    if held is not None:
        raise pending(held)
    if state.options.dice != "prompt":
        return ruleset.decide(state, command, ctx)
    point = ctx.mark()
    try:
        return ruleset.decide(state, command, ctx)
    except MissingTableDice as missing:
        # The sender's own faces used so far stay with the held command (and in `rolls`);
        # what the rules emitted before the missing die waits until every die is in.
        used = [r for r in ctx.undo_to(point) if r.source == "table" and r.kind == "die"]
        ctx.roller.records.extend(used)
        hold_id = f"held-{ctx.roller.version}"
        hidden = command.model_dump().get("hidden") is True
        held_event = CommandHeld(
            hold_id=hold_id,
            command=command.model_dump(mode="json"),
            actor=ctx.actor.to_dict(),
            dice=tuple(int(r.value) for r in used if isinstance(r.value, int)),
            hidden=hidden,
        )
        return [ctx.emit(held_event), *_requests(hold_id, missing.needed, hidden, state, ctx)]


def held_actions(held: HeldCommand, viewer: Actor) -> list[ActionOption]:
    """What `viewer` may do while a command is held: roll the dice asked of it; the GM may
    also stop waiting."""
    actions = [
        ActionOption(
            type="submit-roll",
            label=f"Roll {r.count}d{r.sides} ({r.purpose})",
            actor=None if r.roller == "gm" else r.roller,
            params={
                "request_id": r.id,
                "sides": r.sides,
                "count": r.count,
                "expression": r.expression,
                "purpose": r.purpose,
                "deadline": held.deadline,
            },
        )
        for r in held.open_requests()
        if may_roll(viewer, r.roller)
    ]
    if viewer.is_gm and held.open_requests():
        stop = {"request_id": held.open_requests()[-1].id}
        label = "Stop waiting: Fray rolls the dice not in"
        actions.append(ActionOption(type="expire-roll-requests", label=label, params=stop))
    return actions


def pending(held: HeldCommand) -> RuleViolation:
    awaited = held.open_requests()
    listed = ", ".join(f"{r.expression} ({r.purpose}) from {r.roller}" for r in awaited)
    return RuleViolation(
        "dice/roll-pending",
        f"a command waits for dice ({listed or 'none open'}): only submit-roll is taken "
        "until they are in or their deadline passes",
        details={"hold_id": held.id, "awaiting": [r.to_dict() for r in awaited]},
    )


def _requests(
    hold_id: str, needed: tuple[NeededDie, ...], hidden: bool, state: Any, ctx: DecideContext
) -> list[Event]:
    """One request per run of dice alike (the same roll, purpose and roller), so 3d6 is
    asked for once, as three faces. A hidden command's dice are the GM's to roll: nobody
    else is told of it."""
    runs: list[tuple[NeededDie, int]] = []
    for die in needed:
        if hidden:
            die = NeededDie(die.sides, die.expression, die.purpose, "gm")
        if runs and runs[-1][0] == die:
            runs[-1] = (die, runs[-1][1] + 1)
        else:
            runs.append((die, 1))
    deadline = later(ctx.now, state.options.roll_request_window)
    return [
        ctx.emit(
            RollRequested(
                request_id=f"roll-{ctx.roller.version}-{index}",
                hold_id=hold_id,
                purpose=die.purpose,
                expression=die.expression,
                sides=die.sides,
                count=count,
                roller=die.roller,
                deadline=deadline,
                hidden=hidden,
            )
        )
        for index, (die, count) in enumerate(runs)
    ]


def _submit(
    ruleset: Decider, state: Any, held: HeldCommand | None, command: SubmitRoll, ctx: DecideContext
) -> list[Event]:
    request = held.request(command.request_id) if held is not None else None
    if held is None or request is None:
        raise RuleViolation(
            "dice/unknown-roll-request",
            f"no roll request '{command.request_id}' is open in this encounter",
        )
    if request.faces is not None:
        raise RuleViolation(
            "dice/roll-already-submitted",
            f"the dice of '{request.id}' are already in ({list(request.faces)})",
        )
    if not may_roll(ctx.actor, request.roller):
        whose = "the GM's" if request.roller == "gm" else f"{request.roller}'s"
        raise RuleViolation(
            "dice/not-yours",
            f"'{request.id}' is {whose} roll: only its controller or the GM submits it",
        )
    faces = tuple(command.faces)
    if len(faces) != request.count:
        raise RuleViolation(
            "dice/wrong-face-count",
            f"'{request.id}' asks for {request.count} d{request.sides}, not {len(faces)} faces",
            details={"expected": request.count, "given": len(faces)},
        )
    for face in faces:
        if not 1 <= face <= request.sides:
            raise RuleViolation(
                "dice/table-die-out-of-range",
                f"a d{request.sides} ({request.purpose}) cannot show {face}",
            )
    submitted = ctx.emit(
        RollSubmitted(request_id=request.id, faces=faces, by=ctx.actor.id, hidden=held.hidden)
    )
    after = held.answered(request.id, faces)
    if after.requests:
        return [submitted]  # other requests of this round are still open
    point = ctx.mark()
    released = ctx.emit(CommandReleased(hold_id=held.id, reason="dice-in", hidden=held.hidden))
    try:
        events = _decide_held(ruleset, state, after, ctx, seed_dice=False)
    except MissingTableDice as missing:
        ctx.undo_to(point)
        return [submitted, *_requests(held.id, missing.needed, held.hidden, state, ctx)]
    return [submitted, released, *events]


def _expire(
    ruleset: Decider,
    state: Any,
    held: HeldCommand | None,
    command: ExpireRollRequests,
    ctx: DecideContext,
) -> list[Event]:
    ctx.require_gm("stop waiting for dice")
    if held is None or held.request(command.request_id) is None or not held.open_requests():
        return []  # a stale deadline: those dice came in
    # The faces already in stay, in the order asked; the seed rolls every die after them.
    gathered = tuple(f for r in held.requests if r.faces is not None for f in r.faces)
    ready = replace(held, {"gathered": held.gathered + gathered, "requests": ()})
    point = ctx.mark()
    released = ctx.emit(CommandReleased(hold_id=held.id, reason="deadline", hidden=held.hidden))
    try:
        return [released, *_decide_held(ruleset, state, ready, ctx, seed_dice=True)]
    except RuleViolation as refused:
        # Only a change the rules see between the hold and now can get here; the command
        # is dropped rather than left holding the encounter for ever.
        ctx.undo_to(point)
        dropped = CommandReleased(
            hold_id=held.id,
            reason="deadline",
            dropped=refused.code,
            message=refused.message,
            hidden=held.hidden,
        )
        return [ctx.emit(dropped)]


def _decide_held(
    ruleset: Decider, state: Any, held: HeldCommand, ctx: DecideContext, *, seed_dice: bool
) -> list[Event]:
    """The held command decided as its sender sent it, with the gathered faces."""
    command = ruleset.parse_command(held.command, strict=False)
    roller = ctx.roller
    saved: tuple[Actor, str, Callable[[str], bool] | None, bool] = (
        ctx.actor,
        roller.default_roller,
        roller.supplier,
        roller.seed_dice,
    )
    ctx.actor = Actor.from_dict(held.actor)
    roller.table_dice = list(held.gathered)
    roller.default_roller, roller.supplier, roller.seed_dice = (
        default_roller(command),
        None,
        seed_dice,
    )
    try:
        events = ruleset.decide(state, command, ctx)
        if roller.table_dice:
            raise RuleViolation(
                "dice/unused-table-dice",
                f"{len(roller.table_dice)} of the gathered dice were not rolled this time",
            )
        return events
    finally:
        ctx.actor = saved[0]
        roller.default_roller, roller.supplier, roller.seed_dice = saved[1:]
        roller.table_dice = []
