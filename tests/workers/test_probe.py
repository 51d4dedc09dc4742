"""`python -m workers.probe`, the worker pods' probe: it passes while a `fray worker` of this
host is registered on the queue's Redis, and fails before it starts, after it stops, and
when the queue's Redis does not answer."""

from __future__ import annotations

import os
import subprocess
import sys

from service.embedded_redis import free_port
from tests.e2e.helpers import eventually
from tests.workers.conftest import fray_worker


def probe(queue_url: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FRAY_QUEUE_REDIS_URL": queue_url}
    return subprocess.run(
        [sys.executable, "-m", "workers.probe"], env=env, capture_output=True, text=True
    )


def test_the_probe_passes_while_a_worker_of_this_host_is_registered(redis_url, queue_url):
    before = probe(queue_url)
    assert before.returncode == 1, before
    assert "no RQ worker of" in before.stderr

    with fray_worker(redis_url, queue_url):
        running = eventually(lambda: probe(queue_url), lambda done: done.returncode == 0)
        assert "workers.probe:" in running.stdout and running.stderr == ""

    after = probe(queue_url)  # a worker stopped by SIGTERM deregisters itself
    assert after.returncode == 1, after


def test_the_probe_fails_when_the_queue_redis_does_not_answer():
    silent = probe(f"redis://127.0.0.1:{free_port()}/0")
    assert silent.returncode == 1
    assert "the queue's Redis did not answer" in silent.stderr
    assert "redis://" not in silent.stderr + silent.stdout  # the URL may hold a password
