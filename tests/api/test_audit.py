"""`GET /v1/encounters/{id}/audit` and GraphQL's `audit`: the verdict the audit worker kept,
for the GM, auditors and the tenant's key (the whole service, worker included, runs in
tests/e2e/test_audit_worker.py)."""

from __future__ import annotations

from typing import Any

import pytest

from service.engine import Engine
from tests.api.conftest import KEY, RIVAL_KEY, Api
from workers.audits import audit_due

pytestmark = pytest.mark.anyio

AUDIT = """
query A($id: String!) {
  audit(id: $id) {
    verdict auditedVersion auditedAt version stale checks { name status count detail }
  }
}"""


async def audit_now(api: Api, encounter_id: str) -> str:
    """Run the audit the end owes, as a worker would, on the app's own store."""
    engine: Engine = api.client.app.state.engine  # type: ignore[attr-defined]
    stored_as = f"acme/{encounter_id}"
    (entry,) = [d for d in await engine.store.pending_deadlines(stored_as) if d.key == "audit"]
    return await audit_due(engine, stored_as, entry.key, entry.due)


async def version_of(api: Api, credential: str, encounter_id: str) -> int:
    version: int = (await api.get(f"/v1/encounters/{encounter_id}", credential)).json()["version"]
    return version


async def graphql(api: Api, credential: str, encounter_id: str) -> dict[str, Any]:
    response = await api.client.post(
        "/graphql",
        json={"query": AUDIT, "variables": {"id": encounter_id}},
        headers={"Authorization": f"Bearer {credential}"},
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_the_verdict_is_pending_until_the_end_then_the_workers(
    api: Api, encounter_id: str
) -> None:
    gm = await api.skirmish(encounter_id)
    version = await version_of(api, gm, encounter_id)
    pending = await api.get(f"/v1/encounters/{encounter_id}/audit", gm)
    assert pending.status_code == 200
    assert pending.json() == {"verdict": "pending", "audited_version": None,
                              "audited_at": None, "version": version, "stale": False,
                              "checks": []}  # fmt: skip
    ended = await api.ok(encounter_id, gm, {"type": "end-encounter"})
    still = (await api.get(f"/v1/encounters/{encounter_id}/audit", gm)).json()
    assert still["verdict"] == "pending" and still["version"] == ended["version"]
    assert await audit_now(api, encounter_id) == "passed"
    answer = (await api.get(f"/v1/encounters/{encounter_id}/audit", gm)).json()
    assert answer["verdict"] == "passed" and not answer["stale"]
    assert answer["audited_version"] == answer["version"] == ended["version"]
    assert answer["audited_at"].endswith("Z")
    checks = {c["name"]: c for c in answer["checks"]}
    assert checks["chain"] == {"name": "chain", "status": "passed", "count": ended["version"],
                               "detail": checks["chain"]["detail"]}  # fmt: skip
    assert checks["seed"]["status"] == checks["rerun"]["status"] == "passed"


async def test_graphql_answers_the_same_verdict(api: Api, encounter_id: str) -> None:
    gm = await api.skirmish(encounter_id)
    version = await version_of(api, gm, encounter_id)
    pending = await graphql(api, gm, encounter_id)
    assert pending == {"data": {"audit": {"verdict": "pending", "auditedVersion": None,
                                          "auditedAt": None, "version": version,
                                          "stale": False, "checks": []}}}  # fmt: skip
    await api.ok(encounter_id, gm, {"type": "end-encounter"})
    await audit_now(api, encounter_id)
    rest = (await api.get(f"/v1/encounters/{encounter_id}/audit", gm)).json()
    answer = (await graphql(api, gm, encounter_id))["data"]["audit"]
    assert answer["verdict"] == "passed"
    assert answer["auditedVersion"] == rest["audited_version"]
    assert answer["auditedAt"] == rest["audited_at"]
    assert answer["checks"] == rest["checks"]


async def test_gm_auditor_and_the_tenant_key_may_read_it(api: Api, encounter_id: str) -> None:
    gm = await api.skirmish(encounter_id)
    auditor = await api.mint(encounter_id, "auditor")
    for credential in (gm, auditor, KEY):
        response = await api.get(f"/v1/encounters/{encounter_id}/audit", credential)
        assert response.status_code == 200, response.text
        assert (await graphql(api, credential, encounter_id))["data"]["audit"]["verdict"] == (
            "pending"
        )


@pytest.mark.parametrize(("role", "combatants"), [("player", ("bramli",)), ("observer", ())])
async def test_players_and_observers_are_refused_in_words(
    api: Api, encounter_id: str, role: str, combatants: tuple[str, ...]
) -> None:
    await api.skirmish(encounter_id)
    token = await api.mint(encounter_id, role, *combatants)
    response = await api.get(f"/v1/encounters/{encounter_id}/audit", token)
    assert response.status_code == 403
    error = response.json()["error"]
    assert error["code"] == "auth/forbidden"
    assert error["message"] == (
        f"a {role} may not read the audit verdict: only the GM, an auditor or the tenant's "
        "API key may"
    )
    (graphql_error,) = (await graphql(api, token, encounter_id))["errors"]
    assert graphql_error["message"] == error["message"]
    assert graphql_error["extensions"]["code"] == "auth/forbidden"


async def test_another_tenants_encounter_or_none_at_all_is_not_found(
    api: Api, encounter_id: str
) -> None:
    await api.skirmish(encounter_id)
    for credential, asked in ((RIVAL_KEY, encounter_id), (KEY, f"{encounter_id}-none")):
        response = await api.get(f"/v1/encounters/{asked}/audit", credential)
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "encounter/not-found"
