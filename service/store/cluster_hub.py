"""Live subscriptions on a Redis Cluster: per master, one sharded pub/sub connection.

`StreamHub`'s one blocking XREAD over every followed stream cannot work on a cluster: Redis
Cluster refuses a command whose keys are in different slots (CROSSSLOT), even when one node
serves them all, and every encounter has a slot of its own. One blocking read per followed
encounter would be a connection each. Instead, on a cluster the append script announces
each append on the encounter's shard channel, ``fray:{<id>}:live`` (SPUBLISH, Redis 7.0;
the channel is in the encounter's slot), and this hub keeps, per master, one connection
SSUBSCRIBEd to the channels of the followed encounters that master serves. An announcement
(or a new subscriber) makes the hub read that stream after the lowest cursor of its
subscribers (XRANGE) and hand each event on as `StreamHub` does: same `Subscription`, same
ordering, slow-subscriber and no-gap rules.

No gap: a new subscriber's stream is read once at once and once more when Redis confirms
the SSUBSCRIBE; an append after that confirmation is announced.

Failover and resharding: when a master's connection fails (its replica took over) or Redis
moves a channel's slot away (it sends SUNSUBSCRIBE), the subscribers of the encounters
concerned get `SubscriptionFailed` naming their last version (the API answers
`subscription/interrupted`; a client resubscribes from there), and the slot map is read
again, so they resubscribe on the new master.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import redis.asyncio
import redis.exceptions

from service.store.clients import ClusterClient, cluster_client, node_url
from service.store.errors import HubClosed, SubscriptionFailed
from service.store.events import stream_id
from service.store.keys import encounter_keys, hash_tag, live_channel
from service.store.subscriptions import StreamHub, Subscription

_log = logging.getLogger(__name__)
_POLL = 1.0  # seconds a feed's reader waits for a message before looking again


class ClusterStreamHub(StreamHub):
    """`StreamHub`'s interface on a Redis Cluster reached through `url` (any node)."""

    def __init__(self, url: str, batch: int = 500, *, max_pending: int = 1000) -> None:
        super().__init__(lambda: redis.asyncio.Redis.from_url(url), batch, max_pending=max_pending)
        self._url = url
        self._cluster: ClusterClient | None = None
        self._feeds: dict[str, _NodeFeed] = {}  # node name -> its feed
        self._followed: dict[str, _NodeFeed] = {}  # encounter id -> the feed following it
        self._pulling: dict[str, bool] = {}  # encounter id -> whether to read once more
        self._tasks: set[asyncio.Task[Any]] = set()

    async def start(self) -> None:
        if self._running:
            return
        cluster = cluster_client(self._url)
        try:
            await cluster.initialize()  # fail fast on a wrong address
        except BaseException:
            await cluster.aclose()
            raise
        self._cluster = cluster
        self._running = True

    async def stop(self) -> None:
        if not self._running:
            return
        self._running = False
        for task in list(self._tasks):
            task.cancel()
        feeds, self._feeds = list(self._feeds.values()), {}
        for feed in feeds:
            await feed.stop()
        self._followed.clear()
        for subs in self._subs.values():
            for sub in list(subs):
                sub._fail(HubClosed())
        self._subs.clear()
        if self._cluster is not None:
            await self._cluster.aclose()
            self._cluster = None

    # -- subscribers -------------------------------------------------------------------

    async def _ready(self, sub: Subscription) -> None:
        if not self._running or self._cluster is None:
            raise HubClosed()
        encounter_id = sub.encounter_id
        if encounter_id in self._followed:
            return
        node = self._cluster.get_node_from_key(encounter_keys(encounter_id).events)
        if node is None:
            raise SubscriptionFailed(encounter_id, sub.cursor)  # no master serves the slot
        feed = self._feeds.get(node.name)
        if feed is None:
            address = node_url(self._url, node.host, int(node.port))
            feed = self._feeds[node.name] = _NodeFeed(self, node.name, address)
        self._followed[encounter_id] = feed
        await feed.follow(encounter_id)

    async def _wake(self, sub: Subscription) -> None:
        self._pull_soon(sub.encounter_id)

    def _remove(self, sub: Subscription) -> None:
        super()._remove(sub)
        encounter_id = sub.encounter_id
        feed = self._followed.get(encounter_id)
        if encounter_id not in self._subs and feed is not None:
            del self._followed[encounter_id]
            self._spawn(feed.unfollow(encounter_id))

    # -- reading -----------------------------------------------------------------------

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _pull_soon(self, encounter_id: str) -> None:
        """Read the stream after its subscribers' lowest cursor; once more after this read
        if asked again meanwhile."""
        if encounter_id in self._pulling:
            self._pulling[encounter_id] = True
            return
        self._pulling[encounter_id] = False
        self._spawn(self._pull(encounter_id))

    async def _pull(self, encounter_id: str) -> None:
        try:
            again = True
            while again and self._running and self._cluster is not None:
                self._pulling[encounter_id] = False
                starts = self._start_cursors()
                start = starts.get(encounter_id)
                if start is None:
                    return
                key = encounter_keys(encounter_id).events
                entries = await self._cluster.xrange(key, stream_id(start + 1), "+", self._batch)
                entries = entries or []
                self._dispatch([(key.encode(), entries)], {key.encode(): (encounter_id, start)})
                again = self._pulling[encounter_id] or len(entries) == self._batch
        except Exception as error:
            _log.warning("reading %s for its subscribers failed: %s", encounter_id, error)
            self._fail(encounter_id, error)
        finally:
            del self._pulling[encounter_id]

    def _fail(self, encounter_id: str, cause: Exception) -> None:
        """Its subscribers get SubscriptionFailed (they resubscribe from their cursor)."""
        self._followed.pop(encounter_id, None)
        for sub in list(self._subs.pop(encounter_id, ())):
            error = SubscriptionFailed(encounter_id, sub.cursor)
            error.__cause__ = cause
            sub._fail(error)

    async def _lost(self, feed: _NodeFeed, cause: Exception) -> None:
        """A master's feed failed (a failover): its encounters' subscribers resubscribe,
        on the new master once the slot map is read again."""
        if self._feeds.get(feed.name) is feed:
            del self._feeds[feed.name]
        for encounter_id, follower in list(self._followed.items()):
            if follower is feed:
                self._fail(encounter_id, cause)
        if self._cluster is not None:
            try:
                await self._cluster.nodes_manager.initialize()
            except redis.exceptions.RedisError as error:
                _log.warning("could not read the cluster's slot map again: %s", error)


