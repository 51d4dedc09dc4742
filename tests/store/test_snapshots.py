"""Snapshots: only a newer snapshot replaces the stored one."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import redis.asyncio

from service.store import AppendResult, EncounterNotFound, EventStore, InvalidArgument
from tests.store.conftest import Scenario
from tests.store.helpers import event, events

Run = Callable[[Scenario], None]


def test_save_and_load_a_snapshot(run_store: Run, encounter_id: str) -> None:
    async def scenario(store: EventStore, _: redis.asyncio.Redis) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        await store.append(encounter_id, 1, "cmd", "fp", events(2, 4))
        assert await store.load_snapshot(encounter_id) is None
        payload = b'{"hp":7}\x00:binary:\xff'
        assert await store.save_snapshot(encounter_id, 3, payload)
        assert await store.load_snapshot(encounter_id) == (3, payload)

    run_store(scenario)


def test_an_older_snapshot_never_replaces_a_newer_one(run_store: Run, encounter_id: str) -> None:
    async def scenario(store: EventStore, _: redis.asyncio.Redis) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        await store.append(encounter_id, 1, "cmd", "fp", events(2, 20))
        assert await store.save_snapshot(encounter_id, 12, b"twelve")
        assert not await store.save_snapshot(encounter_id, 5, b"five")
        assert not await store.save_snapshot(encounter_id, 12, b"twelve again")
        assert await store.load_snapshot(encounter_id) == (12, b"twelve")
        assert await store.save_snapshot(encounter_id, 21, b"latest")
        assert await store.load_snapshot(encounter_id) == (21, b"latest")

    run_store(scenario)


def test_a_snapshot_must_not_be_ahead_of_the_encounter(run_store: Run, encounter_id: str) -> None:
    async def scenario(store: EventStore, _: redis.asyncio.Redis) -> None:
        with pytest.raises(EncounterNotFound):
            await store.save_snapshot(encounter_id, 1, b"x")
        await store.create(encounter_id, event(1), seed=b"s")
        with pytest.raises(InvalidArgument):
            await store.save_snapshot(encounter_id, 2, b"x")
        assert await store.load_snapshot(encounter_id) is None

    run_store(scenario)


def test_snapshot_due_when_an_append_crosses_the_interval(run_store: Run) -> None:
    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        every_ten = EventStore(client, snapshot_every=10)
        assert every_ten.snapshot_due(AppendResult(8, 12, duplicate=False))
        assert every_ten.snapshot_due(AppendResult(10, 10, duplicate=False))
        assert not every_ten.snapshot_due(AppendResult(11, 19, duplicate=False))
        assert not every_ten.snapshot_due(AppendResult(8, 12, duplicate=True))
        assert not every_ten.snapshot_due(AppendResult(11, 10, duplicate=False))
        assert store.snapshot_every == 100

    run_store(scenario)
