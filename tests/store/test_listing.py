"""The store's summary of each encounter and its tenant index, for every store: status
(active, ended, archived), `updated`, archiving, pages of the index, `fill_meta`."""

from __future__ import annotations

import uuid

import pytest

from service.store import EncounterArchived, EncounterNotFound, InvalidArgument, Store
from service.store.listing import Position, millis
from tests.store.conftest import RunStore
from tests.store.helpers import event, events, observed


class Clock:
    """A store's clock the test moves: the `created` and `updated` times it writes."""

    def __init__(self, now: float = 1_767_225_600.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def tenant() -> str:
    return f"t-{uuid.uuid4().hex[:8]}"


async def ids(store: Store, tenant: str, **bounds: int) -> list[str]:
    page = await store.tenant_page(tenant, count=100, **bounds)
    return [listed.encounter_id.partition("/")[2] for listed in page.listed]


def test_an_append_of_events_sets_updated_and_the_status_it_is_given(run_store: RunStore) -> None:
    clock, t = Clock(), tenant()

    async def scenario(store: Store) -> None:
        stored = f"{t}/a"
        await store.create(stored, event(1), seed=b"s")
        clock.now += 5
        await store.append(stored, 1, "c1", "fp", [event(2)], status="active")
        meta = await store.meta(stored) or {}
        assert (meta["status"], millis(meta["updated"]) - millis(meta["created"])) == (
            "active",
            5000,
        )
        clock.now += 5
        await store.append(stored, 2, "c2", "fp", [event(3)], status="ended")
        ended = await store.meta(stored) or {}
        assert ended["status"] == "ended"
        assert millis(ended["updated"]) == millis(meta["created"]) + 10_000
        clock.now += 5
        await store.append(stored, 3, "c3", "fp", [], status="active")  # no events: no change
        assert await store.meta(stored) == ended

    run_store(scenario, clock=clock)


def test_an_append_sets_no_status_but_active_or_ended(
    run_store: RunStore, encounter_id: str
) -> None:
    async def scenario(store: Store) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        before = await observed(store, encounter_id, "c")
        with pytest.raises(InvalidArgument):
            await store.append(encounter_id, 1, "c", "fp", [event(2)], status="archived")
        assert await observed(store, encounter_id, "c") == before

    run_store(scenario)


def test_the_index_lists_a_tenants_encounters_newest_updated_first(run_store: RunStore) -> None:
    clock, t = Clock(), tenant()

    async def scenario(store: Store) -> None:
        for name in ("a", "b", "c"):
            await store.create(f"{t}/{name}", event(1), seed=b"s")
            clock.now += 1
        await store.create(f"{tenant()}/other", event(1), seed=b"s")
        assert await ids(store, t) == ["c", "b", "a"]
        await store.append(f"{t}/a", 1, "cmd", "fp", [event(2)])
        assert await ids(store, t) == ["a", "c", "b"]
        page = await store.tenant_page(t, count=3)
        assert [p.position.updated for p in page.listed] == [
            millis((await store.meta(f"{t}/{n}") or {})["updated"]) for n in ("a", "c", "b")
        ]

    run_store(scenario, clock=clock)


def test_pages_follow_on_from_the_last_entry_read_ties_broken_by_id(run_store: RunStore) -> None:
    clock, t = Clock(), tenant()

    async def scenario(store: Store) -> None:
        for name in ("a", "b", "c", "d"):  # all in the same millisecond
            await store.create(f"{t}/{name}", event(1), seed=b"s")
        clock.now += 1
        await store.create(f"{t}/e", event(1), seed=b"s")
        seen: list[str] = []
        after: Position | None = None
        while True:
            page = await store.tenant_page(t, count=2, after=after)
            seen += [listed.encounter_id.partition("/")[2] for listed in page.listed]
            if page.last is None:
                break
            assert page.last == page.listed[-1].position
            after = page.last
        assert seen == ["e", "d", "c", "b", "a"]

    run_store(scenario, clock=clock)


def test_a_page_is_bounded_by_updated_time(run_store: RunStore) -> None:
    clock, t = Clock(), tenant()

    async def scenario(store: Store) -> None:
        times = {}
        for name in ("a", "b", "c", "d"):
            await store.create(f"{t}/{name}", event(1), seed=b"s")
            times[name] = millis((await store.meta(f"{t}/{name}") or {})["updated"])
            clock.now += 1
        assert await ids(store, t, newest=times["c"]) == ["c", "b", "a"]
        assert await ids(store, t, oldest=times["b"]) == ["d", "c", "b"]
        assert await ids(store, t, newest=times["c"], oldest=times["b"]) == ["c", "b"]
        assert await ids(store, t, newest=times["a"] - 1) == []
        after = Position(times["c"], f"{t}/c")
        assert await ids(store, t, after=after, oldest=times["b"]) == ["b"]
        assert await ids(store, t, after=Position(times["a"], f"{t}/a"), oldest=times["b"]) == []
        # A position newer than the bounds: the page starts at the newest within them.
        assert await ids(store, t, after=Position(times["d"], f"{t}/d"), newest=times["b"]) == [
            "b",
            "a",
        ]

    run_store(scenario, clock=clock)


def test_a_page_refuses_a_bad_count_or_bound(run_store: RunStore) -> None:
    async def scenario(store: Store) -> None:
        for bad in ({"count": 0}, {"count": 5, "newest": -1}, {"count": 5, "oldest": -1}):
            with pytest.raises(InvalidArgument):
                await store.tenant_page("t", **bad)

    run_store(scenario)


def test_archiving_refuses_further_appends_and_writes_nothing_for_them(
    run_store: RunStore,
) -> None:
    clock, t = Clock(), tenant()

    async def scenario(store: Store) -> None:
        stored = f"{t}/a"
        await store.create(stored, event(1), seed=b"s")
        await store.append(stored, 1, "before", "fp", events(2, 2))
        clock.now += 7
        meta = await store.archive(stored)
        assert meta["status"] == "archived"
        assert millis(meta["updated"]) == millis(meta["created"]) + 7000
        before = await observed(store, stored, "before", "after")
        with pytest.raises(EncounterArchived):
            await store.append(stored, 3, "after", "fp", [event(4)])
        with pytest.raises(EncounterArchived):  # archived is said before a stale version
            await store.append(stored, 1, "after", "fp", [event(2)])
        # A retry of a command recorded before the archive still gets its first outcome.
        retried = await store.append(stored, 1, "before", "fp", events(2, 2))
        assert (retried.first_version, retried.last_version, retried.duplicate) == (2, 3, True)
        assert await observed(store, stored, "before", "after") == before
        assert await store.read(stored) == [event(1), *events(2, 2)]

    run_store(scenario, clock=clock)


def test_archiving_again_changes_nothing(run_store: RunStore) -> None:
    clock, t = Clock(), tenant()

    async def scenario(store: Store) -> None:
        await store.create(f"{t}/a", event(1), seed=b"s")
        await store.create(f"{t}/b", event(1), seed=b"s")
        clock.now += 1
        first = await store.archive(f"{t}/a")
        clock.now += 1
        await store.append(f"{t}/b", 1, "c", "fp", [event(2)])
        clock.now += 1
        assert await store.archive(f"{t}/a") == first
        assert await store.meta(f"{t}/a") == first
        assert await ids(store, t) == ["b", "a"]

    run_store(scenario, clock=clock)


def test_archiving_an_unknown_encounter_is_not_found(
    run_store: RunStore, encounter_id: str
) -> None:
    async def scenario(store: Store) -> None:
        with pytest.raises(EncounterNotFound):
            await store.archive(encounter_id)
        with pytest.raises(InvalidArgument):
            await store.archive("bad {id}")

    run_store(scenario)


def test_fill_meta_sets_only_the_fields_missing(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
        assert not await store.fill_meta(encounter_id, {"title": "x"})
        assert await store.meta(encounter_id) is None
        await store.create(encounter_id, event(1), seed=b"s", meta={"ruleset": "freeform"})
        assert await store.fill_meta(encounter_id, {"ruleset": "other", "title": "The ford"})
        meta = await store.meta(encounter_id) or {}
        assert (meta["ruleset"], meta["title"]) == ("freeform", "The ford")
        for reserved in ("version", "hash", "created"):
            with pytest.raises(InvalidArgument):
                await store.fill_meta(encounter_id, {reserved: "1"})

    run_store(scenario)


def test_tenant_encounters_reads_the_index(run_store: RunStore) -> None:
    t = tenant()

    async def scenario(store: Store) -> None:
        await store.create(f"{t}/b", event(1), seed=b"s")
        await store.create(f"{t}/a", event(1), seed=b"s")
        await store.archive(f"{t}/a")
        assert await store.tenant_encounters(t) == [f"{t}/a", f"{t}/b"]

    run_store(scenario)


def test_an_entry_trailing_its_meta_is_still_found_and_bounded_by_the_meta(
    run_store: RunStore,
) -> None:
    clock, t = Clock(), tenant()

    async def scenario(store: Store) -> None:
        await store.create(f"{t}/a", event(1), seed=b"s")
        created = millis((await store.meta(f"{t}/a") or {})["created"])
        clock.now += 0.5  # within INDEX_LAG_MS of the create: the entry is not moved
        await store.append(f"{t}/a", 1, "c", "fp", [event(2)])
        assert await ids(store, t, oldest=created + 400) == ["a"]
        assert await ids(store, t, newest=created + 400) == []
        assert await ids(store, t, oldest=created + 501) == []

    run_store(scenario, clock=clock)
