"""Shared fixtures: a real redis-server started by the suite on a free port."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import redis
from hypothesis import HealthCheck, settings

from service.embedded_cluster import RedisClusterServers
from service.embedded_redis import RedisServer

# No hypothesis deadlines: the machine is shared and noisy, and speed is measured in bench/.
settings.register_profile(
    "fray", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("fray")


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


@pytest.fixture(scope="session")
def queue_server() -> Iterator[RedisServer]:
    """A second redis-server for RQ's queues, where a test keeps them apart from the store
    (FRAY_QUEUE_REDIS_URL)."""
    with RedisServer() as server:
        yield server


@pytest.fixture
def queue_url(queue_server: RedisServer) -> Iterator[str]:
    yield queue_server.url
    redis.Redis.from_url(queue_server.url).flushall()  # no job outlives its test


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[RedisClusterServers]:
    """A six-node Redis Cluster (three masters, three replicas) per test process, started on
    first use (about 9 s: redis-cli waits for the nodes to agree)."""
    with RedisClusterServers() as cluster:
        yield cluster


@pytest.fixture(scope="session")
def redis_cluster_url(redis_cluster: RedisClusterServers) -> str:
    return redis_cluster.url
