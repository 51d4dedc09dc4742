"""What only the Redis store has: its keys, its global deadline index, a corrupted stream."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
import redis.asyncio

from service.embedded_redis import RedisServer
from service.store import (
    CommandIdReused,
    Deadline,
    EncounterNotFound,
    EventStore,
    InvalidArgument,
    StoreCorrupted,
    VersionConflict,
)
from service.store.keys import DEADLINE_INDEX, encounter_keys, hash_tag, ticket_key
from tests.store.conftest import RedisScenario
from tests.store.helpers import event, events

Run = Callable[[RedisScenario], None]


async def _keys_of(client: redis.asyncio.Redis, encounter_id: str) -> tuple[object, ...]:
    """Every key of the encounter, as Redis holds it, and its entry in the global index."""
    keys = encounter_keys(encounter_id)
    return (
        await client.xrange(keys.events),
        await client.hgetall(keys.meta),
        await client.hgetall(keys.cmds),
        await client.zrange(keys.outbox, 0, -1, withscores=True),
        await client.hgetall(keys.outbox_data),
        await client.get(keys.snap),
        await client.get(keys.seed),
        await client.get(keys.audit),
        await client.zscore(DEADLINE_INDEX, encounter_id),
    )


def test_every_key_of_an_encounter_carries_its_hash_tag(run_redis: Run, encounter_id: str) -> None:
    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        await store.append(
            encounter_id, 1, "cmd", "fp", [event(2)], deadlines=[Deadline("turn", 1e12, b"p")]
        )
        await store.save_snapshot(encounter_id, 2, b"snap")
        await store.save_audit(encounter_id, 2, b"verdict")
        found = {key async for key in client.scan_iter(match=f"*{encounter_id}*")}
        assert found == {key.encode() for key in encounter_keys(encounter_id).all()}
        assert all(hash_tag(key) == encounter_id for key in found)
        assert await client.zscore(DEADLINE_INDEX, encounter_id) == 1e12

    run_redis(scenario)


def test_a_stream_ticket_lives_in_its_encounters_slot_for_its_time_to_live(
    run_redis: Run, encounter_id: str
) -> None:
    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        await store.put_ticket(encounter_id, "t" * 32, b"grant", 60_000)
        key = ticket_key(encounter_id, "t" * 32)
        assert hash_tag(key) == encounter_id
        assert await client.get(key) == b"grant"
        assert 0 < await client.pttl(key) <= 60_000
        await store.take_ticket(encounter_id, "t" * 32)
        assert await client.exists(key) == 0

    run_redis(scenario)


def test_a_refused_append_to_a_missing_encounter_writes_no_key(
    run_redis: Run, encounter_id: str
) -> None:
    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        with pytest.raises(EncounterNotFound):
            await store.append(
                encounter_id, 0, "cmd", "fp", [event(1)], [Deadline("turn", 5.0, b"")]
            )
        assert await client.exists(*encounter_keys(encounter_id).all()) == 0
        assert await client.zscore(DEADLINE_INDEX, encounter_id) is None

    run_redis(scenario)


def test_refused_and_repeated_appends_leave_every_key_as_it_was(
    run_redis: Run, encounter_id: str
) -> None:
    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        await store.append(
            encounter_id, 1, "cmd", "fp", events(2, 2), [Deadline("turn", 10.0, b"p")]
        )
        before = await _keys_of(client, encounter_id)
        late = [Deadline("other", 1.0, b"")]
        with pytest.raises(VersionConflict):
            await store.append(encounter_id, 1, "late", "fp", events(2, 1), late)
        with pytest.raises(CommandIdReused):
            await store.append(encounter_id, 3, "cmd", "other", events(4, 1), late)
        again = await store.append(encounter_id, 1, "cmd", "fp", events(2, 2), late)
        assert again.duplicate
        assert await _keys_of(client, encounter_id) == before

    run_redis(scenario)


def test_the_global_index_holds_each_encounters_earliest_deadline(
    run_redis: Run, encounter_id: str
) -> None:
    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        async def indexed() -> float | None:
            return await client.zscore(DEADLINE_INDEX, encounter_id)

        await store.create(encounter_id, event(1), seed=b"s")
        pair = [Deadline("a", 1_700_000_000.123456, b""), Deadline("b", 1_700_000_007.5, b"")]
        await store.append(encounter_id, 1, "c1", "fp", [], pair)
        assert await indexed() == 1_700_000_000.123456
        await store.append(encounter_id, 1, "c2", "fp", [], [Deadline("a", 1_700_000_009.0, b"")])
        assert await indexed() == 1_700_000_007.5
        assert await store.clear_deadline(encounter_id, "b", 1_700_000_007.5)
        assert await indexed() == 1_700_000_009.0
        await store.append(encounter_id, 1, "c3", "fp", [], cancel=["a"])
        assert await indexed() is None

    run_redis(scenario)


def test_store_server_runs_the_version_it_claims(store_server: RedisServer) -> None:
    async def main() -> str:
        client = redis.asyncio.Redis.from_url(store_server.url)
        try:
            info = await client.info("server")
            return str(info["redis_version"])
        finally:
            await client.aclose()

    assert asyncio.run(main()) == store_server.version()


def test_a_stream_ahead_of_its_meta_is_refused_as_corrupt(
    run_redis: Run, encounter_id: str
) -> None:
    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        keys = encounter_keys(encounter_id)
        await store.create(encounter_id, event(1), seed=b"s")
        await client.xadd(keys.events, {"e": b"stray", "h": "x"}, id="2-0")
        with pytest.raises(StoreCorrupted) as caught:
            await store.append(encounter_id, 1, "cmd", "fp", [event(2)])
        assert (caught.value.meta_version, caught.value.stream_version) == (1, 2)
        assert await client.xlen(keys.events) == 2
        assert not await client.exists(keys.cmds)

    run_redis(scenario)


def test_snapshot_every_must_be_positive(run_redis: Run) -> None:
    async def scenario(_: EventStore, client: redis.asyncio.Redis) -> None:
        with pytest.raises(InvalidArgument):
            EventStore(client, snapshot_every=0)

    run_redis(scenario)
