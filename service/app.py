"""The Starlette application: built by `create_app()` with explicit routes and a lifespan.

This is the skeleton the API issue fills in: for now it serves the health checks.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import redis.asyncio as aioredis
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from service.config import Settings
from service.rules.registry import RULESETS


async def healthz(request: Request) -> JSONResponse:
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> JSONResponse:
    client: aioredis.Redis = request.app.state.redis
    try:
        await client.ping()
    except aioredis.RedisError as error:
        return JSONResponse({"status": "unavailable", "redis": str(error)}, status_code=503)
    return JSONResponse({"status": "ready"})


async def index(request: Request) -> JSONResponse:
    return JSONResponse(
        {
            "service": "fray",
            "rulesets": sorted(RULESETS),
            "health": "/healthz",
            "ready": "/readyz",
        }
    )


def create_app(settings: Settings | None = None) -> Starlette:
    settings = settings or Settings.from_env()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.redis = aioredis.Redis.from_url(settings.redis_url)
        try:
            yield
        finally:
            await app.state.redis.aclose()

    routes = [
        Route("/", index),
        Route("/healthz", healthz),
        Route("/readyz", readyz),
    ]
    return Starlette(routes=routes, lifespan=lifespan)
