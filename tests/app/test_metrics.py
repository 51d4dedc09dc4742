"""The API's metrics registry (service/app/metrics.py): in one process, and in
prometheus_client's multiprocess mode across real processes sharing a directory."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncGenerator, Iterator
from pathlib import Path

import pytest

from service.app.metrics import COMMAND_BUCKETS, MULTIPROC_ENV, Metrics, multiprocess_directory
from tests.prometheus import families, samples, value

pytestmark = pytest.mark.anyio

# What docs/api.md documents: name as scraped -> type.
DOCUMENTED = {
    "fray_commands_total": "counter",
    "fray_command_seconds": "histogram",
    "fray_rejections_total": "counter",
    "fray_appends_total": "counter",
    "fray_open_subscriptions": "gauge",
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_a_command_is_counted_by_ruleset_type_and_outcome_and_timed() -> None:
    metrics = Metrics()
    metrics.command("freeform", "roll", "accepted", 0.003)
    metrics.command("freeform", "roll", "accepted", 0.02)
    metrics.command("freeform", "roll", "turn/not-your-turn", 0.001)
    text = metrics.render()
    roll = {"ruleset": "freeform", "type": "roll"}
    assert value(text, "fray_commands_total", **roll, outcome="accepted") == 2
    assert value(text, "fray_commands_total", **roll, outcome="turn/not-your-turn") == 1
    assert value(text, "fray_command_seconds_count", **roll) == 3
    assert value(text, "fray_command_seconds_sum", **roll) == pytest.approx(0.024)
    assert value(text, "fray_command_seconds_bucket", **roll, le="0.001") == 1
    assert value(text, "fray_command_seconds_bucket", **roll, le="0.005") == 2
    assert value(text, "fray_command_seconds_bucket", **roll, le="0.025") == 3
    assert value(text, "fray_command_seconds_bucket", **roll, le="+Inf") == 3


def test_the_latency_buckets_resolve_milliseconds_and_keep_the_old_bounds() -> None:
    old = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
    assert set(old) <= set(COMMAND_BUCKETS)
    assert len([b for b in COMMAND_BUCKETS if 0.0005 <= b <= 0.035]) >= 9
    metrics = Metrics()
    metrics.command("freeform", "roll", "accepted", 0.001)
    les = {
        dict(labels)["le"]
        for name, labels in samples(metrics.render())
        if name == "fray_command_seconds_bucket"
    }
    assert {float(le) for le in les} == {*COMMAND_BUCKETS, float("inf")}


def test_appends_and_rejections_are_counted() -> None:
    metrics = Metrics()
    metrics.appended(3)
    metrics.appended(4)
    metrics.rejected("rate/limited")
    metrics.rejected("rate/limited")
    metrics.rejected("auth/unauthorized")
    text = metrics.render()
    assert value(text, "fray_appends_total") == 7
    assert value(text, "fray_rejections_total", code="rate/limited") == 2
    assert value(text, "fray_rejections_total", code="auth/unauthorized") == 1


def test_the_names_and_types_are_the_documented_ones_without_created_series() -> None:
    metrics = Metrics()
    metrics.command("freeform", "roll", "accepted", 0.003)
    metrics.rejected("rate/limited")
    text = metrics.render()
    assert families(text) == {
        name.removesuffix("_total"): kind for name, kind in DOCUMENTED.items()
    }
    for name, kind in DOCUMENTED.items():
        assert f"# TYPE {name} {kind}\n" in text
    assert "_created" not in text


def test_each_registry_counts_alone() -> None:
    # The suite builds many apps in one process: none may see another's counts.
    one, two = Metrics(), Metrics()
    one.command("freeform", "roll", "accepted", 0.003)
    assert value(two.render(), "fray_commands_total", ruleset="freeform", type="roll") is None
    assert not one.multiprocess


async def _items(*items: int, fail: bool = False) -> AsyncGenerator[int, None]:
    for item in items:
        yield item
    if fail:
        raise RuntimeError("the store went away")


def _open(metrics: Metrics) -> float | None:
    return value(metrics.render(), "fray_open_subscriptions")


async def test_a_subscription_is_counted_while_it_is_followed() -> None:
    metrics = Metrics()
    first = metrics.followed(_items(1, 2, 3))
    second = metrics.followed(_items(4))
    assert _open(metrics) == 0
    assert await anext(first) == 1
    assert await anext(second) == 4
    assert _open(metrics) == 2
    await first.aclose()
    assert _open(metrics) == 1
    assert [item async for item in second] == []  # ended: no longer followed
    assert _open(metrics) == 0


async def test_a_subscription_that_fails_is_no_longer_counted() -> None:
    metrics = Metrics()
    followed = metrics.followed(_items(1, fail=True))
    assert await anext(followed) == 1
    with pytest.raises(RuntimeError):
        await anext(followed)
    assert _open(metrics) == 0


# --- fray serve's directory ---------------------------------------------------------------


def test_one_worker_without_a_directory_keeps_its_metrics_in_memory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(MULTIPROC_ENV, raising=False)
    assert multiprocess_directory(1) is None
    assert MULTIPROC_ENV not in os.environ


def test_several_workers_get_a_private_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MULTIPROC_ENV, raising=False)
    directory = multiprocess_directory(2)
    try:
        assert directory is not None and Path(directory).is_dir()
        assert os.environ[MULTIPROC_ENV] == directory
        assert list(Path(directory).iterdir()) == []
    finally:
        monkeypatch.delenv(MULTIPROC_ENV)
        if directory is not None:
            os.rmdir(directory)


def test_the_operators_directory_is_emptied_of_a_previous_runs_files(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "counter_123.db").write_bytes(b"stale")
    (tmp_path / "gauge_livesum_123.db").write_bytes(b"stale")
    (tmp_path / "notes.txt").write_text("not ours")
    monkeypatch.setenv(MULTIPROC_ENV, str(tmp_path))
    assert multiprocess_directory(1) == str(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


# --- multiprocess mode, across real processes ----------------------------------------------

RECORD = """
import asyncio, os, sys
from service.app.metrics import Metrics

