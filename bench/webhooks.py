"""The webhook benchmark: delivery latency and the rate one worker sustains.

Target (issue 28): 100 encounters x 20 events with a healthy receiver, p99 latency from
the append to the receipt <= 1 s with one `fray worker`.

What runs: the suite's own redis-server (events and jobs on one server); one `fray
worker` process, as deployed, with FRAY_WEBHOOK_ALLOW_PRIVATE=true; the receiver of the
tests (tests/e2e/receiver.py: Starlette behind uvicorn, answering 200) in a process of its
own, on a loopback port; the appends through the engine with the API's webhook hook and
dispatcher (each delivery recorded in the append and scheduled as an RQ job, as `fray
serve` does).

1. Latency: the encounters append their 20 notes at a steady pace (each encounter one
   note a second, all of them at once: 100 events a second; then one every half second,
   200 a second, for context), and each delivery's latency is its receipt time minus its
   event's `at` (the engine's clock when it decided the command, just before the
   append).
2. Rate: 100 x 20 notes appended as fast as they go while the worker is stopped, then the
   worker started: deliveries per second from its first delivery to its last.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

import redis
import redis.asyncio as aioredis
from rq import Worker

from bench.core import Outcome
from bench.report import Row, progress, verdict
from service.app.webhook_models import WebhookSpec
from service.app.webhooks import Webhooks
from service.deciding import CommandRequest
from service.dispatch import Dispatcher
from service.domain.context import GM
from service.domain.timefmt import parse_iso
from service.embedded_redis import RedisServer
from service.engine import Engine
from service.store.redis_store import EventStore
from service.store.webhooks import WebhookStore
from tests.e2e.receiver import Received, receiving

TARGET_P99 = 1.0  # seconds, one worker
TENANT = "bench"
FRAY = str(Path(sys.executable).parent / "fray")


@dataclass
class Settings:
    encounters: int = 100
    events: int = 20
    # Seconds between one encounter's notes in the latency runs: the first is the target's
    # (100 events a second offered), the others context.
    paces: tuple[float, ...] = (1.0, 0.5)

    @classmethod
    def quick(cls) -> Settings:
        return cls(encounters=20, events=5, paces=(1.0,))


def run(settings: Settings) -> Outcome:
    outcome = Outcome()
    count = settings.encounters * settings.events
    with RedisServer() as server, _RemoteReceiver() as receiver:
        for pace in settings.paces:
            offered = settings.encounters / pace
            progress(f"webhooks: latency, {settings.encounters} x {settings.events} events, "
                     f"{offered:.0f} a second")  # fmt: skip
            worker = _start_worker(server.url)
            try:
                before = _cpu_seconds(worker.pid)
                latencies = asyncio.run(_latency(server.url, receiver, settings, pace))
                cpu = (_cpu_seconds(worker.pid) - before) / len(latencies)
            finally:
                _stop(worker)
            outcome.rows.append(_latency_row(settings, latencies, pace, pace == settings.paces[0]))
            outcome.rows.append(
                Row(f"worker CPU per delivery ({offered:.0f} a second)", f"{cpu * 1000:.1f} ms")
            )
        progress(f"webhooks: rate, {count} deliveries owed, then one worker")
        rate = asyncio.run(_rate(server.url, receiver, settings))
        outcome.environment.append(f"redis-server {server.version()}")
    outcome.rows.append(
        Row(f"webhook deliveries one worker sustains ({count:,} owed)", f"{rate:,.0f} /s")
    )
    return outcome


def _latency_row(settings: Settings, latencies: list[float], pace: float, target: bool) -> Row:
    ordered = sorted(latencies)
    p50 = statistics.median(ordered)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    name = (
        f"webhook delivery latency, append to receipt, {settings.encounters} encounters x "
        f"{settings.events} events ({settings.encounters / pace:.0f} a second), 1 worker"
    )
    measured = f"p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms (max {ordered[-1] * 1000:.0f} ms)"
    if target:
        return Row(name, measured, f"p99 ≤ {TARGET_P99:g} s", verdict(p99 <= TARGET_P99))
    return Row(name, measured)


def _start_worker(url: str) -> subprocess.Popen[bytes]:
    """A `fray worker`, returned once it has registered with RQ (it takes its first job
    then): its start-up (imports, connections: 2 to 3 s here) is no delivery's latency, as
    a deployed worker has long been running when the events come."""
    log = tempfile.NamedTemporaryFile(  # noqa: SIM115 (the worker process writes it)
        prefix="fray-bench-webhooks-", delete=False
    )
    env = {
        **os.environ,
        "FRAY_REDIS_URL": url,
        "FRAY_QUEUE_REDIS_URL": url,
        "FRAY_WEBHOOK_ALLOW_PRIVATE": "true",
    }
    process = subprocess.Popen([FRAY, "worker"], env=env, stdout=log, stderr=subprocess.STDOUT)
    connection = redis.Redis.from_url(url)
    try:
        ready = time.monotonic() + 60
        while not Worker.all(connection=connection):
            if process.poll() is not None or time.monotonic() > ready:
                raise RuntimeError(f"the worker did not start: see {log.name}")
            time.sleep(0.05)
    finally:
        connection.close()
    return process


def _cpu_seconds(pid: int) -> float:
    """User and system CPU time of the process so far (Linux's /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    process.wait(timeout=30)


class _Appender:
    def __init__(self, url: str) -> None:
        self.client = aioredis.Redis.from_url(url, max_connections=200)
        self.dispatcher = Dispatcher(url)
        store = EventStore(self.client)
        self.webhooks = Webhooks(WebhookStore(self.client), outbox=store, allow_private=True)
        self.engine = Engine(
            store,
            on_deadlines=self.dispatcher.schedule,
            deliveries=self.webhooks.outbox_entries,
        )

    async def subscribe(self, url: str) -> str:
        spec = WebhookSpec(url=url, events=["note-added"], view="gm")
        return str((await self.webhooks.create(TENANT, spec))["id"])

    async def unsubscribe(self, webhook_id: str) -> None:
        """A run's webhook goes when it ends: one the tenant kept would be owed every
        later run's events too (each of its notes delivered twice, three times...)."""
        await self.webhooks.delete(TENANT, webhook_id)

    async def create(self, name: str) -> str:
        await self.engine.create("freeform", encounter_id=name, actor=GM, tenant=TENANT)
        return f"{TENANT}/{name}"

    async def note(self, stream: str, n: int) -> None:
        command = {"type": "add-note", "text": f"note {n}"}
        await self.engine.execute(stream, CommandRequest(command=command), GM)

    async def close(self) -> None:
        self.dispatcher.close()
        await self.client.aclose()


class _RemoteReceiver:
    """The tests' receiver in a process of its own. In the bench's process it would share
    the interpreter (and its GIL) with the hundred encounters appending, and a receipt's
    time would wait on their turn: a deployed receiver is another machine."""

    def __enter__(self) -> _RemoteReceiver:
        spawn = multiprocessing.get_context("spawn")
        self._conn, child = spawn.Pipe()
        self._process = spawn.Process(target=_serve_receiver, args=(child,), daemon=True)
        self._process.start()
        self.url: str = self._conn.recv()
        return self

    def __exit__(self, *exc: object) -> None:
        self._conn.send(None)
        self._process.join(timeout=10)

    def ok(self, path: str) -> list[tuple[float, str, float]]:
        """The deliveries to `path` answered 200: (receipt time, delivery id, event time)."""
        self._conn.send(path)
        received: list[tuple[float, str, float]] = self._conn.recv()
        return received


def _serve_receiver(conn: Connection) -> None:
    with receiving() as receiver:
        conn.send(receiver.url)
        while (path := conn.recv()) is not None:
            answered = receiver.ok(path)
            conn.send([(r.at, r.delivery["delivery_id"], _event_time(r)) for r in answered])


def _event_time(received: Received) -> float:
    return parse_iso(str(received.delivery["event"]["at"])).timestamp()


async def _latency(
    url: str, receiver: _RemoteReceiver, settings: Settings, pace: float
) -> list[float]:
    appender = _Appender(url)
    path = f"/latency-{pace:g}"
    try:
        webhook_id = await appender.subscribe(f"{receiver.url}{path}")
        names = [f"lat-{pace:g}-{n:04d}" for n in range(settings.encounters)]
        streams = [await appender.create(name) for name in names]

        loop = asyncio.get_running_loop()
        begin = loop.time()

        async def play(index: int, stream: str) -> None:
            # Each note at its own time on one clock (the starts spread over a pace), so the
            # offered load stays the steady rate it is said to be. Sleeping `pace` after
            # each append instead let the encounters drift into step: a burst of ~95
            # events at once every second, which one worker takes ~0.7 s to clear.
            first = begin + index * pace / len(streams)
            for n in range(settings.events):
                await asyncio.sleep(max(0.0, first + n * pace - loop.time()))
                await appender.note(stream, n)

        await asyncio.gather(*(play(i, s) for i, s in enumerate(streams)))
        await _until(receiver, path, settings.encounters * settings.events)
        await appender.unsubscribe(webhook_id)
    finally:
        await appender.close()
    return [at - event_at for at, _, event_at in receiver.ok(path)]


async def _rate(url: str, receiver: _RemoteReceiver, settings: Settings) -> float:
    appender = _Appender(url)
    path = "/rate"
    try:
        await appender.subscribe(f"{receiver.url}{path}")
        streams = [await appender.create(f"rate-{n:04d}") for n in range(settings.encounters)]

        async def play(stream: str) -> None:
            for n in range(settings.events):
                await appender.note(stream, n)

        await asyncio.gather(*(play(s) for s in streams))
    finally:
        await appender.close()
    worker = _start_worker(url)
    try:
        await _until(receiver, path, settings.encounters * settings.events)
    finally:
        _stop(worker)
    times = sorted(at for at, _, _ in receiver.ok(path))
    return (len(times) - 1) / (times[-1] - times[0])


async def _until(receiver: _RemoteReceiver, path: str, count: int, give_up: float = 600.0) -> None:
    deadline = time.monotonic() + give_up
    seen: set[str] = set()
    read = 0
    while len(seen) < count:
        if time.monotonic() > deadline:
            raise RuntimeError(f"only {len(seen)} of {count} deliveries arrived")
        await asyncio.sleep(0.2)
        arrived = receiver.ok(path)
        seen.update(ident for _, ident, _ in arrived[read:])
        read = len(arrived)
