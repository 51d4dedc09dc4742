"""Every role against every operation: who may read, command, mint, see the seed, export."""

from __future__ import annotations

import httpx
import pytest

from tests.api.conftest import KEY, Api, bearer
from tests.api.helpers import Fight, fight

pytestmark = pytest.mark.anyio

ROLES = ("gm", "player", "observer", "auditor", "tenant-key")
#              gm   player observer auditor tenant-key
EXPECTED = {
    "summary": (200, 200, 200, 200, 200),
    "events": (200, 200, 200, 200, 200),
    "legal-actions": (200, 200, 200, 200, 200),
    "command": (201, 201, 403, 403, 201),
    "mint": (201, 403, 403, 403, 201),
    "seed": (200, 403, 403, 200, 200),
    "export": (200, 200, 200, 200, 200),
}
TABLE = [
    pytest.param(operation, role, status, id=f"{role} {operation} -> {status}")
    for operation, statuses in EXPECTED.items()
    for role, status in zip(ROLES, statuses, strict=True)
]


def credential_of(f: Fight, role: str) -> str:
    return {
        "gm": f.gm,
        "player": f.acting_player,
        "observer": f.observer,
        "auditor": f.auditor,
        "tenant-key": KEY,
    }[role]


async def perform(f: Fight, operation: str, credential: str) -> httpx.Response:
    client, headers = f.api.client, bearer(credential)
    match operation:
        case "summary":
            return await client.get(f.path, headers=headers)
        case "events":
            return await client.get(f"{f.path}/events", headers=headers)
        case "legal-actions":
            return await client.get(f"{f.path}/legal-actions", headers=headers)
        case "command":
            command = {"type": "roll", "expression": "1d20", "combatant_id": f.acting}
            return await client.post(
                f"{f.path}/commands", json={"command": command}, headers=headers
            )
        case "mint":
            return await client.post(f"{f.path}/tokens", json={"role": "observer"}, headers=headers)
        case "seed":
            return await client.get(f"{f.path}/seed", headers=headers)
        case "export":
            return await client.get(f"{f.path}/export", headers=headers)
    raise AssertionError(operation)


@pytest.mark.parametrize(("operation", "role", "status"), TABLE)
async def test_role_by_operation(
    api: Api, encounter_id: str, operation: str, role: str, status: int
) -> None:
    f = await fight(api, encounter_id)
    response = await perform(f, operation, credential_of(f, role))
    assert response.status_code == status, response.text
    if status >= 400:
        assert response.json()["error"]["code"] == "auth/forbidden"


async def test_each_role_reads_who_it_is_on_the_encounter(api: Api, encounter_id: str) -> None:
    """`viewer`: what a front end needs to know which controls to draw (the table view's
    GM section), without guessing from the legal actions."""
    f = await fight(api, encounter_id)
    seen = {}
    for role in ROLES:
        response = await api.get(f.path, credential_of(f, role))
        seen[role] = response.json()["viewer"]

    assert {role: v["role"] for role, v in seen.items()} == {
        "gm": "gm", "player": "player", "observer": "observer", "auditor": "auditor",
        "tenant-key": "gm",
    }  # fmt: skip
    assert seen["player"]["combatants"] == [f.acting]
    assert seen["tenant-key"]["id"].startswith("tenant:")


async def test_a_gm_token_mints_tokens_that_work(api: Api, encounter_id: str) -> None:
    f = await fight(api, encounter_id)
    response = await api.client.post(
        f"{f.path}/tokens",
        json={"role": "player", "combatants": [f.acting], "subject": "alice", "ttl_seconds": 60},
        headers=bearer(f.gm),
    )
    assert response.status_code == 201
    body = response.json()
    assert body["role"] == "player" and body["combatants"] == [f.acting]
    assert body["subject"] == "alice" and body["expires_at"]
    sent = await api.send(encounter_id, body["token"], {"type": "end-turn"})
    assert sent.status_code == 201, sent.text
    assert sent.json()["events"][0]["actor"] == {
        "id": "alice",
        "role": "player",
        "combatants": [f.acting],
    }


async def test_everyone_may_read_the_seed_after_the_end(api: Api, encounter_id: str) -> None:
    f = await fight(api, encounter_id)
    await api.ok(encounter_id, f.gm, {"type": "end-encounter"})
    response = await api.get(f"{f.path}/seed", f.observer)
    assert response.status_code == 200
    assert len(response.json()["seed"]) == 64


async def test_the_rulesets_list_commands_schemas_and_versions(api: Api) -> None:
    response = await api.client.get("/v1/rulesets")
    assert response.status_code == 200
    freeform = next(r for r in response.json()["rulesets"] if r["name"] == "freeform")
    assert "end-turn" in freeform["commands"] and "roll" in freeform["commands"]
    assert freeform["versions"] == ["1.0.0", freeform["version"]]  # 1.0.0: issue 27's bump
    assert "initiative_die" in freeform["options_schema"]["properties"]
    assert freeform["stats_schema"]["type"] == "object"
