"""The command path's pipelined client on a Redis Cluster: one `Multiplexed` connection
per master, each command sent to the master serving its key's slot.

`Multiplexed` speaks to one node and cannot follow a redirection. This client keeps the
slot map of a redis-py cluster client (read at start and again on a redirection or a lost
master) and, per master, one pipelined connection: the per-call cost stays the
multiplexer's (docs/benchmarks.md, "Redis Cluster": measured against redis-py's
`RedisCluster`). A MOVED reply (the slot moved, or a replica took over) re-reads the map
and sends the command again where the map now says; an ASK (a slot being migrated) sends
it once to the node named, after ASKING, on the same connection. A master that cannot be
reached is looked up again in a fresh map: if another node now serves the slot, the call
goes there; if not, it fails with `StoreUnavailable`. A command resent that way may have
run twice; appends carry idempotent command ids, so an append never applies twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from redis.exceptions import ResponseError

from service.store.clients import ClusterClient, node_url
from service.store.errors import StoreUnavailable
from service.store.multiplex import Arg, Multiplexed

REDIRECTIONS = 5  # MOVED or ASK replies followed for one call before giving up
FAILOVER_WAIT = 0.2  # seconds between looks at the slot map while a master is away
FAILOVER_LOOKS = 25  # about 5 s: a failover takes cluster-node-timeout plus an election


class ClusterMultiplexed:
    """`Multiplexed`'s calls on a cluster. `client` (a `clients.cluster_client`) lends its
    slot map and is its owner's to close."""

    def __init__(self, client: ClusterClient, url: str) -> None:
        self._client = client
        self._url = url
        self._nodes: dict[str, Multiplexed] = {}  # "host:port" -> its connection
        self._ready = False
        self._refreshing: asyncio.Task[None] | None = None

    async def execute(self, *args: Arg) -> Any:
        return await self._routed(_key_of(args), lambda node: node.execute(*args))

    async def pipeline(self, *commands: Sequence[Arg]) -> list[Any]:
        """Commands whose keys share a slot (the rate limiter's two), in one write."""
        replies: list[Any] = await self._routed(
            _key_of(commands[0]), lambda node: node.pipeline(*commands)
        )
        return replies

    async def evalsha(self, script: Arg, sha: str, keys: Sequence[Arg], args: Sequence[Arg]) -> Any:
        return await self._routed(keys[0], lambda node: node.evalsha(script, sha, keys, args))

    async def evalsha_wait(
        self,
        script: Arg,
        sha: str,
        keys: Sequence[Arg],
        args: Sequence[Arg],
        replicas: int,
        timeout_ms: int,
    ) -> tuple[Any, int]:
        reply, acked = await self._routed(
            keys[0],
            lambda node: node.evalsha_wait(script, sha, keys, args, replicas, timeout_ms),
        )
        return reply, int(acked)

    async def aclose(self) -> None:
        nodes, self._nodes = list(self._nodes.values()), {}
        for node in nodes:
            await node.aclose()

    # -- routing -------------------------------------------------------------------------

    async def _routed(self, key: Arg, call: Any) -> Any:
        if not self._ready:
            await self._client.initialize()
            self._ready = True
        name = self._name_for(key)
        asking = False
        redirections = looks = 0
        while True:
            node = self._node(name)
            try:
                if asking:
                    asking = False
                    return await _asking(node, call)
                return await call(node)
            except ResponseError as error:
                kind, _, target = _redirection(str(error))
                if kind is None or redirections >= REDIRECTIONS:
                    raise
                redirections += 1
                if kind == "MOVED":
                    await self._refresh()
                    name = self._name_for(key)
                else:
                    name, asking = target, True
            except StoreUnavailable:
                # The master is away: has a replica taken over its slots?
                if looks >= FAILOVER_LOOKS:
                    raise
                looks += 1
                await asyncio.sleep(FAILOVER_WAIT)
                await self._refresh()
                name = self._name_for(key)

    def _name_for(self, key: Arg) -> str:
        node = self._client.get_node_from_key(key)  # type: ignore[arg-type]
        if node is None:
            raise StoreUnavailable(f"no master serves the slot of {key!r}")
        return str(node.name)

    def _node(self, name: str) -> Multiplexed:
        node = self._nodes.get(name)
        if node is None:
            host, _, port = name.rpartition(":")
            node = self._nodes[name] = Multiplexed.from_url(node_url(self._url, host, int(port)))
        return node

    async def _refresh(self) -> None:
        """Read the slot map again; calls that want it meanwhile share one reading."""
        if self._refreshing is None or self._refreshing.done():
            self._refreshing = asyncio.ensure_future(self._client.nodes_manager.initialize())
        try:
            await asyncio.shield(self._refreshing)
        except Exception as error:
            raise StoreUnavailable(f"cannot read the cluster's slot map: {error}") from error


async def _asking(node: Multiplexed, call: Any) -> Any:
    # ASKING holds for the connection's next command: gather starts both in order, so the
    # call follows it on the connection.
    _, result = await asyncio.gather(node.execute("ASKING"), call(node))
    return result


def _key_of(command: Sequence[Arg]) -> Arg:
    name = str(command[0]).upper()
    if name in ("EVAL", "EVALSHA"):
        return command[3]
    return command[1]


def _redirection(message: str) -> tuple[str | None, int, str]:
    """("MOVED" or "ASK", slot, "host:port") from a redirection reply; (None, 0, "") else."""
    parts = message.split()
    if len(parts) == 3 and parts[0] in ("MOVED", "ASK"):
        return parts[0], int(parts[1]), parts[2]
    return None, 0, ""
