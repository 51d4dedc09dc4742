"""Live subscriptions to encounter streams: one blocking reader per process fans out events.

A `StreamHub` owns one reader task on a dedicated connection. It runs
``XREAD BLOCK <block_ms> COUNT <batch> STREAMS <streams...> <ids...>`` over every stream
that has a subscriber, each from the lowest cursor among that stream's subscribers, and
hands each event to every subscriber whose own cursor is below it. A late subscriber
with an old cursor therefore re-reads history without the others seeing duplicates.

When a subscription is added while the reader is blocked, a second connection sends
``CLIENT UNBLOCK <reader id>`` so the reader picks the new stream up at once instead of
after `block_ms`.

Slow subscribers: each subscriber has its own queue of at most `max_pending` events.
When it is full the hub drops that subscriber (the others keep flowing): the subscriber
still gets the events already queued, then `SubscriberTooSlow`, which names the last
version it was given so it can resubscribe from there.

Connection loss: the reader reconnects with exponential backoff; cursors live on the
subscriptions, so delivery resumes with no gap and no duplicate.
"""

from __future__ import annotations

import asyncio
import logging
import math
import weakref
from collections.abc import Callable
from types import TracebackType
from typing import Any

import redis.asyncio
import redis.exceptions

from service.store.checks import check_encounter_id
from service.store.errors import (
    HubClosed,
    InvalidArgument,
    StoreError,
    SubscriberTooSlow,
    SubscriptionFailed,
)
from service.store.events import StoredEvent, event_from_entry, stream_id
from service.store.keys import events_key

_log = logging.getLogger(__name__)

_RECONNECT_ERRORS = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError)
# How long a new subscriber keeps retrying CLIENT UNBLOCK while the reader's XREAD is
# still on its way to the server (UNBLOCK answers 0 until the reader is blocked).
_WAKE_ATTEMPTS = 200
_WAKE_PAUSE = 0.005
# Slack past block_ms before a silent reader connection counts as dead.
_READ_MARGIN = 10.0
_STOP_POLL = 0.1


class Subscription:
    """An encounter's events after a version, in order: an async iterator and context manager.

    Prefer ``async with hub.subscribe(...) as events: async for event in events``; a bare
    ``async for`` also works and unsubscribes when the subscription is closed or dropped.
    """

    def __init__(
        self, hub: StreamHub, encounter_id: str, after_version: int, max_pending: int
    ) -> None:
        self.encounter_id = encounter_id
        self.cursor = after_version  # the last version put on the queue
        self._hub = hub
        self._max_pending = max_pending
        self._queue: asyncio.Queue[StoredEvent | None] = asyncio.Queue()  # None wakes
        self._opened = False
        self._closed = False
        self._error: StoreError | None = None

    async def __aenter__(self) -> Subscription:
        await self._open()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> StoredEvent:
        await self._open()
        while not self._closed:
            if self._queue.empty() and self._error is not None:
                raise self._error
            item = await self._queue.get()
            if item is not None:
                return item
        raise StopAsyncIteration

    def close(self) -> None:
        """Unsubscribe; iteration ends. Safe to call more than once."""
        if self._closed:
            return
        self._closed = True
        self._hub._remove(self)
        self._queue.put_nowait(None)

    async def aclose(self) -> None:
        self.close()

    async def _open(self) -> None:
        if self._opened or self._closed:
            return
        await self._hub._ready(self)
        self._hub._add(self)
        self._opened = True
        await self._hub._wake(self)

    def _offer(self, event: StoredEvent) -> bool:
        if self._queue.qsize() >= self._max_pending:
            return False
        self._queue.put_nowait(event)
        self.cursor = event.version
        return True

    def _fail(self, error: StoreError) -> None:
        if self._error is None:
            self._error = error
            self._queue.put_nowait(None)


