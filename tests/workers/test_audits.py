"""The audit job and its queue, run in this process against the real Redis servers."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import orjson
import pytest
import redis
import redis.asyncio as aioredis

from service.app.audits import Audits
from service.app.auth import system_principal
from service.audit_metrics import AuditMetrics
from service.dispatch import AUDIT_QUEUE, QUEUE, Dispatcher, deadline_queue, job_id
from service.engine import Engine
from service.store.events import Deadline
from service.store.memory import MemoryStore
from service.store.redis_store import EventStore
from tests.engine_helpers import send, skirmish
from tests.workers.conftest import corrupt
from workers.audits import AUDIT_LEASE_MS, audit_due
from workers.jobs import Leases, drain
from workers.sweeper import sweep_once


def scenario(store_url: str, body: Any) -> Any:
    async def main() -> Any:
        client = aioredis.Redis.from_url(store_url)
        try:
            return await body(Engine(EventStore(client)), client)
        finally:
            await client.aclose()

    return asyncio.run(main())


async def ended(engine: Engine, encounter_id: str) -> Deadline:
    """A fight played to its end; the audit its end owes."""
    await skirmish(engine, encounter_id)
    await send(engine, encounter_id, {"type": "roll", "expression": "1d20+4"})
    await send(engine, encounter_id, {"type": "end-encounter"})
    return await owed(engine, encounter_id)


async def owed(engine: Engine, encounter_id: str) -> Deadline:
    (entry,) = [d for d in await engine.store.pending_deadlines(encounter_id) if d.key == "audit"]
    return entry


async def counts(client: aioredis.Redis) -> dict[str, int]:
    lines = await AuditMetrics(client).render()
    return {
        line.split('"')[1]: int(line.rsplit(" ", 1)[1])
        for line in lines
        if not line.startswith("#")
    }


def audit_lines(caplog: pytest.LogCaptureFixture) -> list[tuple[int, dict[str, Any]]]:
    return [
        (r.levelno, orjson.loads(r.message))
        for r in caplog.records
        if r.name == "fray.workers" and '"event":"audit"' in r.message
    ]


def test_an_ended_encounter_is_audited_its_verdict_kept_and_counted(
    redis_url: str, encounter_id: str, caplog: pytest.LogCaptureFixture
) -> None:
    async def body(engine: Engine, client: aioredis.Redis) -> Any:
        entry = await ended(engine, encounter_id)
        metrics = AuditMetrics(client)
        before = await counts(client)
        with caplog.at_level(logging.INFO, logger="fray.workers"):
            first = await audit_due(engine, encounter_id, entry.key, entry.due, metrics)
            again = await audit_due(engine, encounter_id, entry.key, entry.due, metrics)
        verdict = await Audits(engine).verdict(system_principal(encounter_id))
        left = await engine.store.pending_deadlines(encounter_id)
        return first, again, verdict, left, before, await counts(client)

    first, again, verdict, left, before, after = scenario(redis_url, body)
    assert (first, again) == ("passed", "done")  # audited once; the second finds it done
    assert verdict.verdict == "passed" and not verdict.stale
    assert verdict.audited_version == verdict.version
    assert [c["name"] for c in verdict.checks][:7] == [
        "lines", "chain", "created", "seed", "draws", "rerun", "head"
    ]  # fmt: skip
    assert all(c["status"] in ("passed", "skipped") for c in verdict.checks)
    assert left == []  # the entry is cleared
    assert after["passed"] - before["passed"] == 1
    (level, line), = audit_lines(caplog)  # fmt: skip
    assert level == logging.INFO
    assert line == {"event": "audit", "tenant": None, "encounter_id": encounter_id,
                    "verdict": "passed", "audited_version": verdict.version}  # fmt: skip


def test_a_stream_edited_after_the_fact_fails_its_audit_and_says_where(
    redis_url: str, encounter_id: str, caplog: pytest.LogCaptureFixture
) -> None:
    async def body(engine: Engine, client: aioredis.Redis) -> Any:
        entry = await ended(engine, encounter_id)
        corrupt(redis_url, encounter_id, 4)
        before = await counts(client)
        with caplog.at_level(logging.INFO, logger="fray.workers"):
            outcome = await audit_due(
                engine, encounter_id, entry.key, entry.due, AuditMetrics(client)
            )
        verdict = await Audits(engine).verdict(system_principal(encounter_id))
        return outcome, verdict, before, await counts(client)

    outcome, verdict, before, after = scenario(redis_url, body)
    assert outcome == "failed" and verdict.verdict == "failed"
    chain = next(c for c in verdict.checks if c["name"] == "chain")
    assert chain["status"] == "failed" and "version 4" in chain["detail"]
    assert after["failed"] - before["failed"] == 1
    (level, line), = audit_lines(caplog)  # fmt: skip
    assert level == logging.WARNING
    assert line["encounter_id"] == encounter_id and line["verdict"] == "failed"
    assert line["failed_check"] == "chain" and line["detail"] == chain["detail"]


def test_a_verdict_of_an_encounter_still_going_on_is_pending(
    redis_url: str, encounter_id: str
) -> None:
    async def body(engine: Engine, client: aioredis.Redis) -> Any:
        await skirmish(engine, encounter_id)
        return await Audits(engine).verdict(system_principal(encounter_id))

    verdict = scenario(redis_url, body)
    assert verdict.to_dict() == {"verdict": "pending", "audited_version": None,
                                 "audited_at": None, "version": verdict.version,
                                 "stale": False, "checks": []}  # fmt: skip


def test_a_note_after_the_end_makes_the_verdict_stale_until_its_own_audit(
    redis_url: str, encounter_id: str
) -> None:
    async def body(engine: Engine, client: aioredis.Redis) -> Any:
        entry = await ended(engine, encounter_id)
        await audit_due(engine, encounter_id, entry.key, entry.due)
        await send(engine, encounter_id, {"type": "add-note", "text": "well fought"})
        audits = Audits(engine)
        stale = await audits.verdict(system_principal(encounter_id))
        again = await owed(engine, encounter_id)
        await audit_due(engine, encounter_id, again.key, again.due)
        return stale, await audits.verdict(system_principal(encounter_id))

    stale, fresh = scenario(redis_url, body)
    assert stale.verdict == "passed" and stale.stale
    assert stale.audited_version == stale.version - 1
    assert fresh.verdict == "passed" and not fresh.stale
    assert fresh.audited_version == fresh.version == stale.version


def test_an_audit_armed_again_meanwhile_is_left_for_its_own_job(
    redis_url: str, encounter_id: str
) -> None:
    async def body(engine: Engine, client: aioredis.Redis) -> Any:
        first = await ended(engine, encounter_id)
        # The note lands while the job of the end is on its way: the entry is armed again.
        await asyncio.sleep(0.01)  # a later millisecond: the note's entry is due later
        await send(engine, encounter_id, {"type": "add-note", "text": "well fought"})
        second = await owed(engine, encounter_id)
        outcome = await audit_due(engine, encounter_id, first.key, first.due)
        return outcome, second, await owed(engine, encounter_id)

    outcome, second, left = scenario(redis_url, body)
    assert outcome == "done" and left == second


def test_an_audit_under_way_in_another_worker_is_not_run_twice(
    redis_url: str, encounter_id: str
) -> None:
    async def body(engine: Engine, client: aioredis.Redis) -> Any:
        entry = await ended(engine, encounter_id)
        other = Leases(client, ttl_ms=AUDIT_LEASE_MS)
        assert await other.take(job_id(encounter_id, entry))
        leases = Leases(client, ttl_ms=AUDIT_LEASE_MS)
        outcome = await audit_due(engine, encounter_id, entry.key, entry.due, leases=leases)
        return (
            outcome,
            await engine.store.load_audit(encounter_id),
            await owed(engine, encounter_id),
        )

    outcome, kept, left = scenario(redis_url, body)
    assert outcome == "taken" and kept is None and left is not None


def test_the_audit_of_an_encounter_gone_since_is_dropped(redis_url: str, encounter_id: str) -> None:
    async def body(engine: Engine, client: aioredis.Redis) -> Any:
        entry = await ended(engine, encounter_id)
        await client.delete(f"fray:{{{encounter_id}}}:meta")
        return await audit_due(engine, encounter_id, entry.key, entry.due)

    assert scenario(redis_url, body) == "gone"


def test_a_drain_of_due_deadlines_leaves_audits_to_their_queue(encounter_id: str) -> None:
    async def body() -> tuple[int, Deadline]:
        engine = Engine(MemoryStore())
        await ended(engine, encounter_id)
        fired = await drain(engine, time.time() + 60)
        return fired, await owed(engine, encounter_id)

    fired, entry = asyncio.run(body())
    assert fired == 0 and entry.key == "audit"


def test_audits_are_scheduled_and_swept_onto_their_own_queue(
    queue_url: str, encounter_id: str
) -> None:
    async def body() -> None:
        engine = Engine(MemoryStore())
        entry = await ended(engine, encounter_id)
        connection = redis.Redis.from_url(queue_url)
        job = job_id(encounter_id, entry)
        # Never scheduled (the API died): the sweeper finds it overdue in the outbox.
        swept = await sweep_once(engine.store, deadline_queue(connection), entry.due + 5)
        assert swept == [job]
        assert connection.lrange(f"rq:queue:{AUDIT_QUEUE}", 0, -1) == [job.encode()]
        assert connection.llen(f"rq:queue:{QUEUE}") == 0
        connection.flushall()
        # Scheduled by whoever appended the end: at once, on the audit queue.
        dispatcher = Dispatcher(queue_url)
        dispatcher.schedule_now(encounter_id, [entry])
        dispatcher.close()
        assert connection.lrange(f"rq:queue:{AUDIT_QUEUE}", 0, -1) == [job.encode()]
        assert connection.llen(f"rq:queue:{QUEUE}") == 0
        assert connection.zcard(f"rq:scheduled:{QUEUE}") == 0

    asyncio.run(body())
