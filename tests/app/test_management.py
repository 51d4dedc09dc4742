"""`Management`, the use cases behind GET /v1/encounters and DELETE /v1/encounters/{id}:
the tenant's encounters listed, filtered and paged; archiving, and what it refuses after."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest
import redis

from service.app.auth import Principal, tenant_actor
from service.app.management import EncounterFilter, EncounterInfo, Management
from service.deciding import CommandRequest
from service.domain.context import Actor
from service.domain.envelope import Envelope
from service.domain.errors import Conflict, Forbidden, FrayError, NotFound
from service.domain.ids import stream_id
from service.engine import Engine
from service.store.keys import encounter_keys, tenant_backfilled, tenant_index
from service.store.memory import MemoryStore
from tests.engine_helpers import COMBATANTS, run_on_redis

T = TypeVar("T")
START = 1_767_225_600.0  # 2026-01-01T00:00:00Z


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


def run(scenario: Callable[[Engine, Clock], Awaitable[T]]) -> T:
    clock = Clock()
    return asyncio.run(scenario(Engine(MemoryStore(clock=clock)), clock))


def owner(tenant: str, encounter_id: str) -> Principal:
    stream = stream_id(tenant, encounter_id)
    return Principal(tenant_actor(tenant), "tenant", tenant, None, stream)


async def create(engine: Engine, tenant: str, encounter_id: str, **options: Any) -> None:
    ruleset = options.pop("ruleset", "freeform")
    await engine.create(
        ruleset, {}, encounter_id=encounter_id, actor=tenant_actor(tenant), tenant=tenant, **options
    )


async def send(engine: Engine, tenant: str, encounter_id: str, command: dict[str, Any]) -> None:
    request = CommandRequest(command=command)
    await engine.execute(stream_id(tenant, encounter_id), request, tenant_actor(tenant))


async def listed(engine: Engine, tenant: str, **query: Any) -> list[str]:
    page = await Management(engine).list(tenant, EncounterFilter(**query))
    return [info.encounter_id for info in page.encounters]


def test_an_item_says_what_the_encounter_is() -> None:
    async def scenario(engine: Engine, clock: Clock) -> list[EncounterInfo]:
        await create(engine, "acme", "ford", title="The ford")
        clock.now += 60.5
        await send(engine, "acme", "ford", {"type": "add-combatant", **COMBATANTS[0]})
        page = await Management(engine).list("acme", EncounterFilter())
        return page.encounters

    (item,) = run(scenario)
    assert item.to_dict() == {
        "encounter_id": "ford",
        "ruleset": "freeform",
        "ruleset_version": item.ruleset_version,
        "status": "active",
        "title": "The ford",
        "created_at": "2026-01-01T00:00:00.000Z",
        "updated_at": "2026-01-01T00:01:00.500Z",
        "version": 2,
    }
    assert item.ruleset_version  # the ruleset's newest, recorded at creation


def test_the_listing_is_newest_updated_first_and_only_the_tenants() -> None:
    async def scenario(engine: Engine, clock: Clock) -> tuple[list[str], list[str]]:
        for name in ("a", "b", "c"):
            await create(engine, "acme", name)
            clock.now += 1
        await create(engine, "rival", "secret")
        await send(engine, "acme", "a", {"type": "add-note", "text": "moved up"})
        return await listed(engine, "acme"), await listed(engine, "rival")

    assert run(scenario) == (["a", "c", "b"], ["secret"])


def test_pages_with_filters_go_on_from_their_cursor_to_the_end() -> None:
    async def scenario(engine: Engine, clock: Clock) -> list[list[str]]:
        for n in range(7):
            ruleset = "freeform" if n % 2 == 0 else "delvers-deep"
            await create(engine, "acme", f"e{n}", ruleset=ruleset)
            clock.now += 1
        management = Management(engine)
        pages, cursor = [], None
        while True:
            query = EncounterFilter(ruleset="freeform", limit=2, cursor=cursor)
            page = await management.list("acme", query)
            pages.append([info.encounter_id for info in page.encounters])
            cursor = page.next_cursor
            if cursor is None:
                return pages

    assert run(scenario) == [["e6", "e4"], ["e2", "e0"]]


def test_filters_by_status_and_by_updated_time() -> None:
    async def scenario(engine: Engine, clock: Clock) -> dict[str, list[str]]:
        for name in ("a", "b", "c", "d"):
            await create(engine, "acme", name)
            clock.now += 60
        await send(engine, "acme", "b", {"type": "end-encounter"})  # updated at +4 min
        await Management(engine).archive(owner("acme", "c"))  # also +4 min
        return {
            "active": await listed(engine, "acme", status="active"),
            "ended": await listed(engine, "acme", status="ended"),
            "archived": await listed(engine, "acme", status="archived"),
            "after 1 min": await listed(engine, "acme", updated_after="2026-01-01T00:01:00Z"),
            "before 1 min": await listed(engine, "acme", updated_before="2026-01-01T00:01:00Z"),
            "between": await listed(
                engine,
                "acme",
                updated_after="2026-01-01T00:00:00Z",
                updated_before="2026-01-01T00:03:00.001",  # no offset: UTC
            ),
        }

    found = run(scenario)
    assert found["active"] == ["d", "a"]
    assert found["ended"] == ["b"]
    assert found["archived"] == ["c"]
    assert found["after 1 min"] == ["c", "b", "d"]
    assert found["before 1 min"] == ["a"]
    assert found["between"] == ["d"]


def test_a_bad_cursor_or_time_is_refused() -> None:
    async def scenario(engine: Engine, clock: Clock) -> None:
        for cursor in ("nonsense", "bm9uc2Vuc2U", "MTI6e30"):
            with pytest.raises(FrayError) as refused:
                await Management(engine).list("acme", EncounterFilter(cursor=cursor))
            assert refused.value.code == "request/invalid"

    run(scenario)
    with pytest.raises(ValueError, match="not an ISO 8601 time"):
        EncounterFilter(updated_after="yesterday")


def test_a_time_before_1970_lists_nothing_and_breaks_nothing() -> None:
    async def scenario(engine: Engine, clock: Clock) -> tuple[list[str], list[str]]:
        await create(engine, "acme", "a")
        return (
            await listed(engine, "acme", updated_before="1969-12-31T23:59:59Z"),
            await listed(engine, "acme", updated_after="0001-01-01T00:00:00+14:00"),
        )

    assert run(scenario) == ([], ["a"])


def test_archiving_answers_the_item_and_again_the_same() -> None:
    async def scenario(engine: Engine, clock: Clock) -> tuple[EncounterInfo, EncounterInfo]:
        await create(engine, "acme", "ford")
        clock.now += 10
        first = await Management(engine).archive(owner("acme", "ford"))
        clock.now += 10
        return first, await Management(engine).archive(owner("acme", "ford"))

    first, again = run(scenario)
    assert first == again
    assert (first.status, first.updated_at) == ("archived", "2026-01-01T00:00:10.000Z")


def test_an_archived_encounter_refuses_commands_and_previews_and_appends_nothing() -> None:
    async def scenario(engine: Engine, clock: Clock) -> None:
        await create(engine, "acme", "ford")
        stream = stream_id("acme", "ford")
        await send(engine, "acme", "ford", {"type": "add-combatant", **COMBATANTS[0]})
        await Management(engine).archive(owner("acme", "ford"))
        before = await engine.store.read(stream)
        request = CommandRequest(command={"type": "add-note", "text": "too late"})
        for attempt in (engine.execute, engine.preview):
            with pytest.raises(Conflict) as refused:
                await attempt(stream, request, tenant_actor("acme"))
            assert refused.value.code == "encounter/archived"
        assert await engine.store.read(stream) == before
        assert (await engine.load(stream)).version == 2  # still read

    run(scenario)


def test_only_the_gm_archives() -> None:
    async def scenario(engine: Engine, clock: Clock) -> str:
        await create(engine, "acme", "ford")
        stream = stream_id("acme", "ford")
        for role in ("player", "observer", "auditor"):
            principal = Principal(Actor("someone", role), "token", "acme", "ford", stream)
            with pytest.raises(Forbidden):
                await Management(engine).archive(principal)
        return (await engine.store.meta(stream) or {})["status"]

    assert run(scenario) == "active"


def test_an_encounter_stored_before_the_summary_is_listed_as_it_is(redis_url: str) -> None:
    tenant = f"t-{uuid.uuid4().hex[:8]}"

    async def scenario(engine: Engine) -> tuple[list[EncounterInfo], dict[str, str]]:
        await create(engine, tenant, "old", title="Before the index")
        await send(engine, tenant, "old", {"type": "end-encounter"})
        await send(engine, tenant, "old", {"type": "add-note", "text": "after the end"})
        stream = stream_id(tenant, "old")
        last = Envelope.from_body((await engine.store.read(stream))[-1].body)
        # As an older Fray left it: no summary in the meta, no index entry.
        client = redis.Redis.from_url(redis_url)
        meta = encounter_keys(stream).meta
        client.hdel(meta, "status", "updated", "title", "ruleset_version")
        client.delete(tenant_index(tenant), tenant_backfilled(tenant))
        client.close()
        page = await Management(engine).list(tenant, EncounterFilter())
        kept = await engine.store.meta(stream) or {}
        assert page.encounters[0].updated_at == last.at
        return page.encounters, kept

    (item,), kept = run_on_redis(redis_url, scenario)
    assert (item.encounter_id, item.status, item.title) == ("old", "ended", "Before the index")
    assert item.version == 3
    assert (kept["status"], kept["title"]) == ("ended", "Before the index")


def test_archiving_an_unknown_encounter_is_not_found() -> None:
    async def scenario(engine: Engine, clock: Clock) -> None:
        with pytest.raises(NotFound):
            await Management(engine).archive(owner("acme", "nowhere"))

    run(scenario)
