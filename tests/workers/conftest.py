"""Worker fixtures: a second redis-server for the job queue (the queue may live apart from
the event store), `fray worker` as a real process, and ways to read what happened."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import redis

from service.dispatch import Dispatcher
from service.domain.canonical import canonical_bytes
from service.engine import Engine
from service.store.clients import redis_client
from service.store.events import version_of
from service.store.keys import events_key
from service.store.redis_store import EventStore

FRAY = str(Path(sys.executable).parent / "fray")
# A deadline goes through RQ's scheduler (polls each second) or the sweeper (2 s grace,
# 1 s interval) and a job: well under this on any machine, however busy.
FIRE_TIMEOUT = 30.0


@dataclass(frozen=True)
class Worker:
    process: subprocess.Popen[str]
    log_path: str

    def log(self) -> str:
        return Path(self.log_path).read_text()


@contextmanager
def fray_worker(store_url: str, queue_url: str, **env: str) -> Iterator[Worker]:
    """A `fray worker` process (its own process group, so a SIGKILL takes RQ's scheduler
    child with it); its log is printed if the test fails."""
    log = tempfile.NamedTemporaryFile(  # noqa: SIM115 (read back after the process ends)
        "w+", prefix="fray-worker-", suffix=".log", delete=False
    )
    environment = {
        **os.environ,
        "FRAY_REDIS_URL": store_url,
        "FRAY_QUEUE_REDIS_URL": queue_url,
        **env,
    }
    process = subprocess.Popen(
        [FRAY, "worker"], env=environment, stdout=log, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        yield Worker(process, log.name)
    finally:
        stop(process)
        log.seek(0)
        sys.stdout.write(f"--- fray worker log ({log.name}) ---\n{log.read()}\n")
        log.close()
        os.unlink(log.name)


def stop(process: subprocess.Popen[str], sig: int = signal.SIGTERM) -> None:
    if process.poll() is None:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def wait_until(predicate: Callable[[], Any], timeout: float = FIRE_TIMEOUT) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {predicate}")
        time.sleep(0.05)


def events(store_url: str, encounter_id: str, cluster: bool = False) -> list[dict[str, Any]]:
    """Every envelope of the encounter's stream, oldest first (`cluster`: on a Redis
    Cluster)."""

    async def read() -> list[dict[str, Any]]:
        client = redis_client(store_url, cluster)
        try:
            return [orjson.loads(e.body) for e in await EventStore(client).read(encounter_id)]
        finally:
            await client.aclose()

    return asyncio.run(read())


def of_type(
    store_url: str, encounter_id: str, kind: str, cluster: bool = False
) -> list[dict[str, Any]]:
    return [e for e in events(store_url, encounter_id, cluster) if e["type"] == kind]


def with_engine(
    store_url: str, queue_url: str | None, body: Any, cluster: bool = False, **engine: Any
) -> Any:
    """Run `body(engine)` with an engine that schedules deadlines on the queue as the API
    does (with no queue, nobody schedules them: they wait in the outbox); `engine` are
    further arguments of the `Engine` (its clock)."""
    dispatcher = Dispatcher(queue_url) if queue_url else None

    async def main() -> Any:
        client = redis_client(store_url, cluster)
        try:
            hook = dispatcher.schedule if dispatcher else None
            return await body(Engine(EventStore(client), on_deadlines=hook, **engine))
        finally:
            await client.aclose()

    try:
        return asyncio.run(main())
    finally:
        if dispatcher:
            dispatcher.close()


def corrupt(store_url: str, encounter_id: str, version: int) -> None:
    """Edit a stored event in Redis after the fact, as someone with the store's keys could:
    a field added to its data, its hash left as it was (a stream's entries cannot be
    changed in place, so the stream is written again around it)."""
    client = redis.Redis.from_url(store_url)
    try:
        key = events_key(encounter_id)
        entries = client.xrange(key)
        client.delete(key)
        for entry_id, fields in entries:
            if version_of(entry_id) == version:
                body = orjson.loads(fields[b"e"])
                body["data"]["forged"] = True
                fields = {**fields, b"e": canonical_bytes(body)}
            client.xadd(key, fields, id=entry_id)
    finally:
        client.close()
