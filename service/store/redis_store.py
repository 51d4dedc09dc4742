"""The Redis store: one Redis stream per encounter, appended to by atomic Lua scripts.

It implements the store contract (`service.store.protocol.Store`): opaque event bodies
with their version and hash, appends guarded by an exact expected version and an
idempotent command id, and each encounter's pending deadlines (its outbox) kept in step
with its events. Stream entry ids are "<version>-0", so reading after a version is a
range scan.

Key layout: see `service.store.keys`. Scripts: see `service.store.scripts`. The tenant
index of encounters, and how a missed write to it is repaired: see
`service.store.redis_index`.

Redis Cluster (given a `clients.cluster_client`): every key of an encounter is in its slot,
but the global deadline index is one key on one node, so no script may write it. A script
that changes an outbox counts the change (the outbox's generation) and the store then syncs
the index: it reads the outbox's earliest due time with its generation (OUTBOX_HEAD) and
writes the index entry unless one of a later generation is there (SYNC_INDEX). The outbox
stays the source of truth, and the index may trail it: by a crash between the two, or a
failover that loses the sync. An entry earlier than the truth costs the sweeper one outbox
read, after which `due_deadlines` syncs it; an entry missing or later than the truth hides
a deadline from the sweeper (its RQ job still fires it) until the next change of that
outbox or `repair_deadline_index`, which syncs every outbox.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import redis.asyncio
import redis.exceptions
from redis.asyncio.client import Pipeline

from service.store import checks, scripts
from service.store.clients import is_cluster
from service.store.errors import (
    CommandIdReused,
    EncounterArchived,
    EncounterExists,
    EncounterNotFound,
    InvalidArgument,
    StoreCorrupted,
    StoreUnavailable,
    VersionConflict,
)
from service.store.events import (
    AppendResult,
    Deadline,
    Head,
    StoredEvent,
    event_from_entry,
    score_text,
    stream_id,
)
from service.store.keys import (
    DEADLINE_GENS,
    DEADLINE_INDEX,
    encounter_keys,
    hash_tag,
    outbox_pattern,
    ticket_key,
)
from service.store.listing import (
    INDEX_LAG_MS,
    IndexPage,
    Position,
    check_page,
    check_status,
    millis,
    seconds_text,
)
from service.store.multiplex import CommandPath
from service.store.protocol import NO_META, Store
from service.store.redis_index import RedisIndex

_log = logging.getLogger("fray.store")

# How long an append waits for its replicas (FRAY_REDIS_WAIT_REPLICAS) before it is
# refused as unacknowledged.
WAIT_TIMEOUT_MS = 1000


class EventStore(Store):
    """Encounters as Redis streams, on a `redis.asyncio.Redis` built with decode_responses=False.

    `snapshot_every` is advice for callers (see `snapshot_due`); the store never snapshots.
    `retention` (seconds; None keeps everything for ever) is how long an ended or archived
    encounter is kept after its last write. `clock` gives the `created` and `updated` times.
    Beyond the contract, an append refuses with `StoreCorrupted` when the stream has run
    ahead of the encounter's meta (written to by hand), and every call raises
    `StoreUnavailable` while Redis is away (given a `clients.redis_client`).
    `wait_replicas` (FRAY_REDIS_WAIT_REPLICAS; needs `multiplexed`): an append is answered
    once that many replicas have it (WAIT), so a failover cannot lose it.
    """

    def __init__(
        self,
        client: redis.asyncio.Redis,
        snapshot_every: int = 100,
        multiplexed: CommandPath | None = None,
        retention: float | None = None,
        clock: Callable[[], float] = time.time,
        wait_replicas: int = 0,
    ) -> None:
        if wait_replicas and multiplexed is None:
            raise ValueError("waiting for replicas takes the pipelined connection")
        self._wait_replicas = wait_replicas
        self.snapshot_every = checks.check_snapshot_every(snapshot_every)
        self._retention_ms = checks.retention_ms(retention)
        self._index = RedisIndex(client, multiplexed, clock)
        self._client = client
        # Appends go through the pipelined connection when there is one (the API's
        # command path); everything else through redis-py.
        self._multiplexed = multiplexed
        self._create = client.register_script(scripts.CREATE)
        self._append = client.register_script(scripts.APPEND)
        self._clear_deadline = client.register_script(scripts.CLEAR_DEADLINE)
        self._move_deadline = client.register_script(scripts.MOVE_DEADLINE)
        self._add_deadline = client.register_script(scripts.ADD_DEADLINE)
        self._outbox_range = client.register_script(scripts.OUTBOX_RANGE)
        self._save_at_version = client.register_script(scripts.SAVE_AT_VERSION)
        self._archive = client.register_script(scripts.ARCHIVE)
        self._fill_meta = client.register_script(scripts.FILL_META)
        # On a cluster the scripts are not handed the deadline index (another slot's key).
        self._cluster = is_cluster(client)
        self._index_keys: list[str] = [] if self._cluster else [DEADLINE_INDEX]
        self._outbox_head = client.register_script(scripts.OUTBOX_HEAD)
        self._sync_index = client.register_script(scripts.SYNC_INDEX)

    # -- writing -------------------------------------------------------------------------

    async def create(
        self,
        encounter_id: str,
        first: StoredEvent,
        seed: bytes,
        meta: Mapping[str, str] = NO_META,
    ) -> AppendResult:
        keys = encounter_keys(encounter_id)
        checks.check_create(first, meta)
        now = self._index.now_ms()
        args: list[str | bytes | int] = [first.hash, first.body, seed, seconds_text(now), now]
        for field, value in meta.items():
            args += [field, value]
        # Entered before it exists: a create that dies half way leaves an entry that a
        # page drops, never an encounter that no page lists.
        await self._index.enter(encounter_id, now)
        reply = await self._create(keys=[keys.meta, keys.events, keys.seed], args=args)
        if _status(reply) == "exists":
            raise EncounterExists(encounter_id)
        await self._index.touch(encounter_id, now)
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
        keys = encounter_keys(encounter_id)
        # The script trusts these; checking here keeps every refusal ahead of any write.
        checks.check_append(expected_version, command_id, events, deadlines, cancel)
        check_status(status)
        now = self._index.now_ms()
        args: list[str | bytes | int] = [
            expected_version,
            command_id,
            fingerprint,
            encounter_id,
            status or "",
            seconds_text(now),
            now,
            INDEX_LAG_MS,
            self._retention_ms,
            len(events),
        ]
        for event in events:
            args += [event.hash, event.body]
        args.append(len(deadlines))
        for deadline in deadlines:
            args += [deadline.key, score_text(deadline.due), deadline.payload]
        args.append(len(cancel))
        args += cancel
        script_keys = [*keys.all(), *self._index_keys]
        script = self._append
        if self._wait_replicas and self._multiplexed is not None:
            reply = await self._replicated(encounter_id, script_keys, args)
        elif self._multiplexed is not None:
            reply = await self._multiplexed.evalsha(script.script, script.sha, script_keys, args)
        else:
            reply = await self._append(keys=script_keys, args=args)
        answer = _status(reply)
        if answer == "ok":
            if self._cluster and (deadlines or cancel):
                await self.after_outbox_change(encounter_id)
            if int(reply[3]):
                await self._index.touch(encounter_id, now)
            return AppendResult(int(reply[1]), int(reply[2]), duplicate=False)
        if answer == "duplicate":
            return AppendResult(int(reply[1]), int(reply[2]), duplicate=True)
        if answer == "reused":
            raise CommandIdReused(command_id)
        if answer == "missing":
            raise EncounterNotFound(encounter_id)
        if answer == "archived":
            raise EncounterArchived(encounter_id)
        if answer == "conflict":
            raise VersionConflict(expected_version, int(reply[1]))
        if answer == "corrupt":
            raise StoreCorrupted(encounter_id, int(reply[1]), int(reply[2]))
        raise RuntimeError(f"unexpected reply from the append script: {reply!r}")

    async def _replicated(
        self, encounter_id: str, script_keys: list[str], args: list[str | bytes | int]
    ) -> Any:
        """The append script's reply once `wait_replicas` replicas have its writes (WAIT on
        its connection). Fewer within WAIT_TIMEOUT_MS: StoreUnavailable, the command
        unacknowledged; a retry with its id gets its outcome, and waits again."""
        assert self._multiplexed is not None
        script = self._append
        reply, acked = await self._multiplexed.evalsha_wait(
            script.script, script.sha, script_keys, args, self._wait_replicas, WAIT_TIMEOUT_MS
        )
        if acked < self._wait_replicas:
            raise StoreUnavailable(
                f"the append to {encounter_id} reached {acked} of {self._wait_replicas} "
                f"replicas within {WAIT_TIMEOUT_MS} ms; retry it with the same command id"
            )
        return reply

    async def archive(self, encounter_id: str) -> dict[str, str]:
        keys = encounter_keys(encounter_id)
        now = self._index.now_ms()
        args: list[str | int] = [seconds_text(now), now, self._retention_ms]
        reply = await self._archive(keys=keys.all(), args=args)
        if _status(reply) == "missing":
            raise EncounterNotFound(encounter_id)
        if int(reply[1]):
            await self._index.touch(encounter_id, now)
        flat = [_text(item) for item in reply[2:]]
        return dict(zip(flat[::2], flat[1::2], strict=True))

    async def fill_meta(self, encounter_id: str, fields: Mapping[str, str]) -> bool:
        keys = encounter_keys(encounter_id)
        checks.check_fill(fields)
        args = [item for pair in fields.items() for item in pair]
        reply = await self._fill_meta(keys=[keys.meta], args=args)
        if _status(reply) == "missing":
            return False
        if "updated" in {_text(field) for field in reply[1:]}:
            await self._index.touch(encounter_id, millis(fields["updated"]))
        return True

    def snapshot_due(self, result: AppendResult) -> bool:
        """Whether an append crossed a multiple of `snapshot_every` (the caller snapshots)."""
        return checks.snapshot_due(self.snapshot_every, result)

    async def save_snapshot(self, encounter_id: str, version: int, payload: bytes) -> bool:
        checks.check_snapshot_version(version)
        keys = encounter_keys(encounter_id)
        return await self._save(encounter_id, "snapshot", keys.snap, version, payload, False)

    async def save_audit(self, encounter_id: str, version: int, payload: bytes) -> bool:
        checks.check_audit_version(version)
        keys = encounter_keys(encounter_id)
        return await self._save(encounter_id, "audit", keys.audit, version, payload, True)

    async def _save(
        self, encounter_id: str, what: str, key: str, version: int, payload: bytes, same: bool
    ) -> bool:
        """Keep a record of `version` unless one of a later version (or, unless `same`, of
        this version) is kept; True if kept."""
        keys = encounter_keys(encounter_id)
        args: list[int | bytes | str] = [version, payload, "1" if same else "0"]
        args.append(self._retention_ms)
        reply = await self._save_at_version(keys=[key, *keys.all()], args=args)
        status = _status(reply)
        if status == "missing":
            raise EncounterNotFound(encounter_id)
        if status == "ahead":
            raise InvalidArgument(
                f"{what} of version {version} is ahead of the encounter (version {reply[1]})"
            )
        return status == "ok"

    async def clear_deadline(
        self, encounter_id: str, key: str, due: float, payload: bytes | None = None
    ) -> bool:
        keys = encounter_keys(encounter_id)
        args: list[str | bytes] = [key, score_text(due), encounter_id]
        if payload is not None:
            args.append(payload)
        reply = await self._clear_deadline(
            keys=[keys.outbox, keys.outbox_data, *self._index_keys], args=args
        )
        return await self._synced(encounter_id, reply)

    def clear_deadline_in(
        self, pipe: Pipeline, encounter_id: str, key: str, due: float, payload: bytes
    ) -> None:
        """`clear_deadline`, queued on a pipeline its caller sends with writes of its own
        (its reply there: 1 if cleared, else 0; on a cluster the caller then calls
        `after_outbox_change` if cleared). EVAL: no round trip to load the script."""
        keys = encounter_keys(encounter_id)
        index_keys = self._index_keys
        pipe.eval(
            scripts.CLEAR_DEADLINE,
            2 + len(index_keys),
            keys.outbox,
            keys.outbox_data,
            *index_keys,
            key,
            score_text(due),
            encounter_id,
            payload,
        )

    async def move_deadline(
        self, encounter_id: str, key: str, due: float, payload: bytes, to: Deadline
    ) -> bool:
        keys = encounter_keys(encounter_id)
        checks.check_deadline(encounter_id, to, key)
        args: list[str | bytes] = [
            key,
            score_text(due),
            encounter_id,
            payload,
            score_text(to.due),
            to.payload,
        ]
        reply = await self._move_deadline(
            keys=[keys.outbox, keys.outbox_data, *self._index_keys], args=args
        )
        return await self._synced(encounter_id, reply)

    async def add_deadline(self, encounter_id: str, deadline: Deadline) -> bool:
        keys = encounter_keys(encounter_id)
        checks.check_deadline(encounter_id, deadline)
        args: list[str | bytes] = [
            deadline.key,
            score_text(deadline.due),
            encounter_id,
            deadline.payload,
        ]
        reply = await self._add_deadline(
            keys=[keys.meta, keys.outbox, keys.outbox_data, *self._index_keys], args=args
        )
        return await self._synced(encounter_id, reply)

    # -- the deadline index on a cluster -------------------------------------------------

    @property
    def cluster(self) -> bool:
        return self._cluster

    async def _synced(self, encounter_id: str, reply: Any) -> bool:
        """A deadline script's reply as a bool, once the index is synced (on a cluster)."""
        changed = bool(int(reply))
        if changed and self._cluster:
            await self.after_outbox_change(encounter_id)
        return changed

    async def after_outbox_change(self, encounter_id: str) -> None:
        """Best effort: the change is made (the outbox is the truth); an index entry left
        behind is repaired later (see the module's docstring), so a failover of the index's
        master does not fail the commands of every other master meanwhile."""
        try:
            await self.sync_deadline_index(encounter_id)
        except (StoreUnavailable, redis.exceptions.RedisError) as error:
            _log.warning(
                "deadline index of %s not synced (repaired later): %s", encounter_id, error
            )

    async def sync_deadline_index(self, encounter_id: str) -> None:
        """On a cluster: the index entry of the encounter, as its outbox now stands."""
        keys = encounter_keys(encounter_id)
        gen, first = await self._outbox_head(keys=[keys.outbox, keys.outbox_data])
        due = b"" if first is None else first
        await self._sync_index(keys=[DEADLINE_INDEX, DEADLINE_GENS], args=[encounter_id, gen, due])

    async def repair_deadline_index(self) -> int:
        """On a cluster: syncs the index entry of every encounter with an outbox (every
        master's keys are scanned), repairing what a crash between an outbox's change and
        its sync left; returns how many outboxes were read. Nothing to do standalone."""
        if not self._cluster:
            return 0
        read = 0
        async for key in self._client.scan_iter(match=outbox_pattern(), count=1000):
            encounter_id = hash_tag(key)
            if encounter_id is not None:
                await self.sync_deadline_index(encounter_id)
                read += 1
        return read

    async def put_ticket(
        self, encounter_id: str, ticket_id: str, payload: bytes, ttl_ms: int
    ) -> None:
        key = ticket_key(encounter_id, ticket_id)
        await self._client.set(key, payload, px=checks.check_ttl(ttl_ms))

    async def take_ticket(self, encounter_id: str, ticket_id: str) -> bytes | None:
        # GETDEL (Redis 6.2): read and delete in one command, so one taker gets it.
        value = await self._client.getdel(ticket_key(encounter_id, ticket_id))
        return None if value is None else _bytes(value)

    # -- reading -------------------------------------------------------------------------

    async def exists(self, encounter_id: str) -> bool:
        return bool(await self._client.exists(encounter_keys(encounter_id).meta))

    async def head(self, encounter_id: str) -> Head | None:
        version, digest = await self._client.hmget(
            encounter_keys(encounter_id).meta, ["version", "hash"]
        )
        if version is None or digest is None:
            return None
        return Head(version=int(version), hash=_text(digest))

    async def meta(self, encounter_id: str) -> dict[str, str] | None:
        fields = await self._client.hgetall(encounter_keys(encounter_id).meta)
        if not fields:
            return None
        return {_text(name): _text(value) for name, value in fields.items()}

    async def seed(self, encounter_id: str) -> bytes | None:
        value = await self._client.get(encounter_keys(encounter_id).seed)
        return None if value is None else _bytes(value)

    async def read(
        self,
        encounter_id: str,
        after: int = 0,
        limit: int | None = None,
        up_to: int | None = None,
    ) -> list[StoredEvent]:
        key = encounter_keys(encounter_id).events
        checks.check_read(after, limit)
        if limit == 0 or (up_to is not None and up_to <= after):
            return []
        upper = "+" if up_to is None else stream_id(up_to)
        entries = await self._client.xrange(key, stream_id(after + 1), upper, count=limit)
        return [
            event_from_entry(entry_id, fields)
            for entry_id, fields in entries or []
            if entry_id is not None and fields is not None
        ]

    async def command_outcome(
        self, encounter_id: str, command_id: str
    ) -> tuple[int, int, str] | None:
        record = await self._client.hget(encounter_keys(encounter_id).cmds, command_id)
        if record is None:
            return None
        first, last, fingerprint = _text(record).split(":", 2)
        return int(first), int(last), fingerprint

    async def load_snapshot(self, encounter_id: str) -> tuple[int, bytes] | None:
        value = await self._client.get(encounter_keys(encounter_id).snap)
        if value is None:
            return None
        version, _, payload = _bytes(value).partition(b":")
        return int(version), payload

    async def load_audit(self, encounter_id: str) -> tuple[int, bytes] | None:
        value = await self._client.get(encounter_keys(encounter_id).audit)
        if value is None:
            return None
        version, _, payload = _bytes(value).partition(b":")
        return int(version), payload

    async def tenant_encounters(self, tenant: str | None) -> list[str]:
        return await self._index.members(tenant)

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
        return await self._index.page(tenant, count, after, newest, oldest)

    async def pending_deadlines(self, encounter_id: str) -> list[Deadline]:
        return await self._outbox(encounter_id, "+inf", -1)

    async def due_deadlines(self, now: float, limit: int = 100) -> list[tuple[str, Deadline]]:
        if limit <= 0:
            return []
        now_text = score_text(now)
        # The global index holds each encounter's earliest due time, so the first `limit`
        # encounters in it hold the first `limit` due deadlines.
        index: list[Any] = await self._client.zrangebyscore(
            DEADLINE_INDEX, "-inf", now_text, start=0, num=limit
        )
        found: list[tuple[str, Deadline]] = []
        for member in index:
            encounter_id = _text(member)
            # Encounter outboxes live in different cluster slots, so one read each.
            due = await self._outbox(encounter_id, now_text, limit)
            if not due and self._cluster:
                await self.sync_deadline_index(encounter_id)  # the entry trailed its outbox
            for deadline in due:
                found.append((encounter_id, deadline))
        found.sort(key=lambda item: (item[1].due, item[0], item[1].key))
        return found[:limit]

    async def _outbox(self, encounter_id: str, max_due: str, limit: int) -> list[Deadline]:
        keys = encounter_keys(encounter_id)
        flat = await self._outbox_range(keys=[keys.outbox, keys.outbox_data], args=[max_due, limit])
        return [
            Deadline(key=_text(flat[i]), due=float(flat[i + 1]), payload=_bytes(flat[i + 2]))
            for i in range(0, len(flat), 3)
        ]


def _status(reply: Any) -> str:
    return _text(reply[0])


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _bytes(value: bytes | str) -> bytes:
    return value.encode() if isinstance(value, str) else value
