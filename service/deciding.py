"""Deciding one command: what a client sends (`CommandRequest`), the state it is decided
against (`Loaded`), who may send it, and its events sealed into envelopes chained onto the
stream. Pure given its inputs (the seed and the clock come in as arguments): the engine
calls it to append, to preview, and the auditor to re-run a stored command."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from service.domain import holding
from service.domain.canonical import canonical_bytes, sha256_hex
from service.domain.common import SYSTEM_COMMANDS
from service.domain.context import Actor, DecideContext
from service.domain.deadlines import DeadlineChange
from service.domain.draws import MissingTableDice, Roller
from service.domain.envelope import Envelope, seal
from service.domain.errors import Conflict, Forbidden, FrayError, NotFound, RuleViolation
from service.domain.ids import public_id
from service.domain.limits import MAX_NUMBER
from service.domain.messages import Command, Event
from service.domain.ruleset import EncounterState, RulesetBase
from service.domain.timefmt import iso, parse_iso
from service.domain.upcasting import UnreadableEvent
from service.store.events import Deadline, StoredEvent

Number = Annotated[int, Field(ge=-MAX_NUMBER, le=MAX_NUMBER)]
MAX_VERSION = 2**53 - 1  # JSON's safe integers
# The salt of the envelope at a version (docs/audit.md, "The salt"): the engine's are fresh
# random ones, the auditor's the stored ones; None seals an envelope without one.
Salts = Callable[[int], str | None]
_log = logging.getLogger("fray.engine")


class CommandRequest(BaseModel):
    """What a client sends: the command, and how to append it."""

    # Strict: `"expected_version": "3"` is refused, not read as 3.
    model_config = ConfigDict(extra="forbid", strict=True)

    command_id: str | None = Field(default=None, min_length=1, max_length=100)
    expected_version: int | None = Field(default=None, ge=0, le=MAX_VERSION)
    command: dict[str, Any]
    dice: list[Number] | None = Field(
        default=None, max_length=1000, description="Table dice faces."
    )
    deck_orders: list[list[Number]] | None = Field(default=None, max_length=20)


@dataclass
class Loaded:
    ruleset: RulesetBase[Any]
    state: EncounterState
    version: int
    hash: str


def admitted_command(loaded: Loaded, request: CommandRequest, actor: Actor) -> Command:
    """The command parsed by the encounter's ruleset, once the actor may send it at all:
    observers and auditors send nothing, players no system command."""
    if actor.role in ("observer", "auditor"):
        raise Forbidden(f"an {actor.role} may read the encounter but not send commands")
    command = loaded.ruleset.parse_command(request.command)
    if type(command).model_fields["type"].default in SYSTEM_COMMANDS and actor.role == "player":
        raise Forbidden("only the GM or Fray's workers may send this command")
    return command


def decide_envelopes(
    loaded: Loaded,
    command: Command,
    request: CommandRequest,
    actor: Actor,
    command_id: str,
    seed: bytes,
    now: datetime,
    *,
    authority: bool = True,
    salts: Salts | None = None,
) -> tuple[list[Event], list[Envelope]]:
    """Decide a command and seal its events into envelopes chained onto `loaded`.

    Pure given its inputs: the auditor calls it too, to re-run a stored command (without
    `authority`: whoever supplied a stored table die, the stream records what was decided;
    with `salts` giving each version its stored salt). Without `salts`, no envelope has one.
    """
    options = loaded.state.options
    if (request.dice or request.deck_orders) and options.dice == "server":
        raise RuleViolation(
            "dice/table-dice-not-allowed",
            "this encounter rolls every die on the server; table dice are not accepted",
        )
    kind = type(command).model_fields["type"].default
    if (request.dice or request.deck_orders) and kind in holding.RESOLVERS:
        raise RuleViolation(
            "dice/table-dice-not-allowed",
            f"{kind} rolls the held command with the dice gathered for it: send the faces "
            "in submit-roll's `faces`, not in `dice`",
        )
    first_version = loaded.version + 1
    roller = Roller(
        seed=seed,
        version=first_version,
        mode=options.dice,
        table_dice=list(request.dice or []),
        table_orders=[list(o) for o in request.deck_orders or []],
        default_roller=holding.default_roller(command),
        supplier=partial(holding.may_roll, actor) if options.dice == "prompt" else None,
        listing=True,
    )
    ctx = DecideContext(actor=actor, now=now, roller=roller)
    events = decided(loaded, command, ctx, authority)
    rolls = ctx.rolls_per_event(events)
    at = iso(now)
    envelopes: list[Envelope] = []
    prev = loaded.hash
    for index, event in enumerate(events):
        kind, schema, data = loaded.ruleset.event_data(event)
        envelope = seal(
            version=first_version + index,
            type=kind,
            schema=schema,
            data=data,
            at=at,
            command_id=command_id,
            actor=actor.to_dict(),
            command=request.command if index == 0 else None,
            rolls=[r.to_dict() for r in rolls[index]],
            prev_hash=prev,
            salt=None if salts is None else salts(first_version + index),
        )
        envelopes.append(envelope)
        prev = envelope.hash
    return events, envelopes


def decided(loaded: Loaded, command: Command, ctx: DecideContext, authority: bool) -> list[Event]:
    """The command's events, or its refusal. Table dice the sender may not supply are
    refused first (`dice/not-yours`); then table dice still missing, all those the command
    certainly needs (docs/architecture.md, "Table dice")."""
    roller = ctx.roller
    try:
        events = loaded.ruleset.decide_command(loaded.state, command, ctx)
    except FrayError as error:
        if authority:
            roller.check_authority(lambda roller_id: holding.may_roll(ctx.actor, roller_id))
        if roller.needed and (roller.read or isinstance(error, MissingTableDice)):
            raise roller.missing() from error
        raise
    except Exception as error:
        # A provisional face read where Python refuses it (pydantic's "a valid integer"):
        # a read like any other. Without one noted, a fault in the rules.
        if not roller.needed:
            raise
        if authority:
            roller.check_authority(lambda roller_id: holding.may_roll(ctx.actor, roller_id))
        raise roller.missing() from error
    if authority:
        roller.check_authority(lambda roller_id: holding.may_roll(ctx.actor, roller_id))
    if roller.needed:
        # The rules decided without reading the missing faces; still, nobody rolled them.
        raise roller.missing()
    roller.finish()
    return events


def reproduced(ruleset: RulesetBase[Any], stored: list[Envelope], fresh: list[Envelope]) -> bool:
    """Whether re-deciding a stored command (`fresh`) reproduced its stored events.

    Exactly, envelope for envelope, when they were stored at the event schemas today's code
    writes. A stored event of an older schema is compared as today's code reads it: upcast,
    its data must equal the fresh event's, and everything else the envelope records (version,
    type, time, command, actor, dice) must be equal. Their hashes then differ by the shape
    alone; the chain check has vouched for the stored ones. A new shape of an event is not a
    new decision, so it needs no new ruleset version (docs/architecture.md)."""
    if [e.to_dict() for e in stored] == [e.to_dict() for e in fresh]:
        return True
    if len(stored) != len(fresh) or all(
        s.schema == f.schema for s, f in zip(stored, fresh, strict=True)
    ):
        return False
    return all(_same_event(ruleset, s, f) for s, f in zip(stored, fresh, strict=True))


def _same_event(ruleset: RulesetBase[Any], stored: Envelope, fresh: Envelope) -> bool:
    data = stored.data
    if stored.schema < fresh.schema and stored.type == fresh.type:
        try:
            _, _, data = ruleset.event_data(ruleset.event_from(stored.type, stored.schema, data))
        except UnreadableEvent:
            return False
    unshaped = {"schema", "data", "hash", "prev_hash"}
    return data == fresh.data and all(
        stored.to_dict()[key] == value
        for key, value in fresh.to_dict().items()
        if key not in unshaped
    )


def refused_as_faulty(
    command_id: str, request: CommandRequest, encounter_id: str, error: FrayError
) -> None:
    _log.error(
        "command %s (%s) of encounter %s refused before its append: %s",
        command_id,
        request.command.get("type"),
        encounter_id,
        error.message,
    )


def envelopes_of(stored: list[StoredEvent]) -> list[Envelope]:
    return [Envelope.from_body(s.body) for s in stored]


def stored_of(envelope: Envelope) -> StoredEvent:
    return StoredEvent(version=envelope.version, hash=envelope.hash, body=envelope.body())


def rewinds(envelopes: list[Envelope]) -> bool:
    return any(e.type == "rewound" for e in envelopes)


def fingerprint_of(request: CommandRequest, actor: Actor) -> str:
    return sha256_hex(
        canonical_bytes(
            {
                "command": request.command,
                "dice": request.dice,
                "deck_orders": request.deck_orders,
                "actor": actor.id,
            }
        )
    )


def outbox_entries(
    encounter_id: str, changes: list[DeadlineChange], armed: int
) -> tuple[list[Deadline], list[str]]:
    """The outbox entries of an append. `armed`, the append's version, is part of each
    deadline's identity: a rewind that restores a clock which already ran out arms its
    deadline again for the same time, and that firing must not pass for the first one."""
    deadlines: list[Deadline] = []
    cancels: list[str] = []
    for change in changes:
        if change.due is None:
            cancels.append(change.key)
            continue
        payload = canonical_bytes(
            {
                "encounter_id": encounter_id,
                "due": change.due,
                "command": change.command,
                "armed": armed,
            }
        )
        deadlines.append(Deadline(change.key, parse_iso(change.due).timestamp(), payload))
    return deadlines, cancels


def unknown(encounter_id: str) -> NotFound:
    return NotFound(f"there is no encounter '{public_id(encounter_id)}'")


def conflict(expected: int, actual: int) -> Conflict:
    return Conflict(
        f"expected version {expected} but the encounter is at version {actual}",
        details={"expected": expected, "actual": actual},
    )


def archived(encounter_id: str) -> Conflict:
    return Conflict(
        f"encounter '{public_id(encounter_id)}' is archived: it takes no more commands (its "
        "events, export and audit can still be read until it expires)",
        code="encounter/archived",
    )


def reused(command_id: str) -> Conflict:
    return Conflict(
        f"command id '{command_id}' was already used for a different command",
        code="command/id-reused",
    )
