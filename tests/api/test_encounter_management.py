"""Encounter management over REST and GraphQL: GET /v1/encounters (the tenant's, paged by
cursor, filtered) and DELETE /v1/encounters/{id} (archive), `encounters` and
`archiveEncounter`; and FRAY_RETENTION_DAYS setting the keys' expiry on the real Redis."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis

from service.domain.ids import stream_id
from service.store.keys import encounter_keys
from tests.api.conftest import Api, bearer, running, settings_for
from tests.engine_helpers import COMBATANTS

pytestmark = pytest.mark.anyio

OWN, OTHER = "own-secret", "other-secret"


class Tenants:
    """An app whose two tenants are fresh: no other test's encounters are theirs."""

    def __init__(self, api: Api) -> None:
        self.api = api

    async def create(self, encounter_id: str, key: str = OWN, **body: Any) -> str:
        response = await self.api.client.post(
            "/v1/encounters",
            json={"ruleset": "freeform", "encounter_id": encounter_id, **body},
            headers=bearer(key),
        )
        assert response.status_code == 201, response.text
        token: str = response.json()["gm_token"]
        return token

    async def listing(self, key: str = OWN, **params: Any) -> dict[str, Any]:
        response = await self.api.client.get("/v1/encounters", headers=bearer(key), params=params)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    async def ids(self, key: str = OWN, **params: Any) -> list[str]:
        return [item["encounter_id"] for item in (await self.listing(key, **params))["encounters"]]

    async def graphql(self, query: str, credential: str, **variables: Any) -> dict[str, Any]:
        response = await self.api.client.post(
            "/graphql", json={"query": query, "variables": variables}, headers=bearer(credential)
        )
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body


@pytest.fixture
async def tenants(redis_url: str) -> AsyncIterator[Tenants]:
    name, other = f"t-{uuid.uuid4().hex[:8]}", f"t-{uuid.uuid4().hex[:8]}"
    settings = settings_for(redis_url, api_keys=(f"{name}:{OWN}", f"{other}:{OTHER}"))
    async with running(settings) as api:
        yield Tenants(api)


async def test_the_listing_pages_newest_updated_first_with_filters(tenants: Tenants) -> None:
    for n in range(7):
        await tenants.create(f"e{n}", ruleset="delvers-deep" if n % 3 == 0 else "freeform")
    gm = await tenants.create("ford", title="The ford")
    await tenants.api.ok("ford", gm, {"type": "add-note", "text": "moves it to the top"})
    await tenants.create("secret", key=OTHER)

    assert (await tenants.ids())[:2] == ["ford", "e6"]
    pages: list[list[str]] = []
    cursor = None
    while True:
        params = {"ruleset": "freeform", "limit": 2, **({"cursor": cursor} if cursor else {})}
        body = await tenants.listing(**params)
        pages.append([item["encounter_id"] for item in body["encounters"]])
        cursor = body["next_cursor"]
        if cursor is None:
            break
    assert pages == [["ford", "e5"], ["e4", "e2"], ["e1"]]
    assert await tenants.ids(key=OTHER) == ["secret"]
    (ford,) = (await tenants.listing(limit=1))["encounters"]
    assert ford == {
        "encounter_id": "ford",
        "ruleset": "freeform",
        "ruleset_version": ford["ruleset_version"],
        "status": "active",
        "title": "The ford",
        "created_at": ford["created_at"],
        "updated_at": ford["updated_at"],
        "version": 2,
    }
    assert ford["created_at"] < ford["updated_at"]
    later = await tenants.ids(updated_after=ford["created_at"])
    assert later == ["ford"]


async def test_another_tenants_encounters_are_never_listed_nor_archived(tenants: Tenants) -> None:
    await tenants.create("mine")
    await tenants.create("theirs", key=OTHER)
    assert await tenants.ids() == ["mine"]
    response = await tenants.api.client.delete("/v1/encounters/theirs", headers=bearer(OWN))
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "encounter/not-found"
    assert (await tenants.listing(key=OTHER))["encounters"][0]["status"] == "active"


@pytest.mark.parametrize(
    ("params", "field"),
    [
        pytest.param({"limit": 201}, "limit", id="limit over 200"),
        pytest.param({"limit": "many"}, "limit", id="limit not a number"),
        pytest.param({"status": "lost"}, "status", id="unknown status"),
        pytest.param({"updated_after": "yesterday"}, "updated_after", id="not a time"),
        pytest.param({"cursor": "not-ours"}, "cursor", id="a cursor Fray did not give"),
    ],
)
async def test_a_bad_query_is_refused(tenants: Tenants, params: dict[str, Any], field: str) -> None:
    response = await tenants.api.client.get("/v1/encounters", headers=bearer(OWN), params=params)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "request/invalid"
    assert field in error["message"] or "cursor" in error["message"]


async def test_archiving_refuses_commands_appends_nothing_and_leaves_reads(
    tenants: Tenants,
) -> None:
    api = tenants.api
    gm = await skirmish(api, "ford")
    player = await mint(api, "ford", "player", "bramli")
    before = (await api.get("/v1/encounters/ford/events", gm)).json()

    refused = await api.client.delete("/v1/encounters/ford", headers=bearer(player))
    assert refused.status_code == 403
    archived = await api.client.delete("/v1/encounters/ford", headers=bearer(gm))
    assert archived.status_code == 200, archived.text
    assert archived.json()["status"] == "archived"
    again = await api.client.delete("/v1/encounters/ford", headers=bearer(OWN))
    assert again.json() == archived.json()

    response = await api.send("ford", gm, {"type": "add-note", "text": "too late"})
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "encounter/archived"
    preview = await api.client.post(
        "/v1/encounters/ford/commands/preview",
        json={"command": {"type": "add-note", "text": "too late"}},
        headers=bearer(gm),
    )
    assert preview.json()["error"]["code"] == "encounter/archived"
    assert (await api.get("/v1/encounters/ford/events", gm)).json() == before
    for path in ("", "/events", "/export", "/audit", "/legal-actions"):
        assert (await api.get(f"/v1/encounters/ford{path}", gm)).status_code == 200, path
    assert (await tenants.listing(status="archived"))["encounters"] == [archived.json()]
    assert await tenants.ids(status="active") == []


