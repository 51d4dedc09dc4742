"""Commands per credential per second: a fixed-window counter in Redis, shared by every
API instance.

An instance takes a credential's budget from the counter in leases (`INCRBY lease`) and
spends each lease locally, so it makes one Redis round trip per lease rather than per
command (a round trip is a third of a command's CPU when commands come one at a time). The
counter holds every lease handed out, so across all instances a credential never gets more
than the limit in a window. An instance may end a window holding up to `lease - 1`
commands it did not spend; with several instances a busy credential can therefore be
refused up to `instances * (lease - 1)` commands before the limit. The lease is a tenth of
the limit, at least 1 (exact counting for limits under 20) and at most `MAX_LEASE`.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Callable

from service.app.errors import RateLimited
from service.store.multiplex import CommandPath

WINDOW_SECONDS = 1
LEASE_SHARE = 10  # a lease is this fraction of the limit
MAX_LEASE = 32


def lease_size(limit: int) -> int:
    return max(1, min(MAX_LEASE, limit // LEASE_SHARE))


class RateLimiter:
    def __init__(
        self,
        client: CommandPath,
        limit: int,
        clock: Callable[[], float] = time.time,
        lease: int | None = None,
    ) -> None:
        self._client = client
        self._limit = limit
        self._clock = clock
        self._lease = lease_size(limit) if lease is None else lease
        self._window = -1
        self._held: dict[str, int] = {}  # credential digest -> commands left in its leases
        self._spent: set[str] = set()  # credentials refused in this window
        self._leasing: dict[tuple[str, int], asyncio.Future[None]] = {}

    async def check(self, credential: str) -> None:
        """Count one command for this credential; raise RateLimited past the limit."""
        if self._limit <= 0:
            return
        who = hashlib.sha256(credential.encode()).hexdigest()[:24]
        while True:
            window = int(self._clock()) // WINDOW_SECONDS
            if window != self._window:  # leases and refusals end with their window
                self._window, self._held, self._spent = window, {}, set()
            if who in self._spent:
                raise self._refusal()
            if self._held.get(who, 0) > 0:
                self._held[who] -= 1
                return
            leasing = self._leasing.get((who, window))
            if leasing is None:
                break
            await asyncio.shield(leasing)  # one lease at a time per credential, then share it
        await self._take_lease(who, window)

    async def _take_lease(self, who: str, window: int) -> None:
        done = asyncio.get_running_loop().create_future()
        self._leasing[(who, window)] = done
        try:
            key = f"fray:rate:{who}:{window}"
            total, _ = await self._client.pipeline(
                ("INCRBY", key, self._lease), ("EXPIRE", key, WINDOW_SECONDS * 2)
            )
            # The lease is the counter's last `lease` values; those past the limit are not
            # ours, and the counter only grows: once refused, refused for the window.
            granted = min(self._lease, self._limit - (int(total) - self._lease))
            current = window == self._window
            if granted <= 0:
                if current:
                    self._spent.add(who)
                raise self._refusal()
            if current:
                self._held[who] = self._held.get(who, 0) + granted - 1
        finally:
            del self._leasing[(who, window)]
            done.set_result(None)

    def _refusal(self) -> RateLimited:
        return RateLimited(
            f"more than {self._limit} commands per {WINDOW_SECONDS} s from this credential",
            retry_after=WINDOW_SECONDS,
        )
