"""The Redis Cluster benchmarks (FRAY_REDIS_CLUSTER): no targets, figures for
docs/benchmarks.md, "Redis Cluster".

(a) The command path's client, per call: `Multiplexed` on a standalone Redis, the
    cluster-aware `ClusterMultiplexed` and redis-py's `RedisCluster` on a three-master
    cluster; 50 coroutines sending INCR, calls per second and this process's CPU per call.
(b) What FRAY_REDIS_WAIT_REPLICAS=1 costs an append: appends through the store and the
    cluster multiplexer on three masters with a replica each, one writer (latency) and 20
    writers on 20 encounters (rate), with and without WAIT.
(c) Scale: REST commands per second with one master against three masters (no replicas),
    the same load (wrk, 64 connections on 64 encounters, spread over two `fray serve`
    processes), with each configuration's Redis CPU per command and the busiest master's
    share of it; and, for context, the same on a standalone Redis.

Configurations are interleaved; figures are medians over repetitions.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, cast

import redis
import redis.asyncio

from bench.api import (
    Conn,
    Measured,
    Server,
    _environment,
    _rest_body,
    create_encounters,
    run_wrk,
    start_fray,
    write_script,
)
from bench.core import Outcome
from bench.report import Row, median, progress, rate
from service.embedded_cluster import RedisClusterServers
from service.embedded_redis import RedisServer
from service.store.clients import cluster_client
from service.store.cluster_multiplex import ClusterMultiplexed
from service.store.events import Deadline, StoredEvent
from service.store.multiplex import Multiplexed
from service.store.redis_store import EventStore

TASKS = 50  # coroutines in (a)
WRITERS = 20  # concurrent appends in (b), one encounter each
CONNECTIONS = 64  # wrk connections in (c), one encounter each


@dataclass
class Settings:
    calls: int = 20_000  # per client configuration in (a)
    appends: int = 400  # per writer configuration in (b)
    seconds: float = 5.0  # one wrk run in (c)
    reps: int = 3

    @classmethod
    def quick(cls) -> Settings:
        return cls(calls=4_000, appends=100, seconds=2.0, reps=1)


def run(settings: Settings) -> Outcome:
    outcome = Outcome()
    outcome.environment.append(f"Redis Cluster on loopback, {os.cpu_count()} cores")
    with RedisServer() as standalone, RedisClusterServers(replicas=1) as cluster:
        outcome.rows += _clients(settings, standalone.url, cluster.url)
        outcome.rows += _wait(settings, cluster.url)
    outcome.rows += _scale(settings)
    return outcome


# --- (a) the command path's client -----------------------------------------------------------


async def _per_call(call: Callable[[str], Awaitable[Any]], calls: int) -> tuple[float, float]:
    """(calls per second, CPU µs per call) of `calls` calls from TASKS coroutines."""
    keys = [f"bench:{{{n}}}:{uuid.uuid4().hex[:6]}" for n in range(TASKS)]
    each = calls // TASKS

    async def task(key: str) -> None:
        for _ in range(each):
            await call(key)

    await asyncio.gather(*(call(key) for key in keys))  # connected, slot map read
    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(task(key) for key in keys))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return each * TASKS / wall, cpu / (each * TASKS) * 1e6


def _clients(settings: Settings, standalone_url: str, cluster_url: str) -> list[Row]:
    async def measure() -> dict[str, list[tuple[float, float]]]:
        single = Multiplexed.from_url(standalone_url)
        redis_py = cluster_client(cluster_url)
        ours = ClusterMultiplexed(cluster_client(cluster_url), cluster_url)
        configs: dict[str, Callable[[str], Awaitable[Any]]] = {
            "Multiplexed, standalone": lambda key: single.execute("INCR", key),
            "ClusterMultiplexed, 3 masters": lambda key: ours.execute("INCR", key),
            "redis-py RedisCluster, 3 masters": lambda key: redis_py.incr(key),
        }
        found: dict[str, list[tuple[float, float]]] = {name: [] for name in configs}
        try:
            for rep in range(settings.reps):
                for name, call in configs.items():
                    progress(f"cluster (a) {name}, repetition {rep + 1}")
                    found[name].append(await _per_call(call, settings.calls))
        finally:
            await single.aclose()
            await ours.aclose()
            await redis_py.aclose()
        return found

    found = asyncio.run(measure())
    rows = []
    for name, runs in found.items():
        calls = median([r[0] for r in runs])
        cpu = median([r[1] for r in runs])
        rows.append(
            Row(
                f"cluster (a): {name}, INCR from {TASKS} coroutines",
                rate(calls, "calls/s"),
                notes=f"client CPU {cpu:.1f} µs per call",
            )
        )
    return rows


# --- (b) FRAY_REDIS_WAIT_REPLICAS ------------------------------------------------------------


def _event(version: int) -> StoredEvent:
    body = f'{{"n":{version}}}'.encode()
    return StoredEvent(version=version, hash=f"{version:064x}", body=body)


async def _appends(store: EventStore, writers: int, each: int) -> tuple[float, list[float]]:
    """(appends per second, each append's seconds) of `writers` writers on their own
    encounters, `each` appends each (every one with a deadline, as a turn's clock)."""
    ids = [f"bench-wait-{uuid.uuid4().hex[:10]}" for _ in range(writers)]
    for encounter_id in ids:
        await store.create(encounter_id, _event(1), seed=b"s")
    latencies: list[float] = []

    async def writer(encounter_id: str) -> None:
        for version in range(1, each + 1):
            deadline = Deadline("clock:turn", 1e9 + version, b"t")
            started = time.perf_counter()
            await store.append(
                encounter_id, version, f"c{version}", "fp", [_event(version + 1)], [deadline]
            )
            latencies.append(time.perf_counter() - started)

    wall = time.perf_counter()
    await asyncio.gather(*(writer(e) for e in ids))
    return writers * each / (time.perf_counter() - wall), latencies


def _wait(settings: Settings, cluster_url: str) -> list[Row]:
    async def measure() -> dict[tuple[int, int], list[tuple[float, float]]]:
        client = cluster_client(cluster_url)
        path = ClusterMultiplexed(client, cluster_url)
        # The store types a cluster client as Redis, as `fray serve` does (redis_client).
        stores = {
            wait: EventStore(
                cast(redis.asyncio.Redis, client), multiplexed=path, wait_replicas=wait
            )
            for wait in (0, 1)
        }
        found: dict[tuple[int, int], list[tuple[float, float]]] = {}
        try:
            for rep in range(settings.reps):
                for writers in (1, WRITERS):
                    for wait, store in stores.items():
                        progress(f"cluster (b) WAIT {wait}, {writers} writers, rep {rep + 1}")
                        each = settings.appends if writers == 1 else settings.appends // 4
                        speed, latencies = await _appends(store, writers, each)
                        found.setdefault((writers, wait), []).append((speed, median(latencies)))
        finally:
            await path.aclose()
            await client.aclose()
        return found

    found = asyncio.run(measure())
    rows = []
    for writers in (1, WRITERS):
        figures = {
            wait: (median([r[0] for r in found[(writers, wait)]]),
                   median([r[1] for r in found[(writers, wait)]]))
            for wait in (0, 1)
        }  # fmt: skip
        (rate0, lat0), (rate1, lat1) = figures[0], figures[1]
        rows.append(
            Row(
                f"cluster (b): appends with WAIT 1 replica vs none, {writers} writer(s)",
                f"{rate(rate1, '/s')} vs {rate(rate0, '/s')} ({rate1 / rate0:.2f}x)",
                notes=(
                    f"median latency {lat1 * 1e6:,.0f} µs vs {lat0 * 1e6:,.0f} µs "
                    f"(+{(lat1 - lat0) * 1e6:,.0f} µs per append); 3 masters, 1 replica each"
                ),
            )
        )
    return rows


# --- (c) one master against three ------------------------------------------------------------


class _Masters:
    """What `run_wrk` asks of its Redis (`info("cpu")`), summed over a cluster's masters."""

    def __init__(self, ports: Sequence[int]) -> None:
        self._clients = [redis.Redis(port=port) for port in ports]

    def info(self, section: str) -> dict[str, float]:
        cpus = [self.cpu(client) for client in self._clients]
        return {"used_cpu_user": sum(cpus), "used_cpu_sys": 0.0}

    def shares(self) -> list[float]:
        return [self.cpu(client) for client in self._clients]

    @staticmethod
    def cpu(client: redis.Redis) -> float:
        info: dict[str, Any] = client.info("cpu")
        return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])

    def close(self) -> None:
        for client in self._clients:
            client.close()


