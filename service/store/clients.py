"""redis-py clients as Fray's processes build them: a standalone Redis, or a Redis Cluster
(FRAY_REDIS_CLUSTER) reached through any one of its nodes."""

from __future__ import annotations

from typing import Any, cast
from urllib.parse import urlsplit, urlunsplit

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff, NoBackoff
from redis.exceptions import RedisClusterException

from service.store.errors import UNAVAILABLE, StoreUnavailable

# Requests beyond this many concurrent Redis calls wait for a connection (up to
# POOL_TIMEOUT seconds) instead of failing: redis-py's default pool raises at 100.
POOL_SIZE = 256
POOL_TIMEOUT = 10.0
# A cluster call that meets a failover (connection refused, CLUSTERDOWN, a MOVED to a
# promoted replica) retries this many times over about three node timeouts (redis-py
# refreshes its slot map between tries): a master's replica takes over within
# `cluster-node-timeout` plus an election.
CLUSTER_RETRIES = 8
CLUSTER_BACKOFF = ExponentialBackoff(cap=1.0, base=0.05)


class Client(aioredis.Redis):
    """redis-py's client, whose every command (scripts and blocking reads included) raises
    StoreUnavailable, not redis-py's own errors, while Redis is away."""

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        try:
            return await super().execute_command(*args, **options)  # type: ignore[no-untyped-call]
        except StoreUnavailable:
            raise
        except UNAVAILABLE as error:
            raise StoreUnavailable(str(error) or type(error).__name__) from error


class ClusterClient(RedisCluster):
    """redis-py's cluster client (it follows MOVED and ASK and refreshes its slot map), with
    `Client`'s StoreUnavailable."""

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return await super().execute_command(*args, **kwargs)
        except StoreUnavailable:
            raise
        except UNAVAILABLE as error:
            raise StoreUnavailable(str(error) or type(error).__name__) from error
        except RuntimeError as error:
            # A node killed while redis-py sets up a connection to it: on uvloop the write
            # to the closed transport raises RuntimeError ("the handler is closed"), not a
            # ConnectionError (seen in tests/cluster/test_failover.py).
            if "closed" not in str(error):
                raise
            raise StoreUnavailable(str(error)) from error
        except RedisClusterException as error:
            # Not a RedisError: raised when no node it knows answers (others of its kind,
            # a cross-slot request, are bugs and stay as they are).
            if "cannot be connected" not in str(error):
                raise
            raise StoreUnavailable(str(error)) from error


def redis_client(url: str, cluster: bool = False) -> aioredis.Redis:
    """The store's client; a cluster client when `cluster`.

    A cluster client is typed as `Redis`: it answers the same commands, pipelines
    (non-transactional, split per node) and scripts (routed by their keys), so the store's
    code has one type. The calls only a standalone client has (a single connection, CLIENT
    UNBLOCK) are the stream hub's, which builds a standalone client per node
    (`service.store.cluster_hub`)."""
    if cluster:
        return cast(aioredis.Redis, cluster_client(url))
    # One retry on a fresh connection: after a Redis restart, each pooled connection fails
    # once ("closed by server") before the pool replaces it. Every write is idempotent (an
    # append carries its command id), so a retry never applies anything twice.
    pool = aioredis.BlockingConnectionPool.from_url(
        url, max_connections=POOL_SIZE, timeout=POOL_TIMEOUT, retry=Retry(NoBackoff(), 1)
    )
    return Client.from_pool(pool)  # owns the pool: aclose() closes its connections


def cluster_client(url: str) -> ClusterClient:
    client = ClusterClient.from_url(
        url, max_connections=POOL_SIZE, retry=Retry(CLUSTER_BACKOFF, CLUSTER_RETRIES)
    )
    return cast(ClusterClient, client)


def node_url(url: str, host: str, port: int) -> str:
    """`url` (its scheme, credentials and options) naming the node `host:port` instead."""
    parts = urlsplit(url)
    credentials = parts.netloc.rpartition("@")[0]
    netloc = f"{credentials}@{host}:{port}" if credentials else f"{host}:{port}"
    return urlunsplit((parts.scheme, netloc, "", parts.query, ""))


def is_cluster(client: object) -> bool:
    return isinstance(client, RedisCluster)