ENCOUNTERS = """
query List($filter: EncounterFilterInput) {
  encounters(filter: $filter) {
    encounters { encounterId ruleset rulesetVersion status title createdAt updatedAt version }
    nextCursor
  }
}"""
ARCHIVE = "mutation Archive($id: String!) { archiveEncounter(id: $id) { encounterId status } }"
SUBMIT = """
mutation Send($id: String!, $command: CommandInput!) {
  submitCommand(encounterId: $id, command: $command) {
    __typename ... on CommandRejected { code status }
  }
}"""


async def test_graphql_lists_pages_and_archives_as_rest_does(tenants: Tenants) -> None:
    for name in ("a", "b", "c"):
        await tenants.create(name, title=f"Fight {name}")
    await tenants.create("theirs", key=OTHER)
    seen, cursor = [], None
    while True:
        data = await tenants.graphql(ENCOUNTERS, OWN, filter={"limit": 2, "cursor": cursor})
        page = data["data"]["encounters"]
        seen += [item["encounterId"] for item in page["encounters"]]
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert seen == ["c", "b", "a"]
    rest = (await tenants.listing(limit=1))["encounters"][0]
    first = (await tenants.graphql(ENCOUNTERS, OWN, filter={"limit": 1}))["data"]["encounters"]
    assert first["encounters"][0] == {
        "encounterId": rest["encounter_id"],
        "ruleset": rest["ruleset"],
        "rulesetVersion": rest["ruleset_version"],
        "status": rest["status"],
        "title": rest["title"],
        "createdAt": rest["created_at"],
        "updatedAt": rest["updated_at"],
        "version": rest["version"],
    }

    archived = await tenants.graphql(ARCHIVE, OWN, id="b")
    assert archived["data"]["archiveEncounter"] == {"encounterId": "b", "status": "archived"}
    rejected = await tenants.graphql(
        SUBMIT, OWN, id="b", command={"freeform": {"addNote": {"text": "too late"}}}
    )
    assert rejected["data"]["submitCommand"] == {
        "__typename": "CommandRejected",
        "code": "encounter/archived",
        "status": 409,
    }
    only = await tenants.graphql(ENCOUNTERS, OWN, filter={"status": "archived"})
    assert [i["encounterId"] for i in only["data"]["encounters"]["encounters"]] == ["b"]


async def test_graphql_refuses_a_token_for_the_listing_and_a_bad_filter(tenants: Tenants) -> None:
    gm = await tenants.create("a")
    denied = await tenants.graphql(ENCOUNTERS, gm)
    assert denied["errors"][0]["extensions"]["code"] == "auth/forbidden"
    bad = await tenants.graphql(ENCOUNTERS, OWN, filter={"limit": 500})
    assert bad["errors"][0]["extensions"]["code"] == "request/invalid"
    unknown = await tenants.graphql(ARCHIVE, OWN, id="nowhere")
    assert unknown["errors"][0]["extensions"]["code"] == "encounter/not-found"


async def test_retention_sets_every_key_to_expire_when_archived_or_ended(redis_url: str) -> None:
    tenant = f"t-{uuid.uuid4().hex[:8]}"
    settings = settings_for(redis_url, api_keys=(f"{tenant}:{OWN}",), retention_days=30)
    client = redis.Redis.from_url(redis_url)

    def ttls(encounter_id: str) -> set[int]:
        keys = encounter_keys(stream_id(tenant, encounter_id)).all()
        return {client.pttl(key) for key in keys if client.exists(key)}

    async with running(settings) as api:
        ended = await create_as(api, "ended")
        await api.ok("ended", ended, {"type": "end-encounter"})
        await create_as(api, "archived")
        await create_as(api, "active")
        response = await api.client.delete("/v1/encounters/archived", headers=bearer(OWN))
        assert response.status_code == 200
    month = 30 * 86_400 * 1000
    for encounter_id in ("ended", "archived"):
        found = ttls(encounter_id)
        # Thirty days, less the moments the test took (nothing near a day).
        assert found and all(month - 86_400_000 < ttl <= month for ttl in found), found
    assert ttls("active") == {-1}
    client.close()


async def create_as(api: Api, encounter_id: str) -> str:
    response = await api.client.post(
        "/v1/encounters",
        json={"ruleset": "freeform", "encounter_id": encounter_id},
        headers=bearer(OWN),
    )
    assert response.status_code == 201, response.text
    token: str = response.json()["gm_token"]
    return token


async def mint(api: Api, encounter_id: str, role: str, *combatants: str) -> str:
    response = await api.client.post(
        f"/v1/encounters/{encounter_id}/tokens",
        json={"role": role, "combatants": list(combatants)},
        headers=bearer(OWN),
    )
    assert response.status_code == 201, response.text
    token: str = response.json()["token"]
    return token


async def skirmish(api: Api, encounter_id: str) -> str:
    gm = await create_as(api, encounter_id)
    for combatant in COMBATANTS:
        await api.ok(encounter_id, gm, {"type": "add-combatant", **combatant})
    await api.ok(encounter_id, gm, {"type": "roll-initiative"})
    await api.ok(encounter_id, gm, {"type": "start-encounter"})
    return gm
