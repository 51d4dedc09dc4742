"""The rate limiter's leases (service/api/ratelimit.py), against the suite's real Redis:
one round trip per lease, never more than the limit across instances, a fresh budget each
window."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable

import pytest
import redis

from service.app.errors import RateLimited
from service.app.ratelimit import MAX_LEASE, RateLimiter, lease_size
from service.store.multiplex import Multiplexed


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.25

    def __call__(self) -> float:
        return self.now


def with_client(url: str, body: Callable[[Multiplexed], Awaitable[None]]) -> None:
    async def main() -> None:
        client = Multiplexed.from_url(url)
        try:
            await body(client)
        finally:
            await client.aclose()

    asyncio.run(main())


async def passes(limiter: RateLimiter, credential: str, times: int) -> int:
    allowed = 0
    for _ in range(times):
        try:
            await limiter.check(credential)
            allowed += 1
        except RateLimited:
            pass
    return allowed


def redis_calls(client: redis.Redis, command: str) -> int:
    stats = client.info("commandstats").get(f"cmdstat_{command}", {"calls": 0})
    calls: int = stats["calls"]
    return calls


@pytest.mark.parametrize(
    ("limit", "lease"), [(3, 1), (19, 1), (20, 2), (50, 5), (1_000, MAX_LEASE), (10**9, 32)]
)
def test_a_lease_is_a_tenth_of_the_limit_between_one_and_the_maximum(limit: int, lease: int):
    assert lease_size(limit) == lease


def test_fifty_commands_pass_in_ten_round_trips_and_the_fifty_first_is_refused(
    redis_url: str, redis_client: redis.Redis
) -> None:
    credential = uuid.uuid4().hex

    async def body(client: Multiplexed) -> None:
        limiter = RateLimiter(client, 50, clock=Clock())
        before = redis_calls(redis_client, "incrby")
        assert await passes(limiter, credential, 50) == 50
        assert redis_calls(redis_client, "incrby") - before == 10
        with pytest.raises(RateLimited) as caught:
            await limiter.check(credential)
        assert caught.value.retry_after == 1
        assert "more than 50 commands per 1 s" in str(caught.value)
        # The counter only grows within a window: a refusal needs no more round trips.
        refused = redis_calls(redis_client, "incrby")
        assert await passes(limiter, credential, 5) == 0
        assert redis_calls(redis_client, "incrby") == refused

    with_client(redis_url, body)


def test_instances_sharing_a_credential_never_pass_more_than_the_limit(redis_url: str) -> None:
    credential = uuid.uuid4().hex

    async def body(client: Multiplexed) -> None:
        clock = Clock()
        instances = [RateLimiter(client, 50, clock=clock) for _ in range(3)]
        allowed = 0
        for n in range(120):  # uneven turns: 1, 2, 3 commands at a time
            limiter = instances[n % 3]
            allowed += await passes(limiter, credential, 1 + n % 3)
        # Each instance may end the window holding up to lease - 1 = 4 it did not spend.
        assert 50 - 3 * 4 <= allowed <= 50

    with_client(redis_url, body)


def test_each_window_starts_a_fresh_budget(redis_url: str) -> None:
    credential = uuid.uuid4().hex

    async def body(client: Multiplexed) -> None:
        clock = Clock()
        limiter = RateLimiter(client, 20, clock=clock)
        assert await passes(limiter, credential, 25) == 20
        clock.now += 1
        assert await passes(limiter, credential, 25) == 20

    with_client(redis_url, body)


def test_concurrent_checks_on_one_instance_share_its_leases_exactly(redis_url: str) -> None:
    credential = uuid.uuid4().hex

    async def body(client: Multiplexed) -> None:
        limiter = RateLimiter(client, 40, clock=Clock())

        async def one() -> bool:
            try:
                await limiter.check(credential)
                return True
            except RateLimited:
                return False

        results = await asyncio.gather(*(one() for _ in range(60)))
        assert sum(results) == 40

    with_client(redis_url, body)


def test_other_credentials_have_budgets_of_their_own(redis_url: str) -> None:
    async def body(client: Multiplexed) -> None:
        limiter = RateLimiter(client, 5, clock=Clock())
        first, second = uuid.uuid4().hex, uuid.uuid4().hex
        assert await passes(limiter, first, 8) == 5
        assert await passes(limiter, second, 8) == 5

    with_client(redis_url, body)
