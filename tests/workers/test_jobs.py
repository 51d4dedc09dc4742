"""The firing job and the sweeper, run in this process against the real Redis servers."""

from __future__ import annotations

import asyncio
import itertools
import zlib
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import pytest
import redis
import redis.asyncio as aioredis
from rq.job import Job
from rq.registry import ScheduledJobRegistry
from rq.serializers import JSONSerializer

from service.deadline_metrics import DeadlineMetrics
from service.dispatch import LEAD, QUEUE, Dispatcher, deadline_id, deadline_queue, job_id
from service.domain.canonical import canonical_bytes
from service.engine import Engine
from service.store.events import Deadline
from service.store.redis_store import EventStore
from tests.engine_helpers import send, skirmish
from tests.workers.conftest import of_type
from workers.jobs import Leases, drain, fire, lease_key
from workers.sweeper import sweep_once

RECORD_ONLY = {"turn_time_limit": 600, "on_turn_timeout": "record"}


def scenario(store_url: str, body: Any, **engine: Any) -> Any:
    async def main() -> Any:
        client = aioredis.Redis.from_url(store_url)
        try:
            return await body(Engine(EventStore(client), **engine))
        finally:
            await client.aclose()

    return asyncio.run(main())


async def turn_deadline(engine: Engine, encounter_id: str) -> tuple[str, float]:
    (deadline,) = await engine.store.pending_deadlines(encounter_id)
    return deadline.key, deadline.due


async def turn_job(engine: Engine, encounter_id: str) -> str:
    """The job id (and command id) of the encounter's one pending deadline."""
    (deadline,) = await engine.store.pending_deadlines(encounter_id)
    return job_id(encounter_id, deadline)


def test_a_deadline_fired_twice_takes_effect_once(redis_url: str, encounter_id: str) -> None:
    async def body(engine: Engine) -> list[str]:
        await skirmish(engine, encounter_id, RECORD_ONLY)
        key, due = await turn_deadline(engine, encounter_id)
        return [await fire(engine, encounter_id, key, due, clock=lambda: due) for _ in range(2)]

    assert scenario(redis_url, body) == ["fired", "moved"]
    expired = of_type(redis_url, encounter_id, "clock-expired")
    assert len(expired) == 1
    assert expired[0]["actor"]["id"] == "system"


def test_a_second_firing_racing_the_first_is_a_duplicate(redis_url: str, encounter_id: str) -> None:
    # Two workers that both read the outbox before either fired: the same command id.
    async def body(engine: Engine) -> list[str]:
        await skirmish(engine, encounter_id, RECORD_ONLY)
        key, due = await turn_deadline(engine, encounter_id)
        other = Engine(engine.store)
        return sorted(
            await asyncio.gather(
                fire(engine, encounter_id, key, due, clock=lambda: due),
                fire(other, encounter_id, key, due, clock=lambda: due),
            )
        )

    outcomes = scenario(redis_url, body)
    assert outcomes in (["duplicate", "fired"], ["fired", "moved"])
    assert len(of_type(redis_url, encounter_id, "clock-expired")) == 1


def test_a_moved_deadline_never_fires_for_its_old_time(redis_url: str, encounter_id: str) -> None:
    async def body(engine: Engine) -> str:
        await skirmish(engine, encounter_id, RECORD_ONLY)
        key, old_due = await turn_deadline(engine, encounter_id)
        await send(engine, encounter_id, {"type": "end-turn"})  # the next turn's clock
        key_after, new_due = await turn_deadline(engine, encounter_id)
        assert key_after == key and new_due != old_due
        return await fire(engine, encounter_id, key, old_due, clock=lambda: old_due)

    # A clock that moves a second per reading, so the next turn's deadline is a later time
    # even on a machine quick enough to send both commands within one millisecond.
    ticks = itertools.count()

    def stepping_clock() -> datetime:
        return datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=next(ticks))

    assert scenario(redis_url, body, clock=stepping_clock) == "moved"
    assert of_type(redis_url, encounter_id, "clock-expired") == []