async def main():
    metrics = Metrics()
    assert metrics.multiprocess
    for _ in range(int(sys.argv[1])):
        metrics.command("freeform", "roll", "accepted", 0.003)
        metrics.appended(2)
    metrics.rejected("rate/limited")

    async def feed():
        yield 1
        await asyncio.sleep(3600)

    followed = metrics.followed(feed())
    await anext(followed)  # one open subscription, never closed
    print("ready", flush=True)
    sys.stdin.readline()  # until told to go; then gone without closing it, as if killed
    os._exit(0)

asyncio.run(main())
"""

RENDER = "from service.app.metrics import Metrics; print(Metrics().render(), end='')"


@pytest.fixture
def shared(tmp_path: Path) -> Iterator[dict[str, str]]:
    yield {**os.environ, MULTIPROC_ENV: str(tmp_path)}


def _recorder(env: dict[str, str], commands: int) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", RECORD, str(commands)],
        env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdout is not None and process.stdout.readline() == "ready\n"
    return process


def _render(env: dict[str, str]) -> str:
    return subprocess.run(
        [sys.executable, "-c", RENDER], env=env, capture_output=True, text=True, check=True
    ).stdout


def _stop(process: subprocess.Popen[str]) -> None:
    process.communicate("go\n", timeout=30)
    assert process.returncode == 0


def test_any_process_reports_the_sum_over_every_process(shared: dict[str, str]) -> None:
    one, two = _recorder(shared, 3), _recorder(shared, 5)
    try:
        text = _render(shared)
    finally:
        _stop(one)
        _stop(two)
    roll = {"ruleset": "freeform", "type": "roll"}
    assert value(text, "fray_commands_total", **roll, outcome="accepted") == 8
    assert value(text, "fray_command_seconds_count", **roll) == 8
    assert value(text, "fray_command_seconds_bucket", **roll, le="0.005") == 8
    assert value(text, "fray_command_seconds_bucket", **roll, le="0.0025") == 0
    assert value(text, "fray_appends_total") == 16
    assert value(text, "fray_rejections_total", code="rate/limited") == 2
    assert value(text, "fray_open_subscriptions") == 2
    assert families(text) == {
        name.removesuffix("_total"): kind for name, kind in DOCUMENTED.items()
    }


def test_a_dead_process_counts_on_but_its_subscriptions_are_gone(
    shared: dict[str, str],
) -> None:
    gone, living = _recorder(shared, 3), _recorder(shared, 5)
    try:
        _stop(gone)  # exits with its subscription open, as a killed worker does
        text = _render(shared)
    finally:
        _stop(living)
    assert (
        value(text, "fray_commands_total", ruleset="freeform", type="roll", outcome="accepted") == 8
    )
    assert value(text, "fray_open_subscriptions") == 1
