"""Durability: with appendfsync always, every acknowledged append survives kill -9."""

from __future__ import annotations

import asyncio
from pathlib import Path

import redis.asyncio

from service.embedded_redis import RedisServer
from service.store import Deadline, EventStore, Head
from tests.store.helpers import event

APPENDS = 40


def test_acknowledged_events_survive_a_hard_kill(redis_binary: str, tmp_path: Path) -> None:
    server = RedisServer(binary=redis_binary, directory=str(tmp_path), appendonly=True)
    server.start()
    try:
        acknowledged = asyncio.run(_write(server.url))
        server.stop(hard=True)
        server.restart(hard=True)
        asyncio.run(_check(server.url, acknowledged))
    finally:
        server.close()


async def _write(url: str) -> list[int]:
    client = redis.asyncio.Redis.from_url(url)
    try:
        store = EventStore(client)
        await store.create("enc-durable", event(1), seed=b"seed", meta={"ruleset": "r"})
        acknowledged = [1]
        for version in range(2, APPENDS + 2):
            result = await store.append(
                "enc-durable",
                version - 1,
                f"cmd-{version}",
                "fp",
                [event(version)],
                [Deadline("turn", float(version), b"p")],
            )
            acknowledged.append(result.last_version)
        return acknowledged
    finally:
        await client.aclose()


async def _check(url: str, acknowledged: list[int]) -> None:
    client = redis.asyncio.Redis.from_url(url)
    try:
        store = EventStore(client)
        last = acknowledged[-1]
        stored = await store.read("enc-durable")
        assert [e.version for e in stored] == acknowledged == list(range(1, last + 1))
        assert stored == [event(v) for v in acknowledged]
        assert await store.head("enc-durable") == Head(version=last, hash=event(last).hash)
        assert await store.seed("enc-durable") == b"seed"
        assert await store.pending_deadlines("enc-durable") == [Deadline("turn", float(last), b"p")]
        retry = await store.append("enc-durable", 1, f"cmd-{last}", "fp", [event(2)])
        assert retry.duplicate and retry.last_version == last
    finally:
        await client.aclose()
