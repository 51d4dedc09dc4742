"""Stream tickets in the store, for every store: kept for their time to live, taken once."""

from __future__ import annotations

import asyncio
import secrets

import pytest

from service.store import InvalidArgument, Store
from tests.store.conftest import RunStore

MINUTE_MS = 60_000


def ticket_id() -> str:
    return secrets.token_urlsafe(24)


def test_a_kept_ticket_is_taken_once(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
        kept = ticket_id()
        await store.put_ticket(encounter_id, kept, b'{"role":"player"}', MINUTE_MS)
        assert await store.take_ticket(encounter_id, kept) == b'{"role":"player"}'
        assert await store.take_ticket(encounter_id, kept) is None

    run_store(scenario)


def test_an_unknown_ticket_is_none(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
        assert await store.take_ticket(encounter_id, ticket_id()) is None

    run_store(scenario)


def test_a_ticket_is_kept_under_its_encounter_only(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
        kept = ticket_id()
        await store.put_ticket(encounter_id, kept, b"grant", MINUTE_MS)
        assert await store.take_ticket(f"{encounter_id}-other", kept) is None
        assert await store.take_ticket(encounter_id, kept) == b"grant"

    run_store(scenario)


def test_a_ticket_past_its_time_to_live_is_gone(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
        kept = ticket_id()
        await store.put_ticket(encounter_id, kept, b"grant", 1)
        await asyncio.sleep(0.05)  # well past the 1 ms it was kept for
        assert await store.take_ticket(encounter_id, kept) is None

    run_store(scenario)


def test_of_many_takers_at_once_one_gets_the_ticket(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
        kept = ticket_id()
        await store.put_ticket(encounter_id, kept, b"grant", MINUTE_MS)
        taken = await asyncio.gather(*(store.take_ticket(encounter_id, kept) for _ in range(20)))
        assert taken.count(b"grant") == 1 and taken.count(None) == 19

    run_store(scenario)


@pytest.mark.parametrize(
    ("ticket", "ttl_ms"),
    [
        pytest.param("short", MINUTE_MS, id="id too short"),
        pytest.param("x" * 129, MINUTE_MS, id="id too long"),
        pytest.param("a" * 20 + "}", MINUTE_MS, id="id with a brace"),
        pytest.param("a" * 20, 0, id="no time to live"),
    ],
)
def test_a_bad_ticket_is_refused_before_anything_is_kept(
    run_store: RunStore, encounter_id: str, ticket: str, ttl_ms: int
) -> None:
    async def scenario(store: Store) -> None:
        with pytest.raises(InvalidArgument):
            await store.put_ticket(encounter_id, ticket, b"grant", ttl_ms)
        if ttl_ms == 0:
            assert await store.take_ticket(encounter_id, ticket) is None
        else:
            with pytest.raises(InvalidArgument):
                await store.take_ticket(encounter_id, ticket)

    run_store(scenario)


def test_a_ticket_for_a_malformed_encounter_id_is_refused(run_store: RunStore) -> None:
    async def scenario(store: Store) -> None:
        with pytest.raises(InvalidArgument):
            await store.put_ticket("no {braces}", ticket_id(), b"grant", MINUTE_MS)
        with pytest.raises(InvalidArgument):
            await store.take_ticket("no {braces}", ticket_id())

    run_store(scenario)
