"""The in-memory store: the store contract in plain Python, for tests and embedding.

It keeps what the Redis store keeps (each encounter's events, meta, seed, command records,
outbox, snapshot, audit verdict and stream tickets, plus the global index of each
encounter's earliest deadline and each tenant's index of encounters) in dictionaries of one
process, and answers every call as the Redis store does: the same results, the same
orderings (due time, then key or encounter id), the same errors, and the same refusals
before any write. The contract suite (tests/store) runs against both.

What it does not do: persist anything (the data lives as long as the object), share an
encounter between processes, or serve subscriptions (`StreamHub` reads Redis streams), and
it never raises `StoreCorrupted` (nothing but its own appends writes its streams) or
`StoreUnavailable`. Its index writes cannot fail half way, so its index is never behind
its meta as the Redis store's may be (`service.store.redis_index`); an encounter past its
retention is dropped when next touched, as Redis drops an expired key, and its index entry
left for a page to find gone, as in Redis.

Every call yields to the event loop once, as a round trip to Redis would, so concurrent
callers interleave between calls as they do against Redis; then it does all of its work
without yielding, which makes each call atomic, as each of the Redis store's Lua scripts
is.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from service.store import checks
from service.store.errors import (
    CommandIdReused,
    EncounterArchived,
    EncounterExists,
    EncounterNotFound,
    InvalidArgument,
    VersionConflict,
)
from service.store.events import AppendResult, Deadline, Head, StoredEvent, check_due
from service.store.listing import (
    ACTIVE,
    ARCHIVED,
    INDEX_LAG_MS,
    RETAINED,
    IndexPage,
    Position,
    check_page,
    check_status,
    millis,
    seconds_text,
)
from service.store.memory_index import MemoryIndex
from service.store.protocol import NO_META, Store


@dataclass
class _Encounter:
    events: list[StoredEvent]  # events[i].version == i + 1
    meta: dict[str, str]
    seed: bytes
    commands: dict[str, tuple[int, int, str]] = field(default_factory=dict)
    outbox: dict[str, Deadline] = field(default_factory=dict)
    snapshot: tuple[int, bytes] | None = None
    audit: tuple[int, bytes] | None = None
    expires: float | None = None  # when it is dropped (its retention ran out)

    @property
    def version(self) -> int:
        return int(self.meta["version"])

    @property
    def status(self) -> str:
        return self.meta["status"]

    def deadlines(self, max_due: float, limit: int | None) -> list[Deadline]:
        due = sorted(
            (d for d in self.outbox.values() if d.due <= max_due), key=lambda d: (d.due, d.key)
        )
        return due if limit is None else due[:limit]


class MemoryStore(Store):
    """Encounters in this process's memory. `snapshot_every`, `retention` and `clock` as
    for the Redis store."""

    def __init__(
        self,
        snapshot_every: int = 100,
        retention: float | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.snapshot_every = checks.check_snapshot_every(snapshot_every)
        checks.retention_ms(retention)
        self._retention = retention
        self._clock = clock
        self._encounters: dict[str, _Encounter] = {}
        # Encounter id -> its earliest deadline's due time, as Redis keeps `fray:deadlines`.
        self._index: dict[str, float] = {}
        self._tenant_index = MemoryIndex(self._live_meta, self._now_ms)
        # (encounter id, ticket id) -> (payload, monotonic expiry), as Redis keeps them.
        self._tickets: dict[tuple[str, str], tuple[bytes, float]] = {}

    # -- writing -------------------------------------------------------------------------

    async def create(
        self,
        encounter_id: str,
        first: StoredEvent,
        seed: bytes,
        meta: Mapping[str, str] = NO_META,
    ) -> AppendResult:
        checks.check_encounter_id(encounter_id)
        checks.check_create(first, meta)
        await _round_trip()
        if self._live(encounter_id) is not None:
            raise EncounterExists(encounter_id)
        now = self._now_ms()
        fields = {
            "version": "1",
            "hash": first.hash,
            "created": seconds_text(now),
            "updated": seconds_text(now),
            "status": ACTIVE,
            "indexed": str(now),
        }
        self._encounters[encounter_id] = _Encounter(
            events=[_copy(first)], meta={**fields, **meta}, seed=bytes(seed)
        )
        self._enter(encounter_id, now)
        return AppendResult(first_version=1, last_version=1, duplicate=False)

    async def append(
        self,
        encounter_id: str,
        expected_version: int,
        command_id: str,
        fingerprint: str,
        events: Sequence[StoredEvent],
        deadlines: Sequence[Deadline] = (),
        cancel: Sequence[str] = (),
        status: str | None = None,
    ) -> AppendResult:
        checks.check_encounter_id(encounter_id)
        checks.check_append(expected_version, command_id, events, deadlines, cancel)
        check_status(status)
        await _round_trip()
        encounter = self._live(encounter_id)
        # The Redis script's order: the command record first, so a retry gets its first
        # outcome whatever version it expected.
        record = encounter.commands.get(command_id) if encounter else None
        if record is not None:
            first, last, recorded = record
            if recorded != fingerprint:
                raise CommandIdReused(command_id)
            return AppendResult(first, last, duplicate=True)
        if encounter is None:
            raise EncounterNotFound(encounter_id)
        if encounter.meta["status"] == ARCHIVED:
            raise EncounterArchived(encounter_id)
        if encounter.version != expected_version:
            raise VersionConflict(expected_version, encounter.version)
        first, last = expected_version + 1, expected_version + len(events)
        encounter.events += [_copy(event) for event in events]
        if events:
            now, before = self._now_ms(), encounter.status
            encounter.meta.update(version=str(last), hash=events[-1].hash)
            encounter.meta.update(updated=seconds_text(now), status=status or before)
            # As the Redis store's script decides when its index is written.
            if status not in (None, before) or now - int(encounter.meta["indexed"]) >= INDEX_LAG_MS:
                encounter.meta["indexed"] = str(now)
                self._enter(encounter_id, now)
        encounter.commands[command_id] = (first, last, fingerprint)
        for deadline in deadlines:
            encounter.outbox[deadline.key] = Deadline(
                deadline.key, check_due(deadline.due), bytes(deadline.payload)
            )
        for key in cancel:
            encounter.outbox.pop(key, None)
        if deadlines or cancel:
            self._sync_index(encounter_id, encounter)
        self._retain(encounter)
        return AppendResult(first, last, duplicate=False)

    async def archive(self, encounter_id: str) -> dict[str, str]:
        encounter = await self._find(encounter_id)
        if encounter is None:
            raise EncounterNotFound(encounter_id)
        if encounter.status != ARCHIVED:
            now = self._now_ms()
            encounter.meta.update(status=ARCHIVED, updated=seconds_text(now), indexed=str(now))
            self._retain(encounter)
            self._enter(encounter_id, now)
        return dict(encounter.meta)

    async def fill_meta(self, encounter_id: str, fields: Mapping[str, str]) -> bool:
        checks.check_fill(fields)
        encounter = await self._find(encounter_id)
        if encounter is None:
            return False
        missing = {k: v for k, v in fields.items() if k not in encounter.meta}
        encounter.meta.update(missing)
        if "updated" in missing:
            self._enter(encounter_id, millis(missing["updated"]))
        return True

    def snapshot_due(self, result: AppendResult) -> bool:
        return checks.snapshot_due(self.snapshot_every, result)

    async def save_snapshot(self, encounter_id: str, version: int, payload: bytes) -> bool:
        checks.check_snapshot_version(version)
        encounter = await self._ahead_of(encounter_id, "snapshot", version)
        if encounter.snapshot is not None and encounter.snapshot[0] >= version:
            return False
        encounter.snapshot = (version, bytes(payload))
        self._retain(encounter)
        return True

    async def save_audit(self, encounter_id: str, version: int, payload: bytes) -> bool:
        checks.check_audit_version(version)
        encounter = await self._ahead_of(encounter_id, "audit", version)
        if encounter.audit is not None and encounter.audit[0] > version:
            return False  # a re-audit of the same version replaces it, a later one is kept
        encounter.audit = (version, bytes(payload))
        self._retain(encounter)
        return True

    async def _ahead_of(self, encounter_id: str, what: str, version: int) -> _Encounter:
        """The encounter a record of `version` is saved for, refused if it is not there or
        the record is ahead of it (the Redis store's SAVE_AT_VERSION, checked alike)."""
        checks.check_encounter_id(encounter_id)
        await _round_trip()
        encounter = self._live(encounter_id)
        if encounter is None:
            raise EncounterNotFound(encounter_id)
        if version > encounter.version:
            raise InvalidArgument(
                f"{what} of version {version} is ahead of the encounter "
                f"(version {encounter.version})"
            )
        return encounter

    async def clear_deadline(
        self, encounter_id: str, key: str, due: float, payload: bytes | None = None
    ) -> bool:
        checks.check_encounter_id(encounter_id)
        due = check_due(due)
        await _round_trip()
        encounter = self._live(encounter_id)
        pending = encounter.outbox.get(key) if encounter else None
        if encounter is None or pending is None or pending.due != due:
            return False
        if payload is not None and pending.payload != payload:
            return False
        del encounter.outbox[key]
        self._sync_index(encounter_id, encounter)
        return True

    async def move_deadline(
        self, encounter_id: str, key: str, due: float, payload: bytes, to: Deadline
    ) -> bool:
        checks.check_deadline(encounter_id, to, key)
        due = check_due(due)
        await _round_trip()
        encounter = self._live(encounter_id)
        pending = encounter.outbox.get(key) if encounter else None
        if encounter is None or pending is None or pending.due != due:
            return False
        if pending.payload != payload:
            return False
        encounter.outbox[key] = Deadline(key, check_due(to.due), to.payload)
        self._sync_index(encounter_id, encounter)
        return True

    async def add_deadline(self, encounter_id: str, deadline: Deadline) -> bool:
        checks.check_deadline(encounter_id, deadline)
        await _round_trip()
        encounter = self._live(encounter_id)
        if encounter is None or deadline.key in encounter.outbox:
            return False
        encounter.outbox[deadline.key] = Deadline(
            deadline.key, check_due(deadline.due), deadline.payload
        )
        self._sync_index(encounter_id, encounter)
        return True

    def _retain(self, encounter: _Encounter) -> None:
        if self._retention is not None and encounter.status in RETAINED:
            encounter.expires = self._clock() + self._retention

    def _enter(self, encounter_id: str, updated: int) -> None:
        self._tenant_index.enter(encounter_id, updated)

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)

    def _sync_index(self, encounter_id: str, encounter: _Encounter) -> None:
        if encounter.outbox:
            self._index[encounter_id] = min(d.due for d in encounter.outbox.values())
        else:
            self._index.pop(encounter_id, None)

    async def put_ticket(
        self, encounter_id: str, ticket_id: str, payload: bytes, ttl_ms: int
    ) -> None:
        checks.check_encounter_id(encounter_id)
        checks.check_ticket_id(ticket_id)
        checks.check_ttl(ttl_ms)
        await _round_trip()
        now = time.monotonic()
        # Redis drops expired keys by itself; here the expired go when a ticket is added.
        self._tickets = {k: kept for k, kept in self._tickets.items() if kept[1] > now}
        self._tickets[(encounter_id, ticket_id)] = (bytes(payload), now + ttl_ms / 1000)

    async def take_ticket(self, encounter_id: str, ticket_id: str) -> bytes | None:
        checks.check_encounter_id(encounter_id)
        checks.check_ticket_id(ticket_id)
        await _round_trip()
        kept = self._tickets.pop((encounter_id, ticket_id), None)
        if kept is None or kept[1] <= time.monotonic():
            return None
        return kept[0]

    # -- reading -------------------------------------------------------------------------

    async def exists(self, encounter_id: str) -> bool:
        return await self._find(encounter_id) is not None

    async def head(self, encounter_id: str) -> Head | None:
        encounter = await self._find(encounter_id)
        if encounter is None:
            return None
        return Head(version=encounter.version, hash=encounter.meta["hash"])

    async def meta(self, encounter_id: str) -> dict[str, str] | None:
        encounter = await self._find(encounter_id)
        return None if encounter is None else dict(encounter.meta)

    async def seed(self, encounter_id: str) -> bytes | None:
        encounter = await self._find(encounter_id)
        return None if encounter is None else encounter.seed

    async def read(
        self,
        encounter_id: str,
        after: int = 0,
        limit: int | None = None,
        up_to: int | None = None,
    ) -> list[StoredEvent]:
        checks.check_encounter_id(encounter_id)
        checks.check_read(after, limit)
        encounter = await self._find(encounter_id)
        if encounter is None or limit == 0 or (up_to is not None and up_to <= after):
            return []
        # Versions are list positions + 1, so the window is a slice.
        end = len(encounter.events) if up_to is None else min(up_to, len(encounter.events))
        found = encounter.events[after:end]
        return found if limit is None else found[:limit]

    async def command_outcome(
        self, encounter_id: str, command_id: str
    ) -> tuple[int, int, str] | None:
        encounter = await self._find(encounter_id)
        return None if encounter is None else encounter.commands.get(command_id)

    async def load_snapshot(self, encounter_id: str) -> tuple[int, bytes] | None:
        encounter = await self._find(encounter_id)
        return None if encounter is None else encounter.snapshot

    async def load_audit(self, encounter_id: str) -> tuple[int, bytes] | None:
        encounter = await self._find(encounter_id)
        return None if encounter is None else encounter.audit

    async def tenant_encounters(self, tenant: str | None) -> list[str]:
        await _round_trip()
        return self._tenant_index.members(tenant)

    async def tenant_page(
        self,
        tenant: str | None,
        *,
        count: int,
        after: Position | None = None,
        newest: int | None = None,
        oldest: int | None = None,
    ) -> IndexPage:
        check_page(count, newest, oldest)
        await _round_trip()
        return self._tenant_index.page(tenant, count, after, newest, oldest)

    async def pending_deadlines(self, encounter_id: str) -> list[Deadline]:
        encounter = await self._find(encounter_id)
        return [] if encounter is None else encounter.deadlines(float("inf"), None)

    async def due_deadlines(self, now: float, limit: int = 100) -> list[tuple[str, Deadline]]:
        if limit <= 0:
            return []
        now = check_due(now)
        await _round_trip()
        # As the Redis store reads it: the first `limit` encounters of the index hold the
        # first `limit` due deadlines.
        index = sorted((due, eid) for eid, due in self._index.items() if due <= now)[:limit]
        found = [
            (eid, deadline) for _, eid in index for deadline in self._deadlines_of(eid, now, limit)
        ]
        found.sort(key=lambda item: (item[1].due, item[0], item[1].key))
        return found[:limit]

    def _deadlines_of(self, encounter_id: str, now: float, limit: int) -> list[Deadline]:
        encounter = self._live(encounter_id)
        return [] if encounter is None else encounter.deadlines(now, limit)

    async def _find(self, encounter_id: str) -> _Encounter | None:
        checks.check_encounter_id(encounter_id)
        await _round_trip()
        return self._live(encounter_id)

    def _live_meta(self, encounter_id: str) -> dict[str, str] | None:
        encounter = self._live(encounter_id)
        return None if encounter is None else dict(encounter.meta)

    def _live(self, encounter_id: str) -> _Encounter | None:
        """The encounter, unless it is not there or its retention has run out (then it is
        dropped, as Redis drops expired keys: its tenant index entry stays, for a page to
        find gone)."""
        encounter = self._encounters.get(encounter_id)
        if encounter is None or encounter.expires is None or self._clock() < encounter.expires:
            return encounter
        del self._encounters[encounter_id]
        self._index.pop(encounter_id, None)
        return None


async def _round_trip() -> None:
    await asyncio.sleep(0)


def _copy(event: StoredEvent) -> StoredEvent:
    # Bodies are kept as bytes, as Redis gives them back, whatever bytes-like came in.
    return StoredEvent(version=event.version, hash=event.hash, body=bytes(event.body))
