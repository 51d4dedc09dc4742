"""Commands per credential per second: a fixed-window counter in Redis, shared by every
API instance."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable

from service.api.errors import RateLimited
from service.store.multiplex import Multiplexed

WINDOW_SECONDS = 1


class RateLimiter:
    def __init__(
        self, client: Multiplexed, limit: int, clock: Callable[[], float] = time.time
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
        count, _ = await self._client.pipeline(("INCR", key), ("EXPIRE", key, WINDOW_SECONDS * 2))
        if int(count) > self._limit:
            raise RateLimited(
                f"more than {self._limit} commands per {WINDOW_SECONDS} s from this credential",
                retry_after=WINDOW_SECONDS,
            )