def test_the_engine_schedules_each_deadline_as_a_job_at_its_due_time(
    redis_url: str, queue_url: str, encounter_id: str
) -> None:
    dispatcher = Dispatcher(queue_url)

    async def body(engine: Engine) -> tuple[str, float, str]:
        await skirmish(engine, encounter_id, RECORD_ONLY)
        return (*await turn_deadline(engine, encounter_id), await turn_job(engine, encounter_id))

    key, due, job_name = scenario(redis_url, body, on_deadlines=dispatcher.schedule)
    dispatcher.close()
    connection = redis.Redis.from_url(queue_url)
    registry = ScheduledJobRegistry(QUEUE, connection=connection, serializer=JSONSerializer)
    assert registry.get_job_ids() == [job_name]
    # Ahead of the deadline, so that RQ's once-a-second scheduler hands it over in time.
    assert registry.get_scheduled_time(job_name).timestamp() == pytest.approx(due - LEAD, abs=1)
    job = Job.fetch(job_name, connection=connection, serializer=JSONSerializer)
    assert job.func_name == "workers.jobs.fire_deadline"
    assert job.args == [encounter_id, key, due]  # JSON: ids and a time, nothing pickled
    raw = connection.hget(f"rq:job:{job_name}", "data")
    assert raw is not None
    assert orjson.loads(zlib.decompress(raw))[0] == "workers.jobs.fire_deadline"  # not pickle


def test_the_sweeper_enqueues_an_overdue_deadline_once_per_pause(
    redis_url: str, queue_url: str, encounter_id: str
) -> None:
    connection = redis.Redis.from_url(queue_url)
    queue = deadline_queue(connection)

    async def body(engine: Engine) -> tuple[str, list[str], list[str], list[str]]:
        await skirmish(engine, encounter_id, RECORD_ONLY)
        _, due = await turn_deadline(engine, encounter_id)
        early = await sweep_once(engine.store, queue, now=due)  # due, not yet overdue
        late = await sweep_once(engine.store, queue, now=due + 60)
        again = await sweep_once(engine.store, queue, now=due + 61)
        return await turn_job(engine, encounter_id), early, late, again

    # (The suite's Redis holds other tests' encounters too: only this one's job counts.)
    job_name, early, late, again = scenario(redis_url, body)
    assert job_name not in early
    assert late.count(job_name) == 1 and job_name not in again
    assert job_name in queue.job_ids


def test_a_clock_of_three_days_waits_as_one_scheduled_job_and_nothing_else(
    redis_url: str, queue_url: str, encounter_id: str
) -> None:
    # Play by post: the clock's job waits in RQ's schedule; sweeps do not see it until due.
    three_days = 3 * 86_400
    dispatcher = Dispatcher(queue_url)
    connection = redis.Redis.from_url(queue_url)
    queue = deadline_queue(connection)

    async def body(engine: Engine) -> tuple[str, float, list[str]]:
        await skirmish(engine, encounter_id, {"turn_time_limit": three_days})
        _, due = await turn_deadline(engine, encounter_id)
        swept = await sweep_once(engine.store, queue, now=due - 60)
        return await turn_job(engine, encounter_id), due, swept

    job_name, due, swept = scenario(redis_url, body, on_deadlines=dispatcher.schedule)
    dispatcher.close()
    assert job_name not in swept and job_name not in queue.job_ids
    registry = ScheduledJobRegistry(QUEUE, connection=connection, serializer=JSONSerializer)
    assert job_name in registry.get_job_ids()
    assert registry.get_scheduled_time(job_name).timestamp() == pytest.approx(due - LEAD, abs=1)


def test_a_job_started_long_before_its_deadline_leaves_it_to_the_sweeper(
    redis_url: str, encounter_id: str
) -> None:
    async def body(engine: Engine) -> tuple[str, list[Any]]:
        await skirmish(engine, encounter_id, RECORD_ONLY)
        key, due = await turn_deadline(engine, encounter_id)
        outcome = await fire(engine, encounter_id, key, due, clock=lambda: due - 60)
        return outcome, await engine.store.pending_deadlines(encounter_id)

    outcome, pending = scenario(redis_url, body)
    assert outcome == "early" and len(pending) == 1
    assert of_type(redis_url, encounter_id, "clock-expired") == []


def test_firings_are_counted_with_their_lateness_for_every_api_instance(
    redis_url: str, encounter_id: str
) -> None:
    async def body(engine: Engine) -> tuple[list[str], list[str]]:
        client = aioredis.Redis.from_url(redis_url)
        try:
            metrics = DeadlineMetrics(client)
            before = await metrics.render(now=0)
            await skirmish(engine, encounter_id, RECORD_ONLY)
            key, due = await turn_deadline(engine, encounter_id)
            late = iter([due + 0.3])  # the job starts 0.3 s after the deadline
            await fire(engine, encounter_id, key, due, clock=lambda: next(late), metrics=metrics)
            await fire(engine, encounter_id, key, due, clock=lambda: due, metrics=metrics)
            return before, await metrics.render(now=0)
        finally:
            await client.aclose()

    before, after = scenario(redis_url, body)
    delta = _counts(after) - _counts(before)
    assert delta['fray_deadlines_fired_total{outcome="fired"}'] == 1
    assert delta['fray_deadlines_fired_total{outcome="moved"}'] == 1
    assert delta["fray_deadline_lateness_seconds_count"] == 1
    # The lateness is measured to the event, which the engine stamps with the wall clock.
    assert delta['fray_deadline_lateness_seconds_bucket{le="+Inf"}'] == 1
    assert delta["fray_deadline_encounters_pending"] >= 0


