"""Commands per credential per second: a fixed-window counter in Redis, shared by every
API instance."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable

import redis.asyncio as aioredis

from service.api.errors import RateLimited

WINDOW_SECONDS = 1


class RateLimiter:
    def __init__(
        self, client: aioredis.Redis, limit: int, clock: Callable[[], float] = time.time
    ) -> None:
        self._client = client
        self._limit = limit
        self._clock = clock

    async def check(self, credential: str) -> None:
        """Count one command for this credential; raise RateLimited past the limit."""
        if self._limit <= 0:
            return
        window = int(self._clock()) // WINDOW_SECONDS
        who = hashlib.sha256(credential.encode()).hexdigest()[:24]
        key = f"fray:rate:{who}:{window}"
        async with self._client.pipeline(transaction=False) as pipe:
            pipe.incr(key)
            pipe.expire(key, WINDOW_SECONDS * 2)
            count, _ = await pipe.execute()
        if int(count) > self._limit:
            raise RateLimited(
                f"more than {self._limit} commands per {WINDOW_SECONDS} s from this credential",
                retry_after=WINDOW_SECONDS,
            )
