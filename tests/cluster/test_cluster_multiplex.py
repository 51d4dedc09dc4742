"""The command path's client on a Redis Cluster: one pipelined connection per master,
each command routed by its key's slot, redirections followed; and appends that wait for a
replica (FRAY_REDIS_WAIT_REPLICAS)."""

from __future__ import annotations

import asyncio
import uuid

import pytest
import redis

from service.embedded_cluster import RedisClusterServers
from service.store import Deadline
from service.store.clients import cluster_client
from service.store.cluster_multiplex import ClusterMultiplexed
from service.store.errors import StoreUnavailable
from service.store.keys import encounter_keys
from service.store.multiplex import Multiplexed
from service.store.redis_store import EventStore
from tests.store.helpers import event, events

pytestmark = pytest.mark.cluster


def test_commands_go_to_the_master_of_their_slot(redis_cluster: RedisClusterServers) -> None:
    keys = [f"route:{{{n}}}:{uuid.uuid4().hex}" for n in range(30)]

    async def main() -> None:
        client = cluster_client(redis_cluster.url)
        path = ClusterMultiplexed(client, redis_cluster.url)
        try:
            for n, key in enumerate(keys):
                assert await path.execute("SET", key, n)
            total, _ = await path.pipeline(("INCRBY", keys[0], 5), ("EXPIRE", keys[0], 60))
            assert total == 5
            assert [int(await client.get(key)) for key in keys[1:]] == list(range(1, 30))
            assert len(path._nodes) == 3  # the keys' slots are spread over every master
        finally:
            await path.aclose()
            await client.aclose()

    asyncio.run(main())


def test_a_slot_moved_since_the_map_was_read_is_followed(
    redis_cluster: RedisClusterServers,
) -> None:
    async def main() -> None:
        client = cluster_client(redis_cluster.url)
        path = ClusterMultiplexed(client, redis_cluster.url)
        key = f"moved:{{{uuid.uuid4().hex}}}"
        try:
            assert await path.execute("SET", f"warm:{uuid.uuid4().hex}", 1)  # the map read
            slot = client.keyslot(key)
            source = client.get_node_from_key(key)
            assert source is not None
            target = next(n for n in client.get_primaries() if n.name != source.name)
            _move_empty_slot(redis_cluster, slot, source.port, target.port)
            # The map still names the old master, which answers MOVED.
            assert await path.execute("SET", key, "here") is not None
            direct = redis.Redis(port=int(target.port))
            try:
                assert direct.get(key) == b"here"
            finally:
                direct.close()
        finally:
            await path.aclose()
            await client.aclose()

    asyncio.run(main())


def _move_empty_slot(cluster: RedisClusterServers, slot: int, source: int, target: int) -> None:
    def node_id(port: int) -> str:
        client = redis.Redis(port=port)
        try:
            found = client.cluster("MYID")
            return found.decode() if isinstance(found, bytes) else str(found)
        finally:
            client.close()

    source_id, target_id = node_id(source), node_id(target)
    for port, state, other in ((target, "IMPORTING", source_id), (source, "MIGRATING", target_id)):
        client = redis.Redis(port=port)
        try:
            client.execute_command("CLUSTER", "SETSLOT", slot, state, other)  # type: ignore[no-untyped-call]
        finally:
            client.close()
    for node in cluster.nodes:
        client = redis.Redis(port=node.port)
        try:
            if node.port in (source, target):
                client.execute_command("CLUSTER", "SETSLOT", slot, "NODE", target_id)  # type: ignore[no-untyped-call]
        finally:
            client.close()


def test_an_append_waiting_for_a_replica_is_on_it_when_answered(
    redis_cluster: RedisClusterServers, encounter_id: str
) -> None:
    async def main() -> None:
        client = cluster_client(redis_cluster.url)
        path = ClusterMultiplexed(client, redis_cluster.url)
        store = EventStore(client, multiplexed=path, wait_replicas=1)  # type: ignore[arg-type]
        try:
            await store.create(encounter_id, event(1), seed=b"s")
            deadline = Deadline("turn", 40.0, b"t")
            for version in range(1, 21):
                await store.append(
                    encounter_id, version, f"c{version}", "fp", events(version + 1, 1), [deadline]
                )
                # Answered: its replica has it already (read there, not from the master).
                assert await _replica_version(client, encounter_id) == version + 1
        finally:
            await path.aclose()
            await client.aclose()

    asyncio.run(main())


async def _replica_version(client: object, encounter_id: str) -> int:
    meta = encounter_keys(encounter_id).meta
    # The slot's nodes, master first, as the client's map has them.
    master, replica = client.nodes_manager.slots_cache[client.keyslot(meta)]  # type: ignore[attr-defined]
    assert replica.name != master.name
    direct = redis.asyncio.Redis(host=replica.host, port=replica.port)
    try:
        await direct.execute_command("READONLY")
        return int(await direct.hget(meta, "version"))
    finally:
        await direct.aclose()


def test_an_append_no_replica_acknowledges_is_refused_as_unacknowledged(
    redis_url: str, encounter_id: str
) -> None:
    # The suite's standalone Redis has no replica: WAIT answers 0 after its timeout.
    async def main() -> None:
        client = redis.asyncio.Redis.from_url(redis_url)
        path = Multiplexed.from_url(redis_url)
        store = EventStore(client, multiplexed=path, wait_replicas=1)
        try:
            await store.create(encounter_id, event(1), seed=b"s")
            with pytest.raises(StoreUnavailable, match="reached 0 of 1 replicas"):
                await store.append(encounter_id, 1, "c", "fp", events(2, 1))
            # The master has it: the retry (same id) gets its outcome, and is refused the same.
            assert (await store.head(encounter_id)).version == 2  # type: ignore[union-attr]
            with pytest.raises(StoreUnavailable):
                await store.append(encounter_id, 1, "c", "fp", events(2, 1))
        finally:
            await path.aclose()
            await client.aclose()

    asyncio.run(main())
