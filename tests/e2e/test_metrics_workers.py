"""`fray serve --workers 2`: whichever worker answers `/metrics` reports what both counted
(prometheus_client's multiprocess mode, service/app/metrics.py).

Which worker answered a request is read from the kernel, not guessed: the worker process
that holds the server's end of the request's connection (/proc/net/tcp, /proc/<pid>/fd).
Each request goes over a new connection, so the two workers share them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import httpx
import pytest
from prometheus_client.mmap_dict import MmapedDict, mmap_key

from service.embedded_redis import free_port
from tests.api.conftest import KEY, SECRET
from tests.e2e.helpers import FRAY, _wait_ready, bearer, eventually
from tests.prometheus import value

ATTEMPTS = 400  # a bound on requests sent until both workers have answered some

Served = tuple[str, subprocess.Popen[bytes], IO[bytes]]


@contextmanager
def serving_workers(redis_url: str, workers: int, **env: str) -> Iterator[Served]:
    """`fray serve --workers N` (PROMETHEUS_MULTIPROC_DIR only if given): its URL, process
    and log."""
    port = free_port()
    environment = {
        **os.environ,
        "FRAY_REDIS_URL": redis_url,
        "FRAY_API_KEYS": f"acme:{KEY}",
        "FRAY_TOKEN_SECRET": SECRET,
        "FRAY_RATE_LIMIT": "0",
    }
    environment.pop("PROMETHEUS_MULTIPROC_DIR", None)
    environment.update(env)
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            [FRAY, "serve", "--port", str(port), "--workers", str(workers)],
            env=environment, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_ready(process, log, url)
            yield url, process, log
        finally:
            if process.poll() is None:
                process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def answered_by(response: httpx.Response) -> int:
    """The pid of the process holding the server's end of the response's connection."""
    local = response.extensions["network_stream"].get_extra_info("socket").getsockname()
    server_port = response.url.port
    inode = _socket_inode(server_port, local[1])
    holders = [pid for pid in _pids() if _holds(pid, inode)]
    assert len(holders) == 1, f"socket {inode} held by {holders}"
    return holders[0]


def _socket_inode(local_port: int, remote_port: int) -> str:
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if (
            int(fields[1].split(":")[1], 16) == local_port
            and int(fields[2].split(":")[1], 16) == remote_port
        ):
            return fields[9]
    raise AssertionError(f"no server socket for client port {remote_port}")


def _pids() -> Iterator[int]:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            yield int(entry.name)


def _holds(pid: int, inode: str) -> bool:
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False  # gone, or not ours
    target = f"socket:[{inode}]"
    for fd in fds:
        try:
            if os.readlink(fd) == target:
                return True
        except OSError:
            continue
    return False


def _send(url: str, encounter_id: str, command: dict[str, object]) -> tuple[int, httpx.Response]:
    """Which worker answered, and its answer (over a new connection)."""
    with httpx.Client(base_url=url, headers=bearer(KEY)) as http:
        response = http.post(f"/v1/encounters/{encounter_id}/commands", json={"command": command})
        return answered_by(response), response


def _scrape(url: str) -> tuple[int, str]:
    with httpx.Client(base_url=url) as http:
        response = http.get("/metrics")
        assert response.status_code == 200
        return answered_by(response), response.text


def _create(url: str, encounter_id: str) -> None:
    body = {"ruleset": "freeform", "encounter_id": encounter_id}
    response = httpx.post(f"{url}/v1/encounters", json=body, headers=bearer(KEY))
    assert response.status_code == 201, response.text


def test_any_worker_reports_the_commands_of_both(redis_url: str) -> None:
    encounter_id = f"enc-{uuid.uuid4().hex[:12]}"
    roll = {"type": "roll", "expression": "1d4"}
    with serving_workers(redis_url, 2) as (url, _, _):
        _create(url, encounter_id)
        answered: Counter[int] = Counter()
        events = 0  # appended by commands (the creation is not one)
        while len(answered) < 2 or sum(answered.values()) < 20:
            assert sum(answered.values()) < ATTEMPTS, f"one worker answered all: {answered}"
            pid, response = _send(url, encounter_id, roll)
            assert response.status_code == 201, response.text
            answered[pid] += 1
            events += len(response.json()["events"])
        _, refused = _send(url, encounter_id, {"type": "fly"})
        assert refused.status_code == 400
        sent = sum(answered.values())

        scraped: Counter[int] = Counter()
        while len(scraped) < 2:
            assert sum(scraped.values()) < ATTEMPTS, f"one worker answered all: {scraped}"
            pid, text = _scrape(url)
            scraped[pid] += 1
            rolls = {"ruleset": "freeform", "type": "roll"}
            assert value(text, "fray_commands_total", **rolls, outcome="accepted") == sent
            assert value(text, "fray_command_seconds_count", **rolls) == sent
            assert value(text, "fray_command_seconds_bucket", **rolls, le="+Inf") == sent
            assert value(text, "fray_appends_total") == events
            assert value(text, "fray_rejections_total", code="command/unknown-type") == 1
        assert set(scraped) == set(answered)  # the same two workers


def test_a_subscription_on_one_worker_shows_on_the_other_until_that_worker_dies(
    redis_url: str,
) -> None:
    encounter_id = f"enc-{uuid.uuid4().hex[:12]}"
    with serving_workers(redis_url, 2) as (url, _, _):
        _create(url, encounter_id)
        roll = {"type": "roll", "expression": "1d4"}
        for _ in range(3):
            assert _send(url, encounter_id, roll)[1].status_code == 201
        path = f"{url}/v1/encounters/{encounter_id}/events?follow=true"
        with (
            httpx.Client(headers=bearer(KEY), timeout=30) as http,
            http.stream("GET", path) as stream,
        ):
            assert stream.status_code == 200
            holder = answered_by(stream)

            def other_worker() -> tuple[int, str]:
                return eventually(lambda: _scrape(url), lambda s: s[0] != holder)

            _, text = other_worker()
            assert value(text, "fray_open_subscriptions") == 1
            os.kill(holder, signal.SIGKILL)
            # Once the supervisor has reaped it (and started another), the dead worker's
            # subscription is gone from every scrape; what it counted stays.
            _, text = eventually(
                lambda: _scrape(url), lambda s: value(s[1], "fray_open_subscriptions") == 0
            )
        count = value(
            text, "fray_commands_total", ruleset="freeform", type="roll", outcome="accepted"
        )
        assert count == 3


def test_the_private_directory_goes_with_fray_serve(redis_url: str) -> None:
    with serving_workers(redis_url, 2) as (_, process, log):
        log.seek(0)
        lines = log.read().decode().splitlines()
        said = [line for line in lines if "metrics of the workers in" in line]
        assert len(said) == 1, lines
        directory = Path(said[0].rsplit(" ", 1)[1])
        assert directory.is_dir() and any(directory.glob("counter_*.db"))
        process.terminate()
        assert process.wait(timeout=30) == 0
    assert not directory.exists()


def _stale_count(directory: Path, count: float) -> None:
    """A previous run's file: `count` rolls counted by a worker long gone."""
    stale = MmapedDict(str(directory / "counter_1.db"))
    labels = ("ruleset", "type", "outcome"), ("freeform", "roll", "accepted")
    help_text = "Commands handled, by ruleset, type and outcome."
    stale.write_value(
        mmap_key("fray_commands", "fray_commands_total", *labels, help_text), count, 0
    )
    stale.close()


@pytest.mark.parametrize("workers", [1, 2])
def test_the_operators_directory_is_emptied_at_start_and_kept(
    redis_url: str, tmp_path: Path, workers: int
) -> None:
    _stale_count(tmp_path, 1000)
    encounter_id = f"enc-{uuid.uuid4().hex[:12]}"
    with serving_workers(redis_url, workers, PROMETHEUS_MULTIPROC_DIR=str(tmp_path)) as (
        url,
        _,
        _,
    ):
        _create(url, encounter_id)
        _, response = _send(url, encounter_id, {"type": "roll", "expression": "1d4"})
        assert response.status_code == 201
        _, text = _scrape(url)
        rolls = {"ruleset": "freeform", "type": "roll", "outcome": "accepted"}
        assert value(text, "fray_commands_total", **rolls) == 1
        assert not (tmp_path / "counter_1.db").exists()
    assert any(tmp_path.glob("counter_*.db"))  # the operator's directory: left as it is
