"""Events: pages by version cursor, and SSE that follows live and resumes."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from tests.api.conftest import Api, bearer, running, served, settings_for, sse_events
from tests.api.helpers import fight

pytestmark = pytest.mark.anyio


# A skirmish's 8 events and a roll, paged: (after, limit) -> the versions, and whether more
# follow. The narration pages the same way (test_narration.py).
PAGES = [
    pytest.param(0, 3, [1, 2, 3], True, id="first page"),
    pytest.param(3, 3, [4, 5, 6], True, id="middle page"),
    pytest.param(6, 100, [7, 8, 9], False, id="last page"),
    pytest.param(9, 10, [], False, id="past the end"),
    pytest.param(0, 1000, [1, 2, 3, 4, 5, 6, 7, 8, 9], False, id="the largest page"),
]


@pytest.mark.parametrize(("after", "limit", "versions", "has_more"), PAGES)
async def test_events_page_by_version(
    api: Api, encounter_id: str, after: int, limit: int, versions: list[int], has_more: bool
) -> None:
    gm = await api.skirmish(encounter_id)  # 8 events; the roll is the 9th
    await api.ok(encounter_id, gm, {"type": "roll", "expression": "1d6"})
    response = await api.get(f"/v1/encounters/{encounter_id}/events", gm, after=after, limit=limit)
    body = response.json()
    assert [e["version"] for e in body["events"]] == versions
    assert body["has_more"] is has_more
    assert body["next_after"] == (versions[-1] if versions else after)


async def test_walking_the_pages_yields_every_event_once(api: Api, encounter_id: str) -> None:
    gm = await api.skirmish(encounter_id)
    seen: list[int] = []
    after, more = 0, True
    while more:
        page = (await api.get(f"/v1/encounters/{encounter_id}/events", gm,
                              after=after, limit=2)).json()  # fmt: skip
        seen += [e["version"] for e in page["events"]]
        after, more = page["next_after"], page["has_more"]
    assert seen == list(range(1, len(seen) + 1)) and len(seen) >= 6


async def test_sse_follows_new_events_and_resumes_from_last_event_id(
    redis_url: str, encounter_id: str
) -> None:
    settings = settings_for(redis_url)
    async with running(settings) as api:
        f = await fight(api, encounter_id)
        head = await f.version()
        async with served(settings) as url, httpx.AsyncClient() as client:
            stream = f"{url}{f.path}/events"
            follow = asyncio.ensure_future(
                sse_events(client, f"{stream}?follow=true&after={head}", bearer(f.gm), 2)
            )
            await asyncio.sleep(0.2)
            await api.ok(f.encounter_id, f.gm, {"type": "roll", "expression": "1d6"})
            await api.ok(f.encounter_id, f.gm, {"type": "roll", "expression": "1d8"})
            live = await follow
            assert [int(e["id"]) for e in live] == [head + 1, head + 2]
            assert {e["event"] for e in live} == {"dice-rolled"}
            resumed = await sse_events(
                client,
                stream,
                {**bearer(f.gm), "Accept": "text/event-stream", "Last-Event-ID": str(head + 1)},
                1,
            )
            assert [int(e["id"]) for e in resumed] == [head + 2]
            assert '"expression":"1d8"' in resumed[0]["data"]


async def test_sse_sends_heartbeats(redis_url: str, encounter_id: str) -> None:
    settings = settings_for(redis_url, sse_heartbeat=0.05)
    async with running(settings) as api:
        gm = await api.create(encounter_id)
        async with served(settings) as url, httpx.AsyncClient() as client:
            url = f"{url}/v1/encounters/{encounter_id}/events?follow=true&after=1"
            async with client.stream("GET", url, headers=bearer(gm)) as response:
                lines = response.aiter_lines()
                seen = [await asyncio.wait_for(anext(lines), 5) for _ in range(4)]
    assert ": keep-alive" in seen


async def test_sse_of_an_unknown_encounter_is_404(api: Api) -> None:
    response = await api.get("/v1/encounters/nope/events", "acme-secret", follow="true")
    assert response.status_code == 404