class _NodeFeed:
    """One master's sharded pub/sub connection, and the task reading it."""

    def __init__(self, hub: ClusterStreamHub, name: str, url: str) -> None:
        self.name = name
        self._hub = hub
        self._client = redis.asyncio.Redis.from_url(url)
        self._pubsub = self._client.pubsub()
        self._task: asyncio.Task[None] | None = None

    async def follow(self, encounter_id: str) -> None:
        try:
            await self._pubsub.ssubscribe(live_channel(encounter_id))
        except (redis.exceptions.RedisError, OSError) as error:
            await self._hub._lost(self, error)
            raise SubscriptionFailed(encounter_id, 0) from error
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._read())

    async def unfollow(self, encounter_id: str) -> None:
        # Failing, the connection is gone, and its subscriptions with it.
        with contextlib.suppress(redis.exceptions.RedisError, OSError):
            await self._pubsub.sunsubscribe(live_channel(encounter_id))

    async def _read(self) -> None:
        try:
            while True:
                message = await self._pubsub.get_message(timeout=_POLL)
                if message is None:
                    continue
                kind = message["type"]
                encounter_id = hash_tag(message["channel"] or b"")
                if encounter_id is None:
                    continue
                if kind in ("smessage", "ssubscribe"):
                    # An append, or the subscription confirmed: read what is new.
                    self._hub._pull_soon(encounter_id)
                elif kind == "sunsubscribe" and self._hub._followed.get(encounter_id) is self:
                    # Not asked for: Redis moved the slot away.
                    self._hub._fail(encounter_id, RuntimeError("the slot moved"))
        except asyncio.CancelledError:
            raise
        except Exception as error:
            _log.warning("the live feed from %s failed: %s", self.name, error)
            await self._hub._lost(self, error)
            await self._close()

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        await self._close()

    async def _close(self) -> None:
        with contextlib.suppress(redis.exceptions.RedisError, OSError):
            await self._pubsub.aclose()  # type: ignore[no-untyped-call]
            await self._client.aclose()
