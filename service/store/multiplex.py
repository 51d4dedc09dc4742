"""One pipelined Redis connection shared by every coroutine: the command path's client.

redis-py spends 45 to 90 µs of CPU per call on its connection pool and per-call machinery
(measured here: `INCR` through a blocking pool 60 to 90 µs, a plain pool 46 to 56 µs, this
client 9 µs). Every command a client sends costs two Redis calls (the rate limiter's
count and the append script), so those two go through here. Concurrent calls are written
to one socket as they come and their replies matched in order (Redis answers a
connection's commands in the order it received them): the per-call cost is packing the
command, one buffered write and one future.

Replies are what hiredis parses (bytes, ints, lists), as redis-py gives them with
`decode_responses=False`; an error reply raises `redis.exceptions.ResponseError` (or
`NoScriptError`). If the connection drops, every call in flight fails with
`StoreUnavailable` (a `redis.exceptions.ConnectionError`; so do the replies of a server
loading, read-only or down) and the next call connects again: a call that failed
that way may or may not have run, which is why appends carry idempotent command ids.
"""

from __future__ import annotations

import asyncio
import ssl
from collections import deque
from collections.abc import Sequence
from typing import Any, Protocol, cast
from urllib.parse import parse_qs, unquote, urlsplit

import hiredis
from redis.exceptions import NoScriptError, ResponseError

from service.store.errors import UNAVAILABLE_REPLIES, StoreUnavailable

Arg = str | bytes | memoryview | int | float


class CommandPath(Protocol):
    """What the command path asks of its client: `Multiplexed`, or on a Redis Cluster
    `service.store.clients.ClusterCommands`."""

    async def execute(self, *args: Arg) -> Any: ...

    async def pipeline(self, *commands: Sequence[Arg]) -> list[Any]: ...

    async def evalsha(
        self, script: Arg, sha: str, keys: Sequence[Arg], args: Sequence[Arg]
    ) -> Any: ...

    async def evalsha_wait(
        self,
        script: Arg,
        sha: str,
        keys: Sequence[Arg],
        args: Sequence[Arg],
        replicas: int,
        timeout_ms: int,
    ) -> tuple[Any, int]: ...


def _pack(command: Sequence[Arg]) -> bytes:
    # hiredis's stub types the argument as a 1-tuple; it takes any tuple of these.
    packed: bytes = hiredis.pack_command(cast(Any, tuple(command)))
    return packed


class _Protocol(asyncio.Protocol):
    def __init__(self) -> None:
        self._reader = hiredis.Reader()
        self._waiting: deque[asyncio.Future[Any]] = deque()
        self._transport: asyncio.Transport | None = None
        self._unsent: list[bytes] = []
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses, but behave as one.
        self._transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        self._reader.feed(data)
        while (reply := self._reader.gets()) is not False:
            future = self._waiting.popleft()
            if future.done():  # its caller was cancelled; the reply is spent all the same
                continue
            if isinstance(reply, hiredis.ReplyError):
                future.set_exception(_error(str(reply)))
            else:
                future.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        while self._waiting:
            future = self._waiting.popleft()
            if not future.done():
                future.set_exception(StoreUnavailable("the connection to Redis was lost"))

    def send(self, packed: bytes) -> asyncio.Future[Any]:
        if self.closed or self._transport is None:
            raise StoreUnavailable("the connection to Redis is closed")
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._waiting.append(future)
        # Commands sent in the same turn of the event loop leave in one write (one
        # system call) when the loop comes round.
        if not self._unsent:
            loop.call_soon(self._flush)
        self._unsent.append(packed)
        return future

    def _flush(self) -> None:
        unsent, self._unsent = self._unsent, []
        if self._transport is not None and not self.closed:
            self._transport.write(b"".join(unsent))

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()


def _error(message: str) -> Exception:
    if message.startswith("NOSCRIPT"):
        return NoScriptError(message)
    if message.startswith(UNAVAILABLE_REPLIES):
        return StoreUnavailable(message)
    return ResponseError(message)


