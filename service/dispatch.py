"""Deadlines into RQ: every deadline an append records becomes a scheduled job.

The store's outbox is the truth: it holds every pending deadline (encounter, key, due time,
the system command to send). Scheduling is an optimisation on top of it. Whoever appends
schedules the deadlines of its append right after it (`Dispatcher.schedule`): the API for
its clients' commands, a worker for the commands it fires (the next turn's clock, started
by a timeout). If that never happens (the process died between the two, or the queue's
Redis was down), the sweeper in every `fray worker` finds the deadline overdue in the
outbox and enqueues it (`workers.sweeper`).

RQ's scheduler moves a job onto the queue at the first of its polls (one a second) after
the job's time truncated to the second, so a job scheduled for its deadline starts up to a
second late. Jobs are scheduled `LEAD` seconds ahead instead: they start before their
deadline, and the worker fires them on time (`workers.jobs`). A deadline due within `LEAD`
(or already past: a rewind restores a clock that has run out) goes on the queue at once.

An ended encounter's audit (outbox key "audit", due at once) rides the same machinery: it
goes on its own queue, `fray-audits`, which every worker serves after the deadlines' (an
audit re-decides a whole stream; a clock must not wait behind it), run by
`workers.audits.audit_encounter`.

A job carries only ids and a time, and its id is a function of the deadline's identity:
encounter, key, due time and the version of the append that armed it. Scheduling the same
deadline twice is one job; a moved deadline (same key, new time) is a new job, and the old
one finds the outbox changed and does nothing (`workers.jobs`); a deadline armed again for
the same time (a rewind restores a clock that had already run out) is a new job too, and
a new command, which the engine does not take for a retry of the first firing.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Sequence
from datetime import UTC, datetime

import orjson
import redis
from rq import Queue, Retry
from rq.serializers import JSONSerializer

from service.domain.deadlines import WEBHOOK, is_audit, is_delivery
from service.store.events import Deadline, score_text

QUEUE = "fray-deadlines"
FIRE = "workers.jobs.fire_deadline"
AUDIT_QUEUE = "fray-audits"
AUDIT = "workers.audits.audit_encounter"
WEBHOOK_QUEUE = "fray-webhooks"
DELIVER = "workers.webhooks.deliver_webhook"
QUEUED_MARKER_MS = 10_000  # a marker outlives its job's wait in a queue that keeps up
DELIVER_TIMEOUT = 120  # seconds; a job delivers for up to `workers.webhooks.BUDGET`
AUDIT_TIMEOUT = 600  # seconds; an audit re-decides every command of the stream
# A job that fails for a passing reason (Redis away) runs again; the sweeper is the backstop.
RETRY = Retry(max=5, interval=[1, 2, 5, 10, 30])
JOB_TIMEOUT = 60  # seconds; a firing is one command through the engine
RESULT_TTL = 600  # seconds a finished job (and its answer) is kept for inspection
DELIVERY_RESULT_TTL = 60  # seconds, for a webhook delivery's job: see `enqueue`
LEAD = 1.5  # seconds: RQ's truncation and poll (up to 1 s) and the poll's own work

_log = logging.getLogger("fray.workers")


def deadline_id(encounter_id: str, key: str, due: float, armed: int | None = None) -> str:
    """The one job id (and command id) of one deadline: encounter, key, due time and the
    version that armed it (none in deadlines armed before Fray recorded it)."""
    identity = f"{encounter_id}\0{key}\0{score_text(due)}"
    if armed is not None:
        identity += f"\0{armed}"
    digest = hashlib.sha256(identity.encode()).hexdigest()
    return f"fray-{digest[:40]}"


def armed_version(deadline: Deadline) -> int | None:
    """The version of the append that armed the deadline, from its outbox payload (None
    when it has none, or is not a payload the engine wrote: one odd entry must not stop
    a sweep of all the others)."""
    try:
        payload = orjson.loads(deadline.payload)
    except orjson.JSONDecodeError:
        return None
    armed = payload.get("armed") if isinstance(payload, dict) else None
    return armed if isinstance(armed, int) else None


def job_id(encounter_id: str, deadline: Deadline) -> str:
    return deadline_id(encounter_id, deadline.key, deadline.due, armed_version(deadline))


def deadline_queue(connection: redis.Redis) -> Queue:
    return Queue(QUEUE, connection=connection, serializer=JSONSerializer)


def audit_queue(connection: redis.Redis) -> Queue:
    return Queue(AUDIT_QUEUE, connection=connection, serializer=JSONSerializer)


def delivery_marker(encounter_id: str, key: str) -> str:
    """Set while a delivery job for the (encounter, webhook) of `key` waits in the queue."""
    webhook_id = key.removeprefix(WEBHOOK).rpartition(":")[0]
    return f"fray:webhook-queued:{{{encounter_id}}}:{webhook_id}"


def webhook_queue(connection: redis.Redis) -> Queue:
    return Queue(WEBHOOK_QUEUE, connection=connection, serializer=JSONSerializer)


def enqueue(queue: Queue, encounter_id: str, deadline: Deadline, *, at: float | None) -> None:
    """Schedule the deadline's job for the time `at`, or (None) put it on the queue at once;
    an audit goes on the audit queue (beside `queue`, on its Redis) at once, a webhook
    delivery on the webhook queue (at once, or at its retry's time)."""
    options = {
        "args": (encounter_id, deadline.key, deadline.due),
        "job_id": job_id(encounter_id, deadline),
        "retry": RETRY,
        "job_timeout": JOB_TIMEOUT,
        "result_ttl": RESULT_TTL,
        "description": f"deadline {deadline.key} of {encounter_id}",
    }
    if is_audit(deadline.key):
        options.update(job_timeout=AUDIT_TIMEOUT, description=f"audit of {encounter_id}")
        audit_queue(queue.connection).enqueue(AUDIT, **options)
    elif is_delivery(deadline.key):
        # The delivery log is the record: a finished job is kept a minute, not RESULT_TTL
        # (at 100 deliveries a second, 6,000 jobs' hashes, 6.5 KB each, not 60,000). Not
        # 0: RQ then deletes each job as it finishes (registries, dependents, keys), which
        # cost the worker more CPU per delivery than letting Redis expire it, and at 100
        # deliveries a second took one worker's p99 from 90-643 ms to 1.4-1.8 s.
        options.update(
            job_timeout=DELIVER_TIMEOUT,
            result_ttl=DELIVERY_RESULT_TTL,
            description=f"{deadline.key} of {encounter_id}",
        )
        deliveries = webhook_queue(queue.connection)
        if deadline.due > time.time():
            deliveries.enqueue_at(datetime.fromtimestamp(deadline.due, UTC), DELIVER, **options)
        else:
            deliveries.enqueue(DELIVER, **options)
    elif at is None:
        queue.enqueue(FIRE, **options)
    else:
        queue.enqueue_at(datetime.fromtimestamp(at, UTC), FIRE, **options)


class Dispatcher:
    """Schedules deadlines on the queue's Redis (`FRAY_QUEUE_REDIS_URL`)."""

    def __init__(self, queue_redis_url: str) -> None:
        self._connection = redis.Redis.from_url(queue_redis_url)
        self._queue = deadline_queue(self._connection)

    def schedule_now(self, encounter_id: str, deadlines: Sequence[Deadline]) -> None:
        now = time.time()
        for deadline in deadlines:
            if is_delivery(deadline.key) and deadline.due <= now:
                # One job per (encounter, webhook) is enough, waiting or running: it
                # delivers all that pair is owed. Its marker is taken down when the job
                # has delivered all it found (`taken_up`), and the job then reads the
                # outbox once more; the sweeper is the backstop for a job lost with its
                # marker up.
                marker = delivery_marker(encounter_id, deadline.key)
                if not self._connection.set(marker, "1", nx=True, px=QUEUED_MARKER_MS):
                    continue
            start = deadline.due - LEAD
            enqueue(self._queue, encounter_id, deadline, at=start if start > now else None)

    def taken_up(self, encounter_id: str, key: str) -> None:
        """A delivery job is done: the next append for its pair schedules a job again."""
        self._connection.delete(delivery_marker(encounter_id, key))

    async def schedule(self, encounter_id: str, deadlines: Sequence[Deadline]) -> None:
        """Called by the engine after an append that recorded deadlines. Never raises: the
        deadlines are safe in the outbox, and a worker's sweeper enqueues any it misses."""
        try:
            # RQ speaks to Redis synchronously; a thread keeps the event loop free.
            await asyncio.to_thread(self.schedule_now, encounter_id, deadlines)
        except Exception:
            _log.exception(
                "could not schedule %d deadline(s) of %s; the sweeper will find them",
                len(deadlines),
                encounter_id,
            )

    def close(self) -> None:
        self._connection.close()