class _Counts(dict[str, float]):
    def __sub__(self, other: dict[str, float]) -> dict[str, float]:
        return {k: v - other.get(k, 0.0) for k, v in self.items()}


def _counts(lines: list[str]) -> _Counts:
    return _Counts(
        (name, float(value))
        for name, value in (line.rsplit(" ", 1) for line in lines if not line.startswith("#"))
    )


def test_one_job_fires_every_deadline_already_due(redis_url: str, encounter_id: str) -> None:
    names = [f"{encounter_id}-{n}" for n in range(5)]

    async def body(engine: Engine) -> tuple[int, list[int]]:
        dues = []
        for name in names:
            await skirmish(engine, name, RECORD_ONLY)
            dues.append((await turn_deadline(engine, name))[1])
        # At the latest due time every one of them is due (other tests' are not: 600 s).
        fired = await drain(engine, max(dues), skip=(names[0], "clock:turn"))
        left = [len(await engine.store.pending_deadlines(n)) for n in names]
        return fired, left

    fired, left = scenario(redis_url, body)
    assert fired >= 4
    assert left == [1, 0, 0, 0, 0]  # all but the skipped one (its own job fires it)
    assert [len(of_type(redis_url, n, "clock-expired")) for n in names] == [0, 1, 1, 1, 1]


def test_a_deadline_another_worker_is_firing_is_left_to_it(
    redis_url: str, encounter_id: str
) -> None:
    async def body(engine: Engine) -> tuple[str, str]:
        client = aioredis.Redis.from_url(redis_url)
        try:
            leases, other_worker = Leases(client), Leases(client)
            await skirmish(engine, encounter_id, RECORD_ONLY)
            key, due = await turn_deadline(engine, encounter_id)
            assert await other_worker.take(await turn_job(engine, encounter_id))
            taken = await fire(engine, encounter_id, key, due, lambda: due, leases=leases)
            await other_worker.release(await turn_job(engine, encounter_id))
            fired = await fire(engine, encounter_id, key, due, lambda: due, leases=leases)
            return taken, fired
        finally:
            await client.aclose()

    assert scenario(redis_url, body) == ("taken", "fired")
    assert len(of_type(redis_url, encounter_id, "clock-expired")) == 1


def test_a_lease_that_lapsed_and_was_taken_again_is_not_released_by_its_first_holder(
    redis_url: str, encounter_id: str
) -> None:
    # The first worker hangs past its lease; a second takes the deadline over. When the
    # first comes back and releases, the second's lease must stand.
    job_id = f"fray-lease-{encounter_id}"

    async def body() -> tuple[bytes | None, bytes | None]:
        client = aioredis.Redis.from_url(redis_url)
        try:
            first, second = Leases(client), Leases(client)
            assert await first.take(job_id)
            await client.pexpire(lease_key(job_id), 1)  # the lease lapses, as after LEASE_MS
            for _ in range(1000):  # gone within a millisecond; ten seconds at most
                if not await client.exists(lease_key(job_id)):
                    break
                await asyncio.sleep(0.01)
            assert await second.take(job_id)
            await first.release(job_id)
            standing = await client.get(lease_key(job_id))
            await second.release(job_id)
            return standing, await client.get(lease_key(job_id))
        finally:
            await client.aclose()

    standing, after = asyncio.run(body())
    assert standing is not None  # the second worker still holds it
    assert after is None  # and its own release frees it


