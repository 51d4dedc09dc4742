"""Optimistic concurrency: exact expected versions, and many writers racing on one encounter."""

from __future__ import annotations

import asyncio

import pytest

from service.store import Deadline, Store, VersionConflict
from tests.store.conftest import RunStore
from tests.store.helpers import event, events, observed

WRITERS = 50
COMMANDS_PER_WRITER = 2
EVENTS_PER_COMMAND = 2


def test_wrong_expected_version_conflicts_and_writes_nothing(
    run_store: RunStore, encounter_id: str
) -> None:
    async def scenario(store: Store) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        await store.append(encounter_id, 1, "cmd-1", "fp", events(2, 4))
        before = await observed(store, encounter_id, "cmd-1", "cmd-2")

        with pytest.raises(VersionConflict) as caught:
            await store.append(
                encounter_id, 3, "cmd-2", "fp", events(4, 2), [Deadline("turn", 50.0, b"p")]
            )
        assert (caught.value.expected, caught.value.actual) == (3, 5)
        assert caught.value.code == "store/version-conflict"
        assert str(caught.value) == "expected version 3 but the encounter is at version 5"

        assert await observed(store, encounter_id, "cmd-1", "cmd-2") == before
        assert await store.command_outcome(encounter_id, "cmd-2") is None
        assert await store.pending_deadlines(encounter_id) == []
        # The refused command id was not recorded, so it can be used once the writer catches up.
        result = await store.append(encounter_id, 5, "cmd-2", "fp", events(6, 2))
        assert (result.first_version, result.last_version) == (6, 7)

    run_store(scenario)


def test_version_ahead_of_the_encounter_conflicts(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        with pytest.raises(VersionConflict) as caught:
            await store.append(encounter_id, 7, "cmd", "fp", events(8, 1))
        assert (caught.value.expected, caught.value.actual) == (7, 1)

    run_store(scenario)


def test_concurrent_writers_leave_no_gap_and_no_duplicate(
    run_store: RunStore, encounter_id: str
) -> None:
    async def writer(store: Store, number: int) -> int:
        conflicts = 0
        for command in range(COMMANDS_PER_WRITER):
            command_id = f"writer-{number}-cmd-{command}"
            while True:
                head = await store.head(encounter_id)
                assert head is not None
                bodies = [
                    f'{{"writer":{number},"command":{command},"event":{i}}}'
                    for i in range(EVENTS_PER_COMMAND)
                ]
                batch = [event(head.version + 1 + i, body) for i, body in enumerate(bodies)]
                try:
                    await store.append(encounter_id, head.version, command_id, command_id, batch)
                    break
                except VersionConflict:
                    conflicts += 1
        return conflicts

    async def scenario(store: Store) -> None:
        await store.create(encounter_id, event(1, '{"created":true}'), seed=b"s")
        conflicts = await asyncio.gather(*(writer(store, n) for n in range(WRITERS)))
        stored = await store.read(encounter_id)

        total = 1 + WRITERS * COMMANDS_PER_WRITER * EVENTS_PER_COMMAND
        assert [e.version for e in stored] == list(range(1, total + 1))
        bodies = [e.body for e in stored[1:]]
        assert len(set(bodies)) == len(bodies) == total - 1
        head = await store.head(encounter_id)
        assert head is not None and (head.version, head.hash) == (total, stored[-1].hash)
        # Each command's events stay together, in order.
        for start in range(1, total, EVENTS_PER_COMMAND):
            pair = [e.body.decode() for e in stored[start : start + EVENTS_PER_COMMAND]]
            assert pair[0].replace('"event":0', '"event":1') == pair[1]
        assert sum(conflicts) > 0  # the writers really raced

    run_store(scenario)


def test_concurrent_retries_of_one_command_write_it_once(
    run_store: RunStore, encounter_id: str
) -> None:
    async def scenario(store: Store) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        results = await asyncio.gather(
            *(store.append(encounter_id, 1, "cmd", "fp", events(2, 3)) for _ in range(10))
        )
        assert sorted(r.duplicate for r in results) == [False] + [True] * 9
        assert {(r.first_version, r.last_version) for r in results} == {(2, 4)}
        assert [e.version for e in await store.read(encounter_id)] == [1, 2, 3, 4]

    run_store(scenario)