@dataclass
class _Deployment:
    name: str
    servers: RedisClusterServers | RedisServer
    apis: list[Server]
    scripts: list[str]
    masters: _Masters


def _deploy(name: str, masters: int, queue_url: str, directory: str) -> _Deployment:
    """`masters` masters without replicas; 0: a standalone Redis (for context)."""
    key = f"bench-{uuid.uuid4().hex[:8]}"
    servers: RedisClusterServers | RedisServer
    if masters:
        servers = RedisClusterServers(masters=masters, replicas=0).start()
        env = _environment(servers.url, key)
        env.update(FRAY_REDIS_CLUSTER="true", FRAY_QUEUE_REDIS_URL=queue_url)
        ports = [node.port for node in servers.nodes]
    else:
        servers = RedisServer().start()
        env = _environment(servers.url, key)
        env.update(FRAY_QUEUE_REDIS_URL=queue_url)
        ports = [servers.port]
    apis = [start_fray(env), start_fray(env)]
    made = create_encounters(apis[0], key, CONNECTIONS, f"scale-{masters}")
    path = "/v1/encounters/{}/commands"
    conns = [Conn(path.format(e), token, _rest_body()) for e, token in made]
    # Half the connections (and encounters) on each API process.
    scripts = [
        write_script(conns[n::2], directory, f"scale-{masters}-{n}") for n in range(len(apis))
    ]
    return _Deployment(name, servers, apis, scripts, _Masters(ports))


