"""The Redis store's tenant index: its keys, and how each way it can fall behind its
encounters is repaired (a missed write, an expired encounter, encounters stored before the
index existed)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable

import pytest
import redis.asyncio

from service.store import EncounterExists, EventStore
from service.store.keys import encounter_keys, hash_tag, tenant_backfilled, tenant_index
from service.store.listing import GHOST_GRACE_MS, INDEX_LAG_MS, millis
from service.store.scripts import DROP_GONE
from tests.store.helpers import event

Run = Callable[..., None]


def tenant() -> str:
    return f"t-{uuid.uuid4().hex[:8]}"


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


async def scores(client: redis.asyncio.Redis, t: str | None) -> dict[str, int]:
    entries = await client.zrange(tenant_index(t), 0, -1, withscores=True)
    return {member.decode(): int(score) for member, score in entries}


async def updated(store: EventStore, stored: str) -> int:
    return millis((await store.meta(stored) or {})["updated"])


def test_a_tenants_index_is_on_the_tenants_own_slot(run_redis: Run) -> None:
    t = tenant()

    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        await store.create(f"{t}/a", event(1), seed=b"s")
        assert hash_tag(tenant_index(t)) == t
        assert hash_tag(tenant_backfilled(t)) == t
        assert hash_tag(encounter_keys(f"{t}/a").meta) == f"{t}/a"
        assert await scores(client, t) == {f"{t}/a": await updated(store, f"{t}/a")}

    run_redis(scenario)


def test_a_missed_index_write_is_repaired_by_the_next_page(run_redis: Run) -> None:
    t = tenant()
    clock = Clock(time.time())

    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        for name in ("a", "b"):
            await store.create(f"{t}/{name}", event(1), seed=b"s")
            clock.now += 1
        await store.append(f"{t}/a", 1, "c", "fp", [event(2)])
        # As if the process died between the append and its index write.
        await client.zadd(tenant_index(t), {f"{t}/a": 1})
        page = await store.tenant_page(t, count=10)
        assert [listed.encounter_id for listed in page.listed] == [f"{t}/b", f"{t}/a"]
        assert page.listed[1].meta["version"] == "2"
        assert (await scores(client, t))[f"{t}/a"] == await updated(store, f"{t}/a")
        page = await store.tenant_page(t, count=10)
        assert [listed.encounter_id for listed in page.listed] == [f"{t}/a", f"{t}/b"]

    run_redis(scenario, clock=clock)


def test_a_missed_index_write_is_repaired_by_the_next_append_past_the_lag(
    run_redis: Run,
) -> None:
    t = tenant()
    clock = Clock(time.time())

    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        await store.create(f"{t}/a", event(1), seed=b"s")
        await client.zrem(tenant_index(t), f"{t}/a")
        clock.now += INDEX_LAG_MS / 1000
        await store.append(f"{t}/a", 1, "c", "fp", [event(2)])
        assert await scores(client, t) == {f"{t}/a": await updated(store, f"{t}/a")}

    run_redis(scenario, clock=clock)


def test_a_burst_of_appends_writes_the_index_once_a_second(run_redis: Run) -> None:
    t = tenant()
    clock = Clock(time.time())

    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        await store.create(f"{t}/a", event(1), seed=b"s")
        created = await updated(store, f"{t}/a")
        for version in range(2, 11):  # nine commands within the second
            clock.now += 0.1
            await store.append(f"{t}/a", version - 1, f"c{version}", "fp", [event(version)])
        assert await scores(client, t) == {f"{t}/a": created}
        assert await updated(store, f"{t}/a") == created + 900
        clock.now += 0.1  # a second after the last index write
        await store.append(f"{t}/a", 10, "c11", "fp", [event(11)])
        assert await scores(client, t) == {f"{t}/a": created + 1000}
        clock.now += 0.1  # a change of status is written at once
        await store.append(f"{t}/a", 11, "c12", "fp", [event(12)], status="ended")
        assert await scores(client, t) == {f"{t}/a": created + 1100}

    run_redis(scenario, clock=clock)


def test_creating_a_taken_id_leaves_its_entry_as_it_was(run_redis: Run) -> None:
    t = tenant()
    clock = Clock(time.time())

    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        await store.create(f"{t}/a", event(1), seed=b"s")
        before = await scores(client, t)
        clock.now += 5
        with pytest.raises(EncounterExists):
            await store.create(f"{t}/a", event(1), seed=b"s")
        assert await scores(client, t) == before

    run_redis(scenario, clock=clock)


def test_an_entry_whose_encounter_is_gone_is_dropped_once_past_the_grace(run_redis: Run) -> None:
    t = tenant()
    clock = Clock(time.time() - 3600)

    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        for name in ("old", "kept"):
            await store.create(f"{t}/{name}", event(1), seed=b"s")
        clock.now = time.time()
        await store.create(f"{t}/young", event(1), seed=b"s")
        # Expired (or a create that died after entering it): its keys are gone.
        for name in ("old", "young"):
            await client.delete(*encounter_keys(f"{t}/{name}").all())
        page = await store.tenant_page(t, count=10)
        assert [listed.encounter_id for listed in page.listed] == [f"{t}/kept"]
        assert page.last is None
        # The young entry may be a create under way: kept until it is past the grace.
        assert set(await scores(client, t)) == {f"{t}/kept", f"{t}/young"}
        assert await store.tenant_encounters(t) == [f"{t}/kept"]
        clock.now += GHOST_GRACE_MS / 1000 + 1
        await store.tenant_page(t, count=10)
        assert set(await scores(client, t)) == {f"{t}/kept"}

    run_redis(scenario, clock=clock)


def test_an_entry_written_again_since_it_was_read_is_not_dropped(run_redis: Run) -> None:
    t = tenant()

    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        drop = client.register_script(DROP_GONE)
        await client.zadd(tenant_index(t), {f"{t}/a": 5})
        assert await drop(keys=[tenant_index(t)], args=[f"{t}/a", 4]) == 0
        assert await scores(client, t) == {f"{t}/a": 5}
        assert await drop(keys=[tenant_index(t)], args=[f"{t}/a", 5]) == 1
        assert await scores(client, t) == {}

    run_redis(scenario)


def test_encounters_stored_before_the_index_are_entered_once(run_redis: Run) -> None:
    t = tenant()

    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        for name in ("a", "b"):
            await store.create(f"{t}/{name}", event(1), seed=b"s", meta={"ruleset": "freeform"})
        created = {name: await updated(store, f"{t}/{name}") for name in ("a", "b")}
        # As a store before the index left them: no entry, no updated, no status.
        await client.delete(tenant_index(t), tenant_backfilled(t))
        for name in ("a", "b"):
            await client.hdel(encounter_keys(f"{t}/{name}").meta, "updated", "status")
        await client.hset(encounter_keys(f"{t}/b").meta, "created", str(1 + time.time()))

        upgraded = EventStore(client)  # a process of the new Fray
        assert await upgraded.tenant_encounters(t) == [f"{t}/a", f"{t}/b"]
        assert await client.get(tenant_backfilled(t)) == b"1"
        page = await upgraded.tenant_page(t, count=10)
        assert [listed.encounter_id for listed in page.listed] == [f"{t}/b", f"{t}/a"]
        assert (await scores(client, t))[f"{t}/a"] == created["a"]
        # Once entered, the marker stands: another process does not scan again.
        await client.delete(tenant_index(t))
        assert await EventStore(client).tenant_encounters(t) == []
        # Deleting the marker is the repair of an index lost by hand.
        await client.delete(tenant_backfilled(t))
        assert await EventStore(client).tenant_encounters(t) == [f"{t}/a", f"{t}/b"]

    run_redis(scenario)
