"""The store's basic contract: create, append, read, head, meta, keys."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
import redis.asyncio
from hypothesis import given, settings
from hypothesis import strategies as st

from service.embedded_redis import RedisServer
from service.store import (
    Deadline,
    EncounterExists,
    EncounterNotFound,
    EventStore,
    Head,
    InvalidArgument,
    StoreCorrupted,
)
from service.store.keys import DEADLINE_INDEX, encounter_keys, hash_tag
from tests.store.conftest import Scenario
from tests.store.helpers import event, events

Run = Callable[[Scenario], None]


def test_create_then_read_returns_version_one(run_store: Run, encounter_id: str) -> None:
    async def scenario(store: EventStore, _: redis.asyncio.Redis) -> None:
        first = event(1, '{"type":"created"}')
        result = await store.create(encounter_id, first, seed=b"\x00seed\xff")
        assert (result.first_version, result.last_version, result.duplicate) == (1, 1, False)
        assert await store.read(encounter_id) == [first]
        assert await store.seed(encounter_id) == b"\x00seed\xff"
        assert await store.exists(encounter_id)

    run_store(scenario)


def test_append_and_read_round_trip(run_store: Run, encounter_id: str) -> None:
    async def scenario(store: EventStore, _: redis.asyncio.Redis) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        appended = events(2, 3)
        result = await store.append(encounter_id, 1, "cmd-1", "fp-1", appended)
        assert (result.first_version, result.last_version, result.duplicate) == (2, 4, False)
        assert await store.read(encounter_id) == [event(1), *appended]
        assert await store.head(encounter_id) == Head(version=4, hash=appended[-1].hash)

    run_store(scenario)


def test_read_after_limit_and_up_to(run_store: Run, encounter_id: str) -> None:
    async def scenario(store: EventStore, _: redis.asyncio.Redis) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        await store.append(encounter_id, 1, "cmd", "fp", events(2, 9))

        async def versions(**kwargs: int | None) -> list[int]:
            return [e.version for e in await store.read(encounter_id, **kwargs)]

        assert await versions(after=7) == [8, 9, 10]
        assert await versions(after=2, limit=3) == [3, 4, 5]
        assert await versions(up_to=3) == [1, 2, 3]
        assert await versions(after=3, up_to=6, limit=2) == [4, 5]
        assert await versions(after=10) == []
        assert await versions(after=5, up_to=5) == []
        assert await versions(limit=0) == []
        assert await store.read("enc-missing-read") == []

    run_store(scenario)


READ_WINDOW_ID = "enc-read-window"
READ_WINDOW_EVENTS = 30


@settings(max_examples=40, deadline=None)
@given(
    after=st.integers(0, READ_WINDOW_EVENTS + 3),
    limit=st.none() | st.integers(0, 12),
    up_to=st.none() | st.integers(0, READ_WINDOW_EVENTS + 3),
)
def test_read_matches_a_slice_of_the_versions(
    store_server: RedisServer, after: int, limit: int | None, up_to: int | None
) -> None:
    async def main() -> list[int]:
        client = redis.asyncio.Redis.from_url(store_server.url)
        try:
            store = EventStore(client)
            if not await store.exists(READ_WINDOW_ID):
                await store.create(READ_WINDOW_ID, event(1), seed=b"s")
                await store.append(
                    READ_WINDOW_ID, 1, "fill", "fp", events(2, READ_WINDOW_EVENTS - 1)
                )
            found = await store.read(READ_WINDOW_ID, after=after, limit=limit, up_to=up_to)
            return [e.version for e in found]
        finally:
            await client.aclose()

    expected = [
        v for v in range(1, READ_WINDOW_EVENTS + 1) if v > after and (up_to is None or v <= up_to)
    ]
    if limit is not None:
        expected = expected[:limit]
    assert asyncio.run(main()) == expected


def test_head_and_meta(run_store: Run, encounter_id: str) -> None:
    async def scenario(store: EventStore, _: redis.asyncio.Redis) -> None:
        assert await store.head(encounter_id) is None
        assert await store.meta(encounter_id) is None
        first = event(1)
        await store.create(encounter_id, first, seed=b"s", meta={"ruleset": "freeform-1"})
        assert await store.head(encounter_id) == Head(version=1, hash=first.hash)
        meta = await store.meta(encounter_id)
        assert meta is not None
        assert meta["ruleset"] == "freeform-1"
        assert meta["version"] == "1"
        assert meta["hash"] == first.hash
        assert float(meta["created"]) > 0

    run_store(scenario)


def test_append_to_a_missing_encounter_is_not_found(run_store: Run, encounter_id: str) -> None:
    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        with pytest.raises(EncounterNotFound) as caught:
            await store.append(encounter_id, 0, "cmd", "fp", [event(1)])
        assert caught.value.encounter_id == encounter_id
        assert caught.value.code == "store/encounter-not-found"
        assert await client.exists(*encounter_keys(encounter_id).all()) == 0
        assert not await store.exists(encounter_id)

    run_store(scenario)


def test_create_twice_is_refused_and_keeps_the_first(run_store: Run, encounter_id: str) -> None:
    async def scenario(store: EventStore, _: redis.asyncio.Redis) -> None:
        first = event(1, '{"first":true}')
        await store.create(encounter_id, first, seed=b"one", meta={"ruleset": "a"})
        with pytest.raises(EncounterExists) as caught:
            await store.create(encounter_id, event(1, '{"second":true}'), b"two", {"ruleset": "b"})
        assert caught.value.code == "store/encounter-exists"
        assert await store.read(encounter_id) == [first]
        assert await store.seed(encounter_id) == b"one"
        meta = await store.meta(encounter_id)
        assert meta is not None and meta["ruleset"] == "a"

    run_store(scenario)


def test_every_key_of_an_encounter_carries_its_hash_tag(run_store: Run, encounter_id: str) -> None:
    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        await store.append(
            encounter_id, 1, "cmd", "fp", [event(2)], deadlines=[Deadline("turn", 1e12, b"p")]
        )
        await store.save_snapshot(encounter_id, 2, b"snap")
        found = {key async for key in client.scan_iter(match=f"*{encounter_id}*")}
        assert found == {key.encode() for key in encounter_keys(encounter_id).all()}
        assert all(hash_tag(key) == encounter_id for key in found)
        assert await client.zscore(DEADLINE_INDEX, encounter_id) == 1e12

    run_store(scenario)


def test_bad_appends_are_refused_before_writing(run_store: Run, encounter_id: str) -> None:
    async def scenario(store: EventStore, _: redis.asyncio.Redis) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        bad_calls = [
            store.append(encounter_id, 1, "c1", "fp", [event(3)]),
            store.append(encounter_id, 1, "c2", "fp", [event(2), event(2)]),
            store.append(encounter_id, 1, "", "fp", [event(2)]),
            store.append(encounter_id, 1, "c3", "fp", [event(2)], [Deadline("k", 1.0, b"")], ["k"]),
            store.append(
                encounter_id, 1, "c4", "fp", [event(2)], [Deadline("k", float("nan"), b"")]
            ),
            store.create(encounter_id + "x", event(2), seed=b"s"),
            store.create(encounter_id + "y", event(1), seed=b"s", meta={"version": "9"}),
            store.head("bad{id}"),
        ]
        for call in bad_calls:
            with pytest.raises(InvalidArgument):
                await call
        assert [e.version for e in await store.read(encounter_id)] == [1]
        assert not await store.exists(encounter_id + "x")

    run_store(scenario)


def test_store_server_runs_the_version_it_claims(store_server: RedisServer) -> None:
    async def main() -> str:
        client = redis.asyncio.Redis.from_url(store_server.url)
        try:
            info = await client.info("server")
            return str(info["redis_version"])
        finally:
            await client.aclose()

    assert asyncio.run(main()) == store_server.version()


def test_a_stream_ahead_of_its_meta_is_refused_as_corrupt(
    run_store: Run, encounter_id: str
) -> None:
    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        keys = encounter_keys(encounter_id)
        await store.create(encounter_id, event(1), seed=b"s")
        await client.xadd(keys.events, {"e": b"stray", "h": "x"}, id="2-0")
        with pytest.raises(StoreCorrupted) as caught:
            await store.append(encounter_id, 1, "cmd", "fp", [event(2)])
        assert (caught.value.meta_version, caught.value.stream_version) == (1, 2)
        assert await client.xlen(keys.events) == 2
        assert not await client.exists(keys.cmds)

    run_store(scenario)
