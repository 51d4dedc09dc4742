"""Operations: health, readiness, metrics, the command log line, and the rate limit."""

from __future__ import annotations

import asyncio
import logging

import pytest

from tests.api.conftest import Api, bearer, running, settings_for
from tests.prometheus import value

pytestmark = pytest.mark.anyio


async def test_healthz_answers_ok(api: Api) -> None:
    response = await api.client.get("/healthz")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


async def test_readyz_answers_ready_when_redis_answers(api: Api) -> None:
    response = await api.client.get("/readyz")
    assert response.status_code == 200 and response.json() == {"status": "ready"}


async def test_readyz_answers_503_without_redis(redis_url: str) -> None:
    from service.embedded_redis import free_port

    async with running(settings_for(redis_url)) as api:
        app = api.client.app  # type: ignore[attr-defined]
        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        live = app.state.redis
        app.state.redis = aioredis.Redis(port=free_port(), retry=Retry(NoBackoff(), 0))
        try:
            response = await api.client.get("/readyz")
        finally:
            await app.state.redis.aclose()
            app.state.redis = live
    assert response.status_code == 503 and response.json()["status"] == "unavailable"
    assert response.json()["error"]["code"] == "store/unavailable"


async def test_readyz_answers_503_once_the_process_is_shutting_down(api: Api) -> None:
    app = api.client.app  # type: ignore[attr-defined]
    app.state.draining.begin()  # what SIGTERM does (service.api.draining)
    response = await api.client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["status"] == "draining"
    assert response.json()["error"]["code"] == "server/shutting-down"


async def test_metrics_count_commands_rejections_appends_and_latency(
    api: Api, encounter_id: str
) -> None:
    gm = await api.skirmish(encounter_id)
    await api.send(encounter_id, gm, {"type": "fly"})
    text = (await api.client.get("/metrics")).text
    added = {"ruleset": "freeform", "type": "add-combatant", "outcome": "accepted"}
    assert value(text, "fray_commands_total", **added) == 2
    assert value(text, "fray_rejections_total", code="command/unknown-type") == 1
    assert value(text, "fray_appends_total") == 7
    rolled = {"ruleset": "freeform", "type": "roll-initiative"}
    assert value(text, "fray_command_seconds_bucket", **rolled, le="+Inf") == 1
    assert value(text, "fray_command_seconds_count", **rolled) == 1
    assert value(text, "fray_open_subscriptions") == 0
    assert "# TYPE fray_command_seconds histogram" in text
    assert "# TYPE fray_commands_total counter" in text


async def test_metrics_show_deadlines_pending_and_what_workers_fired(
    api: Api, encounter_id: str
) -> None:
    await api.skirmish(encounter_id, turn_time_limit=600)
    text = (await api.client.get("/metrics")).text
    pending = [
        line for line in text.splitlines() if line.startswith("fray_deadline_encounters_pending ")
    ]
    assert pending and int(pending[0].split()[1]) >= 1  # this fight's turn clock at least
    assert "# TYPE fray_deadlines_fired_total counter" in text
    assert "# TYPE fray_deadline_lateness_seconds histogram" in text
    assert 'fray_deadline_lateness_seconds_bucket{le="1.5"}' in text


async def test_each_command_logs_one_json_line(
    api: Api, encounter_id: str, caplog: pytest.LogCaptureFixture
) -> None:
    import json

    gm = await api.create(encounter_id)
    with caplog.at_level(logging.INFO, logger="fray.api"):
        await api.send(encounter_id, gm, {"type": "roll", "expression": "1d4"}, command_id="c1")
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "fray.api"]
    assert len(lines) == 1
    assert lines[0]["encounter_id"] == encounter_id and lines[0]["command_id"] == "c1"
    assert lines[0]["outcome"] == "accepted" and lines[0]["duration_ms"] >= 0


async def test_the_rate_limit_is_counted_in_redis_across_instances(
    redis_url: str, encounter_id: str
) -> None:
    settings = settings_for(redis_url, rate_limit=3)
    async with running(settings) as one, running(settings) as two:
        gm = await one.create(encounter_id)
        # Keep every request in one window: the limit is per credential per second.
        import time

        if time.time() % 1 > 0.5:
            import asyncio

            await asyncio.sleep(1 - time.time() % 1)
        command = {"type": "roll", "expression": "1d4"}
        statuses = [
            (await client.send(encounter_id, gm, command)).status_code
            for client in (one, two, one, two)
        ]
        assert statuses == [201, 201, 201, 429]
        limited = await two.send(encounter_id, gm, command)
        assert limited.headers["retry-after"] == "1"
        assert limited.json()["error"]["code"] == "rate/limited"
        other = await one.send(encounter_id, bearer("acme-secret")["Authorization"][7:], command)
        assert other.status_code == 201


async def test_a_burst_beyond_the_redis_pool_waits_instead_of_failing(api, encounter_id):
    # More concurrent requests than redis-py's default pool of 100 connections: each one
    # reads the stream head; none may fail with a 500.
    gm = await api.skirmish(encounter_id)
    path = f"/v1/encounters/{encounter_id}"
    responses = await asyncio.gather(*(api.get(path, gm) for _ in range(300)))
    assert sorted({r.status_code for r in responses}) == [200]
