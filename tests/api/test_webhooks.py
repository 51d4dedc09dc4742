"""Webhook subscriptions over REST and GraphQL (issue 28, item 1): the tenant's key only,
the secret shown once, CRUD, another tenant's webhook unknown, URLs checked (https, public
addresses) unless FRAY_WEBHOOK_ALLOW_PRIVATE; and the outbox entries an append records for
a matching webhook, in the same append as its events."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

from service.domain.ids import stream_id
from tests.api.conftest import Api, bearer, running, settings_for

pytestmark = pytest.mark.anyio

OWN, OTHER = "hook-secret", "hook-rival-secret"
PUBLIC = "https://93.184.215.14/fray"  # a public address literal: no DNS needed


class Hooks:
    def __init__(self, api: Api, tenant: str) -> None:
        self.api = api
        self.tenant = tenant

    async def create(self, key: str = OWN, **body: Any) -> Any:
        spec = {"url": PUBLIC, "events": ["*"], "view": "gm", **body}
        return await self.api.client.post("/v1/webhooks", json=spec, headers=bearer(key))

    async def made(self, **body: Any) -> dict[str, Any]:
        response = await self.create(**body)
        assert response.status_code == 201, response.text
        made: dict[str, Any] = response.json()
        return made

    async def graphql(self, query: str, key: str = OWN, **variables: Any) -> dict[str, Any]:
        response = await self.api.client.post(
            "/graphql", json={"query": query, "variables": variables}, headers=bearer(key)
        )
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body


async def _hooks(redis_url: str, **settings: Any) -> AsyncIterator[Hooks]:
    tenant, rival = f"h-{uuid.uuid4().hex[:8]}", f"h-{uuid.uuid4().hex[:8]}"
    config = settings_for(redis_url, api_keys=(f"{tenant}:{OWN}", f"{rival}:{OTHER}"), **settings)
    async with running(config) as api:
        yield Hooks(api, tenant)


@pytest.fixture
async def hooks(redis_url: str) -> AsyncIterator[Hooks]:
    async for found in _hooks(redis_url):
        yield found


@pytest.fixture
async def dev_hooks(redis_url: str) -> AsyncIterator[Hooks]:
    async for found in _hooks(redis_url, webhook_allow_private=True):
        yield found


async def test_a_webhook_is_created_with_a_secret_shown_once(hooks: Hooks) -> None:
    made = await hooks.made(events=["turn-started", "encounter-ended"], description="phones")
    assert made["secret"].startswith("whsec_")
    assert made["events"] == ["turn-started", "encounter-ended"]
    assert made["enabled"] is True and made["failing"] is False
    got = await hooks.api.get(f"/v1/webhooks/{made['id']}", OWN)
    assert got.status_code == 200
    assert "secret" not in got.json()
    assert got.json()["description"] == "phones"
    listed = (await hooks.api.get("/v1/webhooks", OWN)).json()["webhooks"]
    assert [w["id"] for w in listed] == [made["id"]]
    assert all("secret" not in w for w in listed)


async def test_a_webhook_is_changed_and_deleted(hooks: Hooks) -> None:
    made = await hooks.made()
    path = f"/v1/webhooks/{made['id']}"
    changed = await hooks.api.client.patch(
        path,
        json={"events": ["turn-started"], "view": {"player": ["bramli"]}, "enabled": False},
        headers=bearer(OWN),
    )
    assert changed.status_code == 200, changed.text
    body = changed.json()
    assert body["events"] == ["turn-started"]
    assert body["view"] == {"player": ["bramli"]}
    assert body["enabled"] is False and body["disabled_reason"] == "disabled by the tenant"
    deleted = await hooks.api.client.delete(path, headers=bearer(OWN))
    assert deleted.status_code == 204
    gone = await hooks.api.get(path, OWN)
    assert gone.status_code == 404
    assert gone.json()["error"]["code"] == "webhook/not-found"


async def test_another_tenants_webhook_is_unknown(hooks: Hooks) -> None:
    made = await hooks.made()
    for response in (
        await hooks.api.get(f"/v1/webhooks/{made['id']}", OTHER),
        await hooks.api.client.delete(f"/v1/webhooks/{made['id']}", headers=bearer(OTHER)),
    ):
        assert response.status_code == 404
    assert (await hooks.api.get("/v1/webhooks", OTHER)).json() == {"webhooks": []}


async def test_an_encounter_token_manages_no_webhooks(hooks: Hooks) -> None:
    gm = (
        await hooks.api.client.post(
            "/v1/encounters", json={"ruleset": "freeform"}, headers=bearer(OWN)
        )
    ).json()["gm_token"]
    response = await hooks.api.get("/v1/webhooks", gm)
    assert response.status_code == 403
    assert (await hooks.api.get("/v1/webhooks", "nonsense")).status_code == 401


@pytest.mark.parametrize(
    ("url", "code"),
    [
        pytest.param("http://93.184.215.14/", "webhook/bad-url", id="http"),
        pytest.param("ftp://93.184.215.14/", "webhook/bad-url", id="ftp"),
        pytest.param("https:///path", "webhook/bad-url", id="no host"),
        pytest.param("https://u:p@93.184.215.14/", "webhook/bad-url", id="credentials"),
        pytest.param("https://127.0.0.1/", "webhook/private-address", id="loopback"),
        pytest.param("https://localhost:8443/", "webhook/private-address", id="localhost"),
        pytest.param("https://10.1.2.3/", "webhook/private-address", id="private"),
        pytest.param("https://192.168.0.9/", "webhook/private-address", id="private 192.168"),
        pytest.param("https://169.254.169.254/", "webhook/private-address", id="metadata"),
        pytest.param("https://0.0.0.0/", "webhook/private-address", id="unspecified"),
        pytest.param("https://[::1]/", "webhook/private-address", id="ipv6 loopback"),
        pytest.param("https://[::ffff:127.0.0.1]/", "webhook/private-address", id="mapped"),
        pytest.param("https://[fe80::1]/", "webhook/private-address", id="ipv6 link-local"),
        pytest.param("https://[fd00::1]/", "webhook/private-address", id="ipv6 unique local"),
        pytest.param("https://224.0.0.1/", "webhook/private-address", id="multicast"),
        pytest.param("https://240.0.0.1/", "webhook/private-address", id="reserved"),
        pytest.param("https://100.64.0.1/", "webhook/private-address", id="shared cgnat"),
        pytest.param("https://no-such-host.invalid/", "webhook/unresolvable-host", id="nxdomain"),
    ],
)
async def test_a_url_fray_will_not_call_is_refused(hooks: Hooks, url: str, code: str) -> None:
    response = await hooks.create(url=url)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] == code
    assert (await hooks.api.get("/v1/webhooks", OWN)).json() == {"webhooks": []}


async def test_a_private_url_is_refused_on_change_too(hooks: Hooks) -> None:
    made = await hooks.made()
    response = await hooks.api.client.patch(
        f"/v1/webhooks/{made['id']}", json={"url": "https://127.0.0.1/"}, headers=bearer(OWN)
    )
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "webhook/private-address"


async def test_private_and_http_urls_are_allowed_with_the_flag(dev_hooks: Hooks) -> None:
    made = await dev_hooks.made(url="http://127.0.0.1:9/hook")
    assert made["url"] == "http://127.0.0.1:9/hook"


@pytest.mark.parametrize(
    "body",
    [
        pytest.param({"events": []}, id="no events"),
        pytest.param({"events": ["Turn Started"]}, id="bad event name"),
        pytest.param({"view": "player"}, id="player without combatants"),
        pytest.param({"view": {"player": []}}, id="no combatants"),
        pytest.param({"colour": "red"}, id="unknown field"),
    ],
)
async def test_a_malformed_webhook_is_refused(hooks: Hooks, body: dict[str, Any]) -> None:
    response = await hooks.create(**body)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "request/invalid"


CREATE = """
mutation ($input: WebhookInput!) {
  createWebhook(input: $input) { id secret url events view enabled }
}"""


async def test_graphql_manages_webhooks_as_rest_does(hooks: Hooks) -> None:
    created = await hooks.graphql(
        CREATE, input={"url": PUBLIC, "events": ["turn-started"], "view": {"player": ["bramli"]}}
    )
    made = created["data"]["createWebhook"]
    assert made["secret"].startswith("whsec_")
    assert made["view"] == {"player": ["bramli"]}
    listed = await hooks.graphql("{ webhooks { id view } }")
    assert listed["data"]["webhooks"] == [{"id": made["id"], "view": {"player": ["bramli"]}}]
    rest = (await hooks.api.get(f"/v1/webhooks/{made['id']}", OWN)).json()
    assert rest["events"] == ["turn-started"]
    changed = await hooks.graphql(
        "mutation ($id: String!) { updateWebhook(id: $id, input: {enabled: false}) { enabled } }",
        id=made["id"],
    )
    assert changed["data"]["updateWebhook"] == {"enabled": False}
    deleted = await hooks.graphql(
        "mutation ($id: String!) { deleteWebhook(id: $id) }", id=made["id"]
    )
    assert deleted["data"]["deleteWebhook"] is True
    missing = await hooks.graphql("query ($id: String!) { webhook(id: $id) { id } }", id=made["id"])
    assert missing["errors"][0]["extensions"]["code"] == "webhook/not-found"


async def test_graphql_refuses_a_private_url(hooks: Hooks) -> None:
    refused = await hooks.graphql(
        CREATE, input={"url": "https://127.0.0.1/", "events": ["*"], "view": "gm"}
    )
    assert refused["errors"][0]["extensions"]["code"] == "webhook/private-address"


async def test_an_append_records_a_delivery_per_matching_event_in_its_outbox(
    hooks: Hooks,
) -> None:
    turns = await hooks.made(events=["turn-started"])
    other = await hooks.made(events=["*"], encounter_id="elsewhere")
    created = await hooks.api.client.post(
        "/v1/encounters",
        json={"ruleset": "freeform", "encounter_id": "hooked"},
        headers=bearer(OWN),
    )
    gm = created.json()["gm_token"]
    bramli = {"combatant_id": "bramli", "name": "Bramli", "side": "heroes", "stats": {"hp": 20}}
    await hooks.api.ok("hooked", gm, {"type": "add-combatant", **bramli})
    await hooks.api.ok("hooked", gm, {"type": "roll-initiative"})
    started = await hooks.api.ok("hooked", gm, {"type": "start-encounter"})
    turn = [e["version"] for e in started["events"] if e["type"] == "turn-started"]
    assert turn
    engine = hooks.api.client.app.state.engine  # type: ignore[attr-defined]
    pending = await engine.store.pending_deadlines(stream_id(hooks.tenant, "hooked"))
    keys = sorted(d.key for d in pending if d.key.startswith("webhook:"))
    assert keys == sorted(f"webhook:{turns['id']}:{v}" for v in turn)
    assert not any(other["id"] in k for k in keys)