class Multiplexed:
    """A lazily connected, self-reconnecting, pipelined connection to one Redis server.

    Speaks RESP2, to the URLs redis-py takes: `redis://` and `rediss://` (TLS, the
    system's trusted certificates) `[[user]:password@]host[:port][/db]`, and
    `unix:///path/to/socket[?db=N]`.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 6379,
        db: int = 0,
        username: str | None = None,
        password: str | None = None,
        tls: bool = False,
        unix_path: str | None = None,
    ) -> None:
        self._address = (host, port)
        self._tls = ssl.create_default_context() if tls else None
        self._unix_path = unix_path
        self._setup: list[Sequence[Arg]] = []
        if password is not None:
            self._setup.append(("AUTH", username, password) if username else ("AUTH", password))
        if db:
            self._setup.append(("SELECT", db))
        self._protocol: _Protocol | None = None
        self._connecting = asyncio.Lock()

    @classmethod
    def from_url(cls, url: str) -> Multiplexed:
        parts = urlsplit(url)
        if parts.scheme not in ("redis", "rediss", "unix"):
            raise ValueError(f"a Redis URL starts redis://, rediss:// or unix://, not {url!r}")
        query = parse_qs(parts.query)
        path = parts.path.strip("/")
        if parts.scheme == "unix":
            db = query.get("db", ["0"])[0]
        else:
            db = path or query.get("db", ["0"])[0]
        return cls(
            host=parts.hostname or "127.0.0.1",
            port=parts.port or 6379,
            db=int(db),
            username=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password) if parts.password is not None else None,
            tls=parts.scheme == "rediss",
            unix_path=parts.path if parts.scheme == "unix" else None,
        )

    async def execute(self, *args: Arg) -> Any:
        protocol = self._protocol
        if protocol is None or protocol.closed:
            protocol = await self._connect()
        return await protocol.send(_pack(args))

    async def pipeline(self, *commands: Sequence[Arg]) -> list[Any]:
        """Several commands in one write; their replies in order. Not a transaction."""
        protocol = self._protocol
        if protocol is None or protocol.closed:
            protocol = await self._connect()
        futures = [protocol.send(_pack(command)) for command in commands]
        # Every reply is awaited, even after one fails: a failed reply left unawaited is an
        # exception the event loop reports as never retrieved.
        replies = await asyncio.gather(*futures, return_exceptions=True)
        for reply in replies:
            if isinstance(reply, BaseException):
                raise reply
        return replies

    async def evalsha(self, script: Arg, sha: str, keys: Sequence[Arg], args: Sequence[Arg]) -> Any:
        """Run a Lua script by its SHA-1, loading it the first time the server lacks it."""
        try:
            return await self.execute("EVALSHA", sha, len(keys), *keys, *args)
        except NoScriptError:
            await self.execute("SCRIPT", "LOAD", script)
            return await self.execute("EVALSHA", sha, len(keys), *keys, *args)

    async def evalsha_wait(
        self,
        script: Arg,
        sha: str,
        keys: Sequence[Arg],
        args: Sequence[Arg],
        replicas: int,
        timeout_ms: int,
    ) -> tuple[Any, int]:
        """`evalsha`, then WAIT on the same connection in the same write: the script's reply
        and how many replicas had acknowledged its writes (and every earlier write on this
        connection) within `timeout_ms`."""
        call = ("EVALSHA", sha, len(keys), *keys, *args)
        wait = ("WAIT", replicas, timeout_ms)
        try:
            reply, acked = await self.pipeline(call, wait)
        except NoScriptError:
            await self.execute("SCRIPT", "LOAD", script)
            reply, acked = await self.pipeline(call, wait)
        return reply, int(acked)

    async def _connect(self) -> _Protocol:
        async with self._connecting:
            if self._protocol is not None and not self._protocol.closed:
                return self._protocol
            loop = asyncio.get_running_loop()
            try:
                if self._unix_path is not None:
                    _, protocol = await loop.create_unix_connection(_Protocol, self._unix_path)
                else:
                    host, port = self._address
                    _, protocol = await loop.create_connection(_Protocol, host, port, ssl=self._tls)
            except OSError as error:
                where = self._unix_path or f"{self._address[0]}:{self._address[1]}"
                raise StoreUnavailable(f"cannot connect to Redis at {where}") from error
            try:
                for command in self._setup:
                    await protocol.send(_pack(command))
            except BaseException:
                protocol.close()
                raise
            self._protocol = protocol
            return protocol

    async def aclose(self) -> None:
        if self._protocol is not None:
            self._protocol.close()
            self._protocol = None
