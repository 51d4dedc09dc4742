"""`fray worker` told to stop (SIGTERM) mid-firing: it finishes the firing and exits 0, or,
when the grace period runs out first, gives it up and exits, and another worker fires the
deadline once. Each on a store of its own: a paused Redis would hold up every other test's
writes."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator

import pytest
import redis

from service.dispatch import deadline_queue, enqueue
from service.domain.timefmt import parse_iso
from service.embedded_redis import RedisServer
from service.engine import Engine
from service.store.events import Deadline
from tests.engine_helpers import skirmish
from tests.workers.conftest import fray_worker, wait_until, with_engine
from tests.workers.test_worker import ONE_SECOND_TURNS, expired


@pytest.fixture
def store() -> Iterator[str]:
    with RedisServer() as server:
        yield server.url


def firing_held(store_url: str, encounter_id: str, paused: redis.Redis, log: str) -> bool:
    """The worker has taken the deadline's job and its firing waits on a paused write (its
    lease or its append: the only writes the worker sends this store)."""
    job_taken = f"deadline clock:turn of {encounter_id}" in log
    return job_taken and int(paused.info("clients")["blocked_clients"]) >= 1


def fight(store_url: str, encounter_id: str, turn_seconds: int) -> Deadline:
    """A started fight whose turn clock nobody scheduled (it waits in the outbox)."""

    async def body(engine: Engine) -> Deadline:
        await skirmish(engine, encounter_id, {**ONE_SECOND_TURNS, "turn_time_limit": turn_seconds})
        (deadline,) = await engine.store.pending_deadlines(encounter_id)
        return deadline

    result: Deadline = with_engine(store_url, None, body)
    return result


def put_on_queue(queue_url: str, encounter_id: str, deadline: Deadline) -> None:
    connection = redis.Redis.from_url(queue_url)
    try:
        enqueue(deadline_queue(connection), encounter_id, deadline, at=None)
    finally:
        connection.close()


def firing(
    store_url: str, queue_url: str, encounter_id: str, paused: redis.Redis, arming: str
) -> float:
    """Pause the store's writes and have the worker fire a turn clock: in its job (the
    deadline has passed when the job starts), or armed ahead (the job starts seconds before
    the deadline, arms a timer in the worker's loop and ends: RQ knows nothing of the
    firing). Its due time. (The worker's sweeper reads the outbox with a script, which the
    pause holds too: it plays no part.)"""
    deadline = fight(store_url, encounter_id, 1 if arming == "in its job" else 4)
    paused.execute_command("CLIENT", "PAUSE", 120_000, "WRITE")
    if arming == "in its job":
        wait_until(lambda: time.time() > deadline.due)
    put_on_queue(queue_url, encounter_id, deadline)
    return deadline.due


@pytest.mark.parametrize("arming", ["in its job", "armed ahead"])
def test_a_worker_told_to_stop_mid_firing_finishes_it_and_exits_0(
    store: str, queue_url: str, encounter_id: str, arming: str
) -> None:
    paused = redis.Redis.from_url(store)
    with fray_worker(store, queue_url, FRAY_SHUTDOWN_GRACE="20") as worker:
        wait_until(lambda: "Listening on" in worker.log())
        try:
            due = firing(store, queue_url, encounter_id, paused, arming)
            wait_until(lambda: firing_held(store, encounter_id, paused, worker.log()))
            worker.process.send_signal(signal.SIGTERM)
            # RQ's shutdown waits for its job; the worker, for the work its jobs left in
            # its loop too (the firing armed ahead).
            waits = "waiting for the work in this" if arming == "armed ahead" else "told to stop"
            wait_until(lambda: waits in worker.log())
            assert expired(store, encounter_id) == []
        finally:
            paused.execute_command("CLIENT", "UNPAUSE")
        assert worker.process.wait(timeout=20) == 0
        log = worker.log()
    # Fired by this worker before it exited, once; no other worker ran.
    (event,) = expired(store, encounter_id)
    assert parse_iso(event["at"]).timestamp() >= due
    assert '"outcome":"fired"' in log


def test_a_firing_that_outlasts_the_grace_period_is_given_up_and_fired_by_the_next_worker(
    store: str, queue_url: str, encounter_id: str
) -> None:
    paused = redis.Redis.from_url(store)
    with fray_worker(store, queue_url, FRAY_SHUTDOWN_GRACE="3") as worker:
        wait_until(lambda: "Listening on" in worker.log())
        try:
            due = firing(store, queue_url, encounter_id, paused, "in its job")
            wait_until(lambda: firing_held(store, encounter_id, paused, worker.log()))
            worker.process.send_signal(signal.SIGTERM)
            # RQ would wait for its job until the store client gave up (its timeout):
            # the grace period ends it first, and the job is released.
            assert worker.process.wait(timeout=20) == 0
            log = worker.log()
            assert "releasing the work in hand" in log
            assert "Released: released: the worker stopped before the job finished" in log
        finally:
            paused.execute_command("CLIENT", "UNPAUSE")
    assert expired(store, encounter_id) == []
    with fray_worker(store, queue_url):
        (event,) = wait_until(lambda: expired(store, encounter_id))
    assert expired(store, encounter_id) == [event]
    assert parse_iso(event["at"]).timestamp() >= due
