"""A Redis Cluster master killed under load: its replica takes over; how many acknowledged
commands are lost (`make chaos`; not in the suite: a run takes about a minute). And a live
subscriber of that master's encounter: interrupted, it resumes on the promoted replica.

Two `fray serve` processes on a six-node cluster (FRAY_REDIS_CLUSTER), 20 encounters, one
client each sending rolls (alternating between the two processes) and retrying with the
same `command_id` until acknowledged, as docs/api.md tells clients to. After LOAD_BEFORE
seconds the master serving the first encounter is killed with SIGKILL; its replica is
promoted after cluster-node-timeout (1 s here); the load goes on for LOAD_AFTER seconds.
Then every acknowledged command is looked for in its stream at the version it was
acknowledged with.

With FRAY_REDIS_WAIT_REPLICAS=1 each append is answered only once a replica has it, so the
promoted replica has every acknowledged command: none may be lost. Without it an append is
answered once its master has it, and what the master had not yet sent its replica when it
died is lost: the figure is printed (docs/benchmarks.md, "Redis Cluster"), and the streams
must still be whole (no command twice, versions and hash chain unbroken).
"""

from __future__ import annotations

import asyncio
import itertools
import os
import statistics
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import httpx
import orjson
import pytest
import redis

from service.domain.ids import stream_id
from service.embedded_cluster import RedisClusterServers
from service.embedded_redis import RedisServer
from service.store.clients import redis_client
from service.store.cluster_hub import ClusterStreamHub
from service.store.errors import StoreUnavailable, SubscriptionFailed
from service.store.events import event_from_entry
from service.store.keys import events_key
from service.store.redis_store import EventStore
from tests.e2e.helpers import _serving
from tests.e2e.test_kills import Acknowledged, Client, fight
from tests.store.helpers import event, events

pytestmark = [pytest.mark.chaos, pytest.mark.cluster, pytest.mark.anyio]

ENCOUNTERS = 20
LOAD_BEFORE = float(os.environ.get("FRAY_CHAOS_BEFORE", "5"))
LOAD_AFTER = float(os.environ.get("FRAY_CHAOS_AFTER", "8"))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@contextmanager
def deployment(wait: str) -> Iterator[tuple[RedisClusterServers, list[str]]]:
    with ExitStack() as stack:
        cluster = stack.enter_context(RedisClusterServers())
        queue = stack.enter_context(RedisServer())
        env = {
            "FRAY_REDIS_CLUSTER": "true",
            "FRAY_QUEUE_REDIS_URL": queue.url,
            "FRAY_RATE_LIMIT": "100000",
            "FRAY_REDIS_WAIT_REPLICAS": wait,
        }
        started = stack.enter_context(_serving(cluster.url, 2, env))
        try:
            yield cluster, [url for _, _, url in started]
        finally:
            for _, log, url in started:
                log.seek(0)
                tail = log.read()[-6000:].decode(errors="replace")
                sys.stdout.write(f"--- fray serve {url} log (tail) ---\n{tail}\n")


async def stream(url: str, encounter_id: str) -> list[dict[str, Any]]:
    client = redis_client(url, cluster=True)
    try:
        entries = await client.xrange(events_key(stream_id("acme", encounter_id)))
    finally:
        await client.aclose()
    out = []
    for entry_id, fields in entries:
        stored = event_from_entry(entry_id, fields)
        out.append({**orjson.loads(stored.body), "version": stored.version, "hash": stored.hash})
    return out


def master_of(
    cluster: RedisClusterServers, encounter_id: str, tenant: str | None = "acme"
) -> RedisServer:
    stored = encounter_id if tenant is None else stream_id(tenant, encounter_id)
    key = events_key(stored)
    client = redis.RedisCluster.from_url(cluster.url)
    try:
        node = client.get_node_from_key(key)
    finally:
        client.close()
    return next(n for n in cluster.nodes if n.port == node.port)


