"""The API processes' own metrics (commands, refusals, appends, live subscriptions), kept by
prometheus_client.

One process keeps its values in memory. Under `fray serve --workers N` every worker keeps
them in mmap files in PROMETHEUS_MULTIPROC_DIR (prometheus_client's multiprocess mode,
chosen when it is imported, from the environment: `multiprocess_directory` below sets it
up before uvicorn starts the workers), and whichever worker answers `/metrics` adds up the
files of all of them, so one scrape reports the whole group. What `fray worker` processes
count (deadlines, audits, webhook deliveries) is kept in Redis instead
(`service/*_metrics.py`): they run on other hosts than the API, where no file is shared.
"""

from __future__ import annotations

import atexit
import glob
import os
import shutil
import tempfile
from collections.abc import AsyncGenerator
from typing import TypeVar

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
    values,
)
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

T = TypeVar("T")

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

# Seconds to handle a command in this process: every bound of the hand-written registry
# before, and more between 0.5 and 35 ms, where p50 and p99 fall (docs/benchmarks.md: p50
# 0.7-37 ms and p99 1.3-200 ms, by load).
COMMAND_BUCKETS = (
    0.0005, 0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.025, 0.035, 0.05, 0.1, 0.25,
    0.5, 1.0, 2.5, 5.0,
)  # fmt: skip

# Without `<name>_created` series: a multiprocess scrape has none, so both modes expose the
# same series, and a counter is one line per label set, not two.
disable_created_metrics()  # type: ignore[no-untyped-call]  # untyped in prometheus_client


class Metrics:
    def __init__(self) -> None:
        self._directory = _multiprocess_directory()
        # Each app its own registry (tests build many apps in one process), never the
        # global one.
        self._registry = CollectorRegistry(auto_describe=False)
        registry = self._registry
        self._commands = Counter(
            "fray_commands",
            "Commands handled, by ruleset, type and outcome.",
            ("ruleset", "type", "outcome"),
            registry=registry,
        )
        self._seconds = Histogram(
            "fray_command_seconds",
            "Time to handle a command, by ruleset and type.",
            ("ruleset", "type"),
            buckets=COMMAND_BUCKETS,
            registry=registry,
        )
        self._rejections = Counter(
            "fray_rejections", "Requests rejected, by error code.", ("code",), registry=registry
        )
        self._appends = Counter(
            "fray_appends", "Events appended to encounter streams.", registry=registry
        )
        # `livesum`: the sum over the live workers; a dead worker's followers are gone.
        self._subscriptions = Gauge(
            "fray_open_subscriptions",
            "Open live subscriptions (SSE and GraphQL).",
            registry=registry,
            multiprocess_mode="livesum",
        )
        # prometheus_client's `labels()` costs 2 µs a call; a label set's children, kept
        # here, leave a command 2-3 µs of metrics in one process (as the hand-written
        # registry before) and 5-12 µs in multiprocess mode (docs/benchmarks.md, "Metrics").
        self._children: dict[tuple[str, str, str], tuple[Counter, Histogram]] = {}

    @property
    def multiprocess(self) -> bool:
        return self._directory is not None

    def command(self, ruleset: str, kind: str, outcome: str, seconds: float) -> None:
        key = (ruleset, kind, outcome)
        children = self._children.get(key)
        if children is None:
            children = self._children[key] = (
                self._commands.labels(ruleset, kind, outcome),
                self._seconds.labels(ruleset, kind),
            )
        count, seconds_of = children
        count.inc()
        seconds_of.observe(seconds)

    def appended(self, events: int) -> None:
        self._appends.inc(events)

    def rejected(self, code: str) -> None:
        self._rejections.labels(code).inc()

    async def followed(self, items: AsyncGenerator[T, None]) -> AsyncGenerator[T, None]:
        """`items` (a live subscription), counted in `fray_open_subscriptions` while they
        are followed: from the first read until closed."""
        self._subscriptions.inc()
        try:
            async for item in items:
                yield item
        finally:
            self._subscriptions.dec()
            await items.aclose()

    def render(self) -> str:
        """These metrics in the Prometheus text format: this process's, or, in multiprocess
        mode, the sum over every worker's files."""
        if self._directory is None:
            return generate_latest(self._registry).decode()
        bury_dead(self._directory)
        registry = CollectorRegistry(auto_describe=False)
        MultiProcessCollector(registry, path=self._directory)  # type: ignore[no-untyped-call]
        return generate_latest(registry).decode()


def _multiprocess_directory() -> str | None:
    """Where this process's values are kept, when prometheus_client keeps them in files
    (it decided when it was imported, from PROMETHEUS_MULTIPROC_DIR)."""
    if not getattr(values.ValueClass, "_multiprocess", False):
        return None
    return os.environ[MULTIPROC_ENV]


def bury_dead(directory: str) -> None:
    """Drop the live gauges of workers that have exited: uvicorn replaces a worker that
    died without telling anyone, so the living check at each scrape. (Counters and
    histograms of dead workers stay: what they counted happened.)"""
    for path in glob.glob(os.path.join(directory, "gauge_live*_*.db")):
        pid = int(os.path.basename(path).removesuffix(".db").rsplit("_", 1)[1])
        if not _alive(pid):
            mark_process_dead(pid, directory)  # type: ignore[no-untyped-call]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: not one of ours, but not ours to judge
    return True


def multiprocess_directory(workers: int) -> str | None:
    """Set up PROMETHEUS_MULTIPROC_DIR for `fray serve`, before the workers start: the
    operator's directory emptied of a previous run's files, or, for more than one worker
    and none set, a private one, removed when this process exits. None when the workers
    keep their metrics in memory (one worker, no directory set)."""
    directory = os.environ.get(MULTIPROC_ENV)
    if directory:
        os.makedirs(directory, exist_ok=True)
        for stale in glob.glob(os.path.join(directory, "*.db")):
            os.remove(stale)
        return directory
    if workers <= 1:
        return None
    directory = tempfile.mkdtemp(prefix="fray-metrics-")
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    os.environ[MULTIPROC_ENV] = directory
    return directory