def test_a_lease_is_renewed_by_its_holder_only_while_it_still_holds_it(
    redis_url: str, encounter_id: str
) -> None:
    # The webhook worker renews its lease with each delivery's writes (one pipeline): a
    # renewal gives the lease its whole ttl again, but not once it lapsed and another
    # worker took it.
    job_id = f"fray-renew-{encounter_id}"

    async def renew(leases: Leases, client: aioredis.Redis) -> int:
        async with client.pipeline(transaction=False) as pipe:
            leases.renew_in(pipe, job_id)
            replies: list[int] = await pipe.execute()
        return replies[0]

    async def body() -> tuple[int, int, int, bytes | None, bytes | None]:
        client = aioredis.Redis.from_url(redis_url)
        try:
            first, second = Leases(client, ttl_ms=60_000), Leases(client, ttl_ms=60_000)
            assert await first.take(job_id)
            await client.pexpire(lease_key(job_id), 5_000)  # most of its ttl gone by
            renewed = await renew(first, client)
            ttl = int(await client.pttl(lease_key(job_id)))
            token = await client.get(lease_key(job_id))
            await client.delete(lease_key(job_id))  # it lapses...
            assert await second.take(job_id)  # ...and another worker takes it
            lost = await renew(first, client)
            return renewed, ttl, lost, token, await client.get(lease_key(job_id))
        finally:
            await client.aclose()

    renewed, ttl, lost, first_token, standing = asyncio.run(body())
    assert renewed == 1 and ttl > 5_000  # the whole ttl again
    assert lost == 0  # the first holder learns it lost the lease
    assert standing is not None and standing != first_token  # and the second's stands


def test_a_deadline_rearmed_by_a_rewind_fires_again(redis_url: str, encounter_id: str) -> None:
    # Bramli's turn times out (and passes to the goblin); the GM rewinds to the start of
    # Bramli's turn, so his clock runs again with its deadline, now past: it must fire.
    async def body(engine: Engine) -> tuple[str, str]:
        await skirmish(engine, encounter_id, {"turn_time_limit": 600})
        key, due = await turn_deadline(engine, encounter_id)
        (started,) = [e for e in await engine.store.read(encounter_id)
                      if orjson.loads(e.body)["type"] == "clock-started"]  # fmt: skip
        first = await fire(engine, encounter_id, key, due, clock=lambda: due)
        rewind = {"type": "rewind", "to_version": started.version}
        await send(engine, encounter_id, rewind)
        assert await turn_deadline(engine, encounter_id) == (key, due)  # re-armed, as it was
        again = await fire(engine, encounter_id, key, due, clock=lambda: due + 60)
        return first, again

    assert scenario(redis_url, body) == ("fired", "fired")
    expiries = of_type(redis_url, encounter_id, "clock-expired")
    assert [e["data"]["generation"] for e in expiries] == [1, 1]
    (rewound,) = of_type(redis_url, encounter_id, "rewound")
    assert expiries[1]["version"] > rewound["version"]
    timeouts = [e for e in of_type(redis_url, encounter_id, "turn-ended")
                if e["data"]["reason"] == "timeout"]  # fmt: skip
    assert len(timeouts) == 2 and timeouts[1]["version"] > rewound["version"]


def test_a_deadline_armed_before_fray_recorded_its_version_fires_under_its_old_id(
    redis_url: str, encounter_id: str
) -> None:
    # An outbox entry written by the Fray before this one has no "armed": its jobs, already
    # in RQ under the old id, and this Fray's firings must agree on one command id.
    async def body(engine: Engine) -> tuple[str, Deadline]:
        await skirmish(engine, encounter_id, RECORD_ONLY)
        (deadline,) = await engine.store.pending_deadlines(encounter_id)
        payload = orjson.loads(deadline.payload)
        del payload["armed"]
        older = Deadline(deadline.key, deadline.due, canonical_bytes(payload))
        head = await engine.store.head(encounter_id)
        assert head is not None
        await engine.store.append(encounter_id, head.version, "older-arming", "fp", [], [older])
        due = deadline.due
        return await fire(engine, encounter_id, deadline.key, due, clock=lambda: due), deadline

    outcome, deadline = scenario(redis_url, body)
    assert outcome == "fired"
    (expired,) = of_type(redis_url, encounter_id, "clock-expired")
    assert expired["command_id"] == deadline_id(encounter_id, deadline.key, deadline.due)


def test_an_outbox_entry_the_engine_did_not_write_does_not_stop_a_sweep(
    redis_url: str, queue_url: str, encounter_id: str
) -> None:
    connection = redis.Redis.from_url(queue_url)
    queue = deadline_queue(connection)
    odd = f"{encounter_id}-odd"

    async def body(engine: Engine) -> tuple[str, list[str]]:
        await skirmish(engine, encounter_id, RECORD_ONLY)
        _, due = await turn_deadline(engine, encounter_id)
        await skirmish(engine, odd, RECORD_ONLY)
        head = await engine.store.head(odd)
        assert head is not None
        junk = Deadline("junk", due - 1, b"not json")
        await engine.store.append(odd, head.version, "junk", "fp", [], [junk])
        swept = await sweep_once(engine.store, queue, now=due + 60)
        await engine.store.clear_deadline(odd, junk.key, junk.due)
        return await turn_job(engine, encounter_id), swept

    job_name, swept = scenario(redis_url, body)
    assert job_name in swept