@pytest.mark.parametrize("wait", ["0", "1"], ids=["no-wait", "wait-1-replica"])
async def test_a_master_killed_under_load(wait: str) -> None:
    with deployment(wait) as (cluster, urls):
        async with httpx.AsyncClient(timeout=30) as http:
            clients = [Client(http, urls[n % 2]) for n in range(ENCOUNTERS)]
            encounters = [await fight(c) for c in clients]
            acknowledged: dict[str, list[Acknowledged]] = {e: [] for e in encounters}
            latencies: list[float] = []
            killed_at: list[float] = []
            stop = asyncio.Event()

            async def roller(client: Client, encounter_id: str) -> None:
                while not stop.is_set():
                    command = {"type": "roll", "expression": "1d20", "purpose": "chaos"}
                    started = time.perf_counter()
                    acknowledged[encounter_id].append(
                        await client.send(encounter_id, {"command": command})
                    )
                    if not killed_at:
                        latencies.append(time.perf_counter() - started)

            victim = master_of(cluster, encounters[0])

            async def killer() -> None:
                await asyncio.sleep(LOAD_BEFORE)
                killed_at.append(time.monotonic())
                assert victim.process is not None
                victim.process.kill()  # SIGKILL
                await asyncio.sleep(LOAD_AFTER)
                stop.set()

            started = time.monotonic()
            await asyncio.gather(
                killer(), *(roller(c, e) for c, e in zip(clients, encounters, strict=True))
            )
            elapsed = time.monotonic() - started
        # Read through a node still up (the one the URL names may be the one killed).
        alive = next(n for n in cluster.nodes if n is not victim)
        histories = {e: await stream(alive.url, e) for e in encounters}

    total = sum(len(a) for a in acknowledged.values())
    retries = sum(c.retries for c in clients)
    lost: list[str] = []
    for encounter_id, acks in acknowledged.items():
        envelopes = histories[encounter_id]
        rolled = Counter(e["command_id"] for e in envelopes if e["type"] == "dice-rolled")
        assert [c for c, n in rolled.items() if n > 1] == [], "a command applied twice"
        at = {e["command_id"]: e["version"] for e in envelopes}
        lost += [a.command_id for a in acks if at.get(a.command_id) != a.version]
        assert [e["version"] for e in envelopes] == list(range(1, len(envelopes) + 1))
        for previous, envelope in itertools.pairwise(envelopes):
            assert envelope["prev_hash"] == previous["hash"]
    assert retries > 0, "the kill caught no command in flight: the run proved nothing"
    sys.stdout.write(
        f"\nFRAY_REDIS_WAIT_REPLICAS={wait}: {total} commands acknowledged in {elapsed:.1f} s "
        f"({total / elapsed:.0f}/s) by {ENCOUNTERS} clients, {retries} retries; "
        f"lost {len(lost)}; before the kill, median {statistics.median(latencies) * 1000:.1f} ms "
        f"per command\n"
    )
    if wait == "1":
        assert lost == [], f"acknowledged, then lost: {lost}"


async def test_a_subscriber_of_a_killed_master_is_interrupted_and_resumes_on_its_replica() -> None:
    with RedisClusterServers() as cluster:
        encounter_id = f"live-{uuid.uuid4().hex[:10]}"
        victim = master_of(cluster, encounter_id, tenant=None)
        alive = next(n for n in cluster.nodes if n is not victim).url
        client = redis_client(alive, cluster=True)
        store = EventStore(client)
        try:
            await store.create(encounter_id, event(1), seed=b"s")
            await store.append(encounter_id, 1, "c1", "fp", events(2, 2))
            async with ClusterStreamHub(alive) as hub:
                async with hub.subscribe(encounter_id, 0) as sub:
                    assert [(await anext(sub)).version for _ in range(3)] == [1, 2, 3]
                    assert victim.process is not None
                    victim.process.kill()  # SIGKILL: its feed's connection drops
                    with pytest.raises(SubscriptionFailed) as failed:
                        await asyncio.wait_for(anext(sub), 30)
                assert failed.value.last_version == 3
                # Resubscribed from there, it is served by the promoted replica.
                resumed = await asyncio.wait_for(_resume(hub, store, encounter_id), 60)
                assert resumed == [4]
        finally:
            await client.aclose()


async def _resume(hub: ClusterStreamHub, store: EventStore, encounter_id: str) -> list[int]:
    """Resubscribe after version 3 until a master serves the slot again, append version 4
    (retrying, with its command id, while the failover lasts) and take it."""
    while True:
        try:
            async with hub.subscribe(encounter_id, 3) as sub:
                while True:
                    try:
                        await store.append(encounter_id, 3, "c4", "fp", events(4, 1))
                        break
                    except StoreUnavailable:
                        await asyncio.sleep(0.2)
                return [(await asyncio.wait_for(anext(sub), 10)).version]
        except SubscriptionFailed:
            await asyncio.sleep(0.2)
