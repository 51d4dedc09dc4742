"""The Redis store's per-tenant index of encounters: a sorted set per tenant.

`fray:tenant:{<tenant>}:encounters` holds each stored id of the tenant scored by its
`updated` time in milliseconds. Its hash tag is the tenant, not the encounter: under Redis
Cluster it lives on another slot than the encounter's keys, so no script of the encounter
may write it. It is written by its own commands, each at a point that errs on the safe side:

- **before a create** (`ZADD NX`): a create that then fails or dies leaves an entry with
  no encounter, never an encounter with no entry. A page drops such an entry once it is
  older than `GHOST_GRACE_MS` (younger, it may be a create under way), and only if its
  score is still the one read (`DROP_GONE`), so an id created again meanwhile stays.
- **after a create, and after an append of events** that changes the status or comes
  `INDEX_LAG_MS` (a second) or more after the entry was last written (`ZADD`, best effort;
  the append script says which, from the meta's `indexed`): a burst of commands costs one
  index write a second, not one each (a round trip more per command measured 65 µs, +65%
  of an append). The entry so trails the meta's `updated` by up to a second: pages read
  that much further back than their lower bound and bound by the meta. One missed (the
  process died, Redis went away in between) leaves the entry further behind: the next
  append past the lag writes it again, and a page that reads the entry finds the meta's
  time differs and writes that (the meta is the truth; the index only orders).
- **after an archive**, as after an append.

An encounter expires (`FRAY_RETENTION_DAYS`) with every key under its own hash tag, not its
index entry: pages drop those entries as gone. Encounters stored before the index existed
have no entry: the first page or `tenant_encounters` of a tenant in each process, unless
the tenant's `backfilled` key is set, SCANs the keyspace for the tenant's meta keys (on
every primary of a cluster), enters them (`ZADD NX`, scored by their meta) and sets it.
Deleting that key makes the next process scan again: the repair for an index lost or
damaged by hand.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

import redis.asyncio
import redis.exceptions

from service.store import checks, scripts
from service.store.errors import StoreUnavailable
from service.store.keys import encounter_keys, hash_tag, meta_pattern, tenant_backfilled
from service.store.keys import tenant_index as index_key
from service.store.listing import (
    GHOST_GRACE_MS,
    INDEX_LAG_MS,
    IndexPage,
    Listed,
    Position,
    updated_of,
    within,
)
from service.store.multiplex import CommandPath

_log = logging.getLogger("fray.store")
SCAN_BATCH = 1000


class RedisIndex:
    def __init__(
        self,
        client: redis.asyncio.Redis,
        multiplexed: CommandPath | None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._client = client
        self._multiplexed = multiplexed
        self._clock = clock
        self._drop_gone = client.register_script(scripts.DROP_GONE)
        self._backfilled: set[str | None] = set()

    def now_ms(self) -> int:
        return int(self._clock() * 1000)

    # -- writing -------------------------------------------------------------------------

    async def enter(self, encounter_id: str, updated: int) -> None:
        """Before a create: an entry for the id unless it has one."""
        await self._client.zadd(_key_of(encounter_id), {encounter_id: updated}, nx=True)

    async def touch(self, encounter_id: str, updated: int) -> None:
        """After a write: the entry at the encounter's new `updated`. Best effort: a failure
        is logged and left for the next write or page to repair."""
        key = _key_of(encounter_id)
        try:
            if self._multiplexed is not None:
                await self._multiplexed.execute("ZADD", key, updated, encounter_id)
            else:
                await self._client.zadd(key, {encounter_id: updated})
        except (StoreUnavailable, redis.exceptions.RedisError) as error:
            _log.warning("tenant index of %s not updated (repaired later): %s", encounter_id, error)

    # -- reading -------------------------------------------------------------------------

    async def members(self, tenant: str | None) -> list[str]:
        """Every stored id of the tenant whose encounter exists, sorted."""
        await self._backfill_once(tenant)
        stored: list[Any] = await self._client.zrange(index_key(tenant), 0, -1)
        members = [_text(m) for m in stored]
        async with self._client.pipeline(transaction=False) as pipe:
            for member in members:
                pipe.exists(encounter_keys(member).meta)
            alive = await pipe.execute()
        return sorted(m for m, found in zip(members, alive, strict=True) if found)

    async def page(
        self,
        tenant: str | None,
        count: int,
        after: Position | None,
        newest: int | None,
        oldest: int | None,
    ) -> IndexPage:
        await self._backfill_once(tenant)
        # An entry may trail its meta by INDEX_LAG_MS: read that much further back, and
        # bound by the meta.
        reach = None if oldest is None else max(oldest - INDEX_LAG_MS, 0)
        entries = await self._entries(index_key(tenant), count, after, newest, reach)
        async with self._client.pipeline(transaction=False) as pipe:
            for position in entries:
                pipe.hgetall(encounter_keys(position.encounter_id).meta)
            metas: list[dict[Any, Any]] = await pipe.execute()
        listed = []
        for position, fields in zip(entries, metas, strict=True):
            if not fields:
                await self._gone(tenant, position)
                continue
            meta = {_text(k): _text(v) for k, v in fields.items()}
            if updated_of(meta) != position.updated:
                await self.touch(position.encounter_id, updated_of(meta))
            if within(updated_of(meta), newest, oldest):
                listed.append(Listed(position, meta))
        last = entries[-1] if len(entries) == count else None
        return IndexPage(listed, last)

    async def _entries(
        self,
        key: str,
        count: int,
        after: Position | None,
        newest: int | None,
        oldest: int | None,
    ) -> list[Position]:
        """Up to `count` positions after `after` within the bounds, newest first."""
        if after is not None and oldest is not None and after.updated < oldest:
            return []  # the position is older than the bounds: nothing is left
        top: int | str = "+inf" if newest is None else newest
        ties: list[Position] = []
        if after is not None and (newest is None or after.updated <= newest):
            # Entries as old as the position come before it or after it by their id: read
            # them apart (few share a millisecond), then the strictly older ones.
            same: list[Any] = await self._client.zrangebyscore(key, after.updated, after.updated)
            below = (p for p in (Position(after.updated, _text(m)) for m in same) if p < after)
            ties = sorted(below, reverse=True)[:count]
            top = f"({after.updated}"
        if len(ties) == count:
            return ties
        bottom: int | str = "-inf" if oldest is None else oldest
        rest: list[Any] = await self._client.zrevrangebyscore(
            key, top, bottom, start=0, num=count - len(ties), withscores=True
        )
        return [*ties, *(Position(int(score), _text(m)) for m, score in rest)][:count]

    async def _gone(self, tenant: str | None, position: Position) -> None:
        if self.now_ms() - position.updated > GHOST_GRACE_MS:
            await self._drop_gone(
                keys=[index_key(tenant)], args=[position.encounter_id, position.updated]
            )

    # -- the encounters stored before the index ------------------------------------------

    async def _backfill_once(self, tenant: str | None) -> None:
        if tenant in self._backfilled:
            return
        if not await self._client.exists(tenant_backfilled(tenant)):
            await self._backfill(tenant)
            await self._client.set(tenant_backfilled(tenant), b"1")
        self._backfilled.add(tenant)

    async def _backfill(self, tenant: str | None) -> None:
        found: list[str] = []
        async for key in self._client.scan_iter(match=meta_pattern(tenant), count=SCAN_BATCH):
            encounter_id = hash_tag(key)
            if encounter_id is not None and checks.tenant_of(encounter_id) == tenant:
                found.append(encounter_id)
        for start in range(0, len(found), SCAN_BATCH):
            await self._enter_existing(tenant, found[start : start + SCAN_BATCH])
        if found:
            _log.info("entered %d encounters of %s in the tenant index", len(found), tenant)

    async def _enter_existing(self, tenant: str | None, ids: Sequence[str]) -> None:
        async with self._client.pipeline(transaction=False) as pipe:
            for encounter_id in ids:
                pipe.hmget(encounter_keys(encounter_id).meta, ["updated", "created"])
            times = await pipe.execute()
        scores = {
            encounter_id: updated_of(
                {"updated": _text(updated or b""), "created": _text(created or b"0")}
            )
            for encounter_id, (updated, created) in zip(ids, times, strict=True)
            if updated is not None or created is not None
        }
        if scores:
            await self._client.zadd(index_key(tenant), scores, nx=True)


def _key_of(encounter_id: str) -> str:
    return index_key(checks.tenant_of(encounter_id))


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