def _load(deployment: _Deployment, seconds: float) -> tuple[float, float, list[float]]:
    """(commands/s, Redis CPU µs per command, each master's share of the Redis CPU)."""
    before = deployment.masters.shares()
    per_api = CONNECTIONS // len(deployment.apis)
    with ThreadPoolExecutor(len(deployment.apis)) as pool:
        runs: list[Measured] = list(
            pool.map(
                lambda pair: run_wrk(pair[0], pair[1], per_api, seconds, _NoCpu()),
                zip(deployment.apis, deployment.scripts, strict=True),
            )
        )
    spent = [after - b for after, b in zip(deployment.masters.shares(), before, strict=True)]
    commands = sum(r.rate for r in runs)
    done = sum(r.rate for r in runs) * seconds
    total = sum(spent)
    return commands, total / max(done, 1) * 1e6, [s / total if total else 0.0 for s in spent]


class _NoCpu:
    def info(self, section: str) -> dict[str, float]:
        return {"used_cpu_user": 0.0, "used_cpu_sys": 0.0}


def _scale(settings: Settings) -> list[Row]:
    deployments: list[_Deployment] = []
    with tempfile.TemporaryDirectory() as directory, RedisServer() as queue:
        try:
            for name, masters in (("1 master", 1), ("3 masters", 3), ("standalone", 0)):
                progress(f"cluster (c) deploying {name}")
                deployments.append(_deploy(name, masters, queue.url, directory))
            found: dict[str, list[tuple[float, float, list[float]]]] = {}
            for deployment in deployments:
                _load(deployment, 1.0)  # warm up
            for rep in range(settings.reps):
                for deployment in deployments:
                    progress(f"cluster (c) {deployment.name}, repetition {rep + 1}")
                    found.setdefault(deployment.name, []).append(
                        _load(deployment, settings.seconds)
                    )
        finally:
            for deployment in deployments:
                for api in deployment.apis:
                    api.stop()
                deployment.masters.close()
                deployment.servers.close()
    one = median([r[0] for r in found["1 master"]])
    rows = []
    for name, runs in found.items():
        commands = median([r[0] for r in runs])
        redis_us = median([r[1] for r in runs])
        busiest = median([max(r[2]) for r in runs])
        rows.append(
            Row(
                f"cluster (c): REST commands, {name}, 2 API processes, {CONNECTIONS} connections",
                rate(commands, "commands/s"),
                notes=(
                    f"{commands / one:.2f}x one master; Redis CPU {redis_us:.0f} µs per command, "
                    f"busiest master {busiest:.0%} of it"
                ),
            )
        )
    return rows
