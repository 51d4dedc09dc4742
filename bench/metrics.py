"""What the metrics cost a command (issue 25, item 3): `Metrics.command` and
`Metrics.appended`, as `Encounters._record` calls them once per command, in CPU µs.

Three registries, each in a fresh Python process of its own (prometheus_client chooses its
mode when imported): the hand-written registry Fray had before (its hot path, copied below
as the baseline), prometheus_client in one process (values in memory), and
prometheus_client in multiprocess mode (values in mmap files, `fray serve --workers N`).
Beside it: one histogram observation and one counter increment alone, and a scrape
(`Metrics.render`) in each mode, in multiprocess mode reading and adding up the files of
two workers.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import timeit
from collections import defaultdict
from dataclasses import dataclass

from bench.core import Outcome
from bench.report import Row, median, progress

LABELS = ("freeform", "add-note", "accepted")


@dataclass
class Settings:
    number: int = 20_000  # calls per timing
    repeat: int = 7  # timings; the median of their minimums is reported
    label_sets: int = 40  # label sets the scrape adds up (ruleset x type x outcome)

    @classmethod
    def quick(cls) -> Settings:
        return cls(number=2_000, repeat=3, label_sets=10)


class HandWritten:
    """The hot path of Fray's hand-written registry (service/app/metrics.py before
    prometheus_client), kept here as the baseline."""

    BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)

    def __init__(self) -> None:
        self._counters: dict[str, dict[tuple[tuple[str, str], ...], float]] = defaultdict(
            lambda: defaultdict(float)
        )
        self._histograms: dict[tuple[tuple[str, str], ...], list[float]] = {}
        self._sums: dict[tuple[tuple[str, str], ...], float] = defaultdict(float)

    def inc(self, name: str, labels: tuple[tuple[str, str], ...] = (), by: float = 1) -> None:
        self._counters[name][labels] += by

    def command(self, ruleset: str, kind: str, outcome: str, seconds: float) -> None:
        self.inc(
            "fray_commands_total", (("ruleset", ruleset), ("type", kind), ("outcome", outcome))
        )
        labels = (("ruleset", ruleset), ("type", kind))
        counts = self._histograms.setdefault(labels, [0.0] * (len(self.BUCKETS) + 1))
        for index, bound in enumerate(self.BUCKETS):
            if seconds <= bound:
                counts[index] += 1
        counts[-1] += 1
        self._sums[labels] += seconds

    def appended(self, events: int) -> None:
        self.inc("fray_appends_total", by=events)


def _per_call(fn: object, settings: Settings) -> float:
    """µs per call: the median over `repeat` timings of the best of three."""
    timer = timeit.Timer(fn)  # type: ignore[arg-type]
    runs = [min(timer.repeat(3, settings.number)) / settings.number for _ in range(settings.repeat)]
    return median(runs) * 1e6


def measure(registry: str, settings: Settings) -> dict[str, float]:
    """In this process: µs per command's metrics, per observation and per increment."""
    if registry == "hand-written":
        old = HandWritten()

        def old_command() -> None:
            old.command(*LABELS, 0.0031)
            old.appended(1)

        return {"command": _per_call(old_command, settings)}
    from service.app.metrics import Metrics

    metrics = Metrics()
    assert metrics.multiprocess == (registry == "multiprocess")

    def command() -> None:
        metrics.command(*LABELS, 0.0031)
        metrics.appended(1)

    command()  # the label set's children made, as after a process's first command
    count, seconds = metrics._children[LABELS]
    figures = {
        "command": _per_call(command, settings),
        "observe": _per_call(lambda: seconds.observe(0.0031), settings),
        "inc": _per_call(count.inc, settings),
    }
    for index in range(settings.label_sets):
        metrics.command("freeform", f"type-{index}", "accepted", 0.0031)
    scrape = timeit.Timer(metrics.render)
    figures["scrape"] = median(scrape.repeat(settings.repeat, 5)) / 5 * 1e6
    figures["scrape_bytes"] = float(len(metrics.render()))
    return figures


def _in_a_process(registry: str, settings: Settings, directory: str | None) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    if directory is not None:
        env["PROMETHEUS_MULTIPROC_DIR"] = directory
    args = [str(settings.number), str(settings.repeat), str(settings.label_sets)]
    done = subprocess.run(
        [sys.executable, "-m", "bench.metrics", registry, *args],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    figures: dict[str, float] = json.loads(done.stdout)
    return figures


def run(settings: Settings) -> Outcome:
    outcome = Outcome()
    progress("metrics: the hand-written registry")
    old = _in_a_process("hand-written", settings, None)
    progress("metrics: prometheus_client, one process")
    single = _in_a_process("in-memory", settings, None)
    directory = tempfile.mkdtemp(prefix="fray-bench-metrics-")
    try:
        progress("metrics: prometheus_client, multiprocess mode (a second worker's files too)")
        _in_a_process("multiprocess", settings, directory)  # the other worker's files
        multi = _in_a_process("multiprocess", settings, directory)
    finally:
        shutil.rmtree(directory)
    base = old["command"]
    outcome.rows += [
        Row("Metrics per command: hand-written registry (before)", f"{base:.2f} µs"),
        Row(
            "Metrics per command: prometheus_client, one process",
            f"{single['command']:.2f} µs = {single['command'] / base:.1f} times before",
            notes=f"observe {single['observe']:.2f} µs, inc {single['inc']:.2f} µs",
        ),
        Row(
            "Metrics per command: prometheus_client, multiprocess (mmap files)",
            f"{multi['command']:.2f} µs = {multi['command'] / base:.1f} times before",
            notes=f"observe {multi['observe']:.2f} µs, inc {multi['inc']:.2f} µs",
        ),
        Row(
            f"Scrape (`Metrics.render`), one process, {settings.label_sets + 1} label sets",
            f"{single['scrape'] / 1000:.2f} ms",
            notes=f"{single['scrape_bytes'] / 1024:.0f} KiB of text",
        ),
        Row(
            f"Scrape, multiprocess: 2 workers' files, {settings.label_sets + 1} label sets each",
            f"{multi['scrape'] / 1000:.2f} ms",
            notes=f"{multi['scrape_bytes'] / 1024:.0f} KiB of text",
        ),
    ]
    return outcome


if __name__ == "__main__":
    registry, number, repeat, label_sets = sys.argv[1:]
    chosen = Settings(number=int(number), repeat=int(repeat), label_sets=int(label_sets))
    print(json.dumps(measure(registry, chosen)))
