"""Idempotent command ids, after EventStoreDB's cases: a retry gets the first outcome."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import redis.asyncio

from service.store import CommandIdReused, Deadline, EventStore
from service.store.keys import encounter_keys
from tests.store.conftest import Scenario
from tests.store.helpers import event, events

Run = Callable[[Scenario], None]


async def _snapshot_of(client: redis.asyncio.Redis, encounter_id: str) -> tuple[object, ...]:
    keys = encounter_keys(encounter_id)
    return (
        await client.xlen(keys.events),
        await client.hgetall(keys.meta),
        await client.hgetall(keys.cmds),
        await client.zrange(keys.outbox, 0, -1, withscores=True),
    )


def test_same_command_again_returns_the_first_outcome(run_store: Run, encounter_id: str) -> None:
    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        first = await store.append(
            encounter_id, 1, "cmd", "fp", events(2, 2), [Deadline("turn", 10.0, b"p")]
        )
        before = await _snapshot_of(client, encounter_id)

        again = await store.append(
            encounter_id, 1, "cmd", "fp", events(2, 2), [Deadline("turn", 99.0, b"q")]
        )
        assert (again.first_version, again.last_version) == (first.first_version, 3)
        assert again.duplicate and not first.duplicate
        assert await _snapshot_of(client, encounter_id) == before

    run_store(scenario)


def test_retry_with_a_stale_expected_version_still_gets_the_first_outcome(
    run_store: Run, encounter_id: str
) -> None:
    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        await store.append(encounter_id, 1, "cmd-a", "fp-a", events(2, 2))
        await store.append(encounter_id, 3, "cmd-b", "fp-b", events(4, 1))
        before = await _snapshot_of(client, encounter_id)

        retry = await store.append(encounter_id, 1, "cmd-a", "fp-a", events(2, 2))
        assert (retry.first_version, retry.last_version, retry.duplicate) == (2, 3, True)
        assert await _snapshot_of(client, encounter_id) == before

    run_store(scenario)


def test_same_id_for_a_different_command_is_refused(run_store: Run, encounter_id: str) -> None:
    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        await store.append(encounter_id, 1, "cmd", "fp-one", events(2, 1))
        before = await _snapshot_of(client, encounter_id)

        with pytest.raises(CommandIdReused) as caught:
            await store.append(encounter_id, 2, "cmd", "fp-two", events(3, 1))
        assert caught.value.command_id == "cmd"
        assert caught.value.code == "store/command-id-reused"
        assert await _snapshot_of(client, encounter_id) == before

    run_store(scenario)


def test_an_empty_append_records_its_command_id(run_store: Run, encounter_id: str) -> None:
    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        empty = await store.append(encounter_id, 1, "noop", "fp", [])
        assert (empty.first_version, empty.last_version, empty.duplicate) == (2, 1, False)
        assert empty.count == 0
        await store.append(encounter_id, 1, "next", "fp", events(2, 1))

        retry = await store.append(encounter_id, 1, "noop", "fp", [])
        assert (retry.first_version, retry.last_version, retry.duplicate) == (2, 1, True)
        with pytest.raises(CommandIdReused):
            await store.append(encounter_id, 2, "noop", "other", events(3, 1))
        assert [e.version for e in await store.read(encounter_id)] == [1, 2]

    run_store(scenario)


def test_two_different_ids_append_normally(run_store: Run, encounter_id: str) -> None:
    async def scenario(store: EventStore, _: redis.asyncio.Redis) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        one = await store.append(encounter_id, 1, "cmd-1", "same-fp", events(2, 1))
        two = await store.append(encounter_id, 2, "cmd-2", "same-fp", events(3, 1))
        assert (one.first_version, one.duplicate) == (2, False)
        assert (two.first_version, two.duplicate) == (3, False)
        assert [e.version for e in await store.read(encounter_id)] == [1, 2, 3]

    run_store(scenario)


def test_fingerprints_and_ids_with_colons_round_trip(run_store: Run, encounter_id: str) -> None:
    async def scenario(store: EventStore, _: redis.asyncio.Redis) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        await store.append(encounter_id, 1, "a:b:c", "sha256:ab:cd", events(2, 1))
        retry = await store.append(encounter_id, 1, "a:b:c", "sha256:ab:cd", events(2, 1))
        assert (retry.first_version, retry.last_version, retry.duplicate) == (2, 2, True)
        with pytest.raises(CommandIdReused):
            await store.append(encounter_id, 2, "a:b:c", "sha256:ab", events(3, 1))

    run_store(scenario)


def test_command_outcome_reports_the_recorded_command(run_store: Run, encounter_id: str) -> None:
    async def scenario(store: EventStore, _: redis.asyncio.Redis) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        assert await store.command_outcome(encounter_id, "cmd") is None
        await store.append(encounter_id, 1, "cmd", "sha256:f:p", events(2, 3))
        await store.append(encounter_id, 4, "noop", "fp", [])
        assert await store.command_outcome(encounter_id, "cmd") == (2, 4, "sha256:f:p")
        assert await store.command_outcome(encounter_id, "noop") == (5, 4, "fp")

    run_store(scenario)
