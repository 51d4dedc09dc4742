"""`Encounters` beyond the HTTP edges: the system's commands (the workers), the system's
reading of the stored record (the CLI), and a live follower the hub drops."""

from __future__ import annotations

import asyncio
import logging

import orjson
import pytest

from service.app.auth import Principal, system_principal
from service.app.encounters import Encounters
from service.app.following import SubscriptionLost
from service.deciding import CommandRequest
from service.domain.context import GM
from service.domain.errors import Forbidden
from service.engine import Engine
from service.store.clients import redis_client
from service.store.redis_store import EventStore
from service.store.subscriptions import StreamHub
from tests.engine_helpers import run, skirmish

SEED = bytes(range(32))


def gm_of(stream: str) -> Principal:
    return Principal(GM, "token", None, stream, stream)


def test_a_system_command_is_the_system_actors_and_is_logged(
    encounter_id: str, caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario(engine: Engine) -> tuple[list[bytes], str]:
        await skirmish(engine, encounter_id)
        request = CommandRequest(command_id="deadline-1", command={"type": "end-turn"})
        with caplog.at_level(logging.INFO, logger="fray.api"):
            submitted = await Encounters(engine).submit_as_system(encounter_id, request)
        stored = await engine.store.read(encounter_id, after=submitted.version - 1)
        return [s.body for s in stored], submitted.command_id

    bodies, command_id = run(scenario)

    actor = orjson.loads(bodies[-1])["actor"]
    assert (actor["id"], actor["role"]) == ("system", "system")
    (line,) = [orjson.loads(r.message) for r in caplog.records if '"command"' in r.message]
    assert line["api"] == "worker" and line["command_id"] == command_id
    assert line["outcome"] == "accepted"


def test_the_system_reads_a_sealed_stream_and_its_seed_as_stored(encounter_id: str) -> None:
    """fifty-two's seed orders the face-down pool: no client sees it before the end, but
    the CLI beside the store exports and audits the stream as it is."""

    async def scenario(engine: Engine) -> tuple[list[bytes], list[bytes], bytes]:
        await engine.create("fifty-two", {}, encounter_id=encounter_id, seed=SEED, actor=GM)
        encounters = Encounters(engine)
        with pytest.raises(Forbidden):
            await encounters.seed(gm_of(encounter_id))
        system = system_principal(encounter_id)
        exported = [line async for line in await encounters.export(system)]
        stored = [s.body + b"\n" for s in await engine.store.read(encounter_id)]
        return exported, stored, await encounters.seed(system)

    exported, stored, seed = run(scenario)

    header, *lines = exported
    assert orjson.loads(header)["encounter_id"] == encounter_id
    assert lines == stored
    assert seed == SEED


def test_a_follower_the_hub_drops_is_told_where_to_resume(
    redis_url: str, encounter_id: str
) -> None:
    async def scenario() -> tuple[list[int], SubscriptionLost]:
        client = redis_client(redis_url)
        engine = Engine(EventStore(client))
        await skirmish(engine, encounter_id)  # five events, read by the hub in one batch
        hub = StreamHub(lambda: redis_client(redis_url), max_pending=1)
        await hub.start()
        try:
            events = await Encounters(engine, hub=hub).follow(gm_of(encounter_id), 0)
            seen: list[int] = []
            with pytest.raises(SubscriptionLost) as lost:
                async for event in events:
                    assert event is not None
                    seen.append(event["version"])
            return seen, lost.value
        finally:
            await hub.stop()
            await client.aclose()

    seen, lost = asyncio.run(scenario())

    assert seen == [1]
    assert lost.code == "subscription/too-slow"
    assert lost.details == {"encounter_id": encounter_id, "last_version": 1}
