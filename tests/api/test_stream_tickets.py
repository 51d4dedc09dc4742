"""Stream tickets over HTTP: minted by any role's credential, opening one SSE stream in place
of the Authorization header, granting what that credential grants, and refused (401
`auth/invalid-ticket`) once used, forged or for another encounter."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
import redis.asyncio

from service.app.ratelimit import RateLimiter
from service.app.tickets import TICKET_SECONDS
from service.domain.ids import stream_id
from service.domain.receipts import unb64url
from service.store.keys import ticket_key
from tests.api.conftest import KEY, Api, bearer, running, served, settings_for, sse_events
from tests.api.helpers import Fight
from tests.api.test_hidden import hero_player, leaks, with_secrets

pytestmark = pytest.mark.anyio


class Live:
    """A fight behind a real server (SSE needs one), and a client of it."""

    def __init__(self, api: Api, battle: Fight, url: str, client: httpx.AsyncClient) -> None:
        self.api, self.fight, self.url, self.client = api, battle, url, client

    async def ticket(self, credential: str, encounter_id: str | None = None) -> str:
        path = f"/v1/encounters/{encounter_id or self.fight.encounter_id}/stream-tickets"
        response = await self.api.client.post(path, headers=bearer(credential))
        assert response.status_code == 201, response.text
        ticket: str = response.json()["ticket"]
        return ticket

    def stream(self, **params: str) -> str:
        query = "&".join(f"{name}={value}" for name, value in params.items())
        return f"{self.url}{self.fight.path}/events?{query}"

    async def frames(self, count: int, **params: str) -> list[dict[str, str]]:
        return await sse_events(self.client, self.stream(**params), {}, count)

    async def refusal(self, headers: dict[str, str] | None = None, **params: str) -> httpx.Response:
        return await self.client.get(self.stream(**params), headers=headers)


@pytest.fixture
async def live(redis_url: str, encounter_id: str) -> AsyncIterator[Live]:
    settings = settings_for(redis_url)
    async with running(settings) as api, served(settings) as url, httpx.AsyncClient() as client:
        yield Live(api, await with_secrets(api, encounter_id), url, client)


@pytest.mark.parametrize("who", ["key", "gm", "acting_player", "observer", "auditor"])
async def test_any_roles_credential_mints_a_ticket(live: Live, who: str) -> None:
    credential = KEY if who == "key" else getattr(live.fight, who)
    before = datetime.now(UTC).replace(microsecond=0)
    response = await live.api.client.post(
        f"{live.fight.path}/stream-tickets", headers=bearer(credential)
    )
    assert response.status_code == 201
    body = response.json()
    assert sorted(body) == ["expires_at", "ticket"] and body["ticket"].startswith("fst1.")
    after = datetime.now(UTC).replace(microsecond=0)
    expires = datetime.fromisoformat(body["expires_at"])
    # Whole seconds, counted from the second it was minted in (between `before` and `after`).
    lifetime = timedelta(seconds=TICKET_SECONDS)
    assert before + lifetime <= expires <= after + lifetime


async def test_a_ticket_opens_the_stream_in_place_of_the_header(live: Live) -> None:
    ticket = await live.ticket(live.fight.gm)
    frames = await live.frames(11, follow="true", ticket=ticket)
    assert [int(frame["id"]) for frame in frames] == list(range(1, 12))


async def test_a_players_ticket_sees_what_the_player_sees(live: Live) -> None:
    player = hero_player(live.fight)
    with_ticket = await live.frames(8, follow="true", ticket=await live.ticket(player))
    with_header = await sse_events(live.client, live.stream(follow="true"), bearer(player), 8)
    assert leaks(str(with_ticket)) == []
    assert [f["id"] for f in with_ticket] == [f["id"] for f in with_header]
    assert [f["data"] for f in with_ticket] == [f["data"] for f in with_header]


async def test_a_ticket_resumes_after_a_version(live: Live) -> None:
    ticket = await live.ticket(live.fight.gm)
    frames = await live.frames(2, follow="true", after="9", ticket=ticket)
    assert [int(frame["id"]) for frame in frames] == [10, 11]


async def test_a_ticket_opens_one_stream_only(live: Live) -> None:
    ticket = await live.ticket(live.fight.gm)
    await live.frames(1, follow="true", ticket=ticket)
    again = await live.refusal(follow="true", ticket=ticket)
    assert again.status_code == 401
    assert again.headers["www-authenticate"] == "Bearer"
    error = again.json()["error"]
    assert error["code"] == "auth/invalid-ticket"
    assert error["message"].startswith("this stream ticket has been used; mint a new one")


async def test_a_forged_ticket_is_refused(live: Live) -> None:
    ticket = await live.ticket(live.fight.gm)
    forged = ticket[:-4] + ("AAAA" if not ticket.endswith("AAAA") else "BBBB")
    refused = await live.refusal(follow="true", ticket=forged)
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "auth/invalid-ticket"
    assert "not a stream ticket Fray issued" in refused.json()["error"]["message"]


async def test_another_encounters_ticket_is_refused(live: Live, encounter_id: str) -> None:
    other = f"{encounter_id}-other"
    await live.api.create(other)
    refused = await live.refusal(follow="true", ticket=await live.ticket(KEY, other))
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "auth/invalid-ticket"
    assert "for another encounter" in refused.json()["error"]["message"]


@pytest.mark.parametrize(
    ("headers", "params", "words"),
    [
        pytest.param({}, {}, "opens the live stream only", id="a page read"),
        pytest.param(
            {"Authorization": "Bearer x"}, {"follow": "true"}, "not both", id="with the header"
        ),
        pytest.param(
            {"Last-Event-ID": "nine"}, {"follow": "true"}, "Last-Event-ID", id="a bad resume"
        ),
    ],
)
async def test_a_request_refused_before_the_ticket_leaves_it_unspent(
    live: Live, headers: dict[str, str], params: dict[str, str], words: str
) -> None:
    ticket = await live.ticket(live.fight.gm)
    refused = await live.refusal(headers, ticket=ticket, **params)
    assert refused.status_code == 400
    assert words in refused.json()["error"]["message"]
    assert len(await live.frames(1, follow="true", ticket=ticket)) == 1


async def test_the_grant_waits_in_the_encounters_slot_longer_than_the_ticket_lives(
    live: Live, redis_url: str
) -> None:
    ticket = await live.ticket(live.fight.gm)
    claims = unb64url(ticket.split(".")[1]).decode()
    ticket_id = claims.split('"id":"')[1].split('"')[0]
    client = redis.asyncio.Redis.from_url(redis_url)
    try:
        key = ticket_key(stream_id("acme", live.fight.encounter_id), ticket_id)
        assert await client.pttl(key) > TICKET_SECONDS * 1000
    finally:
        await client.aclose()


async def test_minting_counts_against_the_rate_limit(live: Live) -> None:
    state = live.api.client.app.state  # type: ignore[attr-defined]
    state.limiter = RateLimiter(state.multiplexed, 1, clock=lambda: 5_000.0)
    state.encounters.limiter = state.limiter
    path = f"{live.fight.path}/stream-tickets"
    first = await live.api.client.post(path, headers=bearer(live.fight.observer))
    second = await live.api.client.post(path, headers=bearer(live.fight.observer))
    assert (first.status_code, second.status_code) == (201, 429)
    assert second.json()["error"]["code"] == "rate/limited"


async def test_no_ticket_for_an_unknown_encounter(api: Api) -> None:
    response = await api.client.post("/v1/encounters/nowhere/stream-tickets", headers=bearer(KEY))
    assert response.status_code == 404
