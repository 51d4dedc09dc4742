"""Audit metrics, kept in the event store's Redis (as the deadline metrics are) so that every
API instance's /metrics shows what every worker's audits found: `fray_audits_total` by
verdict."""

from __future__ import annotations

import redis.asyncio as aioredis

from service.hash_metrics import texts

KEY = "fray:metrics:audits"
VERDICTS = ("passed", "failed", "incomplete")


class AuditMetrics:
    def __init__(self, client: aioredis.Redis) -> None:
        self._client = client

    async def audited(self, verdict: str) -> None:
        await self._client.hincrby(KEY, verdict, 1)

    async def render(self) -> list[str]:
        """The Prometheus lines for audits (each verdict listed, 0 before the first)."""
        raw = await self._client.hgetall(KEY)
        counts = texts(raw)
        lines = [
            "# HELP fray_audits_total Audits of ended encounters run by the workers, by verdict.",
            "# TYPE fray_audits_total counter",
        ]
        for verdict in VERDICTS:
            lines.append(f'fray_audits_total{{verdict="{verdict}"}} {counts.get(verdict, "0")}')
        return lines
