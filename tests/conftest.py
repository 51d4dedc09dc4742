"""Shared fixtures: a real redis-server started by the suite on a free port."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import redis

from service.embedded_redis import RedisServer


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """One private redis-server per test process (per xdist worker)."""
    with RedisServer() as server:
        yield server


@pytest.fixture(scope="session")
def redis_url(redis_server: RedisServer) -> str:
    return redis_server.url


@pytest.fixture
def redis_client(redis_url: str) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(redis_url)
    yield client
    client.close()


@pytest.fixture
def encounter_id() -> str:
    """A fresh encounter id, so tests sharing one server never see each other's keys."""
    return f"enc-{uuid.uuid4().hex[:12]}"
