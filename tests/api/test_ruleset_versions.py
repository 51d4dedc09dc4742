"""Over HTTP: an encounter recorded with a ruleset version this Fray no longer runs is
refused in clear words (409, never a 500), and its stream is left as it was."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from service.domain.ids import stream_id
from service.rules.registry import RULESETS, versions_of
from service.store.events import Head
from service.store.redis_store import EventStore
from tests.api.conftest import KEY, bearer, running, settings_for
from tests.versions import EARLIER_VERSION, before_the_upgrade, drop_earlier

pytestmark = pytest.mark.anyio


async def test_a_command_on_an_unavailable_ruleset_version_is_refused_with_409(
    redis_url: str, encounter_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = settings_for(redis_url)
    with before_the_upgrade(monkeypatch):
        async with running(settings) as old:
            gm = await old.skirmish(encounter_id)
    drop_earlier()
    client = aioredis.Redis.from_url(redis_url)
    store = EventStore(client)
    stream = stream_id("acme", encounter_id)
    before = await store.head(stream)
    async with running(settings) as api:
        response = await api.send(encounter_id, gm, {"type": "end-turn"})
        read = await api.get(f"/v1/encounters/{encounter_id}", gm)
        events = await api.client.get(f"/v1/encounters/{encounter_id}/export", headers=bearer(KEY))

    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "encounter/ruleset-unavailable"
    assert error["message"] == (
        f"ruleset freeform {EARLIER_VERSION} is not available; this Fray runs freeform "
        f"{', '.join(versions_of('freeform'))}"
    )
    assert error["details"]["available"] == ["1.0.0", RULESETS["freeform"].version]
    assert read.status_code == 409
    assert read.json()["error"]["code"] == "encounter/ruleset-unavailable"
    assert events.status_code == 409
    after = await store.head(stream)
    await client.aclose()
    assert isinstance(before, Head) and after == before
