"""Webhook metrics, kept in the event store's Redis (as the deadline and audit metrics are),
so every API instance's /metrics shows what every worker delivered:
`fray_webhook_deliveries_total{outcome}` (each attempt's outcome), the latency from an
event's time to its receiver's 2xx (a histogram), and the backlog of deliveries owed."""

from __future__ import annotations

import redis.asyncio as aioredis
from redis.asyncio.client import Pipeline

from service.hash_metrics import histogram_lines, observe, texts

KEY = "fray:metrics:webhooks"
OUTCOMES = ("delivered", "retrying", "failed", "abandoned", "skipped")
BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 3600.0)


class WebhookMetrics:
    def __init__(self, client: aioredis.Redis) -> None:
        self._client = client

    async def owed(self, count: int) -> None:
        """`count` deliveries recorded by an append (or a redelivery)."""
        if count:
            await self._client.hincrby(KEY, "owed", count)

    async def outcome(self, outcome: str, latency: float | None = None) -> None:
        """One attempt's outcome; a delivery settled (delivered, failed, abandoned, or
        skipped: its view is not told of the event) leaves the backlog; a delivered one's
        latency is counted."""
        async with self._client.pipeline(transaction=False) as pipe:
            self.outcome_in(pipe, outcome, latency)
            await pipe.execute()

    @staticmethod
    def outcome_in(pipe: Pipeline, outcome: str, latency: float | None = None) -> None:
        """`outcome`'s writes, queued on a pipeline its caller sends."""
        pipe.hincrby(KEY, f"outcome:{outcome}", 1)
        if outcome != "retrying":
            pipe.hincrby(KEY, "settled", 1)
        if latency is not None:
            observe(pipe, KEY, "latency", BUCKETS, latency)

    async def render(self) -> list[str]:
        raw = await self._client.hgetall(KEY)
        fields = texts(raw)
        backlog = max(0, int(fields.get("owed", "0")) - int(fields.get("settled", "0")))
        lines = [
            "# HELP fray_webhook_deliveries_total Webhook delivery attempts, by outcome.",
            "# TYPE fray_webhook_deliveries_total counter",
        ]
        for outcome in OUTCOMES:
            count = fields.get(f"outcome:{outcome}", "0")
            lines.append(f'fray_webhook_deliveries_total{{outcome="{outcome}"}} {count}')
        lines += [
            "# HELP fray_webhook_backlog Webhook deliveries owed and not yet settled.",
            "# TYPE fray_webhook_backlog gauge",
            f"fray_webhook_backlog {backlog}",
        ]
        return lines + histogram_lines(
            "fray_webhook_delivery_latency_seconds",
            "From an event to its receiver's 2xx.",
            fields,
            "latency",
            BUCKETS,
        )
