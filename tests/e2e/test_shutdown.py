"""`fray serve` told to stop (SIGTERM): it stops accepting, answers the commands in flight,
ends each SSE stream with a retry hint and each GraphQL websocket with 1012 (service
restart), and exits 0 within its grace period. Real processes, each on a Redis of its own
(a paused Redis would hold up every other test's writes)."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest
import redis
import redis.asyncio as aioredis
import websockets
from websockets.asyncio.client import connect

from service.domain.ids import stream_id
from service.embedded_redis import RedisServer
from service.store.redis_store import EventStore
from tests.api.conftest import KEY
from tests.api.process import fray_serve_process
from tests.e2e.helpers import bearer, eventually

GRACE = "20"  # FRAY_SHUTDOWN_GRACE: what every process here must exit within


@pytest.fixture
def store() -> Iterator[str]:
    with RedisServer() as server:
        yield server.url


def create(url: str, encounter_id: str) -> None:
    body = {"ruleset": "freeform", "encounter_id": encounter_id}
    answer = httpx.post(f"{url}/v1/encounters", json=body, headers=bearer(KEY))
    assert answer.status_code == 201, answer.text


def stored(store_url: str, encounter_id: str) -> list[dict[str, Any]]:
    async def read() -> list[dict[str, Any]]:
        client = aioredis.Redis.from_url(store_url)
        try:
            found = await EventStore(client).read(stream_id("acme", encounter_id))
            return [orjson.loads(event.body) for event in found]
        finally:
            await client.aclose()

    return asyncio.run(read())


def exited(process: subprocess.Popen[str]) -> int:
    """The exit code of a process that must exit by itself within the grace period."""
    return process.wait(timeout=float(GRACE))


def refused_or_draining(url: str) -> bool:
    """A new connection is refused; one accepted before the listener closed is told the
    instance is draining. Never ready. A connection the kernel queued just as the listener
    closed, and reset unanswered when it closed, was refused too (a ReadError, or a
    RemoteProtocolError where the close came before any byte was read)."""
    try:
        answer = httpx.get(f"{url}/readyz", timeout=5)
    except (httpx.ConnectError, httpx.ReadError, httpx.RemoteProtocolError):
        return True
    assert answer.status_code == 503, answer.text
    assert answer.json()["error"]["code"] == "server/shutting-down"
    return False


def test_a_command_in_flight_at_sigterm_is_answered_and_new_connections_are_refused(
    store: str, encounter_id: str
) -> None:
    paused = redis.Redis.from_url(store)
    with fray_serve_process(store, FRAY_SHUTDOWN_GRACE=GRACE) as (url, serve):
        create(url, encounter_id)
        # Writes wait while Redis is paused: the command reaches Redis and waits there,
        # in flight, until it is unpaused after the signal.
        paused.execute_command("CLIENT", "PAUSE", 60_000, "WRITE")
        answers: list[httpx.Response] = []
        command = {"command_id": "bramli-joins", "command": {"type": "add-combatant",
                   "combatant_id": "bramli", "name": "Bramli", "stats": {"hp": 24}}}  # fmt: skip
        sender = threading.Thread(
            target=lambda: answers.append(
                httpx.post(
                    f"{url}/v1/encounters/{encounter_id}/commands",
                    json=command,
                    headers=bearer(KEY),
                    timeout=60,
                )
            )
        )
        try:
            sender.start()
            eventually(lambda: paused.info("clients")["blocked_clients"], lambda n: n >= 1)
            serve.send_signal(signal.SIGTERM)
            eventually(lambda: refused_or_draining(url), bool)
            assert answers == []  # still waiting on Redis
        finally:
            paused.execute_command("CLIENT", "UNPAUSE")
        sender.join(timeout=60)
        assert exited(serve) == 0
    (answer,) = answers
    assert answer.status_code == 201, answer.text
    assert answer.json()["version"] == 2
    joined = stored(store, encounter_id)[-1]
    assert joined["command_id"] == "bramli-joins" and joined["type"] == "combatant-added"


def sse_frames(lines: Iterator[str]) -> Iterator[dict[str, str]]:
    frame: dict[str, str] = {}
    for line in lines:
        if line == "":
            if frame:
                yield frame
            frame = {}
        elif not line.startswith(":"):
            name, _, value = line.partition(": ")
            frame[name] = value


@pytest.mark.parametrize("workers", ["1", "2"], ids=["one process", "--workers 2"])
def test_an_open_sse_stream_gets_a_retry_hint_and_ends_and_the_server_exits_0(
    store: str, encounter_id: str, workers: str
) -> None:
    with fray_serve_process(store, "--workers", workers, FRAY_SHUTDOWN_GRACE=GRACE) as (
        url,
        serve,
    ):
        create(url, encounter_id)
        with httpx.stream(
            "GET",
            f"{url}/v1/encounters/{encounter_id}/events",
            params={"follow": "true"},
            headers=bearer(KEY),
            timeout=httpx.Timeout(10, read=float(GRACE)),
        ) as response:
            assert response.status_code == 200
            frames = sse_frames(response.iter_lines())
            assert next(frames) == {"retry": "2000"}
            first = next(frames)
            assert (first["id"], first["event"]) == ("1", "encounter-created")
            serve.send_signal(signal.SIGTERM)
            rest = list(frames)  # until the server ends the stream
        assert exited(serve) == 0
    (goodbye,) = rest
    assert "id" not in goodbye  # the client's Last-Event-ID stays 1
    assert 500 <= int(goodbye["retry"]) <= 3000
    assert goodbye["event"] == "error"
    assert json.loads(goodbye["data"])["error"]["code"] == "server/shutting-down"


def test_a_graphql_subscription_is_closed_with_1012_service_restart(
    store: str, encounter_id: str
) -> None:
    with fray_serve_process(store, FRAY_SHUTDOWN_GRACE=GRACE) as (url, serve):
        create(url, encounter_id)
        code, delivered = asyncio.run(subscribe_until_closed(url, encounter_id, serve))
        assert exited(serve) == 0
    assert delivered == 1  # the subscription was live: the history came through
    assert code == 1012


async def subscribe_until_closed(
    url: str, encounter_id: str, serve: subprocess.Popen[str]
) -> tuple[int | None, int]:
    """Subscribe to `encounterEvents` over graphql-transport-ws, take the first event,
    signal the server, and read until the socket closes: its close code, and how many
    events came."""
    query = "subscription E($id: String!) { encounterEvents(encounterId: $id) { version } }"
    ws_url = url.replace("http://", "ws://", 1) + "/graphql"
    async with connect(ws_url, subprotocols=[websockets.Subprotocol("graphql-transport-ws")]) as ws:
        init = {"type": "connection_init", "payload": {"authorization": f"Bearer {KEY}"}}
        await ws.send(json.dumps(init))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        subscribe = {"query": query, "variables": {"id": encounter_id}}
        await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": subscribe}))
        delivered = 0
        message = json.loads(await ws.recv())
        assert message["type"] == "next", message
        delivered += 1
        serve.send_signal(signal.SIGTERM)
        try:
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), float(GRACE)))
                delivered += message["type"] == "next"
        except websockets.ConnectionClosed as closed:
            return (closed.rcvd.code if closed.rcvd else None), delivered
