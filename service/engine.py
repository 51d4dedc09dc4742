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
from pydantic import Field

from service.deciding import (
    CommandRequest,
    Loaded,
    admitted_command,
    archived,
    conflict,
    decide_envelopes,
    envelopes_of,
    fingerprint_of,
    outbox_entries,
    refused_as_faulty,
    reused,
    rewinds,
    stored_of,
    unknown,
)
from service.domain import idle
from service.domain.canonical import ZERO_HASH, canonical_bytes, sha256_hex
from service.domain.common import EncounterCreated
from service.domain.context import Actor, Unemitted
from service.domain.deadlines import audit_due, deadline_changes, table_deadlines
from service.domain.draws import DieNotYours
from service.domain.envelope import Envelope, seal
from service.domain.errors import (
    Conflict,
    RuleViolation,
)
from service.domain.fold import advance, needs_history, replay
from service.domain.ids import check_id, stream_id
from service.domain.limits import MAX_NUMBER
from service.domain.messages import Command
from service.domain.recording import Unrecordable, check_recordable
from service.domain.ruleset import RulesetBase
from service.domain.timefmt import iso, to_millis
from service.rules.registry import RULESETS, ruleset_at, ruleset_named
from service.store.checks import check_encounter_id
from service.store.errors import (
    CommandIdReused,
    EncounterArchived,
    EncounterExists,
    EncounterNotFound,
    InvalidArgument,
    VersionConflict,
)
from service.store.events import AppendResult, Deadline
from service.store.listing import ACTIVE, ARCHIVED, ENDED
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


@dataclass
class _Gate:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


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
# The outbox entries an append's envelopes owe besides its deadlines (webhook deliveries:
# `service.app.webhooks.Webhooks.outbox_entries`): the stream, the envelopes, `armed`.
OutboxHook = Callable[[str, list[Envelope], int], Awaitable[list[Deadline]]]


def new_salt() -> str:
    """A fresh envelope salt: 128 secret random bits (docs/audit.md, "The salt")."""
    return secrets.token_hex(16)


