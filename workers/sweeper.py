"""The backstop: deadlines the outbox says are overdue go on the queue at once (and audits
of ended encounters, which the outbox holds too, on theirs: `workers.audits`).

A deadline is normally fired by the job scheduled right after the append that recorded it
(by the API, or by the worker whose firing appended it). It can be missed three ways: the
process died between the append and the scheduling; the queue's Redis refused it; the
worker holding RQ's scheduler lock died, so nobody moves due jobs onto the queue until the
lock expires (its TTL is the scheduler interval + 60 s) and another worker's scheduler
takes it (workers retry every 120 s): up to about three minutes late. Every `fray worker`
therefore sweeps the outbox's global index each `interval` seconds and enqueues, for
immediate running, every deadline overdue by more than `grace` seconds. With one worker
alive, a deadline fires at most about `grace + interval` (3 s) plus one job late, whatever
happened to the scheduling.

Sweeping is cheap whatever is waiting: one range query on a sorted set bounded by "now",
so a clock due in three days costs nothing until it is due. A marker key (SET NX with a
short expiry) keeps several workers, or a slow job, from enqueueing the same deadline each
sweep; and a deadline fired twice is one effect anyway (see `workers.jobs`).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable

import redis
from rq import Queue

from service.dispatch import deadline_queue, delivery_marker, enqueue, job_id
from service.domain.deadlines import is_audit, is_delivery
from service.store.clients import redis_client
from service.store.protocol import Store
from service.store.redis_store import EventStore

INTERVAL = 1.0  # seconds between sweeps
GRACE = 2.0  # seconds a deadline may be overdue before the sweeper steps in
REPEAT_AFTER = 5  # seconds before the same deadline is enqueued again
BATCH = 200  # deadlines per sweep at most
# On a Redis Cluster, how often every outbox is read to repair the deadline index (an
# index write lost between an outbox's change and its sync: `service.store.redis_store`).
REPAIR_INTERVAL = 300.0

_log = logging.getLogger("fray.workers")


async def sweep_once(
    store: Store, queue: Queue, now: float, grace: float = GRACE, batch: int = BATCH
) -> list[str]:
    """Enqueue the deadlines overdue by more than `grace`; the job ids enqueued."""
    enqueued: list[str] = []
    marker_store: redis.Redis = queue.connection
    pairs: set[str] = set()
    for encounter_id, deadline in await store.due_deadlines(now - grace, limit=batch):
        if is_delivery(deadline.key):
            # One job delivers all that an (encounter, webhook) pair is owed, in order.
            pair = delivery_marker(encounter_id, deadline.key)
            if pair in pairs:
                continue
            pairs.add(pair)
        job = job_id(encounter_id, deadline)
        if marker_store.hget(f"rq:job:{job}", "status") == b"queued":
            continue  # waiting its turn behind other jobs: it will run
        if not marker_store.set(f"fray:swept:{job}", "1", nx=True, ex=REPEAT_AFTER):
            continue
        enqueue(queue, encounter_id, deadline, at=None)
        enqueued.append(job)
        _log.warning(
            "%s of %s was %.1f s overdue; enqueued it",
            "audit" if is_audit(deadline.key) else deadline.key,
            encounter_id,
            now - deadline.due,
        )
    return enqueued


class Sweeper(threading.Thread):
    """Sweeps in a daemon thread with its own event loop until `stop()`."""

    def __init__(
        self,
        store_url: str,
        queue_connection: redis.Redis,
        interval: float = INTERVAL,
        clock: Callable[[], float] = time.time,
        cluster: bool = False,
    ) -> None:
        super().__init__(name="fray-sweeper", daemon=True)
        self._store_url = store_url
        self._cluster = cluster
        self._queue = deadline_queue(queue_connection)
        self._interval = interval
        self._clock = clock
        self._stopping = threading.Event()

    def stop(self) -> None:
        self._stopping.set()

    def run(self) -> None:
        asyncio.run(self._loop())

    async def _loop(self) -> None:
        client = redis_client(self._store_url, self._cluster)
        store = EventStore(client)
        repaired = -REPAIR_INTERVAL  # at start: a worker (re)started after a crash repairs
        try:
            while not self._stopping.is_set():
                try:
                    if self._cluster and time.monotonic() - repaired >= REPAIR_INTERVAL:
                        repaired = time.monotonic()
                        await store.repair_deadline_index()
                    await sweep_once(store, self._queue, self._clock())
                except Exception:  # Redis away for a moment: sweep again next time
                    _log.exception("sweeping the deadline outbox failed")
                await asyncio.to_thread(self._stopping.wait, self._interval)
        finally:
            await client.aclose()
