"""Live subscriptions through the StreamHub's single blocking reader."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
import redis.asyncio

from service.store import (
    EventStore,
    HubClosed,
    StoredEvent,
    StreamHub,
    SubscriberTooSlow,
    Subscription,
)
from tests.store.conftest import RedisScenario
from tests.store.helpers import event, events

Run = Callable[[RedisScenario], None]

PATIENCE = 5.0  # seconds; far below the 30 s a missed wake-up would cost


def _hub(client: redis.asyncio.Redis, **options: int) -> StreamHub:
    kwargs = client.connection_pool.connection_kwargs
    url = f"redis://{kwargs['host']}:{kwargs['port']}/0"
    return StreamHub(lambda: redis.asyncio.Redis.from_url(url), backoff=(0.01, 0.1), **options)


async def _take(sub: Subscription, count: int) -> list[StoredEvent]:
    async def take() -> list[StoredEvent]:
        return [await anext(sub) for _ in range(count)]

    return await asyncio.wait_for(take(), PATIENCE)


async def _reader_blocked(client: redis.asyncio.Redis) -> int:
    """Wait until the hub's reader is blocked in XREAD; its client id."""

    async def poll() -> int:
        while True:
            for info in await client.client_list():
                if info.get("cmd") == "xread" and "b" in str(info.get("flags")):
                    return int(info["id"])
            await asyncio.sleep(0.01)

    return await asyncio.wait_for(poll(), PATIENCE)


async def _new(store: EventStore, encounter_id: str, count: int) -> None:
    await store.create(encounter_id, event(1), seed=b"s")
    if count > 1:
        await store.append(encounter_id, 1, "fill", "fp", events(2, count - 1))


def test_a_subscriber_from_zero_gets_history_then_new_events(
    run_redis: Run, encounter_id: str
) -> None:
    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        await _new(store, encounter_id, 5)
        async with _hub(client) as hub, hub.subscribe(encounter_id, 0) as sub:
            assert [e.version for e in await _take(sub, 5)] == [1, 2, 3, 4, 5]
            await store.append(encounter_id, 5, "more", "fp", events(6, 3))
            assert await _take(sub, 3) == events(6, 3)

    run_redis(scenario)


def test_subscribers_with_different_cursors_get_exactly_their_tails(
    run_redis: Run, encounter_id: str
) -> None:
    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        await _new(store, encounter_id, 6)
        async with (
            _hub(client, batch=2) as hub,
            hub.subscribe(encounter_id, 4) as late,
            hub.subscribe(encounter_id, 1) as early,
        ):
            assert hub.subscriber_count == 2
            await store.append(encounter_id, 6, "more", "fp", events(7, 2))
            got_late = await _take(late, 4)
            got_early = await _take(early, 7)
            assert [e.version for e in got_late] == [5, 6, 7, 8]
            assert [e.version for e in got_early] == [2, 3, 4, 5, 6, 7, 8]
            # Nothing more is queued for either: no duplicates.
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(anext(late), 0.2)

    run_redis(scenario)


def test_a_subscriber_added_while_the_reader_blocks_is_served_at_once(
    run_redis: Run, encounter_id: str
) -> None:
    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        quiet, busy = encounter_id + "-quiet", encounter_id + "-busy"
        await _new(store, quiet, 1)
        await _new(store, busy, 3)
        async with _hub(client, block_ms=30_000) as hub, hub.subscribe(quiet, 1):
            await _reader_blocked(client)
            async with hub.subscribe(busy, 0) as sub:
                assert [e.version for e in await _take(sub, 3)] == [1, 2, 3]
                # And a subscriber re-reading a stream the reader already follows.
                async with hub.subscribe(quiet, 0) as again:
                    assert [e.version for e in await _take(again, 1)] == [1]

    run_redis(scenario)


def test_unsubscribing_stops_delivery(run_redis: Run, encounter_id: str) -> None:
    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        await _new(store, encounter_id, 1)
        async with _hub(client) as hub:
            async with hub.subscribe(encounter_id, 0) as kept:
                async with hub.subscribe(encounter_id, 0) as left:
                    await _take(left, 1)
                    assert hub.subscriber_count == 2
                assert hub.subscriber_count == 1
                await store.append(encounter_id, 1, "more", "fp", events(2, 2))
                assert [e.version for e in await _take(kept, 3)] == [1, 2, 3]
                with pytest.raises(StopAsyncIteration):
                    await anext(left)
            assert hub.subscriber_count == 0

            # A bare `async for` that breaks out unsubscribes once the subscription is dropped.
            async for first in hub.subscribe(encounter_id, 0):
                assert first.version == 1
                break
            assert hub.subscriber_count == 0

    run_redis(scenario)


def test_a_slow_subscriber_is_dropped_without_holding_up_others(
    run_redis: Run, encounter_id: str
) -> None:
    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        await _new(store, encounter_id, 1)
        async with (
            _hub(client, max_pending=3) as hub,
            hub.subscribe(encounter_id, 0) as slow,
            hub.subscribe(encounter_id, 0) as fast,
        ):
            await _take(fast, 1)
            for version in range(2, 11):
                await store.append(encounter_id, version - 1, f"c{version}", "fp", [event(version)])
                assert (await _take(fast, 1))[0].version == version
            assert [e.version for e in await _take(slow, 3)] == [1, 2, 3]
            with pytest.raises(SubscriberTooSlow) as caught:
                await asyncio.wait_for(anext(slow), PATIENCE)
            assert caught.value.last_version == 3
            assert hub.subscriber_count == 1

    run_redis(scenario)


def test_the_reader_reconnects_and_resumes_without_gap(run_redis: Run, encounter_id: str) -> None:
    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        await _new(store, encounter_id, 2)
        async with _hub(client) as hub, hub.subscribe(encounter_id, 0) as sub:
            assert [e.version for e in await _take(sub, 2)] == [1, 2]
            reader_id = await _reader_blocked(client)
            await client.client_kill_filter(_id=reader_id)
            await store.append(encounter_id, 2, "more", "fp", events(3, 3))
            assert [e.version for e in await _take(sub, 3)] == [3, 4, 5]
            assert await _reader_blocked(client) != reader_id

    run_redis(scenario)


def test_stopping_the_hub_ends_subscriptions_with_an_error(
    run_redis: Run, encounter_id: str
) -> None:
    async def scenario(store: EventStore, client: redis.asyncio.Redis) -> None:
        await _new(store, encounter_id, 1)
        hub = _hub(client)
        with pytest.raises(HubClosed):
            await anext(hub.subscribe(encounter_id, 0))
        await hub.start()
        sub = hub.subscribe(encounter_id, 0)
        assert (await _take(sub, 1))[0].version == 1
        await hub.stop()
        with pytest.raises(HubClosed):
            await anext(sub)
        assert hub.subscriber_count == 0

    run_redis(scenario)