@dataclass
class Engine:
    store: Store
    clock: Clock = wall_clock
    # Where each new envelope's salt comes from. Random and secret: a salt derived from the
    # seed would be public once the seed is revealed at the end, and with it the hidden
    # values. Pinned only where a recording must come out byte for byte the same.
    salt: Callable[[], str] = new_salt
    # How many encounters' states and seeds this process keeps (each least recently used first
    # out): a long-lived API or worker process sees every encounter it ever served.
    cache_size: int = 1024
    # Told of the deadlines each append recorded (the API schedules their jobs with it);
    # they are in the store's outbox either way.
    on_deadlines: DeadlineHook | None = None
    # Written by the same append script as the events, so an event's deliveries are owed
    # as surely as it is stored; scheduled through `on_deadlines` like any deadline.
    deliveries: OutboxHook | None = None
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
            salt=self.salt(),
        )
        first = stored_of(envelope)
        check_recordable(ruleset, [created], [envelope.to_dict()], [first.body])
        try:
            meta = {"ruleset": ruleset.name, "ruleset_version": ruleset.version}
            await self.store.create(stored_as, first, seed, meta | _titled(title))
        except EncounterExists as error:
            raise Conflict(
                f"an encounter with id '{encounter_id}' already exists", code="encounter/exists"
            ) from error
        return encounter_id, envelope

    def _salts(self, version: int) -> str:
        return self.salt()

    async def load(self, encounter_id: str) -> Loaded:
        """The current state: from the cache or a snapshot, plus the events after it."""
        head = await self.store.head(encounter_id) if _well_formed(encounter_id) else None
        if head is None:
            raise unknown(encounter_id)
        cached = self._cache.get(encounter_id)
        if cached is not None and cached.version <= head.version:
            self._cache.move_to_end(encounter_id)
            if cached.version == head.version:
                return cached
            tail = envelopes_of(await self.store.read(encounter_id, after=cached.version))
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
            raise unknown(encounter_id)
        stream = envelopes_of(await self.store.read(encounter_id, up_to=version))
        if not stream:
            raise unknown(encounter_id)
        ruleset = _recorded_with(stream[0])
        return Loaded(ruleset, replay(ruleset, stream), stream[-1].version, stream[-1].hash)

    async def _load_from_snapshot(self, encounter_id: str) -> Loaded:
        ruleset = await self._ruleset_of(encounter_id)
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
                tail = envelopes_of(await self.store.read(encounter_id, after=version))
                if not needs_history(tail, version):
                    return _advance(base, tail)
        stream = envelopes_of(await self.store.read(encounter_id))
        return Loaded(ruleset, replay(ruleset, stream), stream[-1].version, stream[-1].hash)

    async def _ruleset_of(self, encounter_id: str) -> RulesetBase[Any]:
        """The ruleset version the encounter was created with: it folds and decides the
        stream, so a stream recorded before an upgrade is decided by the code it was recorded
        with. The meta names it; for an encounter created before the meta did, version 1."""
        meta = await self.store.meta(encounter_id) or {}
        if "ruleset" in meta and "ruleset_version" in meta:
            return ruleset_at(meta["ruleset"], meta["ruleset_version"])
        first = envelopes_of(await self.store.read(encounter_id, up_to=1))
        if not first:
            raise unknown(encounter_id)
        return _recorded_with(first[0])

    def _remember(self, encounter_id: str, loaded: Loaded) -> Loaded:
        _keep(self._cache, encounter_id, loaded, self.cache_size)
        return loaded

    async def _seed(self, encounter_id: str) -> bytes:
        seed = self._seeds.get(encounter_id)
        if seed is None:
            seed = await self.store.seed(encounter_id)
            if seed is None:
                raise unknown(encounter_id)
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
        # Decide against the cached state when there is one: the append checks the version
        # atomically, so a warm encounter takes one round trip per command instead of two.
        # Another process may have moved the stream on, so a verdict reached against an
        # unverified cache (a rule violation, a version mismatch) is checked once afresh.
        cached = self._cache.get(encounter_id)
        loaded = cached or await self.load(encounter_id)
        verified = cached is None
        command = admitted_command(loaded, request, actor)
        command_id = request.command_id or uuid.uuid4().hex
        fingerprint = fingerprint_of(request, actor)
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
                    raise conflict(pinned, loaded.version)
                outcome = await self._try(
                    encounter_id, loaded, command, request, actor, command_id, fingerprint, seed
                )
            except (RuleViolation, Conflict, DieNotYours):  # may come of a stale cache
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
                loaded, command, request, actor, command_id, seed, now, salts=self._salts
            )
        except Unemitted as error:
            refused_as_faulty(command_id, request, encounter_id, error)
            raise
        # The append's last version names this arming of its deadlines (see `outbox_entries`).
        armed = loaded.version + len(envelopes)
        if rewinds(envelopes):
            # The fold returns to an earlier state: re-arm its clocks and windows.
            history = envelopes_of(await self.store.read(encounter_id))
            state = replay(loaded.ruleset, [*history, *envelopes])
            changes = table_deadlines(loaded.state.table, state.table, armed)
        else:
            state = loaded.ruleset.apply(loaded.state, events)
            count = idle.streak(command, events, actor, loaded.version + 1)
            changes = deadline_changes(events, armed, count)
        if envelopes and state.table.phase == "ended":
            # The stream is now the whole of an ended encounter (its end, or a note after
            # it): audit it, durably, whatever dies next (docs/architecture.md).
            changes.append(audit_due(iso(now)))
        deadlines, cancels = outbox_entries(encounter_id, changes, armed)
        if self.deliveries is not None and envelopes:
            deadlines.extend(await self.deliveries(encounter_id, envelopes, armed))
        stored = [stored_of(e) for e in envelopes]
        try:
            check_recordable(
                loaded.ruleset, events, [e.to_dict() for e in envelopes], [s.body for s in stored]
            )
        except Unrecordable as error:
            refused_as_faulty(command_id, request, encounter_id, error)
            raise
        try:
            status = ENDED if state.table.phase == "ended" else ACTIVE
            result = await self.store.append(
                encounter_id,
                loaded.version,
                command_id,
                fingerprint,
                stored,
                deadlines,
                cancels,
                status=status,
            )
        except VersionConflict as error:
            if request.expected_version is not None:
                raise conflict(error.expected, error.actual) from error
            return None
        except CommandIdReused as error:
            raise reused(command_id) from error
        except EncounterNotFound as error:
            raise unknown(encounter_id) from error
        except EncounterArchived as error:
            raise archived(encounter_id) from error
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
        loaded = await self.load(encounter_id)
        if (await self.store.meta(encounter_id) or {}).get("status") == ARCHIVED:
            raise archived(encounter_id)
        command = admitted_command(loaded, request, actor)
        command_id = request.command_id or uuid.uuid4().hex
        if request.command_id is not None:
            fingerprint = fingerprint_of(request, actor)
            earlier = await self._earlier_outcome(encounter_id, command_id, fingerprint)
            if earlier is not None:
                return Preview(earlier.events, loaded, loaded.version, False, duplicate=True)
        pinned = request.expected_version
        if pinned is not None and pinned != loaded.version:
            raise conflict(pinned, loaded.version)
        throwaway = secrets.token_bytes(32)
        now = self._now()
        events, envelopes = decide_envelopes(
            loaded, command, request, actor, command_id, throwaway, now, salts=self._salts
        )
        stored = [stored_of(e).body for e in envelopes]
        check_recordable(loaded.ruleset, events, [e.to_dict() for e in envelopes], stored)
        if rewinds(envelopes):
            history = envelopes_of(await self.store.read(encounter_id))
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
            raise reused(command_id)
        return await self._replayed(encounter_id, command_id, first, last)

    async def _replayed(self, encounter_id: str, command_id: str, first: int, last: int) -> Outcome:
        events = envelopes_of(
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


def _titled(title: str | None) -> dict[str, str]:
    return {} if title is None else {"title": title}


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


def _recorded_with(first: Envelope) -> RulesetBase[Any]:
    """The ruleset version named by a stream's version 1."""
    created = EncounterCreated.model_validate(first.data)
    return ruleset_at(created.ruleset, created.ruleset_version)


def _advance(base: Loaded, tail: list[Envelope]) -> Loaded:
    if not tail:
        return base
    state = advance(base.ruleset, base.state, tail)
    return Loaded(base.ruleset, state, tail[-1].version, tail[-1].hash)


def known_rulesets() -> list[str]:
    return sorted(RULESETS)
