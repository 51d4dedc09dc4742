"""A tenant's webhook subscriptions and their delivery log, in Redis.

Per tenant, on the tenant's own slot (hash tag ``{<tenant>}``, as its index of encounters):

    fray:tenant:{<tenant>}:webhooks              hash; webhook id -> its record (JSON)
    fray:tenant:{<tenant>}:webhook:<id>:log      hash; delivery id -> its latest record
    fray:tenant:{<tenant>}:webhook:<id>:order    zset; delivery id scored by creation (ms)
    fray:tenant:{<tenant>}:webhook:<id>:streak   string; failed attempts in a row

The records are opaque JSON here: `service.app.webhooks` gives them their shape. The
deliveries still owed live in each encounter's outbox (written by the append), not here:
the log only tells an integrator what happened, and is capped at `LOG_SIZE` per webhook.
"""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.client import Pipeline

LOG_SIZE = 1000


def webhooks_key(tenant: str) -> str:
    return f"fray:tenant:{{{tenant}}}:webhooks"


def log_key(tenant: str, webhook_id: str) -> str:
    return f"fray:tenant:{{{tenant}}}:webhook:{webhook_id}:log"


def streak_key(tenant: str, webhook_id: str) -> str:
    return f"fray:tenant:{{{tenant}}}:webhook:{webhook_id}:streak"


def order_key(tenant: str, webhook_id: str) -> str:
    return f"fray:tenant:{{{tenant}}}:webhook:{webhook_id}:order"


# KEYS: log, order; ARGV: delivery id, record, created ms, cap.
# Keeps the newest `cap` deliveries: the oldest beyond it leave the order and the log.
_LOG = """
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], 'NX', ARGV[3], ARGV[1])
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[4])
if over > 0 then
  local old = redis.call('ZRANGE', KEYS[2], 0, over - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, over - 1)
  redis.call('HDEL', KEYS[1], unpack(old))
end
return 1
"""


class WebhookStore:
    def __init__(self, client: aioredis.Redis) -> None:
        self._client = client
        self._log = client.register_script(_LOG)

    async def all(self, tenant: str) -> dict[str, bytes]:
        found = await self._client.hgetall(webhooks_key(tenant))
        return {_text(k): _bytes(v) for k, v in found.items()}

    async def get(self, tenant: str, webhook_id: str) -> bytes | None:
        found = await self._client.hget(webhooks_key(tenant), webhook_id)
        return None if found is None else _bytes(found)

    async def put(self, tenant: str, webhook_id: str, record: bytes) -> None:
        await self._client.hset(webhooks_key(tenant), webhook_id, record)

    async def delete(self, tenant: str, webhook_id: str) -> bool:
        removed = await self._client.hdel(webhooks_key(tenant), webhook_id)
        await self._client.delete(
            log_key(tenant, webhook_id),
            order_key(tenant, webhook_id),
            streak_key(tenant, webhook_id),
        )
        return bool(removed)

    async def streak(self, tenant: str, webhook_id: str) -> int:
        """Failed delivery attempts in a row (0 since the last success)."""
        found = await self._client.get(streak_key(tenant, webhook_id))
        return 0 if found is None else int(found)

    async def incr_streak(self, tenant: str, webhook_id: str) -> int:
        return int(await self._client.incr(streak_key(tenant, webhook_id)))

    async def reset_streak(self, tenant: str, webhook_id: str) -> None:
        await self._client.delete(streak_key(tenant, webhook_id))

    async def log(
        self, tenant: str, webhook_id: str, delivery_id: str, record: bytes, created_ms: int
    ) -> None:
        await self._log(
            keys=[log_key(tenant, webhook_id), order_key(tenant, webhook_id)],
            args=[delivery_id, record, created_ms, LOG_SIZE],
        )

    @staticmethod
    def reset_streak_in(pipe: Pipeline, tenant: str, webhook_id: str) -> None:
        """`reset_streak`, queued on a pipeline its caller sends."""
        pipe.delete(streak_key(tenant, webhook_id))

    @staticmethod
    def log_in(
        pipe: Pipeline,
        tenant: str,
        webhook_id: str,
        delivery_id: str,
        record: bytes,
        created_ms: int,
    ) -> None:
        """`log`, queued on a pipeline its caller sends (EVAL: no round trip to load it)."""
        keys = [log_key(tenant, webhook_id), order_key(tenant, webhook_id)]
        pipe.eval(_LOG, len(keys), *keys, delivery_id, record, created_ms, LOG_SIZE)

    async def delivery(self, tenant: str, webhook_id: str, delivery_id: str) -> bytes | None:
        found = await self._client.hget(log_key(tenant, webhook_id), delivery_id)
        return None if found is None else _bytes(found)

    async def deliveries(self, tenant: str, webhook_id: str, limit: int) -> list[bytes]:
        """The newest `limit` deliveries, newest first."""
        key = order_key(tenant, webhook_id)
        found_ids: list[Any] = await self._client.zrange(key, 0, limit - 1, desc=True)
        if not found_ids:
            return []
        found = await self._client.hmget(log_key(tenant, webhook_id), found_ids)
        return [_bytes(f) for f in found if f is not None]


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _bytes(value: bytes | str) -> bytes:
    return value.encode() if isinstance(value, str) else value
