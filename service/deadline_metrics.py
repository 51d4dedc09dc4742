"""Deadline metrics, kept in the event store's Redis so that every API instance's /metrics
shows what all workers did: firings by outcome and their lateness (a histogram), beside
what is pending (read from the outbox's global index when scraped)."""

from __future__ import annotations

import redis.asyncio as aioredis

from service.hash_metrics import histogram_lines, observe, texts
from service.store.keys import DEADLINE_INDEX

KEY = "fray:metrics:deadlines"
# Seconds from a deadline to the event it caused.
BUCKETS = (0.1, 0.25, 0.5, 1.0, 1.5, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)
GRACE = 2.0  # as the sweeper's: overdue means the normal path has missed it


class DeadlineMetrics:
    def __init__(self, client: aioredis.Redis) -> None:
        self._client = client

    async def fired(self, outcome: str, lateness: float | None) -> None:
        """Count one firing; its lateness if it appended the deadline's event."""
        async with self._client.pipeline(transaction=False) as pipe:
            pipe.hincrby(KEY, f"fired:{outcome}", 1)
            if lateness is not None:
                observe(pipe, KEY, "lateness", BUCKETS, lateness)
            await pipe.execute()

    async def render(self, now: float) -> list[str]:
        """The Prometheus lines for deadlines."""
        async with self._client.pipeline(transaction=False) as pipe:
            pipe.hgetall(KEY)
            pipe.zcard(DEADLINE_INDEX)
            pipe.zcount(DEADLINE_INDEX, "-inf", repr(now - GRACE))
            raw, pending, overdue = await pipe.execute()
        fields = texts(raw)
        lines = [
            "# HELP fray_deadline_encounters_pending Encounters with a pending deadline.",
            "# TYPE fray_deadline_encounters_pending gauge",
            f"fray_deadline_encounters_pending {int(pending)}",
            "# HELP fray_deadline_encounters_overdue Encounters whose earliest deadline is "
            f"more than {GRACE:g} s overdue (no worker is keeping up).",
            "# TYPE fray_deadline_encounters_overdue gauge",
            f"fray_deadline_encounters_overdue {int(overdue)}",
            "# HELP fray_deadlines_fired_total Deadline jobs run, by outcome.",
            "# TYPE fray_deadlines_fired_total counter",
        ]
        for field, value in sorted(fields.items()):
            if field.startswith("fired:"):
                outcome = field.removeprefix("fired:")
                lines.append(f'fray_deadlines_fired_total{{outcome="{outcome}"}} {value}')
        return lines + histogram_lines(
            "fray_deadline_lateness_seconds",
            "From a deadline to the event it caused.",
            fields,
            "lateness",
            BUCKETS,
        )
