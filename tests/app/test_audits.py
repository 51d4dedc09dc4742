"""`Audits` beyond the worker and the edges: streams the store holds in odd shapes."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
import redis.asyncio as aioredis

from service.app.audits import Audits
from service.app.auth import Principal
from service.domain.context import GM, Actor
from service.domain.errors import NotFound
from service.engine import Engine
from service.store.keys import encounter_keys, events_key
from service.store.redis_store import EventStore
from tests.engine_helpers import send, skirmish


def scenario(redis_url: str, body: Any) -> Any:
    async def main() -> Any:
        client = aioredis.Redis.from_url(redis_url)
        try:
            return await body(Engine(EventStore(client)), client)
        finally:
            await client.aclose()

    return asyncio.run(main())


async def ended(engine: Engine, encounter_id: str) -> None:
    await skirmish(engine, encounter_id)
    await send(engine, encounter_id, {"type": "end-encounter"})


def test_a_stored_event_that_is_not_json_fails_the_lines_check(
    redis_url: str, encounter_id: str
) -> None:
    async def body(engine: Engine, client: aioredis.Redis) -> Any:
        await ended(engine, encounter_id)
        key = events_key(encounter_id)
        entries = await client.xrange(key)
        await client.delete(key)
        for entry_id, fields in entries:
            garbled = {**fields, b"e": b"{not json"} if entry_id == b"3-0" else fields
            await client.xadd(key, garbled, id=entry_id)
        return await Audits(engine).audit(encounter_id)

    report = scenario(redis_url, body)
    assert report.verdict == "failed" and report.first_failure.name == "lines"
    assert "not JSON" in report.first_failure.detail


def test_the_seed_revealed_at_the_end_is_enough_without_the_stored_one(
    redis_url: str, encounter_id: str
) -> None:
    async def body(engine: Engine, client: aioredis.Redis) -> Any:
        await ended(engine, encounter_id)
        await client.delete(encounter_keys(encounter_id).seed)
        return await Audits(engine).audit(encounter_id)

    assert scenario(redis_url, body).verdict == "passed"


def test_an_unknown_encounter_is_not_found(redis_url: str, encounter_id: str) -> None:
    async def body(engine: Engine, client: aioredis.Redis) -> Any:
        audits = Audits(engine)
        with pytest.raises(NotFound):
            await audits.audit(encounter_id)
        # A token outlives its encounter (deleted from Redis by hand): no verdict either.
        auditor = Principal(Actor("a", "auditor"), "token", None, encounter_id, encounter_id)
        with pytest.raises(NotFound):
            await audits.verdict(auditor)

    scenario(redis_url, body)


def test_a_tenants_record_without_a_stream_is_left_out_of_every_ended(redis_url: str) -> None:
    tenant = f"t-{uuid.uuid4().hex[:8]}"

    async def body(engine: Engine, client: aioredis.Redis) -> Any:
        await engine.create("freeform", {}, encounter_id="done", actor=GM, tenant=tenant)
        await send(engine, f"{tenant}/done", {"type": "end-encounter"})
        await client.hset(encounter_keys(f"{tenant}/broken").meta, "ruleset", "freeform")
        return [(eid, report.verdict) async for eid, report in Audits(engine).ended(tenant)]

    assert scenario(redis_url, body) == [("done", "passed")]
