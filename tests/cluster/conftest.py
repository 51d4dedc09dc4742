"""Tests of what only a Redis Cluster has: the deadline index written after the scripts,
the live feed per master. Each test process has one six-node cluster (tests/conftest.py,
`redis_cluster`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import redis.asyncio

from service.store.clients import redis_client
from service.store.redis_store import EventStore

pytestmark = pytest.mark.cluster


@asynccontextmanager
async def cluster_store(url: str) -> AsyncIterator[tuple[EventStore, redis.asyncio.Redis]]:
    client = redis_client(url, cluster=True)
    try:
        yield EventStore(client), client
    finally:
        await client.aclose()
