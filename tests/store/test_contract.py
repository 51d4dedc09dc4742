"""The store's basic contract, for every store: create, append, read, head, meta, ids."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.store import (
    Deadline,
    EncounterExists,
    EncounterNotFound,
    Head,
    InvalidArgument,
    Store,
    StoredEvent,
)
from tests.store.conftest import STORES, RedisServers, RunStore, open_store
from tests.store.helpers import event, events, observed


def test_create_then_read_returns_version_one(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
        first = event(1, '{"type":"created"}')
        result = await store.create(encounter_id, first, seed=b"\x00seed\xff")
        assert (result.first_version, result.last_version, result.duplicate) == (1, 1, False)
        assert await store.read(encounter_id) == [first]
        assert await store.seed(encounter_id) == b"\x00seed\xff"
        assert await store.exists(encounter_id)

    run_store(scenario)


def test_append_and_read_round_trip(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        appended = events(2, 3)
        result = await store.append(encounter_id, 1, "cmd-1", "fp-1", appended)
        assert (result.first_version, result.last_version, result.duplicate) == (2, 4, False)
        assert await store.read(encounter_id) == [event(1), *appended]
        assert await store.head(encounter_id) == Head(version=4, hash=appended[-1].hash)

    run_store(scenario)


def test_bodies_are_opaque_bytes(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
        odd = [
            StoredEvent(1, "h1", b"\x00\xff not json: e h"),
            StoredEvent(2, "h2", b""),
            StoredEvent(3, "", "ü ✓".encode()),
        ]
        await store.create(encounter_id, odd[0], seed=b"")
        await store.append(encounter_id, 1, "cmd", "fp", odd[1:])
        assert await store.read(encounter_id) == odd
        assert await store.seed(encounter_id) == b""
        assert await store.head(encounter_id) == Head(version=3, hash="")

    run_store(scenario)


def test_read_after_limit_and_up_to(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
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
        assert await versions(up_to=99) == list(range(1, 11))
        assert await versions(limit=0) == []
        assert await store.read("enc-missing-read") == []

    run_store(scenario)


READ_WINDOW_ID = "enc-read-window"
READ_WINDOW_EVENTS = 30


@pytest.mark.parametrize("name", STORES)
@settings(max_examples=40, deadline=None)
@given(
    after=st.integers(0, READ_WINDOW_EVENTS + 3),
    limit=st.none() | st.integers(0, 12),
    up_to=st.none() | st.integers(0, READ_WINDOW_EVENTS + 3),
)
def test_read_matches_a_slice_of_the_versions(
    lazy_redis_servers: Callable[[], RedisServers],
    lazy_cluster_url: Callable[[], str],
    name: str,
    after: int,
    limit: int | None,
    up_to: int | None,
) -> None:
    async def main() -> list[int]:
        async with open_store(name, lazy_redis_servers, lazy_cluster_url) as (store, _):
            if not await store.exists(READ_WINDOW_ID):
                await store.create(READ_WINDOW_ID, event(1), seed=b"s")
                await store.append(
                    READ_WINDOW_ID, 1, "fill", "fp", events(2, READ_WINDOW_EVENTS - 1)
                )
            found = await store.read(READ_WINDOW_ID, after=after, limit=limit, up_to=up_to)
            return [e.version for e in found]

    expected = [
        v for v in range(1, READ_WINDOW_EVENTS + 1) if v > after and (up_to is None or v <= up_to)
    ]
    if limit is not None:
        expected = expected[:limit]
    assert asyncio.run(main()) == expected


def test_head_and_meta(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
        assert await store.head(encounter_id) is None
        assert await store.meta(encounter_id) is None
        assert await store.seed(encounter_id) is None
        first = event(1)
        await store.create(encounter_id, first, seed=b"s", meta={"ruleset": "freeform-1"})
        assert await store.head(encounter_id) == Head(version=1, hash=first.hash)
        meta = await store.meta(encounter_id)
        assert meta is not None
        assert meta["ruleset"] == "freeform-1"
        assert meta["version"] == "1"
        assert meta["hash"] == first.hash
        assert float(meta["created"]) > 0
        assert (meta["updated"], meta["status"]) == (meta["created"], "active")
        own = {"version", "hash", "created", "updated", "status", "indexed"}
        assert set(meta) == {"ruleset", *own}

        await store.append(encounter_id, 1, "cmd", "fp", events(2, 2))
        later = await store.meta(encounter_id)
        assert later is not None
        assert (later["version"], later["hash"]) == ("3", events(2, 2)[-1].hash)
        assert (later["ruleset"], later["created"]) == ("freeform-1", meta["created"])

    run_store(scenario)


def test_meta_is_a_copy(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
        await store.create(encounter_id, event(1), seed=b"s", meta={"ruleset": "a"})
        meta = await store.meta(encounter_id)
        assert meta is not None
        meta["ruleset"] = "changed"
        assert (await store.meta(encounter_id) or {})["ruleset"] == "a"

    run_store(scenario)


def test_append_to_a_missing_encounter_is_not_found(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
        with pytest.raises(EncounterNotFound) as caught:
            await store.append(encounter_id, 0, "cmd", "fp", [event(1)])
        assert caught.value.encounter_id == encounter_id
        assert caught.value.code == "store/encounter-not-found"
        assert not await store.exists(encounter_id)
        assert await store.read(encounter_id) == []
        assert await store.head(encounter_id) is None
        assert await store.command_outcome(encounter_id, "cmd") is None

    run_store(scenario)


def test_create_twice_is_refused_and_keeps_the_first(
    run_store: RunStore, encounter_id: str
) -> None:
    async def scenario(store: Store) -> None:
        first = event(1, '{"first":true}')
        await store.create(encounter_id, first, seed=b"one", meta={"ruleset": "a"})
        with pytest.raises(EncounterExists) as caught:
            await store.create(encounter_id, event(1, '{"second":true}'), b"two", {"ruleset": "b"})
        assert caught.value.code == "store/encounter-exists"
        assert caught.value.encounter_id == encounter_id
        assert await store.read(encounter_id) == [first]
        assert await store.seed(encounter_id) == b"one"
        meta = await store.meta(encounter_id)
        assert meta is not None and meta["ruleset"] == "a"

    run_store(scenario)


def test_bad_appends_are_refused_before_writing(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        before = await observed(store, encounter_id, "c1", "c2", "c3", "c4", "c5", "c6")
        bad_calls = [
            store.append(encounter_id, 1, "c1", "fp", [event(3)]),
            store.append(encounter_id, 1, "c2", "fp", [event(2), event(2)]),
            store.append(encounter_id, 1, "", "fp", [event(2)]),
            store.append(encounter_id, 1, "c3", "fp", [event(2)], [Deadline("k", 1.0, b"")], ["k"]),
            store.append(
                encounter_id, 1, "c4", "fp", [event(2)], [Deadline("k", float("nan"), b"")]
            ),
            store.append(
                encounter_id, 1, "c5", "fp", [], [Deadline("k", 1.0, b""), Deadline("k", 2.0, b"")]
            ),
            store.append(encounter_id, 1, "c6", "fp", [], [Deadline("", 1.0, b"")]),
            store.append(encounter_id, -1, "c7", "fp", []),
            store.create(encounter_id + "x", event(2), seed=b"s"),
            store.create(encounter_id + "y", event(1), seed=b"s", meta={"version": "9"}),
        ]
        for call in bad_calls:
            with pytest.raises(InvalidArgument):
                await call
        assert await observed(store, encounter_id, "c1", "c2", "c3", "c4", "c5", "c6") == before
        assert not await store.exists(encounter_id + "x")
        assert not await store.exists(encounter_id + "y")

    run_store(scenario)


@pytest.mark.parametrize(
    "bad_id",
    [
        pytest.param("bad{id}", id="braces"),
        pytest.param("two words", id="whitespace"),
        pytest.param("", id="empty"),
        pytest.param("x" * 201, id="too long"),
    ],
)
def test_every_call_refuses_a_malformed_encounter_id(run_store: RunStore, bad_id: str) -> None:
    async def scenario(store: Store) -> None:
        calls = [
            store.create(bad_id, event(1), seed=b"s"),
            store.append(bad_id, 0, "cmd", "fp", []),
            store.save_snapshot(bad_id, 1, b"x"),
            store.clear_deadline(bad_id, "turn", 1.0),
            store.exists(bad_id),
            store.head(bad_id),
            store.meta(bad_id),
            store.seed(bad_id),
            store.read(bad_id),
            store.command_outcome(bad_id, "cmd"),
            store.load_snapshot(bad_id),
            store.pending_deadlines(bad_id),
        ]
        for call in calls:
            with pytest.raises(InvalidArgument) as caught:
                await call
            assert caught.value.code == "store/invalid-argument"

    run_store(scenario)


def test_bad_reads_are_refused(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        for kwargs in ({"after": -1}, {"limit": -1}):
            with pytest.raises(InvalidArgument):
                await store.read(encounter_id, **kwargs)

    run_store(scenario)


def test_the_longest_encounter_id_is_accepted(run_store: RunStore) -> None:
    async def scenario(store: Store) -> None:
        longest = uuid.uuid4().hex + "é" * 168
        await store.create(longest, event(1), seed=b"s")
        assert await store.read(longest) == [event(1)]

    run_store(scenario)