class StreamHub:
    """Shares one blocking XREAD among all of a process's subscribers.

    `client_factory` must return a new client on each call (``decode_responses=False``);
    the hub owns the two it makes and closes them on `stop`.
    """

    def __init__(
        self,
        client_factory: Callable[[], redis.asyncio.Redis],
        batch: int = 500,
        block_ms: int = 5000,
        *,
        max_pending: int = 1000,
        backoff: tuple[float, float] = (0.05, 2.0),
    ) -> None:
        if batch < 1 or block_ms < 1 or max_pending < 1:
            raise InvalidArgument("batch, block_ms and max_pending must be positive")
        self._factory = client_factory
        self._batch = batch
        self._block_ms = block_ms
        self._max_pending = max_pending
        self._backoff = backoff
        self._subs: dict[str, weakref.WeakSet[Subscription]] = {}
        self._running = False
        self._task: asyncio.Task[None] | None = None
        self._clients: list[redis.asyncio.Redis] = []  # closed in this order on stop
        self._control: redis.asyncio.Redis | None = None
        self._reader: redis.asyncio.Redis | None = None
        self._reader_id: int | None = None
        # Encounter id -> start cursor of the XREAD in flight, if one is.
        self._in_flight: dict[str, int] | None = None
        self._changed = asyncio.Event()

    @property
    def subscriber_count(self) -> int:
        return sum(len(subs) for subs in self._subs.values())

    async def start(self) -> None:
        if self._running:
            return
        control = self._factory()
        reader_pool_owner = self._factory()
        # A single-connection client, so CLIENT ID and XREAD share one connection.
        reader = reader_pool_owner.client()
        self._clients = [reader, reader_pool_owner, control]
        try:
            await control.ping()  # fail fast on a wrong address
        except BaseException:
            await self._close_clients()
            raise
        self._control, self._reader = control, reader
        self._running = True
        self._task = asyncio.create_task(self._run(), name="fray-stream-hub")

    async def stop(self) -> None:
        if not self._running:
            return
        self._running = False
        self._changed.set()
        task, self._task = self._task, None
        # Python 3.11's wait_for (which redis-py uses to send) can swallow a cancel that
        # races with completion, so cancel until the task has really ended.
        while task is not None and not task.done():
            task.cancel()
            await asyncio.wait({task}, timeout=_STOP_POLL)
        if task is not None and not task.cancelled():
            task.exception()  # marks it retrieved; _run only ends by cancellation or stop
        for subs in self._subs.values():
            for sub in list(subs):
                sub._fail(HubClosed())
        self._subs.clear()
        await self._close_clients()
        self._reader = self._control = None
        self._reader_id = None

    async def _close_clients(self) -> None:
        clients, self._clients = self._clients, []
        for client in clients:
            await client.aclose()

    async def __aenter__(self) -> StreamHub:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    def subscribe(self, encounter_id: str, after_version: int) -> Subscription:
        """Every event with version > after_version, in order, with no gap or duplicate."""
        check_encounter_id(encounter_id)
        if after_version < 0:
            raise InvalidArgument(f"after_version must not be negative, got {after_version}")
        return Subscription(self, encounter_id, after_version, self._max_pending)

    async def _ready(self, sub: Subscription) -> None:
        """Before a subscriber is added (on a cluster: its node's hub, started)."""

    async def _lost_connection(self) -> None:
        """After the reader lost its connection (a cluster's node hub checks whether its
        node still serves its streams)."""

    # -- registry ------------------------------------------------------------------------

    def _add(self, sub: Subscription) -> None:
        if not self._running:
            raise HubClosed()
        self._subs.setdefault(sub.encounter_id, weakref.WeakSet()).add(sub)
        self._changed.set()

    def _remove(self, sub: Subscription) -> None:
        subs = self._subs.get(sub.encounter_id)
        if subs is None:
            return
        subs.discard(sub)
        if not subs:
            del self._subs[sub.encounter_id]

    async def _wake(self, sub: Subscription) -> None:
        """Unblock the reader's XREAD unless it already covers the new subscriber."""
        in_flight = self._in_flight
        if in_flight is None:
            return  # the reader builds its next XREAD from the current subscribers
        start = in_flight.get(sub.encounter_id)
        if start is not None and sub.cursor >= start:
            return
        for _ in range(_WAKE_ATTEMPTS):
            reader_id, control = self._reader_id, self._control
            if self._in_flight is not in_flight or reader_id is None or control is None:
                return
            try:
                if await control.client_unblock(reader_id):
                    return
            except redis.exceptions.RedisError as exc:
                # The reader still picks the subscription up after block_ms.
                _log.warning("could not wake the stream reader: %s", exc)
                return
            await asyncio.sleep(_WAKE_PAUSE)

    # -- reader --------------------------------------------------------------------------

    async def _run(self) -> None:
        low, high = self._backoff
        delay = low
        while self._running:
            try:
                if not any(self._subs.values()):
                    self._changed.clear()
                    await self._changed.wait()
                    continue
                await self._read_once()
                delay = low
            except _RECONNECT_ERRORS as exc:
                _log.warning(
                    "stream reader lost its connection (%s); retrying in %.2fs", exc, delay
                )
                await self._reset_connection()
                await self._lost_connection()
                await asyncio.sleep(delay)
                delay = min(delay * 2, high)
            except Exception as exc:
                _log.exception("stream reader failed; failing its subscribers")
                self._fail_all(exc)
                await self._reset_connection()
                await asyncio.sleep(delay)
                delay = min(delay * 2, high)

    async def _read_once(self) -> None:
        assert self._reader is not None
        await self._reader.initialize()
        conn = self._reader.connection
        assert conn is not None
        if not conn.is_connected:
            self._reader_id = None
        if self._reader_id is None:
            # check_health=False: a health-check PING could reconnect under a new client id.
            await conn.send_command("CLIENT", "ID", check_health=False)
            self._reader_id = int(await conn.read_response())

        starts = self._start_cursors()
        if not starts:
            return
        keys = [events_key(encounter_id) for encounter_id in starts]
        ids = [stream_id(cursor) for cursor in starts.values()]
        command = ["XREAD", "COUNT", self._batch, "BLOCK", self._block_ms, "STREAMS"]
        self._in_flight = starts
        try:
            await conn.send_command(*command, *keys, *ids, check_health=False)
            reply = await asyncio.wait_for(
                conn.read_response(disable_decoding=True, timeout=math.inf),
                timeout=self._block_ms / 1000 + _READ_MARGIN,
            )
        finally:
            self._in_flight = None
        self._dispatch(reply, dict(zip((k.encode() for k in keys), starts.items(), strict=True)))

    def _start_cursors(self) -> dict[str, int]:
        """Each followed encounter's lowest subscriber cursor; drops collected subscribers."""
        starts: dict[str, int] = {}
        for encounter_id, subs in list(self._subs.items()):
            cursors = [sub.cursor for sub in list(subs)]
            if cursors:
                starts[encounter_id] = min(cursors)
            else:
                del self._subs[encounter_id]
        return starts

    def _dispatch(self, reply: Any, read_from: dict[bytes, tuple[str, int]]) -> None:
        for key, entries in _streams(reply):
            encounter_id, start = read_from[key]
            # A subscriber added during the read with a cursor below `start` would see a
            # gap; it waits for the next read, which starts from its cursor.
            subs = [s for s in list(self._subs.get(encounter_id, ())) if s.cursor >= start]
            for entry in entries:
                event = event_from_entry(entry[0], _fields(entry[1]))
                for sub in subs:
                    if event.version > sub.cursor and not sub._offer(event):
                        self._remove(sub)
                        sub._fail(SubscriberTooSlow(encounter_id, sub.cursor))
                subs = [s for s in subs if s._error is None]

    def _fail_all(self, cause: Exception) -> None:
        for encounter_id, subs in list(self._subs.items()):
            for sub in list(subs):
                error = SubscriptionFailed(encounter_id, sub.cursor)
                error.__cause__ = cause
                sub._fail(error)
        self._subs.clear()

    async def _reset_connection(self) -> None:
        self._reader_id = None
        if self._reader is not None and self._reader.connection is not None:
            await self._reader.connection.disconnect()


def _streams(reply: Any) -> list[tuple[bytes, list[Any]]]:
    """XREAD's reply as (stream key, entries): RESP3 answers a map, RESP2 a list of pairs."""
    if reply is None:
        return []
    if isinstance(reply, dict):
        return list(reply.items())
    return [(item[0], item[1]) for item in reply]


def _fields(raw: Any) -> dict[bytes | str, bytes | str]:
    if isinstance(raw, dict):
        return raw
    return dict(zip(raw[::2], raw[1::2], strict=True))
