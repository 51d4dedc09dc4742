"""The store contract: what the engine, the API, the workers and the CLI ask of a store.

Two stores implement it: `EventStore` (Redis, `service.store.redis_store`) for the service
and `MemoryStore` (`service.store.memory`) for tests and embedding. One contract suite
(tests/store) runs against both. The stream hub (live subscriptions) is not part of the
contract: it reads Redis streams directly.

Every method refuses a malformed encounter id, a negative version and the like with
`InvalidArgument` before it reads or writes anything. Event bodies are opaque bytes.

Besides the events, a store keeps each encounter's summary in its meta (`status`: active,
ended or archived; `created` and `updated`, seconds since the epoch), a per-tenant index
of encounters by updated time (`service.store.listing`), and, when given a retention
period, lets an ended or archived encounter expire that long after its last write.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Protocol

from service.store.events import AppendResult, Deadline, Head, StoredEvent
from service.store.listing import IndexPage, Position

NO_META: Mapping[str, str] = MappingProxyType({})


class Store(Protocol):
    # -- writing -------------------------------------------------------------------------

    async def create(
        self,
        encounter_id: str,
        first: StoredEvent,
        seed: bytes,
        meta: Mapping[str, str] = NO_META,
    ) -> AppendResult:
        """A new encounter whose stream holds `first` (version 1), with its seed and meta
        fields (`version`, `hash`, `created`, `updated` and `status` are the store's own:
        `status` starts active), entered in its tenant's index. `EncounterExists` if the id
        is taken; the existing encounter is left as it was."""
        ...

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
        """Append a command's events (versions expected_version + 1, ...), record its
        command id, set `deadlines` (the same key moves one) and drop the `cancel` keys
        from the outbox: all of it or, on any refusal, none of it. An append of events
        sets `updated` (and the encounter's place in its tenant's index) and, given one,
        the `status` the events leave it in (active or ended).

        A command id already recorded answers its first outcome with `duplicate` and writes
        nothing, whatever version it expected; with another fingerprint it is
        `CommandIdReused`. Then `EncounterNotFound`, then `EncounterArchived`, then
        `VersionConflict(expected, actual)` unless the encounter is exactly at
        `expected_version`. An append of no events records its command id (the range
        first = version + 1, last = version)."""
        ...

    async def archive(self, encounter_id: str) -> dict[str, str]:
        """Archive the encounter: from now on every append is refused (`EncounterArchived`),
        while reads go on. The first call sets `status` archived and `updated`; a later one
        changes nothing. Answers the meta after it. `EncounterNotFound`."""
        ...

    async def fill_meta(self, encounter_id: str, fields: Mapping[str, str]) -> bool:
        """Set each of `fields` the meta lacks (the summary of an encounter stored before
        the store kept one), leaving those it has; False for an unknown encounter.
        `version`, `hash` and `created` may not be given."""
        ...

    def snapshot_due(self, result: AppendResult) -> bool:
        """Whether the caller should save a snapshot after this append (the store cannot
        build one: it does not know the event schema)."""
        ...

    async def save_snapshot(self, encounter_id: str, version: int, payload: bytes) -> bool:
        """Keep a snapshot unless one at this version or later is kept; True if kept.
        `EncounterNotFound`, or `InvalidArgument` for a version ahead of the encounter."""
        ...

    async def save_audit(self, encounter_id: str, version: int, payload: bytes) -> bool:
        """Keep the verdict of an audit that read versions 1..`version`, unless one of a
        later version is kept (one of the same version is replaced: a re-audit); True if
        kept. `EncounterNotFound`, or `InvalidArgument` for a version ahead of the
        encounter or below 1."""
        ...

    async def clear_deadline(
        self, encounter_id: str, key: str, due: float, payload: bytes | None = None
    ) -> bool:
        """Remove a deadline that fired, unless it has since moved to another due time (or,
        given its `payload`, been set again with another payload); True if removed."""
        ...

    async def move_deadline(
        self, encounter_id: str, key: str, due: float, payload: bytes, to: Deadline
    ) -> bool:
        """Move a pending deadline still at `due` with `payload` to `to` (its due time and
        payload; the same key), e.g. a webhook delivery to retry later; True if moved."""
        ...

    async def add_deadline(self, encounter_id: str, deadline: Deadline) -> bool:
        """Add a deadline outside an append (a webhook redelivery), unless its key is
        pending or the encounter is unknown; True if added."""
        ...

    async def put_ticket(
        self, encounter_id: str, ticket_id: str, payload: bytes, ttl_ms: int
    ) -> None:
        """Keep a single-use ticket's `payload` for `ttl_ms` milliseconds, in the
        encounter's slot. The store does not check that the encounter exists."""
        ...

    async def take_ticket(self, encounter_id: str, ticket_id: str) -> bytes | None:
        """A kept ticket's payload, removed as it is read, in one step: of any number of
        callers taking one ticket at once, one gets it. None for a ticket unknown, already
        taken or past its time to live."""
        ...

    # -- reading -------------------------------------------------------------------------

    async def exists(self, encounter_id: str) -> bool: ...

    async def head(self, encounter_id: str) -> Head | None:
        """The last version and its hash; None for an unknown encounter."""
        ...

    async def meta(self, encounter_id: str) -> dict[str, str] | None:
        """Every meta field, the store's own (version, hash, created) included."""
        ...

    async def seed(self, encounter_id: str) -> bytes | None: ...

    async def read(
        self,
        encounter_id: str,
        after: int = 0,
        limit: int | None = None,
        up_to: int | None = None,
    ) -> list[StoredEvent]:
        """Events with after < version <= up_to, oldest first, at most `limit` of them. An
        unknown encounter reads as empty."""
        ...

    async def command_outcome(
        self, encounter_id: str, command_id: str
    ) -> tuple[int, int, str] | None:
        """A recorded command's (first_version, last_version, fingerprint), or None: lets
        a caller answer a retry without deciding it again (`append` checks atomically)."""
        ...

    async def load_snapshot(self, encounter_id: str) -> tuple[int, bytes] | None:
        """The latest snapshot kept: (version, payload)."""
        ...

    async def load_audit(self, encounter_id: str) -> tuple[int, bytes] | None:
        """The verdict kept: (audited version, payload); None before the first."""
        ...

    async def tenant_encounters(self, tenant: str | None) -> list[str]:
        """Every encounter stored under `tenant` (`service.domain.ids.stream_id`: ids
        `<tenant>/<id>`), sorted; None: the encounters no tenant owns (bare ids). Read from
        the tenant's index (the Redis store first enters, once, the encounters stored
        before it kept one: see `service.store.redis_index`)."""
        ...

    async def tenant_page(
        self,
        tenant: str | None,
        *,
        count: int,
        after: Position | None = None,
        newest: int | None = None,
        oldest: int | None = None,
    ) -> IndexPage:
        """Up to `count` entries of the tenant's index after `after` (from the newest when
        None), newest updated first, with `oldest` <= updated <= `newest` (ms, by the
        index), each with its meta. Entries of encounters that are gone are left out of
        `listed` (and dropped from the index once past `GHOST_GRACE_MS`) but count towards
        `count`, so a page may list fewer: only `last` None says the index has no more."""
        ...

    async def pending_deadlines(self, encounter_id: str) -> list[Deadline]:
        """Every deadline in the encounter's outbox, earliest first (then by key)."""
        ...

    async def due_deadlines(self, now: float, limit: int = 100) -> list[tuple[str, Deadline]]:
        """Up to `limit` deadlines due at or before `now` across encounters, earliest first
        (then by encounter id and key)."""
        ...
