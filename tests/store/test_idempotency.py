"""Idempotent command ids, after EventStoreDB's cases: a retry gets the first outcome."""

from __future__ import annotations

import pytest

from service.store import CommandIdReused, Deadline, Store
from tests.store.conftest import RunStore
from tests.store.helpers import event, events, observed

IDS = ("cmd", "cmd-a", "cmd-b", "late")  # the command ids whose records `observed` compares


def test_same_command_again_returns_the_first_outcome(
    run_store: RunStore, encounter_id: str
) -> None:
    async def scenario(store: Store) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        first = await store.append(
            encounter_id, 1, "cmd", "fp", events(2, 2), [Deadline("turn", 10.0, b"p")]
        )
        before = await observed(store, encounter_id, *IDS)

        again = await store.append(
            encounter_id, 1, "cmd", "fp", events(2, 2), [Deadline("turn", 99.0, b"q")]
        )
        assert (again.first_version, again.last_version) == (first.first_version, 3)
        assert again.duplicate and not first.duplicate
        assert await observed(store, encounter_id, *IDS) == before

    run_store(scenario)


def test_retry_with_a_stale_expected_version_still_gets_the_first_outcome(
    run_store: RunStore, encounter_id: str
) -> None:
    async def scenario(store: Store) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        await store.append(encounter_id, 1, "cmd-a", "fp-a", events(2, 2))
        await store.append(encounter_id, 3, "cmd-b", "fp-b", events(4, 1))
        before = await observed(store, encounter_id, *IDS)

        retry = await store.append(encounter_id, 1, "cmd-a", "fp-a", events(2, 2))
        assert (retry.first_version, retry.last_version, retry.duplicate) == (2, 3, True)
        assert await observed(store, encounter_id, *IDS) == before

    run_store(scenario)


def test_same_id_for_a_different_command_is_refused(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        await store.append(encounter_id, 1, "cmd", "fp-one", events(2, 1))
        before = await observed(store, encounter_id, *IDS)

        with pytest.raises(CommandIdReused) as caught:
            await store.append(encounter_id, 2, "cmd", "fp-two", events(3, 1))
        assert caught.value.command_id == "cmd"
        assert caught.value.code == "store/command-id-reused"
        assert await observed(store, encounter_id, *IDS) == before

    run_store(scenario)


def test_an_empty_append_records_its_command_id(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
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


def test_two_different_ids_append_normally(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        one = await store.append(encounter_id, 1, "cmd-1", "same-fp", events(2, 1))
        two = await store.append(encounter_id, 2, "cmd-2", "same-fp", events(3, 1))
        assert (one.first_version, one.duplicate) == (2, False)
        assert (two.first_version, two.duplicate) == (3, False)
        assert [e.version for e in await store.read(encounter_id)] == [1, 2, 3]

    run_store(scenario)


def test_fingerprints_and_ids_with_colons_round_trip(
    run_store: RunStore, encounter_id: str
) -> None:
    async def scenario(store: Store) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        await store.append(encounter_id, 1, "a:b:c", "sha256:ab:cd", events(2, 1))
        retry = await store.append(encounter_id, 1, "a:b:c", "sha256:ab:cd", events(2, 1))
        assert (retry.first_version, retry.last_version, retry.duplicate) == (2, 2, True)
        with pytest.raises(CommandIdReused):
            await store.append(encounter_id, 2, "a:b:c", "sha256:ab", events(3, 1))

    run_store(scenario)


def test_command_outcome_reports_the_recorded_command(
    run_store: RunStore, encounter_id: str
) -> None:
    async def scenario(store: Store) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        assert await store.command_outcome(encounter_id, "cmd") is None
        await store.append(encounter_id, 1, "cmd", "sha256:f:p", events(2, 3))
        await store.append(encounter_id, 4, "noop", "fp", [])
        assert await store.command_outcome(encounter_id, "cmd") == (2, 4, "sha256:f:p")
        assert await store.command_outcome(encounter_id, "noop") == (5, 4, "fp")

    run_store(scenario)
