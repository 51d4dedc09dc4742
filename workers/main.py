"""`fray worker`: an RQ worker with RQ's scheduler (deadlines, then webhook deliveries, then
audits), and the outbox sweeper beside it."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any

import redis
from rq.serializers import JSONSerializer
from rq.utils import import_attribute

from service.config import Settings
from service.dispatch import (
    AUDIT,
    DELIVER,
    FIRE,
    audit_queue,
    deadline_queue,
    webhook_queue,
)
from workers.stopping import StoppingWorker
from workers.sweeper import INTERVAL, Sweeper


def warm_up() -> list[Callable[..., Any]]:
    """Import the functions the jobs name before taking one. RQ imports a job's function
    when it runs the first such job: the engine, the rulesets and the webhook courier take
    1.2 s of CPU (1.7 s of wall time on this machine), so a freshly started worker would
    fire its first clock, or send its first delivery, late by as much."""
    return [import_attribute(name) for name in (FIRE, DELIVER, AUDIT)]


def run_worker(
    settings: Settings, *, burst: bool = False, sweep_interval: float = INTERVAL
) -> bool:
    """Work until stopped (SIGTERM, SIGINT: the job in hand is finished or released within
    the grace period, `workers.stopping`); with `burst`, until the queue is empty.

    A `SimpleWorker` runs each job in this process rather than a fork of it: a firing is
    one short command, and the sweeper's thread and event loop stay out of forks.
    """
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    # Jobs read the event store's and the queue's URLs from the environment (they carry
    # only ids).
    os.environ["FRAY_REDIS_URL"] = settings.redis_url
    os.environ["FRAY_QUEUE_REDIS_URL"] = settings.queue_redis_url
    warm_up()
    connection = redis.Redis.from_url(settings.queue_redis_url)
    # RQ takes the next job from the first queue that has one: deadlines, then webhook
    # deliveries, then audits (an audit re-decides a whole stream).
    queues = [deadline_queue(connection), webhook_queue(connection), audit_queue(connection)]
    worker = StoppingWorker(
        queues,
        connection=connection,
        serializer=JSONSerializer,
        work_time=settings.shutdown_work_time,
    )
    sweeper = Sweeper(
        settings.redis_url, connection, interval=sweep_interval, cluster=settings.redis_cluster
    )
    sweeper.start()
    try:
        return worker.work(burst=burst, with_scheduler=True)
    finally:
        worker.settle()
        sweeper.stop()
        sweeper.join(timeout=5)
        connection.close()
