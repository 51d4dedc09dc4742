"""Kill everything, lose nothing: Redis, `fray serve` and `fray worker` are killed with
SIGKILL and restarted while clients send commands and reaction windows wait for their
deadlines.

A command is acknowledged when the API answers it with its version (201, or 200 for a
retry of one already applied). Clients retry with the same `command_id` on anything else
(a dropped connection, `503 store/unavailable`), as docs/api.md tells them to. Afterwards:
every acknowledged command is in its stream exactly once, at the version it was
acknowledged with; no command is in a stream twice; the hash chain is whole; and every
reaction window opened closed at or after its deadline, however long the worker was down.

The suite runs a small round (150 commands, spread over a kill of each part); `make soak`
(FRAY_SOAK=1) runs FRAY_SOAK_COMMANDS commands (4,000 unless set) with a kill every two
seconds and prints the figures.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import httpx
import orjson
import pytest
import redis

from service.domain.ids import stream_id
from service.domain.timefmt import parse_iso
from service.embedded_redis import RedisServer, free_port
from service.store.events import event_from_entry
from service.store.keys import events_key
from tests.api.conftest import KEY, SECRET

pytestmark = [pytest.mark.soak, pytest.mark.anyio]

FRAY = str(Path(sys.executable).parent / "fray")
SOAK = os.environ.get("FRAY_SOAK") == "1"
COMMANDS = int(os.environ.get("FRAY_SOAK_COMMANDS", "4000")) if SOAK else 150
CLIENTS = 6 if SOAK else 3
KILL_EVERY = 2.0  # seconds between kills
PACE = 0.05 if SOAK else 0.1  # seconds each client waits between commands, so that the
# commands span many kills (about 20 in a soak of 4,000)
WINDOW_SECONDS = 1  # each reaction window's deadline
SETTLE = 45.0  # seconds the last windows may take once everything is back up


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# --- processes that can be killed and brought back on the same port ----------------------


class Process:
    """A `fray` subcommand in its own process group, logging to a file."""

    def __init__(self, argv: list[str], env: dict[str, str], log: IO[bytes]) -> None:
        self.argv = argv
        self.env = env
        self.log = log
        self.popen: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.popen = subprocess.Popen(
            self.argv, env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip

    def kill(self) -> None:
        if self.popen is not None and self.popen.poll() is None:
            with suppress(ProcessLookupError):
                os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait()

    def stop(self) -> None:
        if self.popen is not None and self.popen.poll() is None:
            with suppress(ProcessLookupError):
                os.killpg(self.popen.pid, signal.SIGTERM)
            try:
                self.popen.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()


@dataclass
class Deployment:
    redis: RedisServer
    api: Process
    worker: Process
    url: str
    kills: Counter[str] = field(default_factory=Counter)

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with suppress(httpx.TransportError):
                if httpx.get(f"{self.url}/readyz", timeout=2).status_code == 200:
                    return
            time.sleep(0.1)
        raise AssertionError("fray serve did not come back")

    def kill(self, which: str) -> None:
        """SIGKILL one part and start it again."""
        self.kills[which] += 1
        if which == "redis":
            self.redis.restart(hard=True)  # appendfsync always: acknowledged means on disk
        elif which == "api":
            self.api.kill()
            self.api.start()
            self.wait_ready()
        else:
            self.worker.kill()
            self.worker.start()


@contextmanager
def deployed(tmp: Path) -> Iterator[Deployment]:
    (tmp / "redis").mkdir()
    with RedisServer(directory=str(tmp / "redis"), appendonly=True) as server:
        port = free_port()
        env = {
            **os.environ,
            "FRAY_REDIS_URL": server.url,
            "FRAY_API_KEYS": f"acme:{KEY}",
            "FRAY_TOKEN_SECRET": SECRET,
            "FRAY_RATE_LIMIT": "100000",
        }
        with tempfile.TemporaryFile() as api_log, tempfile.TemporaryFile() as worker_log:
            serve = [FRAY, "serve", "--host", "127.0.0.1", "--port", str(port)]
            deployment = Deployment(
                server,
                Process(serve, env, api_log),
                Process([FRAY, "worker"], env, worker_log),
                f"http://127.0.0.1:{port}",
            )
            deployment.api.start()
            deployment.worker.start()
            try:
                deployment.wait_ready()
                yield deployment
            finally:
                deployment.api.stop()
                deployment.worker.stop()
                for name, log in (("fray serve", api_log), ("fray worker", worker_log)):
                    log.seek(0)
                    tail = log.read()[-4000:].decode(errors="replace")
                    sys.stdout.write(f"--- {name} log (tail) ---\n{tail}\n")


# --- clients that retry until acknowledged ------------------------------------------------


@dataclass
class Acknowledged:
    command_id: str
    version: int


@dataclass
class Client:
    http: httpx.AsyncClient
    url: str
    retries: int = 0

    async def send(self, encounter_id: str, body: dict[str, Any]) -> Acknowledged:
        """Send until the API acknowledges it, with the same `command_id` every time."""
        body = {"command_id": f"c-{uuid.uuid4().hex[:16]}", **body}
        while True:
            try:
                response = await self.http.post(
                    f"{self.url}/v1/encounters/{encounter_id}/commands",
                    json=body,
                    headers={"Authorization": f"Bearer {KEY}"},
                )
            except httpx.TransportError:
                response = None
            if response is not None and response.status_code in (200, 201):
                return Acknowledged(body["command_id"], response.json()["version"])
            if response is not None and response.status_code not in (503,):
                raise AssertionError(f"{response.status_code}: {response.text}")
            self.retries += 1
            await asyncio.sleep(0.1)

    async def create(self, options: dict[str, Any] | None = None) -> str:
        encounter_id = f"kill-{uuid.uuid4().hex[:12]}"
        body = {"ruleset": "freeform", "encounter_id": encounter_id, "options": options or {}}
        response = await self.http.post(
            f"{self.url}/v1/encounters", json=body, headers={"Authorization": f"Bearer {KEY}"}
        )
        assert response.status_code == 201, response.text
        return encounter_id


async def fight(client: Client, options: dict[str, Any] | None = None) -> str:
    """A started freeform fight of two."""
    encounter_id = await client.create(options)
    for combatant_id, side in (("bramli", "heroes"), ("goblin", "goblins")):
        add = {"type": "add-combatant", "combatant_id": combatant_id,
               "name": combatant_id.title(), "side": side}  # fmt: skip
        await client.send(encounter_id, {"command": add})
    await client.send(encounter_id, {"command": {"type": "roll-initiative"}})
    await client.send(encounter_id, {"command": {"type": "start-encounter"}})
    return encounter_id


def stream(redis_url: str, encounter_id: str) -> list[dict[str, Any]]:
    """Every envelope of the (tenant acme's) encounter, with its version and hash, read
    straight from Redis."""
    client = redis.Redis.from_url(redis_url)
    try:
        entries = client.xrange(events_key(stream_id("acme", encounter_id)))
    finally:
        client.close()
    out = []
    for entry_id, fields in entries:
        stored = event_from_entry(entry_id, fields)
        out.append({**orjson.loads(stored.body), "version": stored.version, "hash": stored.hash})
    return out


# --- the run ------------------------------------------------------------------------------


async def test_nothing_acknowledged_is_lost_or_doubled_through_kills(tmp_path: Path) -> None:
    with deployed(tmp_path) as deployment:
        async with httpx.AsyncClient(timeout=10) as http:
            client = Client(http, deployment.url)
            encounters = [await fight(client) for _ in range(CLIENTS)]
            clock = await fight(client, {"reaction_window": WINDOW_SECONDS})
            await client.send(
                clock, {"command": {"type": "ready", "action": "shoot", "trigger": "a door opens"}}
            )
            acknowledged: dict[str, list[Acknowledged]] = {e: [] for e in encounters}
            done = asyncio.Event()

            async def roller(encounter_id: str) -> None:
                while not done.is_set():
                    command = {"type": "roll", "expression": "1d20", "purpose": "soak"}
                    acknowledged[encounter_id].append(
                        await client.send(encounter_id, {"command": command})
                    )
                    enough = sum(len(a) for a in acknowledged.values()) >= COMMANDS
                    if enough and len(deployment.kills) == 3:
                        done.set()
                    await asyncio.sleep(PACE)

            async def windows() -> int:
                """Open a window, wait for the worker to close it, again, until the rollers
                are done."""
                called = 0
                while not done.is_set():
                    call = {"type": "call-for-readied", "trigger": f"door {called}"}
                    await client.send(clock, {"command": call})
                    called += 1
                    await until_closed(deployment.redis.url, clock, called)
                return called

            async def killer() -> None:
                """Redis, the API, the worker, in turn, every KILL_EVERY seconds; the rollers
                go on until each has been killed at least once."""
                for part in itertools.cycle(("redis", "api", "worker")):
                    await asyncio.sleep(KILL_EVERY)
                    if done.is_set():
                        return
                    await asyncio.to_thread(deployment.kill, part)

            started = time.monotonic()
            opener = asyncio.create_task(windows())
            killing = asyncio.create_task(killer())
            await asyncio.gather(*(roller(e) for e in encounters))
            await killing
            called = await asyncio.wait_for(opener, SETTLE)
            elapsed = time.monotonic() - started
        histories = {e: stream(deployment.redis.url, e) for e in [*encounters, clock]}

    assert set(deployment.kills) == {"redis", "api", "worker"}
    total = sum(len(a) for a in acknowledged.values())
    assert total >= COMMANDS
    assert client.retries > 0, "no kill caught a command in flight: the run proved nothing"
    for encounter_id, acks in acknowledged.items():
        envelopes = histories[encounter_id]
        by_command = Counter(e["command_id"] for e in envelopes if e["type"] == "dice-rolled")
        doubled = [c for c, n in by_command.items() if n > 1]
        assert doubled == [], f"applied twice: {doubled}"
        version_of = {e["command_id"]: e["version"] for e in envelopes}
        lost = [a.command_id for a in acks if a.command_id not in version_of]
        assert lost == [], f"acknowledged, then lost: {lost}"
        assert [version_of[a.command_id] for a in acks] == [a.version for a in acks]
        assert [e["version"] for e in envelopes] == list(range(1, len(envelopes) + 1))
        for previous, event in itertools.pairwise(envelopes):
            assert event["prev_hash"] == previous["hash"]

    envelopes = histories[clock]
    opened = [e for e in envelopes if e["type"] == "reaction-window-opened"]
    closed = {e["data"]["window_id"]: e for e in envelopes if e["type"] == "reaction-window-closed"}
    assert len(opened) == called
    for window in opened:
        closing = closed[window["data"]["window_id"]]
        assert closing["data"]["reason"] == "deadline"
        assert parse_iso(closing["at"]) >= parse_iso(window["data"]["deadline"])
    sys.stdout.write(
        f"kills: {dict(deployment.kills)}; {total} commands acknowledged in {elapsed:.1f} s, "
        f"{client.retries} retries; {called} reaction windows, all closed at their deadline\n"
    )


async def until_closed(redis_url: str, encounter_id: str, count: int) -> None:
    """Until `count` reaction windows of the encounter have closed; Redis may be down. A
    window still open after SETTLE seconds (kills go on meanwhile) fails at once, naming it,
    rather than when the whole run is over."""
    deadline = time.monotonic() + SETTLE
    while True:
        assert time.monotonic() < deadline, (
            f"reaction window {count} of {encounter_id} still open after {SETTLE} s"
        )
        with suppress(redis.RedisError):
            closed = [
                e for e in stream(redis_url, encounter_id) if e["type"] == "reaction-window-closed"
            ]
            if len(closed) >= count:
                return
        await asyncio.sleep(0.2)
