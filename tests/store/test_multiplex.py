"""The pipelined connection of the command path, against the suite's real redis-server,
on asyncio's own loop and on uvloop (what `fray serve` runs on)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import pytest
import redis
import redis.asyncio
import uvloop
from redis.exceptions import ConnectionError, ResponseError

from service.store.multiplex import Multiplexed

LOOPS = [pytest.param(asyncio.run, id="asyncio"), pytest.param(uvloop.run, id="uvloop")]
Runner = Callable[[Coroutine[Any, Any, None]], None]


@pytest.fixture(params=LOOPS)
def run(request: pytest.FixtureRequest) -> Runner:
    runner: Runner = request.param
    return runner


def with_client(run: Runner, url: str, body: Callable[[Multiplexed], Awaitable[None]]) -> None:
    async def main() -> None:
        client = Multiplexed.from_url(url)
        try:
            async with asyncio.timeout(30):
                await body(client)
        finally:
            await client.aclose()

    run(main())


def test_concurrent_calls_each_get_their_own_reply(run: Runner, redis_url: str) -> None:
    prefix = uuid.uuid4().hex

    async def body(client: Multiplexed) -> None:
        await asyncio.gather(*(client.execute("SET", f"{prefix}:{i}", i) for i in range(500)))
        replies = await asyncio.gather(
            *(client.execute("GET", f"{prefix}:{i}") for i in range(500))
        )
        assert replies == [str(i).encode() for i in range(500)]

    with_client(run, redis_url, body)


def test_a_pipeline_answers_in_order(run: Runner, redis_url: str) -> None:
    key = uuid.uuid4().hex

    async def body(client: Multiplexed) -> None:
        replies = await client.pipeline(("INCR", key), ("INCRBY", key, 5), ("TTL", key))
        assert replies == [1, 6, -1]

    with_client(run, redis_url, body)


def test_an_error_reply_raises_and_the_connection_goes_on(run: Runner, redis_url: str) -> None:
    key = uuid.uuid4().hex

    async def body(client: Multiplexed) -> None:
        await client.execute("SET", key, "not a number")
        with pytest.raises(ResponseError, match="not an integer"):
            await client.execute("INCR", key)
        assert await client.execute("GET", key) == b"not a number"

    with_client(run, redis_url, body)


def test_a_script_the_server_lacks_is_loaded_and_run(
    run: Runner, redis_url: str, redis_client: redis.Redis
) -> None:
    script = f"return {{KEYS[1], ARGV[1], '{uuid.uuid4().hex}'}}"
    sha = redis_client.script_load(script)
    redis_client.script_flush()

    async def body(client: Multiplexed) -> None:
        reply = await client.evalsha(script, sha, ["k"], ["v"])
        assert reply[:2] == [b"k", b"v"]

    with_client(run, redis_url, body)
    assert redis_client.script_exists(sha) == [True]


def test_a_cancelled_caller_does_not_shift_the_replies(run: Runner, redis_url: str) -> None:
    key = uuid.uuid4().hex

    async def body(client: Multiplexed) -> None:
        await client.execute("SET", key, "value")
        blocked = asyncio.ensure_future(client.execute("BLPOP", f"{key}:list", 0.2))
        await asyncio.sleep(0.05)
        blocked.cancel()
        # BLPOP's own (nil) reply still arrives first and must go to no one else.
        assert await client.execute("GET", key) == b"value"

    with_client(run, redis_url, body)


def test_a_dropped_connection_fails_its_calls_and_the_next_call_reconnects(
    run: Runner, redis_url: str, redis_client: redis.Redis
) -> None:
    key = uuid.uuid4().hex

    async def body(client: Multiplexed) -> None:
        connection_id = await client.execute("CLIENT", "ID")
        waiting = asyncio.ensure_future(client.execute("BLPOP", f"{key}:list", 5))
        await asyncio.sleep(0.05)
        assert redis_client.client_kill_filter(_id=connection_id) == 1
        with pytest.raises(ConnectionError):
            await waiting
        assert await client.execute("PING") == b"PONG"

    with_client(run, redis_url, body)


def test_the_url_selects_the_database(run: Runner, redis_url: str) -> None:
    key = uuid.uuid4().hex
    base = redis_url.rsplit("/", 1)[0]

    async def body(client: Multiplexed) -> None:
        await client.execute("SET", key, "in db 3")

    with_client(run, f"{base}/3", body)
    other = redis.Redis.from_url(f"{base}/3")
    try:
        assert other.get(key) == b"in db 3"
        assert redis.Redis.from_url(f"{base}/0").get(key) is None
    finally:
        other.close()


@pytest.mark.parametrize(
    ("url", "address"),
    [
        pytest.param("redis://h:7000/2", ("h", 7000, 2, None, None, False, None), id="tcp+db"),
        pytest.param("redis://:pw@h", ("h", 6379, 0, None, "pw", False, None), id="password"),
        pytest.param("rediss://u:p%40w@h:1/0", ("h", 1, 0, "u", "p@w", True, None), id="tls"),
        pytest.param(
            "unix:///tmp/r.sock?db=4",
            ("127.0.0.1", 6379, 4, None, None, False, "/tmp/r.sock"),
            id="unix",
        ),
    ],
)
def test_urls_are_read_as_redis_py_reads_them(url: str, address: tuple[Any, ...]) -> None:
    client = Multiplexed.from_url(url)
    host, port, db, username, password, tls, unix_path = address
    assert client._address == (host, port)
    assert client._unix_path == unix_path
    assert (client._tls is not None) == tls
    auth = [command for command in client._setup if command[0] == "AUTH"]
    select = [command for command in client._setup if command[0] == "SELECT"]
    assert auth == ([("AUTH", username, password) if username else ("AUTH", password)]
                    if password else [])  # fmt: skip
    assert select == ([("SELECT", db)] if db else [])


def test_an_unknown_scheme_is_refused() -> None:
    with pytest.raises(ValueError, match="redis://"):
        Multiplexed.from_url("http://localhost:6379")
