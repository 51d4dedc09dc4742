"""The audit worker through the whole service: `fray serve` and `fray worker` as real
processes, an encounter played to a real `encounter-ended` through the API, and the verdict
the worker kept served by `GET /v1/encounters/{id}/audit` and GraphQL's `audit`.

The event store is the suite's Redis; the job queue is a Redis of this module's own, so
the worker runs this module's jobs (its sweeper also finds what other tests left overdue
in the store's outbox, and fires or audits it: harmless). Where a count must be exact (the
metric of a failed audit) the store is a Redis of the test's own.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
import orjson
import pytest
import redis
from gql import gql
from gql.transport.exceptions import TransportQueryError

from service.app.auth import tenant_actor
from service.domain.ids import stream_id
from service.embedded_redis import RedisServer, free_port
from service.engine import Engine
from tests.api.conftest import KEY
from tests.api.process import fray_serve, fray_serve_process
from tests.e2e.helpers import bearer, graphql_http
from tests.e2e.helpers import eventually as helpers_eventually
from tests.engine_helpers import COMBATANTS, run_on_redis, send
from tests.workers.conftest import corrupt, fray_worker

pytestmark = pytest.mark.anyio

AUDIT_TIMEOUT = 60.0  # a job on an idle queue, or the sweeper (3 s) and a job: far less
AUDIT = gql("""
query A($id: String!) {
  audit(id: $id) { verdict auditedVersion auditedAt version stale checks { name status } }
}""")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def eventually(read: Callable[[], Any], done: Callable[[Any], bool]) -> Any:
    """`read()` until `done` says so, for at most AUDIT_TIMEOUT."""
    return helpers_eventually(read, done, within=AUDIT_TIMEOUT)


def play_over_rest(url: str, encounter_id: str) -> list[int]:
    """A freeform fight created, fought and ended through the API with the tenant key."""
    body = {"ruleset": "freeform", "encounter_id": encounter_id}
    assert httpx.post(f"{url}/v1/encounters", json=body, headers=bearer(KEY)).status_code == 201
    return fight_over_rest(url, encounter_id)


def fight_over_rest(url: str, encounter_id: str) -> list[int]:
    """Combatants, initiative, a roll and the end through the API: the version after each."""
    commands = [
        *({"type": "add-combatant", **c} for c in COMBATANTS),
        {"type": "roll-initiative"},
        {"type": "start-encounter"},
        {"type": "roll", "expression": "2d6+3"},
        {"type": "end-encounter"},
    ]
    versions = []
    for command in commands:
        answer = httpx.post(
            f"{url}/v1/encounters/{encounter_id}/commands",
            json={"command": command},
            headers=bearer(KEY),
        )
        assert answer.status_code == 201, answer.text
        versions.append(answer.json()["version"])
    return versions


def audit_of(url: str, encounter_id: str, credential: str = KEY) -> httpx.Response:
    return httpx.get(f"{url}/v1/encounters/{encounter_id}/audit", headers=bearer(credential))


def verdict_of(url: str, encounter_id: str) -> dict[str, Any]:
    answer = audit_of(url, encounter_id)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def settled(answer: dict[str, Any]) -> bool:
    return answer["verdict"] != "pending"


def audit_lines(log: str) -> list[dict[str, Any]]:
    return [orjson.loads(line.split(" fray.workers ", 1)[1])
            for line in log.splitlines() if ' fray.workers {"event":"audit"' in line]  # fmt: skip


def test_an_encounter_ended_through_the_api_is_audited_by_the_worker(
    redis_url: str, queue_url: str, encounter_id: str
) -> None:
    with (
        fray_serve(redis_url, FRAY_QUEUE_REDIS_URL=queue_url) as url,
        fray_worker(redis_url, queue_url) as worker,
    ):
        body = {"ruleset": "freeform", "encounter_id": encounter_id}
        assert httpx.post(f"{url}/v1/encounters", json=body, headers=bearer(KEY)).status_code == 201
        before = verdict_of(url, encounter_id)
        versions = fight_over_rest(url, encounter_id)
        answer = eventually(lambda: verdict_of(url, encounter_id), settled)
        log = worker.log()
    assert before == {"verdict": "pending", "audited_version": None, "audited_at": None,
                      "version": 1, "stale": False, "checks": []}  # fmt: skip
    assert answer["verdict"] == "passed" and not answer["stale"]
    assert answer["audited_version"] == answer["version"] == versions[-1]
    assert [c["name"] for c in answer["checks"]] == [
        "lines", "chain", "created", "seed", "draws", "rerun", "head", "receipts"
    ]  # fmt: skip
    (line,) = [x for x in audit_lines(log) if x["encounter_id"] == encounter_id]
    assert line == {"event": "audit", "tenant": "acme", "encounter_id": encounter_id,
                    "verdict": "passed", "audited_version": versions[-1]}  # fmt: skip


async def test_graphql_serves_the_workers_verdict_to_gm_and_auditor_only(
    redis_url: str, queue_url: str, encounter_id: str
) -> None:
    with (
        fray_serve(redis_url, FRAY_QUEUE_REDIS_URL=queue_url) as url,
        fray_worker(redis_url, queue_url),
    ):
        async with graphql_http(url) as graphql:
            gm = await graphql.skirmish(encounter_id)
            auditor = await graphql.mint(encounter_id, "auditor")
            player = await graphql.mint(encounter_id, "player", "bramli")
            pending = (await graphql.run(AUDIT, auditor, id=encounter_id))["audit"]
            ended = await graphql.ok(encounter_id, gm, {"endEncounter": {}})
            deadline = time.monotonic() + AUDIT_TIMEOUT
            answer = pending
            while answer["verdict"] == "pending":
                assert time.monotonic() < deadline, "the audit did not come"
                answer = (await graphql.run(AUDIT, auditor, id=encounter_id))["audit"]
            as_gm = (await graphql.run(AUDIT, gm, id=encounter_id))["audit"]
            with pytest.raises(TransportQueryError) as refused:
                await graphql.run(AUDIT, player, id=encounter_id)
        rest_player = audit_of(url, encounter_id, player)
    assert pending["verdict"] == "pending" and pending["auditedVersion"] is None
    assert answer["verdict"] == "passed" and answer["auditedVersion"] == ended
    assert as_gm == answer
    (error,) = refused.value.errors or []
    assert error["extensions"]["code"] == "auth/forbidden"
    assert rest_player.status_code == 403
    assert rest_player.json()["error"]["message"] == error["message"]


def test_an_end_the_api_never_scheduled_is_audited_all_the_same(
    redis_url: str, queue_url: str, encounter_id: str
) -> None:
    # `fray serve` appends the end (and the audit it owes), but its queue is unreachable,
    # so no job is enqueued; then it is killed. A worker started afterwards finds the audit
    # overdue in the outbox.
    dead_queue = f"redis://127.0.0.1:{free_port()}/0"
    with fray_serve_process(redis_url, FRAY_QUEUE_REDIS_URL=dead_queue) as (url, serve):
        versions = play_over_rest(url, encounter_id)
        assert verdict_of(url, encounter_id)["verdict"] == "pending"
        serve.kill()
        serve.wait(timeout=20)
    assert redis.Redis.from_url(queue_url).keys("rq:job:*") == []  # nothing was enqueued
    with (
        fray_worker(redis_url, queue_url) as worker,
        fray_serve(redis_url, FRAY_QUEUE_REDIS_URL=queue_url) as url,
    ):
        answer = eventually(lambda: verdict_of(url, encounter_id), settled)
        log = worker.log()
    assert answer["verdict"] == "passed" and answer["audited_version"] == versions[-1]
    assert f"audit of {stream_id('acme', encounter_id)} was" in log  # the sweeper's doing


def test_a_stream_edited_after_its_end_fails_is_logged_and_counted(encounter_id: str) -> None:
    # A store of its own: the count of failed audits is this test's alone.
    with RedisServer() as server:
        stored_as = stream_id("acme", encounter_id)

        async def scenario(engine: Engine) -> None:
            acme = tenant_actor("acme")
            await engine.create("freeform", {}, encounter_id=encounter_id, actor=acme,
                                tenant="acme")  # fmt: skip
            for combatant in COMBATANTS:
                await send(engine, stored_as, {"type": "add-combatant", **combatant})
            await send(engine, stored_as, {"type": "roll-initiative"})
            await send(engine, stored_as, {"type": "end-encounter"})

        run_on_redis(server.url, scenario)  # nobody schedules the audit: no worker yet
        corrupt(server.url, stored_as, 3)
        with (
            fray_worker(server.url, server.url) as worker,
            fray_serve(server.url) as url,
        ):
            answer = eventually(lambda: verdict_of(url, encounter_id), settled)
            metrics = httpx.get(f"{url}/metrics").text
            log = worker.log()
    assert answer["verdict"] == "failed"
    chain = next(c for c in answer["checks"] if c["name"] == "chain")
    assert chain["status"] == "failed" and chain["detail"].startswith("version 3:")
    assert 'fray_audits_total{verdict="failed"} 1' in metrics.splitlines()
    assert 'fray_audits_total{verdict="passed"} 0' in metrics.splitlines()
    (line,) = audit_lines(log)
    assert line["encounter_id"] == encounter_id and line["tenant"] == "acme"
    assert line["verdict"] == "failed" and line["failed_check"] == "chain"
    assert line["detail"] == chain["detail"]
