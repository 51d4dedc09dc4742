"""The deadline index on a Redis Cluster: no script touches it (it is another slot's key);
the store syncs it after each outbox change, by the outbox's generation, and repairs it."""

from __future__ import annotations

import asyncio

import pytest

from service.store import Deadline
from service.store.keys import DEADLINE_GENS, DEADLINE_INDEX, encounter_keys
from service.store.scripts import OUTBOX_GEN
from tests.cluster.conftest import cluster_store
from tests.store.helpers import event, events, indexed

pytestmark = pytest.mark.cluster


async def _index_entry(client: object, encounter_id: str) -> float | None:
    score: float | None = await client.zscore(DEADLINE_INDEX, encounter_id)  # type: ignore[attr-defined]
    return score


def test_an_outbox_change_syncs_the_index_with_the_outbox_generation(
    redis_cluster_url: str, encounter_id: str
) -> None:
    async def main() -> None:
        async with cluster_store(redis_cluster_url) as (store, client):
            await store.create(encounter_id, event(1), seed=b"s")
            deadlines = [Deadline("b", 20.0, b"b"), Deadline("a", 10.0, b"a")]
            await store.append(encounter_id, 1, "c1", "fp", events(2, 1), deadlines)
            assert await _index_entry(client, encounter_id) == 10.0
            outbox_data = encounter_keys(encounter_id).outbox_data
            assert await client.hget(outbox_data, OUTBOX_GEN) == b"1"
            assert await client.hget(DEADLINE_GENS, encounter_id) == b"1"
            assert await store.clear_deadline(encounter_id, "a", 10.0)
            assert await _index_entry(client, encounter_id) == 20.0
            assert await client.hget(DEADLINE_GENS, encounter_id) == b"2"
            await store.append(encounter_id, 2, "c2", "fp", [], cancel=["b"])
            assert await _index_entry(client, encounter_id) is None
            assert await client.hget(DEADLINE_GENS, encounter_id) is None

    asyncio.run(main())


def test_a_sync_of_an_older_generation_does_not_undo_a_later_one(
    redis_cluster_url: str, encounter_id: str
) -> None:
    async def main() -> None:
        async with cluster_store(redis_cluster_url) as (store, client):
            await store.create(encounter_id, event(1), seed=b"s")
            await store.append(encounter_id, 1, "c1", "fp", [], [Deadline("a", 10.0, b"a")])
            await store.append(encounter_id, 1, "c2", "fp", [], [Deadline("b", 5.0, b"b")])
            # The first append's sync, arriving last (two syncs crossed): refused.
            sync = store._sync_index
            written = await sync(keys=[DEADLINE_INDEX, DEADLINE_GENS], args=[encounter_id, 1, 10.0])
            assert written == 0
            assert await _index_entry(client, encounter_id) == 5.0

    asyncio.run(main())


def test_a_missing_index_entry_is_repaired_from_the_outbox(
    redis_cluster_url: str, encounter_id: str
) -> None:
    async def main() -> None:
        async with cluster_store(redis_cluster_url) as (store, client):
            await store.create(encounter_id, event(1), seed=b"s")
            turn = Deadline("turn", 30.0, b"t")
            await store.append(encounter_id, 1, "c1", "fp", [], [turn])
            # A crash between the script and the sync: the outbox has it, the index not.
            await client.zrem(DEADLINE_INDEX, encounter_id)
            await client.hdel(DEADLINE_GENS, encounter_id)
            assert await indexed(store, encounter_id) == []
            assert await store.repair_deadline_index() >= 1
            assert await indexed(store, encounter_id) == [turn.due]

    asyncio.run(main())


def test_an_entry_earlier_than_its_outbox_is_synced_when_the_sweep_reads_it(
    redis_cluster_url: str, encounter_id: str
) -> None:
    async def main() -> None:
        async with cluster_store(redis_cluster_url) as (store, client):
            await store.create(encounter_id, event(1), seed=b"s")
            both = [Deadline("early", 100.0, b"e"), Deadline("late", 500.0, b"l")]
            await store.append(encounter_id, 1, "c1", "fp", [], both)
            # The early one cleared by its script, the sync after it lost (a crash).
            keys = encounter_keys(encounter_id)
            clear = store._clear_deadline
            assert await clear(keys=[keys.outbox, keys.outbox_data], args=["early", 100.0, "x"])
            assert await _index_entry(client, encounter_id) == 100.0
            found = await store.due_deadlines(200.0, limit=10_000)
            assert [d for eid, d in found if eid == encounter_id] == []
            assert await _index_entry(client, encounter_id) == 500.0

    asyncio.run(main())


def test_the_entry_of_an_outbox_gone_with_its_encounter_is_dropped(
    redis_cluster_url: str, encounter_id: str
) -> None:
    async def main() -> None:
        async with cluster_store(redis_cluster_url) as (store, client):
            await store.create(encounter_id, event(1), seed=b"s")
            await store.append(encounter_id, 1, "c1", "fp", [], [Deadline("turn", 50.0, b"t")])
            keys = encounter_keys(encounter_id)
            await client.delete(*keys.all())  # expired by retention, say
            assert await store.due_deadlines(100.0, limit=10_000) is not None
            assert await _index_entry(client, encounter_id) is None

    asyncio.run(main())
