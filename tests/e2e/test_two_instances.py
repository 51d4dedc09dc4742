"""Two `fray serve` processes on one Redis: the API keeps no state of its own.

A command sent to instance A reaches subscribers on instance B (SSE and GraphQL) within
100 ms; version conflicts, idempotent retries and the rate limit behave as with one
instance. Every test runs on a standalone Redis and on a six-node Redis Cluster
(FRAY_REDIS_CLUSTER, the queue on a standalone Redis beside it).
"""

from __future__ import annotations

import asyncio
import base64
import statistics
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.api.conftest import KEY
from tests.e2e.helpers import (
    bearer,
    fray_serving,
    graphql_http,
    sse_followed,
    subscribed,
)

pytestmark = pytest.mark.anyio

RATE_LIMIT = 20  # commands per credential per second, for both instances
COMMANDS = 10  # measured for the latency
BUDGET = 0.100  # seconds from A's answer to B's subscribers, as the median

Pair = tuple[str, str]  # the base URLs of instances A and B


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(
    scope="module", params=["standalone", pytest.param("cluster", marks=pytest.mark.cluster)]
)
def instances(request: pytest.FixtureRequest) -> Iterator[Pair]:
    # Instances of one deployment share the key that signs receipts, as they share the
    # token secret: a retry on the other instance answers with the same receipt.
    signing_key = "k1:" + base64.urlsafe_b64encode(bytes(32)).rstrip(b"=").decode()
    env = {"FRAY_RATE_LIMIT": str(RATE_LIMIT), "FRAY_SIGNING_KEY": signing_key}
    if request.param == "cluster":
        redis_url = request.getfixturevalue("redis_cluster_url")
        env["FRAY_REDIS_CLUSTER"] = "true"
        env["FRAY_QUEUE_REDIS_URL"] = request.getfixturevalue("queue_server").url
    else:
        redis_url = request.getfixturevalue("redis_url")
    with fray_serving(redis_url, 2, **env) as (a, b):
        yield a, b


class Rest:
    """Plain httpx against one instance."""

    def __init__(self, http: httpx.AsyncClient, url: str) -> None:
        self.http = http
        self.url = url

    async def send(self, encounter_id: str, credential: str, **body: Any) -> httpx.Response:
        return await self.http.post(
            f"{self.url}/v1/encounters/{encounter_id}/commands",
            json=body,
            headers=bearer(credential),
        )

    async def ok(self, encounter_id: str, credential: str, command: dict[str, Any]) -> int:
        response = await self.send(encounter_id, credential, command=command)
        assert response.status_code == 201, response.text
        version: int = response.json()["version"]
        return version

    async def version(self, encounter_id: str) -> int:
        response = await self.http.get(
            f"{self.url}/v1/encounters/{encounter_id}", headers=bearer(KEY)
        )
        assert response.status_code == 200, response.text
        version: int = response.json()["version"]
        return version

    async def gm(self) -> tuple[str, str]:
        """A new started freeform fight: its id and a GM token of its own."""
        encounter_id = f"two-{uuid.uuid4().hex[:12]}"
        created = await self.http.post(
            f"{self.url}/v1/encounters",
            json={"ruleset": "freeform", "encounter_id": encounter_id},
            headers=bearer(KEY),
        )
        assert created.status_code == 201, created.text
        gm: str = created.json()["gm_token"]
        for combatant_id, side in (("bramli", "heroes"), ("goblin", "goblins")):
            add = {"combatant_id": combatant_id, "name": combatant_id.title(), "side": side}
            await self.ok(encounter_id, gm, {"type": "add-combatant", **add})
        await self.ok(encounter_id, gm, {"type": "roll-initiative"})
        await self.ok(encounter_id, gm, {"type": "start-encounter"})
        return encounter_id, gm

    async def mint_gm(self, encounter_id: str) -> str:
        minted = await self.http.post(
            f"{self.url}/v1/encounters/{encounter_id}/tokens",
            json={"role": "gm"},
            headers=bearer(KEY),
        )
        assert minted.status_code == 201, minted.text
        token: str = minted.json()["token"]
        return token


def roll(purpose: str) -> dict[str, Any]:
    return {"type": "roll", "expression": "1d6", "purpose": purpose}


