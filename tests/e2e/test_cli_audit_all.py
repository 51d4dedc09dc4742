"""`fray audit --all --tenant T` as a real process against the suite's Redis: every ended
encounter of the tenant, one line each, the worst verdict's exit code."""

from __future__ import annotations

import json
import uuid

from service.app.auth import tenant_actor
from service.domain.ids import stream_id
from service.engine import Engine
from tests.e2e.test_cli import fray
from tests.engine_helpers import COMBATANTS, run_on_redis, send
from tests.workers.conftest import corrupt


def play(redis_url: str, tenant: str, encounter_id: str, *, end: bool = True) -> None:
    """A freeform fight of `tenant`'s, ended unless `end` is False."""
    stored_as = stream_id(tenant, encounter_id)

    async def scenario(engine: Engine) -> None:
        owner = tenant_actor(tenant)
        await engine.create("freeform", {}, encounter_id=encounter_id, actor=owner, tenant=tenant)
        for combatant in COMBATANTS:
            await send(engine, stored_as, {"type": "add-combatant", **combatant}, owner)
        await send(engine, stored_as, {"type": "roll-initiative"}, owner)
        if end:
            await send(engine, stored_as, {"type": "end-encounter"}, owner)

    run_on_redis(redis_url, scenario)


def a_tenant() -> str:
    return f"t-{uuid.uuid4().hex[:8]}"  # the suite's Redis is shared: a tenant of its own


def test_every_ended_encounter_of_the_tenant_is_listed_and_a_failure_exits_1(
    redis_url: str,
) -> None:
    tenant, other = a_tenant(), a_tenant()
    play(redis_url, tenant, "good")
    play(redis_url, tenant, "forged")
    corrupt(redis_url, stream_id(tenant, "forged"), 3)
    play(redis_url, tenant, "going", end=False)
    play(redis_url, other, "elsewhere")
    result = fray("audit", "--all", "--tenant", tenant, redis_url=redis_url)
    assert result.returncode == 1, result.stdout + result.stderr
    forged, good = result.stdout.splitlines()
    assert forged.startswith("forged  failed  chain: version 3: ")
    assert good == "good  passed  -"
    listed = fray("audit", "--all", "--tenant", tenant, "--json", redis_url=redis_url)
    reports = json.loads(listed.stdout)
    assert listed.returncode == 1
    assert [(r["encounter_id"], r["verdict"]) for r in reports] == [
        ("forged", "failed"),
        ("good", "passed"),
    ]


def test_a_tenant_whose_ended_encounters_all_pass_exits_0(redis_url: str) -> None:
    tenant = a_tenant()
    play(redis_url, tenant, "first")
    play(redis_url, tenant, "second")
    result = fray("audit", "--all", "--tenant", tenant, redis_url=redis_url)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == ["first  passed  -", "second  passed  -"]


def test_a_tenant_with_nothing_ended_says_so(redis_url: str) -> None:
    tenant = a_tenant()
    play(redis_url, tenant, "going", end=False)
    result = fray("audit", "--all", "--tenant", tenant, redis_url=redis_url)
    assert result.returncode == 0 and result.stdout == ""
    assert result.stderr == f"fray audit: tenant '{tenant}' has no ended encounter\n"


def test_one_encounter_of_a_tenant_is_named_with_tenant(redis_url: str) -> None:
    tenant = a_tenant()
    play(redis_url, tenant, "good")
    result = fray("audit", "good", "--tenant", tenant, redis_url=redis_url)
    assert result.returncode == 0, result.stdout + result.stderr
    unnamed = fray("audit", "good", redis_url=redis_url)
    assert unnamed.returncode == 2 and "there is no encounter 'good'" in unnamed.stderr


def test_all_needs_a_tenant_and_nothing_else_to_audit(redis_url: str) -> None:
    alone = fray("audit", "--all", redis_url=redis_url)
    assert alone.returncode == 2
    assert alone.stderr == "fray audit: --all needs --tenant T\n"
    both = fray("audit", "some-id", "--all", "--tenant", "acme", redis_url=redis_url)
    assert both.returncode == 2
    assert "--all audits the tenant's encounters in Redis: it takes no encounter_id" in (
        both.stderr
    )
