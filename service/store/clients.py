"""redis-py clients as Fray's processes build them."""

from __future__ import annotations

import redis.asyncio as aioredis

# Requests beyond this many concurrent Redis calls wait for a connection (up to
# POOL_TIMEOUT seconds) instead of failing: redis-py's default pool raises at 100.
POOL_SIZE = 256
POOL_TIMEOUT = 10.0


def redis_client(url: str) -> aioredis.Redis:
    pool = aioredis.BlockingConnectionPool.from_url(
        url, max_connections=POOL_SIZE, timeout=POOL_TIMEOUT
    )
    return aioredis.Redis.from_pool(pool)  # owns the pool: aclose() closes its connections
