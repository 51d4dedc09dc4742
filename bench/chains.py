"""The worker benchmark, chained clocks: turns that time out one after another.

Target (issue 21, item 4): lateness p99 <= 0.5 s for every clock, the first (started by a
client's command through the API's engine) and the chained ones (started by the worker's
own expiry: the timeout ends the turn and starts the next turn's clock).

What runs: the suite's own redis-server and `fray worker` processes, as in `bench.workers`.
The encounters are freeform fights of two combatants with `turn_time_limit` (2 s, the
issue's) and `on_turn_timeout: end-turn`, set up through an engine with the API's
dispatcher and started evenly over `band` seconds. Nobody sends anything after the start:
each timeout ends the turn and starts the next clock, and `idle_timeouts` stops each
fight after `clocks` timeouts (the clocks pause). Lateness = the `clock-expired` event's
time minus its clock's deadline, per clock; generation 1 is the first clock, the others
are chained.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from dataclasses import dataclass
from typing import Any

import orjson
import redis.asyncio as aioredis

from bench.fleet import start_worker, stop_workers, wait_for_firings
from bench.report import Row, progress, verdict
from service.deciding import CommandRequest
from service.dispatch import Dispatcher
from service.domain.context import GM
from service.domain.timefmt import parse_iso
from service.embedded_redis import RedisServer
from service.engine import Engine
from service.store.redis_store import EventStore
from tests.engine_helpers import COMBATANTS

TARGET_P99 = 0.5  # seconds, every clock


@dataclass
class Settings:
    encounters: int = 200
    limit: float = 2.0  # seconds per turn
    clocks: int = 4  # per encounter: the first and three chained
    band: float = 3.0  # seconds over which the encounters are started


def measure(settings: Settings, workers: int) -> list[Row]:
    """Run the chains with `workers` worker processes; one row for first clocks, one for
    chained ones."""
    with RedisServer() as server:
        progress(
            f"workers: {workers} worker(s), {settings.encounters} chains of "
            f"{settings.clocks} clocks of {settings.limit:g} s"
        )
        processes = [start_worker(server.url, n) for n in range(workers)]
        try:
            asyncio.run(_set_up(server.url, settings))
            deadline = time.time() + settings.band + settings.clocks * settings.limit + 300
            wait_for_firings(server.url, settings.encounters * settings.clocks, deadline)
        finally:
            stop_workers(processes)
        first, chained = asyncio.run(_lateness(server.url, settings))
    plural = "s" if workers > 1 else ""
    return [
        _row(f"first clocks (started by a command), {workers} worker{plural}", first, workers),
        _row(f"chained clocks (started by the worker's expiry), {workers} worker{plural}",
             chained, workers),
    ]  # fmt: skip


def _row(what: str, lateness: list[float], workers: int) -> Row:
    ordered = sorted(lateness)
    p50 = statistics.median(ordered)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    name = f"deadline lateness, {len(ordered):,} {what}, 2 s turns timing out in a row"
    measured = f"p50 {p50:.3f} s, p99 {p99:.3f} s (max {ordered[-1]:.3f} s)"
    if workers == 1:
        return Row(name, measured, f"p99 ≤ {TARGET_P99:g} s", verdict(p99 <= TARGET_P99))
    return Row(name, measured)


def options(settings: Settings) -> dict[str, Any]:
    return {
        "turn_time_limit": settings.limit,
        "on_turn_timeout": "end-turn",
        "idle_timeouts": settings.clocks,
    }


def names(settings: Settings) -> list[str]:
    return [f"chain-{n:05d}" for n in range(settings.encounters)]


async def _set_up(url: str, settings: Settings) -> None:
    client = aioredis.Redis.from_url(url, max_connections=200)
    dispatcher = Dispatcher(url)
    engine = Engine(EventStore(client), on_deadlines=dispatcher.schedule)
    try:
        await asyncio.gather(*(_prepare(engine, name, settings) for name in names(settings)))
        first = time.time() + 0.5
        step = settings.band / settings.encounters

        async def start(index: int, name: str) -> None:
            await asyncio.sleep(max(0.0, first + index * step - time.time()))
            command = CommandRequest(command={"type": "start-encounter"})
            await engine.execute(name, command, GM)

        await asyncio.gather(*(start(n, name) for n, name in enumerate(names(settings))))
    finally:
        dispatcher.close()
        await client.aclose()


async def _prepare(engine: Engine, name: str, settings: Settings) -> None:
    await engine.create("freeform", options(settings), encounter_id=name, actor=GM)
    for combatant in COMBATANTS:
        command = {"type": "add-combatant", **combatant}
        await engine.execute(name, CommandRequest(command=command), GM)
    await engine.execute(name, CommandRequest(command={"type": "roll-initiative"}), GM)


async def _lateness(url: str, settings: Settings) -> tuple[list[float], list[float]]:
    """Lateness of the first clocks and of the chained ones, `settings.clocks` per fight."""
    client = aioredis.Redis.from_url(url)
    store = EventStore(client)
    first: list[float] = []
    chained: list[float] = []
    try:
        for name in names(settings):
            events = [orjson.loads(e.body) for e in await store.read(name)]
            due = {
                e["data"]["generation"]: parse_iso(e["data"]["deadline"]).timestamp()
                for e in events
                if e["type"] == "clock-started"
            }
            expired = [e for e in events if e["type"] == "clock-expired"][: settings.clocks]
            if len(expired) < settings.clocks:
                raise RuntimeError(f"{name}: {len(expired)} expiries")
            for event in expired:
                generation = event["data"]["generation"]
                late = parse_iso(event["at"]).timestamp() - due[generation]
                (first if generation == 1 else chained).append(late)
    finally:
        await client.aclose()
    return first, chained
