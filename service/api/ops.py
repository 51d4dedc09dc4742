"""Operations: liveness, readiness, Prometheus metrics, and the index."""

from __future__ import annotations

import time

import redis.asyncio as aioredis
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse

from service.api.draining import Draining, ShuttingDown
from service.api.responses import JSONResponse
from service.app.metrics import Metrics
from service.audit_metrics import AuditMetrics
from service.deadline_metrics import DeadlineMetrics
from service.rules.registry import RULESETS
from service.store.errors import StoreUnavailable
from service.webhook_metrics import WebhookMetrics

PROMETHEUS = "text/plain; version=0.0.4; charset=utf-8"


async def healthz(request: Request) -> JSONResponse:
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> JSONResponse:
    """Ready while Redis answers and the process is not shutting down: a load balancer
    stops sending this instance requests on a 503."""
    draining: Draining = request.app.state.draining
    if draining.began:
        return JSONResponse({"status": "draining", **ShuttingDown().to_dict()}, status_code=503)
    client: aioredis.Redis = request.app.state.redis
    try:
        await client.ping()
    except (aioredis.RedisError, OSError) as error:
        body = {"status": "unavailable", "redis": str(error)}
        return JSONResponse({**body, **StoreUnavailable(str(error)).to_dict()}, status_code=503)
    return JSONResponse({"status": "ready"})


async def metrics(request: Request) -> PlainTextResponse:
    registry: Metrics = request.app.state.metrics
    # What every worker did with deadlines, audits and webhook deliveries, kept in Redis,
    # and what is pending.
    deadlines = await DeadlineMetrics(request.app.state.redis).render(time.time())
    audits = await AuditMetrics(request.app.state.redis).render()
    webhooks = await WebhookMetrics(request.app.state.redis).render()
    # In a thread, beside the commands: with 40 label sets a scrape renders 800 lines in
    # 6-13 ms, 19-38 ms adding up two workers' files (docs/benchmarks.md, "Metrics").
    own = await run_in_threadpool(registry.render)
    text = own + "\n".join([*deadlines, *audits, *webhooks]) + "\n"
    return PlainTextResponse(text, media_type=PROMETHEUS)


async def index(request: Request) -> JSONResponse:
    return JSONResponse(
        {
            "service": "fray",
            "rulesets": sorted(RULESETS),
            "api": "/v1",
            "graphql": "/graphql",
            "health": "/healthz",
            "ready": "/readyz",
            "metrics": "/metrics",
        }
    )
