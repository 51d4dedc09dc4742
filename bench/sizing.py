"""Sizing the event store's Redis: memory and AOF bytes per encounter of N events.

For each N in SIZES, a batch of encounters of N events each is played through the engine
(the freeform skirmish of `bench/workload.py`, created for a tenant as the API creates
them) against a private redis-server with AOF on, and per encounter it reports:

- keys: `MEMORY USAGE <key> SAMPLES 0` (every element counted) summed over the encounter's
  own keys (`service.store.keys.encounter_keys`: stream, meta, command ids, snapshot, seed;
  outbox and audit verdict when they exist);
- used_memory: the growth of `INFO memory`'s used_memory over the batch, divided by the
  batch (the tenant index entry and allocator overhead included);
- AOF: the growth of `aof_current_size` over the batch (every write as logged), and after
  a BGREWRITEAOF the rewritten file's growth (what a rewrite shrinks it to).

Then each demo (`fray demo <ruleset>`) is played once, for what an event of each ruleset
costs in the keys. The store is flushed and the AOF rewritten between batches.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

import redis.asyncio

from bench.core import Outcome, build
from bench.report import Row, progress
from service.cli import DEMOS
from service.demos.runner import play
from service.embedded_redis import RedisServer
from service.engine import Engine
from service.store.keys import encounter_keys
from service.store.redis_store import EventStore

SIZES = (20, 100, 500)
TENANT = "bench"


@dataclass
class Settings:
    # Encounters per size: enough that used_memory's growth is well above its noise.
    batch: dict[int, int] = field(default_factory=lambda: {20: 200, 100: 100, 500: 20})

    @classmethod
    def quick(cls) -> Settings:
        return cls(batch={20: 20, 100: 10, 500: 3})


@dataclass
class Batch:
    events: float  # mean events per encounter
    keys: float  # bytes: MEMORY USAGE summed over an encounter's keys
    stream: float  # bytes: of that, the stream's
    used_memory: float  # bytes: INFO used_memory growth per encounter
    aof: float  # bytes: AOF growth per encounter, as logged
    rewritten: float  # bytes: AOF growth per encounter after BGREWRITEAOF


def run(settings: Settings) -> Outcome:
    outcome = Outcome()
    server = RedisServer(appendonly=True).start()
    try:
        progress(f"redis-server {server.version()} on {server.url}, AOF on")
        outcome.environment.append(f"redis-server {server.version()} ({server.binary})")
        asyncio.run(_measure(server.url, settings, outcome))
    finally:
        server.close()
    return outcome


async def _measure(url: str, settings: Settings, outcome: Outcome) -> None:
    client = redis.asyncio.Redis.from_url(url)
    try:
        # As deploy/compose.yaml runs the store (the AOF's size does not depend on it).
        await client.config_set("appendfsync", "everysec")
        for size in SIZES:
            batch = await _batch(client, size, settings.batch[size])
            outcome.rows.append(_row(size, settings.batch[size], batch))
        for name in DEMOS:
            outcome.rows.append(await _demo(client, name))
    finally:
        await client.aclose()


async def _batch(client: redis.asyncio.Redis, size: int, count: int) -> Batch:
    await _fresh(client)
    engine = Engine(EventStore(client))
    # One encounter first, so what is paid once (scripts, the tenant index) is not counted.
    await build(engine, size, tenant=TENANT)
    memory_before, aof_before = await _used_memory(client), await _aof_size(client)
    started = time.perf_counter()
    ids = [await build(engine, size, tenant=TENANT) for _ in range(count)]
    memory_after, aof_after = await _used_memory(client), await _aof_size(client)
    progress(f"{count} encounters of {size} events in {time.perf_counter() - started:.1f}s")
    base = await _rewrite(client, count + 1)
    sizes = [await _keys(client, encounter_id) for encounter_id in ids]
    return Batch(
        events=sum(events for events, _, _ in sizes) / count,
        keys=sum(total for _, total, _ in sizes) / count,
        stream=sum(stream for _, _, stream in sizes) / count,
        used_memory=(memory_after - memory_before) / count,
        aof=(aof_after - aof_before) / count,
        rewritten=base,
    )


async def _demo(client: redis.asyncio.Redis, name: str) -> Row:
    await _fresh(client)
    played = await play(Engine(EventStore(client)), DEMOS[name])
    events, total, stream = await _keys(client, played.encounter_id)
    return Row(
        f"demo {name}: {events} events",
        f"{total / 1024:.1f} KiB in its keys; {total / events:,.0f} B per event",
        notes=f"stream {stream / events:,.0f} B per event",
    )


async def _keys(client: redis.asyncio.Redis, encounter_id: str) -> tuple[int, int, int]:
    """The encounter's events, and the bytes of its keys and of its stream alone."""
    keys = encounter_keys(encounter_id)
    total = 0
    for key in keys.all():
        total += await client.memory_usage(key, samples=0) or 0
    stream = await client.memory_usage(keys.events, samples=0) or 0
    return await client.xlen(keys.events), total, stream


async def _fresh(client: redis.asyncio.Redis) -> None:
    await client.flushall()
    await _rewrite(client, 1)


async def _rewrite(client: redis.asyncio.Redis, encounters: int) -> float:
    """BGREWRITEAOF, waited for; the rewritten AOF's size per encounter stored."""
    await client.bgrewriteaof()
    while True:
        info = await client.info("persistence")
        if not (info["aof_rewrite_in_progress"] or info["aof_rewrite_scheduled"]):
            break
        await asyncio.sleep(0.05)
    return int(info["aof_current_size"]) / encounters


async def _used_memory(client: redis.asyncio.Redis) -> int:
    return int((await client.info("memory"))["used_memory"])


async def _aof_size(client: redis.asyncio.Redis) -> int:
    return int((await client.info("persistence"))["aof_current_size"])


def _row(size: int, count: int, batch: Batch) -> Row:
    def kib(value: float) -> str:
        return f"{value / 1024:.1f} KiB"

    return Row(
        f"an encounter of {size} events ({count} of them; {batch.events:.0f} events each)",
        f"{kib(batch.keys)} in its keys; used_memory +{kib(batch.used_memory)}",
        notes=(
            f"stream {kib(batch.stream)}; {batch.keys / batch.events:,.0f} B per event; "
            f"AOF +{kib(batch.aof)} as written, {kib(batch.rewritten)} rewritten"
        ),
    )
