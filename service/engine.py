"""The one command handler that does all the I/O: load, decide, append, schedule.

authorize -> validate -> load -> decide -> append (bounded automatic retry on a version
conflict when the client did not pin `expected_version`) -> result. A rejected command
appends nothing.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Annotated, Any, TypeVar

import orjson
from pydantic import BaseModel, ConfigDict, Field

from service.domain import idle
from service.domain.canonical import ZERO_HASH, canonical_bytes, sha256_hex
from service.domain.common import SYSTEM_COMMANDS, EncounterCreated
from service.domain.context import Actor, DecideContext, Unemitted
from service.domain.deadlines import DeadlineChange, deadline_changes, table_deadlines
from service.domain.draws import Roller
from service.domain.envelope import Envelope, seal
from service.domain.errors import (
    Conflict,
    Forbidden,
    FrayError,
    NotFound,
    RuleViolation,
)
from service.domain.fold import advance, needs_history, replay
from service.domain.ids import check_id, public_id, stream_id
from service.domain.limits import MAX_NUMBER
from service.domain.messages import Command, Event
from service.domain.recording import Unrecordable, check_recordable
from service.domain.ruleset import EncounterState, RulesetBase
from service.domain.timefmt import iso, parse_iso, to_millis
from service.rules.registry import RULESETS, ruleset_named
from service.store.checks import check_encounter_id
from service.store.errors import (
    CommandIdReused,
    EncounterExists,
    EncounterNotFound,
    InvalidArgument,
    VersionConflict,
)
from service.store.events import AppendResult, Deadline, StoredEvent
from service.store.protocol import Store

Clock = Callable[[], datetime]
Number = Annotated[int, Field(ge=-MAX_NUMBER, le=MAX_NUMBER)]
MAX_VERSION = 2**53 - 1  # JSON's safe integers
MAX_ATTEMPTS = 16
BACKOFF_CAP = 0.05
SNAPSHOT_FORMAT = 1
_log = logging.getLogger("fray.engine")
V = TypeVar("V")


def wall_clock() -> datetime:
    return datetime.now(UTC)


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
class _Gate:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


@dataclass
class Loaded:
    ruleset: RulesetBase[Any]
    state: EncounterState
    version: int
    hash: str


@dataclass(frozen=True)
class Outcome:
    encounter_id: str
    command_id: str
    events: list[Envelope]
    version: int
    duplicate: bool = False
    loaded: Loaded | None = None  # the state after the append (None for a replayed retry)


@dataclass(frozen=True)
class Preview:
    """What a command would append now (`Engine.preview`), nothing having been appended."""

    events: list[Envelope]
    loaded: Loaded  # the state those events would lead to
    based_on: int  # the version it was decided against
    rolled: bool  # dice were drawn, from a throwaway seed: not the ones a submit rolls
    duplicate: bool = False  # the command id was used for this very command: its events


DeadlineHook = Callable[[str, list[Deadline]], Awaitable[None]]


@dataclass
class Engine:
    store: Store
    clock: Clock = wall_clock
    # How many encounters' states and seeds this process keeps (each least recently used first
    # out): a long-lived API or worker process sees every encounter it ever served.
    cache_size: int = 1024
    # Told of the deadlines each append recorded (the API schedules their jobs with it);
    # they are in the store's outbox either way.
    on_deadlines: DeadlineHook | None = None
    _cache: OrderedDict[str, Loaded] = field(default_factory=OrderedDict)
    _seeds: OrderedDict[str, bytes] = field(default_factory=OrderedDict)
    _locks: dict[str, _Gate] = field(default_factory=dict)

    # --- encounters --------------------------------------------------------------------

    async def create(
        self,
        ruleset_name: str,
        options: dict[str, Any] | None = None,
        *,
        title: str | None = None,
        encounter_id: str | None = None,
        seed: bytes | None = None,
        actor: Actor,
        tenant: str | None = None,
    ) -> tuple[str, Envelope]:
        """A new encounter; its id as the tenant knows it (the store keeps it under
        `stream_id(tenant, id)`), and its first event."""
        ruleset = ruleset_named(ruleset_name)
        if encounter_id is not None:
            check_id(encounter_id, "encounter")
        parsed = ruleset.parse_options(options)
        encounter_id = encounter_id or uuid.uuid4().hex
        stored_as = stream_id(tenant, encounter_id)
        seed_source = "client" if seed is not None else "server"
        seed = seed if seed is not None else secrets.token_bytes(32)
        created = EncounterCreated(
            encounter_id=encounter_id,
            ruleset=ruleset.name,
            ruleset_version=ruleset.version,
            options=parsed.model_dump(mode="json"),
            seed_commitment=sha256_hex(seed),
            seed_source=seed_source,
            title=title,
        )
        kind, schema, data = ruleset.event_data(created)
        envelope = seal(
            version=1,
            type=kind,
            schema=schema,
            data=data,
            at=iso(self._now()),
            command_id=f"create-{encounter_id}",
            actor=actor.to_dict(),
            command=None,
            rolls=[],
            prev_hash=ZERO_HASH,
        )
        first = _stored(envelope)
        check_recordable(ruleset, [created], [envelope.to_dict()], [first.body])
        try:
            await self.store.create(stored_as, first, seed, {"ruleset": ruleset.name})
        except EncounterExists as error:
            raise Conflict(
                f"an encounter with id '{encounter_id}' already exists", code="encounter/exists"
            ) from error
        return encounter_id, envelope

    async def load(self, encounter_id: str) -> Loaded:
        """The current state: from the cache or a snapshot, plus the events after it."""
        head = await self.store.head(encounter_id) if _well_formed(encounter_id) else None
        if head is None:
            raise _unknown(encounter_id)
        cached = self._cache.get(encounter_id)
        if cached is not None and cached.version <= head.version:
            self._cache.move_to_end(encounter_id)
            if cached.version == head.version:
                return cached
            tail = _envelopes(await self.store.read(encounter_id, after=cached.version))
            if not needs_history(tail, cached.version):
                return self._remember(encounter_id, _advance(cached, tail))
        loaded = await self._load_from_snapshot(encounter_id)
        return self._remember(encounter_id, loaded)

    def peek(self, encounter_id: str) -> Loaded | None:
        """What this process last knew of the encounter, without asking Redis (may be stale)."""
        return self._cache.get(encounter_id)

    async def load_at(self, encounter_id: str, version: int) -> Loaded:
        """The state as of version N: what everyone saw then."""
        if not _well_formed(encounter_id):
            raise _unknown(encounter_id)
        stream = _envelopes(await self.store.read(encounter_id, up_to=version))
        if not stream:
            raise _unknown(encounter_id)
        ruleset = ruleset_named(str(stream[0].data["ruleset"]))
        return Loaded(ruleset, replay(ruleset, stream), stream[-1].version, stream[-1].hash)

    async def _load_from_snapshot(self, encounter_id: str) -> Loaded:
        meta = await self.store.meta(encounter_id) or {}
        ruleset = ruleset_named(meta.get("ruleset", ""))
        snapshot = await self.store.load_snapshot(encounter_id)
        if snapshot is not None:
            version, payload = snapshot
            body = orjson.loads(payload)
            if (
                body.get("format") == SNAPSHOT_FORMAT
                and body.get("ruleset_version") == ruleset.version
            ):
                state = ruleset.state_model.model_validate(body["state"])
                base = Loaded(ruleset, state, version, body["hash"])
                tail = _envelopes(await self.store.read(encounter_id, after=version))
                if not needs_history(tail, version):
                    return _advance(base, tail)
        stream = _envelopes(await self.store.read(encounter_id))
        return Loaded(ruleset, replay(ruleset, stream), stream[-1].version, stream[-1].hash)

    def _remember(self, encounter_id: str, loaded: Loaded) -> Loaded:
        _keep(self._cache, encounter_id, loaded, self.cache_size)
        return loaded

    async def _seed(self, encounter_id: str) -> bytes:
        seed = self._seeds.get(encounter_id)
        if seed is None:
            seed = await self.store.seed(encounter_id)
            if seed is None:
                raise _unknown(encounter_id)
        _keep(self._seeds, encounter_id, seed, self.cache_size)
        return seed

    # --- commands ----------------------------------------------------------------------

    async def execute(self, encounter_id: str, request: CommandRequest, actor: Actor) -> Outcome:
        # One command at a time per encounter in this process: optimistic concurrency then
        # only arbitrates between processes, instead of every local writer racing.
        entry = self._locks.setdefault(encounter_id, _Gate())
        entry.users += 1
        try:
            async with entry.lock:
                return await self._execute(encounter_id, request, actor)
        finally:
            entry.users -= 1
            if entry.users == 0:
                del self._locks[encounter_id]

    async def _execute(self, encounter_id: str, request: CommandRequest, actor: Actor) -> Outcome:
        if actor.role in ("observer", "auditor"):
            raise Forbidden(f"an {actor.role} may read the encounter but not send commands")
        # Decide against the cached state when there is one: the append checks the version
        # atomically, so a warm encounter takes one round trip per command instead of two.
        # Another process may have moved the stream on, so a verdict reached against an
        # unverified cache (a rule violation, a version mismatch) is checked once afresh.
        cached = self._cache.get(encounter_id)
        loaded = cached or await self.load(encounter_id)
        verified = cached is None
        command = loaded.ruleset.parse_command(request.command)
        if type(command).model_fields["type"].default in SYSTEM_COMMANDS and actor.role == "player":
            raise Forbidden("only the GM or Fray's workers may send this command")
        command_id = request.command_id or uuid.uuid4().hex
        fingerprint = _fingerprint(request, actor)
        if request.command_id is not None:
            earlier = await self._earlier_outcome(encounter_id, command_id, fingerprint)
            if earlier is not None:
                return earlier
        seed = await self._seed(encounter_id)
        attempt = 0
        while attempt < MAX_ATTEMPTS:
            pinned = request.expected_version
            try:
                if pinned is not None and pinned != loaded.version:
                    raise _conflict(pinned, loaded.version)
                outcome = await self._try(
                    encounter_id, loaded, command, request, actor, command_id, fingerprint, seed
                )
            except (RuleViolation, Conflict):
                if verified:
                    raise
                outcome = None
                attempt -= 1  # a stale cache is not contention
            if outcome is not None:
                return outcome
            attempt += 1
            if attempt and verified:
                await asyncio.sleep(_backoff(attempt))
            loaded = await self.load(encounter_id)
            verified = True
        raise Conflict(
            f"the encounter kept changing; gave up after {MAX_ATTEMPTS} attempts",
            code="encounter/busy",
        )

    async def _try(
        self,
        encounter_id: str,
        loaded: Loaded,
        command: Command,
        request: CommandRequest,
        actor: Actor,
        command_id: str,
        fingerprint: str,
        seed: bytes,
    ) -> Outcome | None:
        now = self._now()
        try:
            events, envelopes = decide_envelopes(
                loaded, command, request, actor, command_id, seed, now
            )
        except Unemitted as error:
            _refused_as_faulty(command_id, request, encounter_id, error)
            raise
        # The append's last version names this arming of its deadlines (see `_deadlines`).
        armed = loaded.version + len(envelopes)
        if _rewinds(envelopes):
            # The fold returns to an earlier state: re-arm its clocks and windows.
            history = _envelopes(await self.store.read(encounter_id))
            state = replay(loaded.ruleset, [*history, *envelopes])
            changes = table_deadlines(loaded.state.table, state.table, armed)
        else:
            state = loaded.ruleset.apply(loaded.state, events)
            count = idle.streak(command, events, actor, loaded.version + 1)
            changes = deadline_changes(events, armed, count)
        deadlines, cancels = _deadlines(encounter_id, changes, armed)
        stored = [_stored(e) for e in envelopes]
        try:
            check_recordable(
                loaded.ruleset, events, [e.to_dict() for e in envelopes], [s.body for s in stored]
            )
        except Unrecordable as error:
            _refused_as_faulty(command_id, request, encounter_id, error)
            raise
        try:
            result = await self.store.append(
                encounter_id, loaded.version, command_id, fingerprint, stored, deadlines, cancels
            )
        except VersionConflict as error:
            if request.expected_version is not None:
                raise _conflict(error.expected, error.actual) from error
            return None
        except CommandIdReused as error:
            raise _reused(command_id) from error
        except EncounterNotFound as error:
            raise _unknown(encounter_id) from error
        if result.duplicate:
            return await self._replayed(
                encounter_id, command_id, result.first_version, result.last_version
            )
        head = envelopes[-1].hash if envelopes else loaded.hash
        after = Loaded(loaded.ruleset, state, result.last_version, head)
        self._remember(encounter_id, after)
        await self._maybe_snapshot(encounter_id, result, after)
        if deadlines and self.on_deadlines is not None:
            await self.on_deadlines(encounter_id, deadlines)
        return Outcome(encounter_id, command_id, envelopes, result.last_version, loaded=after)

    async def preview(self, encounter_id: str, request: CommandRequest, actor: Actor) -> Preview:
        """Decide the command against the current state as `execute` would, refusing it
        with the same error, and append nothing: no lock, no idempotency record, no
        deadline. Dice come from a throwaway seed, never the encounter's, which would tell
        the dice the real command is going to roll."""
        if actor.role in ("observer", "auditor"):
            raise Forbidden(f"an {actor.role} may read the encounter but not send commands")
        loaded = await self.load(encounter_id)
        command = loaded.ruleset.parse_command(request.command)
        if type(command).model_fields["type"].default in SYSTEM_COMMANDS and actor.role == "player":
            raise Forbidden("only the GM or Fray's workers may send this command")
        command_id = request.command_id or uuid.uuid4().hex
        if request.command_id is not None:
            fingerprint = _fingerprint(request, actor)
            earlier = await self._earlier_outcome(encounter_id, command_id, fingerprint)
            if earlier is not None:
                return Preview(earlier.events, loaded, loaded.version, False, duplicate=True)
        pinned = request.expected_version
        if pinned is not None and pinned != loaded.version:
            raise _conflict(pinned, loaded.version)
        throwaway = secrets.token_bytes(32)
        now = self._now()
        events, envelopes = decide_envelopes(
            loaded, command, request, actor, command_id, throwaway, now
        )
        stored = [_stored(e).body for e in envelopes]
        check_recordable(loaded.ruleset, events, [e.to_dict() for e in envelopes], stored)
        if _rewinds(envelopes):
            history = _envelopes(await self.store.read(encounter_id))
            state = replay(loaded.ruleset, [*history, *envelopes])
        else:
            state = loaded.ruleset.apply(loaded.state, events)
        head = envelopes[-1] if envelopes else None
        after = Loaded(
            loaded.ruleset,
            state,
            head.version if head else loaded.version,
            head.hash if head else loaded.hash,
        )
        rolled = any(r.get("source") != "table" for e in envelopes for r in e.rolls)
        return Preview(envelopes, after, loaded.version, rolled)

    async def _earlier_outcome(
        self, encounter_id: str, command_id: str, fingerprint: str
    ) -> Outcome | None:
        recorded = await self.store.command_outcome(encounter_id, command_id)
        if recorded is None:
            return None
        first, last, stored_fingerprint = recorded
        if stored_fingerprint != fingerprint:
            raise _reused(command_id)
        return await self._replayed(encounter_id, command_id, first, last)

    async def _replayed(self, encounter_id: str, command_id: str, first: int, last: int) -> Outcome:
        events = _envelopes(
            await self.store.read(encounter_id, after=first - 1, up_to=last)
            if last >= first
            else []
        )
        head = await self.store.head(encounter_id)
        return Outcome(encounter_id, command_id, events, head.version if head else last, True)

    async def _maybe_snapshot(self, encounter_id: str, result: AppendResult, after: Loaded) -> None:
        if not self.store.snapshot_due(result):
            return
        payload = canonical_bytes(
            {
                "format": SNAPSHOT_FORMAT,
                "ruleset_version": after.ruleset.version,
                "hash": after.hash,
                "state": after.state.model_dump(mode="json"),
            }
        )
        await self.store.save_snapshot(encounter_id, after.version, payload)

    def _now(self) -> datetime:
        # Millisecond precision, so an auditor re-running decide sees the same clock:
        # parse_iso(iso(clock())), without formatting and parsing a string.
        return to_millis(self.clock())


def decide_envelopes(
    loaded: Loaded,
    command: Command,
    request: CommandRequest,
    actor: Actor,
    command_id: str,
    seed: bytes,
    now: datetime,
) -> tuple[list[Event], list[Envelope]]:
    """Decide a command and seal its events into envelopes chained onto `loaded`.

    Pure given its inputs: the auditor calls it too, to re-run a stored command.
    """
    options = loaded.state.options
    if (request.dice or request.deck_orders) and options.dice == "server":
        raise RuleViolation(
            "dice/table-dice-not-allowed",
            "this encounter rolls every die on the server; table dice are not accepted",
        )
    first_version = loaded.version + 1
    roller = Roller(
        seed=seed,
        version=first_version,
        mode=options.dice,
        table_dice=list(request.dice or []),
        table_orders=[list(o) for o in request.deck_orders or []],
    )
    ctx = DecideContext(actor=actor, now=now, roller=roller)
    events = loaded.ruleset.decide_command(loaded.state, command, ctx)
    roller.finish()
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
        )
        envelopes.append(envelope)
        prev = envelope.hash
    return events, envelopes


def _refused_as_faulty(
    command_id: str, request: CommandRequest, encounter_id: str, error: FrayError
) -> None:
    _log.error(
        "command %s (%s) of encounter %s refused before its append: %s",
        command_id,
        request.command.get("type"),
        encounter_id,
        error.message,
    )


def _well_formed(encounter_id: str) -> bool:
    try:
        check_encounter_id(encounter_id)
    except InvalidArgument:
        return False
    return True


def _keep(cache: OrderedDict[str, V], key: str, value: V, size: int) -> None:
    """Put `value` in an LRU cache of at most `size` entries, evicting the least recent."""
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > size:
        cache.popitem(last=False)


def _backoff(attempt: int) -> float:
    """Full jitter, capped: concurrent writers to one encounter spread out instead of colliding."""
    return random.uniform(0, min(BACKOFF_CAP, 0.001 * 2**attempt))


def _advance(base: Loaded, tail: list[Envelope]) -> Loaded:
    if not tail:
        return base
    state = advance(base.ruleset, base.state, tail)
    return Loaded(base.ruleset, state, tail[-1].version, tail[-1].hash)


def _envelopes(stored: list[StoredEvent]) -> list[Envelope]:
    return [Envelope.from_body(s.body) for s in stored]


def _stored(envelope: Envelope) -> StoredEvent:
    return StoredEvent(version=envelope.version, hash=envelope.hash, body=envelope.body())


def _rewinds(envelopes: list[Envelope]) -> bool:
    return any(e.type == "rewound" for e in envelopes)


def _fingerprint(request: CommandRequest, actor: Actor) -> str:
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


def _deadlines(
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


def _unknown(encounter_id: str) -> NotFound:
    return NotFound(f"there is no encounter '{public_id(encounter_id)}'")


def _conflict(expected: int, actual: int) -> Conflict:
    return Conflict(
        f"expected version {expected} but the encounter is at version {actual}",
        details={"expected": expected, "actual": actual},
    )


def _reused(command_id: str) -> Conflict:
    return Conflict(
        f"command id '{command_id}' was already used for a different command",
        code="command/id-reused",
    )


def known_rulesets() -> list[str]:
    return sorted(RULESETS)
