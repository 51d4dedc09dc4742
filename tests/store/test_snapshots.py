"""Snapshots: only a newer snapshot replaces the stored one."""

from __future__ import annotations

import pytest

from service.store import AppendResult, EncounterNotFound, InvalidArgument, MemoryStore, Store
from tests.store.conftest import RunStore
from tests.store.helpers import event, events


def test_save_and_load_a_snapshot(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        await store.append(encounter_id, 1, "cmd", "fp", events(2, 4))
        assert await store.load_snapshot(encounter_id) is None
        payload = b'{"hp":7}\x00:binary:\xff'
        assert await store.save_snapshot(encounter_id, 3, payload)
        assert await store.load_snapshot(encounter_id) == (3, payload)

    run_store(scenario)


def test_an_older_snapshot_never_replaces_a_newer_one(
    run_store: RunStore, encounter_id: str
) -> None:
    async def scenario(store: Store) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        await store.append(encounter_id, 1, "cmd", "fp", events(2, 20))
        assert await store.save_snapshot(encounter_id, 12, b"twelve")
        assert not await store.save_snapshot(encounter_id, 5, b"five")
        assert not await store.save_snapshot(encounter_id, 12, b"twelve again")
        assert await store.load_snapshot(encounter_id) == (12, b"twelve")
        assert await store.save_snapshot(encounter_id, 21, b"latest")
        assert await store.load_snapshot(encounter_id) == (21, b"latest")

    run_store(scenario)


def test_a_snapshot_must_not_be_ahead_of_the_encounter(
    run_store: RunStore, encounter_id: str
) -> None:
    async def scenario(store: Store) -> None:
        with pytest.raises(EncounterNotFound):
            await store.save_snapshot(encounter_id, 1, b"x")
        await store.create(encounter_id, event(1), seed=b"s")
        with pytest.raises(InvalidArgument):
            await store.save_snapshot(encounter_id, 2, b"x")
        with pytest.raises(InvalidArgument):
            await store.save_snapshot(encounter_id, 0, b"x")
        assert await store.load_snapshot(encounter_id) is None

    run_store(scenario)


def test_snapshot_due_when_an_append_crosses_the_interval(run_store: RunStore) -> None:
    async def scenario(every_ten: Store) -> None:
        assert every_ten.snapshot_due(AppendResult(8, 12, duplicate=False))
        assert every_ten.snapshot_due(AppendResult(10, 10, duplicate=False))
        assert not every_ten.snapshot_due(AppendResult(11, 19, duplicate=False))
        assert not every_ten.snapshot_due(AppendResult(8, 12, duplicate=True))
        assert not every_ten.snapshot_due(AppendResult(11, 10, duplicate=False))

    run_store(scenario, snapshot_every=10)


def test_snapshots_are_due_every_hundred_versions_by_default(run_store: RunStore) -> None:
    async def scenario(store: Store) -> None:
        assert store.snapshot_due(AppendResult(99, 100, duplicate=False))
        assert not store.snapshot_due(AppendResult(2, 99, duplicate=False))

    run_store(scenario)


def test_snapshot_every_must_be_positive() -> None:
    # The Redis store refuses it alike (tests/store/test_redis_layout.py).
    with pytest.raises(InvalidArgument):
        MemoryStore(snapshot_every=0)