async def test_a_command_sent_to_a_reaches_sse_and_graphql_subscribers_on_b(
    instances: Pair,
) -> None:
    url_a, url_b = instances
    async with httpx.AsyncClient(timeout=10) as http:
        a = Rest(http, url_a)
        encounter_id, gm = await a.gm()
        head = await a.version(encounter_id)
        async with (
            sse_followed(http, url_b, gm, encounter_id, after=head - 1) as sse,
            subscribed(url_b, gm, encounter_id, after=head - 1) as graphql,
        ):
            # Both are live once the last event of the history has come through.
            await sse.wait_for(head)
            await graphql.wait_for(head)
            sent: dict[int, float] = {}
            answered: dict[int, float] = {}
            for n in range(COMMANDS):
                await asyncio.sleep(0.05)  # let B's reader go back to a blocking XREAD
                started = time.perf_counter()
                version = await a.ok(encounter_id, gm, roll(f"roll {n}"))
                answered[version], sent[version] = time.perf_counter(), started
                await sse.wait_for(version)
                await graphql.wait_for(version)
            last = await a.version(encounter_id)

    expected = list(range(head, last + 1))
    assert sse.versions() == expected
    assert graphql.versions() == expected
    assert [e["type"] for e in graphql.events[1:]] == ["dice-rolled"] * COMMANDS
    figures = {}
    for name, live in (("sse", sse), ("graphql", graphql)):
        # Negative when B's subscriber has the event before the client has A's answer.
        delays = [(live.arrived[v] - t) * 1000 for v, t in answered.items()]
        round_trips = [(live.arrived[v] - t) * 1000 for v, t in sent.items()]
        figures[name] = statistics.median(delays)
        print(
            f"\nA's answer -> B's {name} subscriber, ms: median {figures[name]:.1f}, "
            f"max {max(delays):.1f}; all: {', '.join(f'{d:.1f}' for d in delays)}"
            f"\nA's request sent -> B's {name} subscriber, ms: median "
            f"{statistics.median(round_trips):.1f}, max {max(round_trips):.1f}"
        )
    assert all(median < BUDGET * 1000 for median in figures.values()), figures


async def test_a_stale_expected_version_conflicts_across_instances(instances: Pair) -> None:
    url_a, url_b = instances
    async with httpx.AsyncClient(timeout=10) as http:
        a, b = Rest(http, url_a), Rest(http, url_b)
        encounter_id, gm = await a.gm()
        for round_ in range(5):
            head = await b.version(encounter_id)
            answers = await asyncio.gather(
                a.send(encounter_id, gm, command=roll(f"A {round_}"), expected_version=head),
                b.send(encounter_id, gm, command=roll(f"B {round_}"), expected_version=head),
            )
            statuses = sorted(r.status_code for r in answers)
            assert statuses == [201, 409], [r.text for r in answers]
            won = next(r for r in answers if r.status_code == 201).json()
            lost = next(r for r in answers if r.status_code == 409).json()["error"]
            assert won["version"] == head + 1
            assert lost["code"] == "encounter/version-conflict"
            assert lost["details"] == {"expected": head, "actual": head + 1}
            assert await a.version(encounter_id) == await b.version(encounter_id) == head + 1

        # The same through GraphQL on B against a command sent to A.
        head = await a.version(encounter_id)
        await a.ok(encounter_id, gm, roll("moved on"))
        async with graphql_http(url_b) as graphql:
            stale = await graphql.send(
                encounter_id, gm, {"roll": {"expression": "1d4"}}, expectedVersion=head
            )
    assert stale["__typename"] == "CommandRejected"
    assert stale["code"] == "encounter/version-conflict" and stale["status"] == 409
    assert stale["details"] == {"expected": head, "actual": head + 1}


async def test_a_retry_on_the_other_instance_returns_the_first_outcome(instances: Pair) -> None:
    url_a, url_b = instances
    async with httpx.AsyncClient(timeout=10) as http:
        a, b = Rest(http, url_a), Rest(http, url_b)
        encounter_id, gm = await a.gm()
        body = {"command_id": "retry-1", "command": roll("once")}

        first = await a.send(encounter_id, gm, **body)
        head = await a.version(encounter_id)
        retried = await b.send(encounter_id, gm, **body)
        after = await b.version(encounter_id)

        # Sent to both at once, the same id is still decided once.
        racing = {"command_id": "retry-2", "command": roll("race")}
        raced = await asyncio.gather(
            a.send(encounter_id, gm, **racing), b.send(encounter_id, gm, **racing)
        )
        final = await a.version(encounter_id)

    assert first.status_code == 201 and first.json()["duplicate"] is False
    assert retried.status_code == 200, retried.text
    assert retried.json() == {**first.json(), "duplicate": True}
    assert after == head == first.json()["version"]
    assert sorted(r.status_code for r in raced) == [200, 201], [r.text for r in raced]
    assert {r.json()["version"] for r in raced} == {final} == {head + 1}


async def test_the_rate_limit_counts_commands_sent_to_both_instances(instances: Pair) -> None:
    url_a, url_b = instances
    async with httpx.AsyncClient(timeout=10) as http:
        a, b = Rest(http, url_a), Rest(http, url_b)
        encounter_id, _ = await a.gm()
        for _attempt in range(3):
            gm = await a.mint_gm(encounter_id)  # a fresh credential: a fresh count
            # The limit counts per one-second window: start at the beginning of one.
            await asyncio.sleep(1 - time.time() % 1 + 0.01)
            window = int(time.time())
            statuses = []
            for n in range(RATE_LIMIT // 2):
                for rest in (a, b):
                    sent = await rest.send(encounter_id, gm, command=roll(f"{n}"))
                    statuses.append(sent.status_code)
            over = [(await rest.send(encounter_id, gm, command=roll("over"))) for rest in (a, b)]
            if int(time.time()) == window:
                break
        else:
            pytest.fail("could not send the commands within one second")

    assert statuses == [201] * RATE_LIMIT
    # Each instance has seen only half the limit: refused because the count is shared.
    assert [r.status_code for r in over] == [429, 429], [r.text for r in over]
    assert all(r.json()["error"]["code"] == "rate/limited" for r in over)
    assert all("retry-after" in r.headers for r in over)
