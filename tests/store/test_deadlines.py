"""Deadlines: an encounter's outbox, written with its events, and the global due index.

`indexed` reads the index through `due_deadlines`: a deadline the index does not lead to
is one no worker would find.
"""

from __future__ import annotations

import pytest

from service.store import Deadline, InvalidArgument, Store, VersionConflict
from service.store.checks import RESERVED_DEADLINE_KEY
from tests.store.conftest import RunStore
from tests.store.helpers import event, events, indexed


async def _new(store: Store, encounter_id: str) -> None:
    await store.create(encounter_id, event(1), seed=b"s")


def test_deadlines_are_written_with_the_events(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
        await _new(store, encounter_id)
        turn = Deadline("turn:goblin", 1_700_000_030.25, b'{"end":"turn"}')
        spell = Deadline("spell:haste", 1_700_000_090.5, b'{"expire":"haste"}')
        await store.append(encounter_id, 1, "cmd", "fp", events(2, 1), [spell, turn])
        assert await store.pending_deadlines(encounter_id) == [turn, spell]
        assert await indexed(store, encounter_id) == [turn.due, spell.due]

        with pytest.raises(VersionConflict):
            await store.append(
                encounter_id, 1, "late", "fp", events(2, 1), [Deadline("other", 1.0, b"")]
            )
        assert await store.pending_deadlines(encounter_id) == [turn, spell]
        assert await indexed(store, encounter_id) == [turn.due, spell.due]

    run_store(scenario)


def test_a_moved_deadline_replaces_the_old_one(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
        await _new(store, encounter_id)
        await store.append(encounter_id, 1, "c1", "fp", [], [Deadline("turn", 100.0, b"old")])
        await store.append(encounter_id, 1, "c2", "fp", [], [Deadline("turn", 250.0, b"new")])
        assert await store.pending_deadlines(encounter_id) == [Deadline("turn", 250.0, b"new")]
        assert await indexed(store, encounter_id) == [250.0]

    run_store(scenario)


def test_cancel_removes_a_deadline(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
        await _new(store, encounter_id)
        both = [Deadline("a", 10.0, b"a"), Deadline("b", 20.0, b"b")]
        await store.append(encounter_id, 1, "c1", "fp", [], both)
        await store.append(encounter_id, 1, "c2", "fp", events(2, 1), cancel=["a", "absent"])
        assert await store.pending_deadlines(encounter_id) == [both[1]]
        assert await indexed(store, encounter_id) == [20.0]
        await store.append(encounter_id, 2, "c3", "fp", [], cancel=["b"])
        assert await store.pending_deadlines(encounter_id) == []
        assert await indexed(store, encounter_id) == []

    run_store(scenario)


def test_due_deadlines_returns_only_due_ones_across_encounters(
    run_store: RunStore, encounter_id: str
) -> None:
    async def scenario(store: Store) -> None:
        one, two, idle = encounter_id + "-1", encounter_id + "-2", encounter_id + "-3"
        for eid in (one, two, idle):
            await _new(store, eid)
        await store.append(
            one, 1, "c", "fp", [], [Deadline("x", 100.0, b"1x"), Deadline("y", 300.0, b"1y")]
        )
        await store.append(
            two, 1, "c", "fp", [], [Deadline("x", 150.0, b"2x"), Deadline("y", 200.0, b"2y")]
        )
        await store.append(idle, 1, "c", "fp", [], [Deadline("x", 900.0, b"3x")])

        assert await store.due_deadlines(now=50.0) == []
        assert await store.due_deadlines(now=200.0) == [
            (one, Deadline("x", 100.0, b"1x")),
            (two, Deadline("x", 150.0, b"2x")),
            (two, Deadline("y", 200.0, b"2y")),
        ]
        assert await store.due_deadlines(now=1000.0, limit=2) == [
            (one, Deadline("x", 100.0, b"1x")),
            (two, Deadline("x", 150.0, b"2x")),
        ]
        assert len(await store.due_deadlines(now=1000.0)) == 5
        assert await store.due_deadlines(now=1000.0, limit=0) == []

    run_store(scenario, clear_deadline_index=True)


def test_clear_deadline_keeps_a_deadline_that_moved(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
        await _new(store, encounter_id)
        await store.append(encounter_id, 1, "c1", "fp", [], [Deadline("turn", 100.1, b"p")])
        await store.append(encounter_id, 1, "c2", "fp", [], [Deadline("turn", 160.7, b"p")])

        assert not await store.clear_deadline(encounter_id, "turn", 100.1)
        assert await store.pending_deadlines(encounter_id) == [Deadline("turn", 160.7, b"p")]

        assert await store.clear_deadline(encounter_id, "turn", 160.7)
        assert await store.pending_deadlines(encounter_id) == []
        assert await indexed(store, encounter_id) == []
        assert not await store.clear_deadline(encounter_id, "turn", 160.7)

    run_store(scenario)


def test_clear_deadline_given_its_payload_keeps_one_set_again_for_the_same_time(
    run_store: RunStore, encounter_id: str
) -> None:
    async def scenario(store: Store) -> None:
        await _new(store, encounter_id)
        await store.append(encounter_id, 1, "c1", "fp", [], [Deadline("turn", 100.1, b"first")])
        await store.append(encounter_id, 1, "c2", "fp", [], [Deadline("turn", 100.1, b"again")])

        assert not await store.clear_deadline(encounter_id, "turn", 100.1, b"first")
        assert await store.pending_deadlines(encounter_id) == [Deadline("turn", 100.1, b"again")]
        assert await store.clear_deadline(encounter_id, "turn", 100.1, b"again")
        assert await store.pending_deadlines(encounter_id) == []

    run_store(scenario)


def test_clearing_one_deadline_moves_the_index_to_the_next(
    run_store: RunStore, encounter_id: str
) -> None:
    async def scenario(store: Store) -> None:
        await _new(store, encounter_id)
        pair = [Deadline("a", 1_700_000_000.123456, b""), Deadline("b", 1_700_000_007.5, b"")]
        await store.append(encounter_id, 1, "c", "fp", [], pair)
        assert await indexed(store, encounter_id) == [1_700_000_000.123456, 1_700_000_007.5]
        assert await store.clear_deadline(encounter_id, "a", 1_700_000_000.123456)
        assert await indexed(store, encounter_id) == [1_700_000_007.5]
        earlier = await store.due_deadlines(now=1_700_000_007.4999, limit=10_000)
        assert all(eid != encounter_id for eid, _ in earlier)

    run_store(scenario)


def test_deadlines_with_one_due_time_come_in_key_order(
    run_store: RunStore, encounter_id: str
) -> None:
    async def scenario(store: Store) -> None:
        await _new(store, encounter_id)
        same = [Deadline(key, 42.0, key.encode()) for key in ("window:b", "clock:z", "clock:a")]
        await store.append(encounter_id, 1, "c", "fp", [], same)
        ordered = sorted(same, key=lambda d: d.key)
        assert await store.pending_deadlines(encounter_id) == ordered
        found = [d for eid, d in await store.due_deadlines(42.0) if eid == encounter_id]
        assert found == ordered

    run_store(scenario)


def test_clearing_a_deadline_of_a_missing_encounter_clears_nothing(
    run_store: RunStore, encounter_id: str
) -> None:
    async def scenario(store: Store) -> None:
        assert not await store.clear_deadline(encounter_id, "turn", 1.0)
        assert await store.pending_deadlines(encounter_id) == []
        await _new(store, encounter_id)
        assert not await store.clear_deadline(encounter_id, "turn", 1.0)

    run_store(scenario)


def test_due_times_must_be_finite(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
        await _new(store, encounter_id)
        for due in (float("inf"), float("-inf"), float("nan")):
            with pytest.raises(InvalidArgument):
                await store.due_deadlines(now=due)
            with pytest.raises(InvalidArgument):
                await store.clear_deadline(encounter_id, "turn", due)
            with pytest.raises(InvalidArgument):
                await store.append(encounter_id, 1, "c", "fp", [], [Deadline("turn", due, b"")])
        assert await store.pending_deadlines(encounter_id) == []

    run_store(scenario)


def test_move_deadline_moves_only_the_entry_it_read(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
        await _new(store, encounter_id)
        head = Deadline("webhook:w:2", 100.0, b"try 1")
        behind = Deadline("webhook:w:3", 100.5, b"behind")
        await store.append(encounter_id, 1, "c1", "fp", [], [head, behind])
        later = Deadline("webhook:w:2", 130.0, b"try 2")
        assert await store.move_deadline(encounter_id, head.key, head.due, head.payload, later)
        assert await store.pending_deadlines(encounter_id) == [behind, later]
        assert await indexed(store, encounter_id) == [100.5, 130.0]
        # Read before the move: at another time, or with another payload, it is not moved.
        again = Deadline("webhook:w:2", 160.0, b"try 3")
        assert not await store.move_deadline(encounter_id, head.key, 100.0, b"try 1", again)
        assert not await store.move_deadline(encounter_id, head.key, 130.0, b"try 1", again)
        assert await store.pending_deadlines(encounter_id) == [behind, later]
        with pytest.raises(InvalidArgument):
            await store.move_deadline(
                encounter_id, head.key, 130.0, b"try 2", Deadline("other", 1.0, b"")
            )

    run_store(scenario)


def test_add_deadline_adds_outside_an_append_unless_pending(
    run_store: RunStore, encounter_id: str
) -> None:
    async def scenario(store: Store) -> None:
        redelivery = Deadline("webhook:w:2", 50.0, b"again")
        assert not await store.add_deadline(encounter_id, redelivery)  # no such encounter
        await _new(store, encounter_id)
        assert await store.add_deadline(encounter_id, redelivery)
        assert await store.pending_deadlines(encounter_id) == [redelivery]
        assert await indexed(store, encounter_id) == [50.0]
        assert not await store.add_deadline(encounter_id, Deadline("webhook:w:2", 9.0, b"x"))
        assert await store.pending_deadlines(encounter_id) == [redelivery]

    run_store(scenario)


def test_the_key_the_redis_store_keeps_its_outbox_count_under_is_refused(
    run_store: RunStore, encounter_id: str
) -> None:
    async def scenario(store: Store) -> None:
        await _new(store, encounter_id)
        reserved = Deadline(RESERVED_DEADLINE_KEY, 10.0, b"")
        with pytest.raises(InvalidArgument, match="reserved"):
            await store.append(encounter_id, 1, "c", "fp", [], [reserved])
        with pytest.raises(InvalidArgument, match="reserved"):
            await store.add_deadline(encounter_id, reserved)
        assert await store.pending_deadlines(encounter_id) == []

    run_store(scenario)
