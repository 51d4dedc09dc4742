"""`python -m workers.probe`: exit 0 while an RQ worker of this host is registered on the
queue's Redis, 1 otherwise. The worker pods' liveness and readiness probe
(deploy/kubernetes/base/worker-deployment.yaml): a worker serves no HTTP to ask.

RQ registers each worker under `rq:worker:<name>` with its hostname (in Kubernetes, the
pod's name), renews that key's expiry on every heartbeat (RQ's worker TTL, 420 s, plus
60 s) and deletes it when the worker stops; so the registration lapses when the worker
wedges or loses the queue's Redis, and the probe fails.
"""

from __future__ import annotations

import socket
import sys

import redis
from rq import Worker
from rq.serializers import JSONSerializer

from service.config import Settings

TIMEOUT = 3.0  # seconds: a probe's own Redis round trips; the kubelet's timeout is longer


def registered(connection: redis.Redis, hostname: str) -> list[str]:
    """The names of the RQ workers of `hostname` registered on this Redis."""
    workers = Worker.all(connection=connection, serializer=JSONSerializer)
    return sorted(worker.name for worker in workers if worker.hostname == hostname)


def main() -> int:
    settings = Settings.from_env()
    hostname = socket.gethostname()
    # The URL is never printed: it may hold the queue Redis's password.
    try:
        connection = redis.Redis.from_url(
            settings.queue_redis_url, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT
        )
        with connection:
            names = registered(connection, hostname)
    except (redis.RedisError, OSError) as error:
        print(f"workers.probe: the queue's Redis did not answer: {error}", file=sys.stderr)
        return 1
    if not names:
        print(f"workers.probe: no RQ worker of {hostname} is registered", file=sys.stderr)
        return 1
    print(f"workers.probe: {', '.join(names)} of {hostname}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
