"""Live subscriptions on a Redis Cluster: one sharded pub/sub connection per master, each
append announced on its encounter's shard channel (`service.store.cluster_hub`)."""

from __future__ import annotations

import asyncio
import uuid

import pytest
import redis

from service.store import StoredEvent, Subscription
from service.store.cluster_hub import ClusterStreamHub
from service.store.keys import encounter_keys, live_channel
from service.store.redis_store import EventStore
from tests.cluster.conftest import cluster_store
from tests.store.helpers import event, events

pytestmark = pytest.mark.cluster

PATIENCE = 5.0  # seconds; a missed announcement would leave a subscriber waiting for ever


async def _take(sub: Subscription, count: int) -> list[StoredEvent]:
    async def take() -> list[StoredEvent]:
        return [await anext(sub) for _ in range(count)]

    return await asyncio.wait_for(take(), PATIENCE)


async def _new(store: EventStore, encounter_id: str, count: int) -> None:
    await store.create(encounter_id, event(1), seed=b"s")
    if count > 1:
        await store.append(encounter_id, 1, "fill", "fp", events(2, count - 1))


async def _on_every_master(client: redis.asyncio.Redis, prefix: str) -> list[str]:
    """Encounter ids, one served by each master."""
    await client.initialize()
    by_node: dict[str, str] = {}
    while len(by_node) < 3:
        candidate = f"{prefix}-{uuid.uuid4().hex[:8]}"
        node = client.get_node_from_key(encounter_keys(candidate).events)  # type: ignore[attr-defined]
        by_node.setdefault(node.name, candidate)
    return list(by_node.values())


def test_subscribers_on_every_master_get_history_then_new_events(
    redis_cluster_url: str, encounter_id: str
) -> None:
    async def main() -> None:
        async with cluster_store(redis_cluster_url) as (store, client):
            ids = await _on_every_master(client, encounter_id)
            for one in ids:
                await _new(store, one, 3)
            async with ClusterStreamHub(redis_cluster_url) as hub:
                subs = [hub.subscribe(one, 1) for one in ids]
                for sub in subs:
                    await sub.__aenter__()
                for sub in subs:
                    assert [e.version for e in await _take(sub, 2)] == [2, 3]
                for one in ids:
                    await store.append(one, 3, "next", "fp", events(4, 2))
                for sub in subs:
                    assert [e.version for e in await _take(sub, 2)] == [4, 5]
                assert hub.subscriber_count == 3
                for sub in subs:
                    sub.close()
                assert hub.subscriber_count == 0

    asyncio.run(main())


def test_a_late_subscriber_reads_history_without_repeats_for_the_first(
    redis_cluster_url: str, encounter_id: str
) -> None:
    async def main() -> None:
        async with cluster_store(redis_cluster_url) as (store, _):
            await _new(store, encounter_id, 2)
            async with (
                ClusterStreamHub(redis_cluster_url, batch=2) as hub,
                hub.subscribe(encounter_id, 2) as early,
            ):
                await store.append(encounter_id, 2, "a", "fp", events(3, 1))
                assert [e.version for e in await _take(early, 1)] == [3]
                async with hub.subscribe(encounter_id, 0) as late:
                    assert [e.version for e in await _take(late, 3)] == [1, 2, 3]
                    await store.append(encounter_id, 3, "b", "fp", events(4, 3))
                    assert [e.version for e in await _take(late, 3)] == [4, 5, 6]
                    assert [e.version for e in await _take(early, 3)] == [4, 5, 6]
                    assert early._queue.empty() and late._queue.empty()

    asyncio.run(main())


def test_the_last_subscriber_leaving_unfollows_the_channel(
    redis_cluster_url: str, encounter_id: str
) -> None:
    async def main() -> None:
        async with cluster_store(redis_cluster_url) as (store, client):
            await _new(store, encounter_id, 1)
            node = client.get_node_from_key(encounter_keys(encounter_id).events)  # type: ignore[attr-defined]
            master = redis.asyncio.Redis(host=node.host, port=node.port)
            channel = live_channel(encounter_id)

            async def followers() -> int:
                reply = await master.execute_command("PUBSUB", "SHARDNUMSUB", channel)
                return int(reply[1])

            async def until(count: int) -> None:
                while await followers() != count:
                    await asyncio.sleep(0.01)

            try:
                async with ClusterStreamHub(redis_cluster_url) as hub:
                    async with hub.subscribe(encounter_id, 0) as sub:
                        await _take(sub, 1)
                        await asyncio.wait_for(until(1), PATIENCE)
                    await asyncio.wait_for(until(0), PATIENCE)
            finally:
                await master.aclose()

    asyncio.run(main())
