"""`fray worker` on a Redis Cluster (FRAY_REDIS_CLUSTER; its queue on a standalone Redis):
deadlines fire through RQ, and the sweeper finds one nobody scheduled through the deadline
index the store keeps outside its scripts, repaired when a worker starts."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from service.engine import Engine
from service.store.clients import redis_client
from service.store.keys import DEADLINE_GENS, DEADLINE_INDEX
from tests.engine_helpers import skirmish
from tests.workers.conftest import fray_worker, of_type, wait_until, with_engine

pytestmark = pytest.mark.cluster

ONE_SECOND_TURNS = {"turn_time_limit": 1, "on_turn_timeout": "record"}
CLUSTER = {"FRAY_REDIS_CLUSTER": "true"}


def _fight(url: str, encounter_id: str, queue_url: str | None) -> None:
    async def body(engine: Engine) -> None:
        await skirmish(engine, encounter_id, ONE_SECOND_TURNS)

    with_engine(url, queue_url, body, cluster=True)


def _expired(url: str, encounter_id: str) -> list[dict[str, Any]]:
    return of_type(url, encounter_id, "clock-expired", cluster=True)


def test_a_turn_timer_runs_out_through_the_worker(
    redis_cluster_url: str, queue_url: str, encounter_id: str
) -> None:
    with fray_worker(redis_cluster_url, queue_url, **CLUSTER):
        _fight(redis_cluster_url, encounter_id, queue_url)
        (event,) = wait_until(lambda: _expired(redis_cluster_url, encounter_id))
        time.sleep(3)  # the sweeper's grace and a sweep: nothing fires again
    assert _expired(redis_cluster_url, encounter_id) == [event]


def test_a_deadline_nobody_scheduled_is_found_through_the_index(
    redis_cluster_url: str, queue_url: str, encounter_id: str
) -> None:
    _fight(redis_cluster_url, encounter_id, None)
    with fray_worker(redis_cluster_url, queue_url, **CLUSTER):
        wait_until(lambda: _expired(redis_cluster_url, encounter_id))
        time.sleep(3)
    assert len(_expired(redis_cluster_url, encounter_id)) == 1


def test_an_index_entry_lost_is_repaired_when_a_worker_starts(
    redis_cluster_url: str, queue_url: str, encounter_id: str
) -> None:
    # Nobody scheduled it and its index entry is gone (a crash between the append's script
    # and the index's sync): only the repair at the worker's start can find it.
    _fight(redis_cluster_url, encounter_id, None)

    async def lose_entry() -> None:
        client = redis_client(redis_cluster_url, cluster=True)
        try:
            assert await client.zrem(DEADLINE_INDEX, encounter_id) == 1
            await client.hdel(DEADLINE_GENS, encounter_id)
        finally:
            await client.aclose()

    asyncio.run(lose_entry())
    with fray_worker(redis_cluster_url, queue_url, **CLUSTER):
        wait_until(lambda: _expired(redis_cluster_url, encounter_id))
