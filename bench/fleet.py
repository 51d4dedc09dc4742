"""`fray worker` processes for the worker benchmarks, and waiting for their firings."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis

FRAY = str(Path(sys.executable).parent / "fray")


def start_worker(url: str, index: int) -> subprocess.Popen[bytes]:
    """A `fray worker` on one Redis for events and jobs (the default deployment)."""
    log = tempfile.NamedTemporaryFile(  # noqa: SIM115 (the worker process writes it)
        prefix=f"fray-bench-worker-{index}-", delete=False
    )
    env = {**os.environ, "FRAY_REDIS_URL": url, "FRAY_QUEUE_REDIS_URL": url}
    return subprocess.Popen([FRAY, "worker"], env=env, stdout=log, stderr=subprocess.STDOUT)


def stop_workers(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        process.terminate()
    for process in processes:
        process.wait(timeout=30)


def wait_for_firings(url: str, count: int, give_up: float) -> None:
    """Until the workers have fired `count` deadlines (their metrics count them in Redis)."""
    client = redis.Redis.from_url(url)
    try:
        while time.time() < give_up:
            fired = client.hget("fray:metrics:deadlines", "fired:fired")
            if fired is not None and int(fired) >= count:
                return
            time.sleep(0.2)
        raise RuntimeError("not every deadline fired before the benchmark gave up")
    finally:
        client.close()
