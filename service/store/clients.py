"""redis-py clients as Fray's processes build them."""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from service.store.errors import UNAVAILABLE, StoreUnavailable

# Requests beyond this many concurrent Redis calls wait for a connection (up to
# POOL_TIMEOUT seconds) instead of failing: redis-py's default pool raises at 100.
POOL_SIZE = 256
POOL_TIMEOUT = 10.0


class Client(aioredis.Redis):
    """redis-py's client, whose every command (scripts and blocking reads included) raises
    StoreUnavailable, not redis-py's own errors, while Redis is away."""

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        try:
            return await super().execute_command(*args, **options)  # type: ignore[no-untyped-call]
        except StoreUnavailable:
            raise
        except UNAVAILABLE as error:
            raise StoreUnavailable(str(error) or type(error).__name__) from error


def redis_client(url: str) -> aioredis.Redis:
    # One retry on a fresh connection: after a Redis restart, each pooled connection fails
    # once ("closed by server") before the pool replaces it. Every write is idempotent (an
    # append carries its command id), so a retry never applies anything twice.
    pool = aioredis.BlockingConnectionPool.from_url(
        url, max_connections=POOL_SIZE, timeout=POOL_TIMEOUT, retry=Retry(NoBackoff(), 1)
    )
    return Client.from_pool(pool)  # owns the pool: aclose() closes its connections
