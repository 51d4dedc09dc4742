"""Retention: an ended or archived encounter's keys expire `retention` after its last write.

On Redis the expiry is read back with PTTL on the real server (nobody waits for days); the
memory store is driven by its clock.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable

import redis.asyncio

from service.store import Deadline, EventStore, MemoryStore
from service.store.keys import DEADLINE_INDEX, encounter_keys, tenant_index
from tests.store.helpers import event

Run = Callable[..., None]
DAY = 86_400
RETENTION = 30 * DAY


async def ttls(client: redis.asyncio.Redis, stored: str) -> dict[str, int]:
    """PTTL of each key of the encounter that exists (ms; -1: no expiry)."""
    found = {}
    for key in encounter_keys(stored).all():
        ttl = await client.pttl(key)
        if ttl != -2:
            found[key.rsplit(":", 1)[1]] = ttl
    return found


def expiring(found: dict[str, int]) -> bool:
    return bool(found) and all(0 < ttl <= RETENTION * 1000 for ttl in found.values())


def test_an_active_encounter_never_expires(run_redis: Run, encounter_id: str) -> None:
    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        await store.append(encounter_id, 1, "c", "fp", [event(2)], status="active")
        await store.save_snapshot(encounter_id, 2, b"snap")
        found = await ttls(client, encounter_id)
        assert set(found) == {"meta", "events", "cmds", "snap", "seed"}
        assert set(found.values()) == {-1}

    run_redis(scenario, retention=RETENTION)


def test_the_append_that_ends_an_encounter_sets_every_key_to_expire(
    run_redis: Run, encounter_id: str
) -> None:
    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        await store.save_snapshot(encounter_id, 1, b"snap")
        await store.append(encounter_id, 1, "c", "fp", [event(2)], status="ended")
        found = await ttls(client, encounter_id)
        assert set(found) == {"meta", "events", "cmds", "snap", "seed"}
        assert expiring(found), found
        # The global indexes are not the encounter's: they never expire.
        assert await client.pttl(DEADLINE_INDEX) in (-1, -2)
        assert await client.pttl(tenant_index(None)) == -1

    run_redis(scenario, retention=RETENTION)


def test_keys_written_after_the_end_expire_with_the_rest(run_redis: Run, encounter_id: str) -> None:
    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        await store.append(encounter_id, 1, "c", "fp", [event(2)], status="ended")
        await store.save_audit(encounter_id, 2, b"verdict")  # the audit worker's
        await store.append(encounter_id, 2, "note", "fp", [event(3)], status="ended")
        found = await ttls(client, encounter_id)
        assert set(found) == {"meta", "events", "cmds", "seed", "audit"}
        assert expiring(found), found

    run_redis(scenario, retention=RETENTION)


def test_archiving_sets_every_key_to_expire(run_redis: Run, encounter_id: str) -> None:
    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        await store.append(encounter_id, 1, "c", "fp", [event(2)], status="active")
        assert set((await ttls(client, encounter_id)).values()) == {-1}
        await store.archive(encounter_id)
        assert expiring(await ttls(client, encounter_id))

    run_redis(scenario, retention=RETENTION)


def test_without_a_retention_an_ended_or_archived_encounter_is_kept(run_redis: Run) -> None:
    ended, archived = (f"enc-{uuid.uuid4().hex[:12]}" for _ in range(2))

    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        for stored in (ended, archived):
            await store.create(stored, event(1), seed=b"s")
        await store.append(ended, 1, "c", "fp", [event(2)], status="ended")
        await store.archive(archived)
        for stored in (ended, archived):
            assert set((await ttls(client, stored)).values()) == {-1}

    run_redis(scenario)


class Clock:
    def __init__(self) -> None:
        self.now = 1_767_225_600.0

    def __call__(self) -> float:
        return self.now


def test_the_memory_store_drops_an_ended_encounter_when_its_retention_runs_out() -> None:
    asyncio.run(_ended_then_dropped())


async def _ended_then_dropped() -> None:
    clock = Clock()
    store = MemoryStore(retention=10 * DAY, clock=clock)
    tenant = "acme"
    await store.create(f"{tenant}/kept", event(1), seed=b"s")
    await store.create(f"{tenant}/ended", event(1), seed=b"s")
    clock.now += DAY
    await store.append(f"{tenant}/ended", 1, "c", "fp", [event(2)], status="ended")
    clock.now += 9 * DAY
    await store.save_audit(f"{tenant}/ended", 2, b"verdict")  # a later write: ten days more
    clock.now += 9 * DAY
    assert await store.exists(f"{tenant}/ended")
    clock.now += DAY
    assert not await store.exists(f"{tenant}/ended")
    assert await store.read(f"{tenant}/ended") == []
    assert await store.tenant_encounters(tenant) == [f"{tenant}/kept"]
    page = await store.tenant_page(tenant, count=10)
    assert [listed.encounter_id for listed in page.listed] == [f"{tenant}/kept"]
    assert await store.tenant_page(tenant, count=10) == page  # its entry is dropped


def test_the_memory_store_drops_an_archived_encounter_and_its_deadlines() -> None:
    asyncio.run(_archived_then_dropped())


async def _archived_then_dropped() -> None:
    clock = Clock()
    store = MemoryStore(retention=DAY, clock=clock)
    await store.create("a", event(1), seed=b"s")
    await store.append("a", 1, "c", "fp", [event(2)], deadlines=[Deadline("turn", clock.now, b"")])
    await store.archive("a")
    assert [eid for eid, _ in await store.due_deadlines(clock.now)] == ["a"]
    clock.now += DAY
    assert await store.due_deadlines(clock.now) == []
    assert await store.meta("a") is None
