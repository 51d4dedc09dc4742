"""Clocks that `fray worker` itself starts (the next turn's, after a timeout) and clocks a
rewind starts again: scheduled by whoever appended them, and fired."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import redis
from rq.job import Job
from rq.registry import ScheduledJobRegistry
from rq.serializers import JSONSerializer

from service.deciding import CommandRequest
from service.dispatch import QUEUE
from service.domain.context import GM
from service.engine import Engine
from tests.engine_helpers import skirmish
from tests.workers.conftest import fray_worker, of_type, wait_until, with_engine

# Ten-minute turns, ended on timeout. The GM's engine runs its clock ten minutes less a
# second behind, so the first turn's clock (started by the GM's start-encounter) falls due
# a second from now, while every clock the worker starts is ten minutes away: its job can
# only have been scheduled by the worker, and the sweeper never reaches it.
TURNS = {"turn_time_limit": 600}


def behind() -> datetime:
    return datetime.now(UTC) - timedelta(seconds=599)


def start_fight(store_url: str, queue_url: str, encounter_id: str) -> None:
    async def body(engine: Engine) -> None:
        await skirmish(engine, encounter_id, TURNS)

    with_engine(store_url, queue_url, body, clock=behind)


def timed_out(store_url: str, encounter_id: str) -> list[dict[str, Any]]:
    return [e for e in of_type(store_url, encounter_id, "turn-ended")
            if e["data"]["reason"] == "timeout"]  # fmt: skip


def expired_after(store_url: str, encounter_id: str, version: int) -> list[dict[str, Any]]:
    return [e for e in of_type(store_url, encounter_id, "clock-expired") if e["version"] > version]


def scheduled(queue_url: str) -> list[list[Any]]:
    """The arguments of every job waiting in RQ's schedule."""
    connection = redis.Redis.from_url(queue_url)
    registry = ScheduledJobRegistry(QUEUE, connection=connection, serializer=JSONSerializer)
    jobs = Job.fetch_many(registry.get_job_ids(), connection=connection, serializer=JSONSerializer)
    return [list(job.args) for job in jobs if job is not None]


def test_the_next_turns_clock_started_by_the_worker_is_scheduled_by_it(
    redis_url: str, queue_url: str, encounter_id: str
) -> None:
    with fray_worker(redis_url, queue_url):
        start_fight(redis_url, queue_url, encounter_id)
        wait_until(lambda: timed_out(redis_url, encounter_id))
        (_, second) = of_type(redis_url, encounter_id, "clock-started")
        assert second["actor"]["id"] == "system"  # the worker's expiry started it
        due = datetime.fromisoformat(second["data"]["deadline"]).timestamp()
        job = [encounter_id, "clock:turn", due]
        wait_until(lambda: job in scheduled(queue_url))


def test_a_clock_that_a_rewind_runs_again_fires_at_once(
    redis_url: str, queue_url: str, encounter_id: str
) -> None:
    # Bramli's turn times out and passes; the GM rewinds to the start of his turn: his clock
    # runs again with its deadline, already past, so it fires at once (and the turn passes
    # again).
    async def rewind(engine: Engine) -> int:
        (started, *_) = [e for e in await engine.store.read(encounter_id)
                         if orjson.loads(e.body)["type"] == "clock-started"]  # fmt: skip
        command = {"type": "rewind", "to_version": started.version}
        outcome = await engine.execute(encounter_id, CommandRequest(command=command), GM)
        return outcome.version

    with fray_worker(redis_url, queue_url):
        start_fight(redis_url, queue_url, encounter_id)
        wait_until(lambda: timed_out(redis_url, encounter_id))
        rewound = with_engine(redis_url, queue_url, rewind)
        (expiry, *_) = wait_until(lambda: expired_after(redis_url, encounter_id, rewound))
    assert expiry["data"]["generation"] == 1 and expiry["actor"]["id"] == "system"
    assert len(timed_out(redis_url, encounter_id)) == 2
