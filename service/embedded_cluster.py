"""Start a private Redis Cluster: six redis-server processes (three masters, three
replicas) on free loopback ports, joined by `redis-cli --cluster create`. For the tests
(tests/cluster/), the failover test and the scale bench; never for production.

Each node is an `embedded_redis.RedisServer` (same binary discovery, own directory, dies
with its parent) started with cluster mode on. `redis-cli` is looked for beside the
server binary, then on PATH.
"""

from __future__ import annotations

import os
import random
import shutil
import socket
import subprocess
import time

import redis

from service.embedded_redis import RedisServer, RedisUnavailable, find_redis_server

# How long a master may be unreachable before its replica takes over (milliseconds). Low,
# so the failover test is quick; production clusters keep Redis's default (15 s).
NODE_TIMEOUT_MS = 1000
READY_TIMEOUT = 30.0
BUS_OFFSET = 10000


def cluster_port() -> int:
    """A free loopback port whose cluster bus port (+10000) is free too, so below 55536."""
    for _ in range(1000):
        port = random.randrange(20000, 55536)
        if _free(port) and _free(port + BUS_OFFSET):
            return port
    raise RedisUnavailable("no free pair of ports for a cluster node")


def _free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def find_redis_cli(server_binary: str) -> str:
    beside = os.path.join(os.path.dirname(server_binary), "redis-cli")
    if os.access(beside, os.X_OK):
        return beside
    on_path = shutil.which("redis-cli")
    if on_path:
        return on_path
    raise RedisUnavailable("no redis-cli beside redis-server or on PATH")


class RedisClusterServers:
    """`masters` masters with `replicas` replicas each; `url` names the first node (a
    cluster client discovers the rest from any one)."""

    def __init__(self, masters: int = 3, replicas: int = 1, binary: str | None = None) -> None:
        if masters < 1 or (masters < 3 and replicas):
            raise ValueError("redis-cli --cluster create wants 3 masters to place replicas")
        self.binary = binary or find_redis_server()
        self.masters = masters
        self.replicas = replicas
        self.nodes: list[RedisServer] = []

    @property
    def url(self) -> str:
        return self.nodes[0].url

    @property
    def urls(self) -> list[str]:
        return [node.url for node in self.nodes]

    def start(self) -> RedisClusterServers:
        args = (
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            "nodes.conf",
            "--cluster-node-timeout",
            str(NODE_TIMEOUT_MS),
        )
        try:
            for _ in range(self.masters * (1 + self.replicas)):
                node = RedisServer(binary=self.binary, extra_args=args)
                node.port = cluster_port()
                self.nodes.append(node.start())
            self._create()
            self.wait_ready()
            self._wait_replicas_mapped()
        except BaseException:
            self.close()
            raise
        return self

    def _create(self) -> None:
        if self.masters == 1:
            # One master alone: redis-cli refuses a cluster of fewer than 3 masters, so its
            # slots are assigned by hand.
            client = redis.Redis(port=self.nodes[0].port)
            try:
                client.execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 16383)  # type: ignore[no-untyped-call]
            finally:
                client.close()
            return
        command = [
            find_redis_cli(self.binary),
            "--cluster",
            "create",
            *(f"127.0.0.1:{node.port}" for node in self.nodes),
            "--cluster-replicas",
            str(self.replicas),
            "--cluster-yes",
        ]
        done = subprocess.run(command, capture_output=True, timeout=60)
        if done.returncode != 0:
            raise RedisUnavailable(f"redis-cli --cluster create failed: {done.stdout!r}")

    def wait_ready(self, timeout: float = READY_TIMEOUT) -> None:
        """Until every live node says cluster_state:ok and knows every other live node, and
        every live replica's link to its master is up (its first sync done)."""
        deadline = time.monotonic() + timeout
        live = [node for node in self.nodes if node.process is not None]
        while time.monotonic() < deadline:
            if all(self._ready(node, len(live)) for node in live):
                return
            time.sleep(0.05)
        raise RedisUnavailable("the cluster did not reach cluster_state:ok")

    @staticmethod
    def _ready(node: RedisServer, count: int) -> bool:
        client = redis.Redis(port=node.port, socket_timeout=1)
        try:
            info = str(client.cluster("INFO"))
            nodes = client.cluster("NODES")
        except redis.RedisError:
            return False
        finally:
            client.close()
        connected = sum(1 for known in nodes.values() if known.get("connected"))
        if "'cluster_state': 'ok'" not in info or connected < count:
            return False
        client = redis.Redis(port=node.port, socket_timeout=1)
        try:
            replication = client.info("replication")
        except redis.RedisError:
            return False
        finally:
            client.close()
        return replication.get("role") != "slave" or replication.get("master_link_status") == "up"

    def _wait_replicas_mapped(self, timeout: float = READY_TIMEOUT) -> None:
        """Until every node's slot map (CLUSTER SLOTS, which a cluster client loads) lists
        each master's replicas: a replica's role reaches the other nodes by gossip, after
        its link is up, and a client that loaded the map before would not know it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if all(self._mapped(node) for node in self.nodes):
                return
            time.sleep(0.05)
        raise RedisUnavailable("the cluster's slot map did not list every replica")

    def _mapped(self, node: RedisServer) -> bool:
        client = redis.Redis(port=node.port, socket_timeout=1)
        try:
            ranges = client.execute_command("CLUSTER", "SLOTS")  # type: ignore[no-untyped-call]
        except redis.RedisError:
            return False
        finally:
            client.close()
        # Each range: start, end, then its master's and each replica's address.
        return bool(ranges) and all(len(r) - 2 == 1 + self.replicas for r in ranges)

    def close(self) -> None:
        for node in self.nodes:
            node.close()
        self.nodes = []

    def __enter__(self) -> RedisClusterServers:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
