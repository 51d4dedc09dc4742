"""An abandoned encounter with a turn limit: after a round of timeouts that nobody answers,
the clocks pause and nothing is left to fire, until the GM resumes them."""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio as aioredis

from service.deciding import CommandRequest
from service.domain.context import GM
from service.engine import Engine
from service.store.redis_store import EventStore
from tests.engine_helpers import run_on_redis, send, skirmish
from tests.workers.conftest import fray_worker, of_type, wait_until, with_engine
from workers.jobs import fire


def pending(store_url: str, encounter_id: str) -> list[Any]:
    async def read() -> list[Any]:
        client = aioredis.Redis.from_url(store_url)
        try:
            return await EventStore(client).pending_deadlines(encounter_id)
        finally:
            await client.aclose()

    return asyncio.run(read())


async def fire_due(engine: Engine, encounter_id: str) -> str:
    """Fire the encounter's one deadline as a worker does when it falls due."""
    (deadline,) = await engine.store.pending_deadlines(encounter_id)
    return await fire(engine, encounter_id, deadline.key, deadline.due, lambda: deadline.due)


def test_a_round_of_unanswered_timeouts_pauses_the_clocks_and_leaves_nothing_to_fire(
    redis_url: str, encounter_id: str
) -> None:
    # Two combatants, so a round is two timeouts. Each deadline is fired as the worker
    # fires it, from what the engine wrote into the outbox when the clock started.
    async def body(engine: Engine) -> list[str]:
        await skirmish(engine, encounter_id, {"turn_time_limit": 600})
        outcomes = []
        for _ in range(2):
            outcomes.append(await fire_due(engine, encounter_id))
        return outcomes

    assert run_on_redis(redis_url, body) == ["fired", "fired"]
    (paused,) = of_type(redis_url, encounter_id, "clocks-paused")
    assert paused["data"] == {"reason": "idle", "timeouts": 2}
    assert paused["actor"]["id"] == "system"
    assert pending(redis_url, encounter_id) == []  # the next turn's clock waits, paused


def test_a_command_between_timeouts_keeps_the_clocks_running(
    redis_url: str, encounter_id: str
) -> None:
    async def body(engine: Engine) -> None:
        await skirmish(engine, encounter_id, {"turn_time_limit": 600})
        for _ in range(2):
            await fire_due(engine, encounter_id)
            await send(engine, encounter_id, {"type": "add-note", "text": "still here"})

    run_on_redis(redis_url, body)
    assert len(of_type(redis_url, encounter_id, "clock-expired")) == 2
    assert of_type(redis_url, encounter_id, "clocks-paused") == []
    assert len(pending(redis_url, encounter_id)) == 1


def test_an_abandoned_encounter_stops_writing_until_the_gm_resumes_the_clocks(
    redis_url: str, queue_url: str, encounter_id: str
) -> None:
    async def start(engine: Engine) -> None:
        await skirmish(engine, encounter_id, {"turn_time_limit": 1})

    async def resume(engine: Engine) -> None:
        await engine.execute(encounter_id, CommandRequest(command={"type": "resume-clocks"}), GM)

    with fray_worker(redis_url, queue_url):
        with_engine(redis_url, queue_url, start)
        (paused,) = wait_until(lambda: of_type(redis_url, encounter_id, "clocks-paused"))
        assert paused["data"] == {"reason": "idle", "timeouts": 2}
        # Nothing is left in the outbox, so nothing can fire: the encounter is quiet.
        assert pending(redis_url, encounter_id) == []
        assert len(of_type(redis_url, encounter_id, "clock-expired")) == 2
        with_engine(redis_url, queue_url, resume)
        assert len(pending(redis_url, encounter_id)) == 1
        # The resumed clock runs out; a further round nobody answers pauses them again.
        wait_until(lambda: len(of_type(redis_url, encounter_id, "clocks-paused")) == 2)
    assert len(of_type(redis_url, encounter_id, "clocks-resumed")) == 1
