"""The worker benchmark: lateness of deadlines that fall due together.

Target (the workers issue, item 7): 1,000 encounters with clocks expiring within the same
few seconds, p99 lateness from the deadline to the resulting event <= 1.5 s with one
worker; also measured with two.

What runs: the suite's own redis-server (events and jobs on one server, the default
deployment); `fray worker` processes, as deployed. The encounters are freeform fights with
`turn_time_limit` and `on_turn_timeout: record`, so each start-encounter starts one turn
clock and its expiry appends one `clock-expired` and nothing else. They are set up through
the engine with the API's dispatcher (each deadline scheduled as an RQ job, as `fray
serve` does), the worker(s) already running: all are created first (50 tasks), then started evenly
over `band` seconds, so their clocks fall due over those seconds. Lateness =
the `clock-expired` event's time (the engine's clock when it decided the expiry) minus the
clock's deadline.

The suite also runs `bench.chains` with the same workers: turns that time out one after
another, each clock started by the worker's own expiry of the one before.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

import orjson
import redis.asyncio as aioredis

from bench import chains
from bench.core import Outcome
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

TARGET_P99 = 1.5  # seconds, one worker


@dataclass
class Settings:
    encounters: int = 1000
    band: float = 3.0  # seconds over which the encounters are started, so their clocks fall due
    # Each clock's limit: longer than starting them all takes, so every deadline is
    # scheduled before the first falls due.
    limit: float = 6.0
    workers: tuple[int, ...] = (1, 2)
    chains: chains.Settings = field(default_factory=chains.Settings)

    @classmethod
    def quick(cls) -> Settings:
        return cls(encounters=200, workers=(1,), chains=chains.Settings(encounters=50))


def run(settings: Settings) -> Outcome:
    outcome = Outcome()
    for count in settings.workers:
        with RedisServer() as server:
            progress(f"workers: {count} worker(s), {settings.encounters} deadlines")
            lateness, band = _measure(server.url, settings, count)
        if count == 1:
            outcome.environment.append(f"redis-server {server.version()}")
        outcome.rows.append(_row(count, lateness, band))
        outcome.rows += chains.measure(settings.chains, count)
    return outcome


def _row(count: int, lateness: list[float], band: float) -> Row:
    ordered = sorted(lateness)
    p50 = statistics.median(ordered)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    name = (
        f"deadline lateness, {len(lateness):,} clocks due within {band:.1f} s, "
        f"{count} worker{'s' if count > 1 else ''}"
    )
    measured = f"p50 {p50:.2f} s, p99 {p99:.2f} s (max {ordered[-1]:.2f} s)"
    if count == 1:
        return Row(name, measured, f"p99 ≤ {TARGET_P99:g} s", verdict(p99 <= TARGET_P99))
    return Row(name, measured)


def _measure(url: str, settings: Settings, workers: int) -> tuple[list[float], float]:
    processes = [start_worker(url, n) for n in range(workers)]
    try:
        last_due = asyncio.run(_set_up(url, settings))
        wait_for_firings(url, settings.encounters, last_due + 300)
    finally:
        stop_workers(processes)
    return asyncio.run(_lateness(url, settings.encounters))


async def _set_up(url: str, settings: Settings) -> float:
    """Create the encounters, then start them all (50 at a time); the latest due time."""
    client = aioredis.Redis.from_url(url, max_connections=200)
    dispatcher = Dispatcher(url)
    engine = Engine(EventStore(client), on_deadlines=dispatcher.schedule)
    try:
        names = [f"bench-{n:05d}" for n in range(settings.encounters)]
        await _each(names, lambda e: _prepare(engine, e, settings.limit))
        # Start them evenly over the band: encounter n at first + n * band / count.
        first = time.time() + 0.5
        step = settings.band / len(names)

        async def start(index: int) -> None:
            await asyncio.sleep(max(0.0, first + index * step - time.time()))
            await _start(engine, names[index])

        await asyncio.gather(*(start(n) for n in range(len(names))))
        return time.time() + settings.limit
    finally:
        dispatcher.close()
        await client.aclose()


async def _prepare(engine: Engine, encounter_id: str, limit: float) -> None:
    options = {"turn_time_limit": limit, "on_turn_timeout": "record"}
    await engine.create("freeform", options, encounter_id=encounter_id, actor=GM)
    for combatant in COMBATANTS:
        command = {"type": "add-combatant", **combatant}
        await engine.execute(encounter_id, CommandRequest(command=command), GM)
    await engine.execute(encounter_id, CommandRequest(command={"type": "roll-initiative"}), GM)


async def _start(engine: Engine, encounter_id: str) -> None:
    await engine.execute(encounter_id, CommandRequest(command={"type": "start-encounter"}), GM)


async def _each(names: list[str], act: Any, tasks: int = 50) -> None:
    queue = list(reversed(names))

    async def worker() -> None:
        while queue:
            await act(queue.pop())

    await asyncio.gather(*(worker() for _ in range(tasks)))


async def _lateness(url: str, count: int) -> tuple[list[float], float]:
    client = aioredis.Redis.from_url(url)
    store = EventStore(client)
    lateness: list[float] = []
    dues: list[float] = []
    try:
        for n in range(count):
            events = [orjson.loads(e.body) for e in await store.read(f"bench-{n:05d}")]
            started = [e for e in events if e["type"] == "clock-started"]
            expired = [e for e in events if e["type"] == "clock-expired"]
            if len(started) != 1 or len(expired) != 1:
                raise RuntimeError(f"bench-{n:05d}: {len(expired)} expiries")
            due = parse_iso(started[0]["data"]["deadline"]).timestamp()
            lateness.append(parse_iso(expired[0]["at"]).timestamp() - due)
            dues.append(due)
    finally:
        await client.aclose()
    return lateness, max(dues) - min(dues)
