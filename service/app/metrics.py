"""A tiny Prometheus registry: counters, one histogram, and gauges read when scraped."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
Labels = tuple[tuple[str, str], ...]

HELP = {
    "fray_commands_total": ("counter", "Commands handled, by ruleset, type and outcome."),
    "fray_command_seconds": ("histogram", "Time to handle a command, by ruleset and type."),
    "fray_rejections_total": ("counter", "Requests rejected, by error code."),
    "fray_appends_total": ("counter", "Events appended to encounter streams."),
    "fray_open_subscriptions": ("gauge", "Open event subscriptions (SSE) in this process."),
}


def _labels(labels: Labels) -> str:
    if not labels:
        return ""
    inner = ",".join(f'{k}="{_escape(v)}"' for k, v in labels)
    return "{" + inner + "}"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


class Metrics:
    def __init__(self) -> None:
        self._counters: dict[str, dict[Labels, float]] = defaultdict(lambda: defaultdict(float))
        self._histograms: dict[Labels, list[float]] = {}
        self._sums: dict[Labels, float] = defaultdict(float)
        self._gauges: dict[str, Callable[[], float]] = {}

    def inc(self, name: str, labels: Labels = (), by: float = 1) -> None:
        self._counters[name][labels] += by

    def rejected(self, code: str) -> None:
        self.inc("fray_rejections_total", (("code", code),))

    def command(self, ruleset: str, kind: str, outcome: str, seconds: float) -> None:
        self.inc(
            "fray_commands_total", (("ruleset", ruleset), ("type", kind), ("outcome", outcome))
        )
        labels = (("ruleset", ruleset), ("type", kind))
        counts = self._histograms.setdefault(labels, [0.0] * (len(BUCKETS) + 1))
        for index, bound in enumerate(BUCKETS):
            if seconds <= bound:
                counts[index] += 1
        counts[-1] += 1
        self._sums[labels] += seconds

    def gauge(self, name: str, read: Callable[[], float]) -> None:
        self._gauges[name] = read

    def render(self) -> str:
        lines: list[str] = []
        for name, (kind, text) in HELP.items():
            lines += [f"# HELP {name} {text}", f"# TYPE {name} {kind}"]
            if kind == "counter":
                for labels, value in sorted(self._counters.get(name, {}).items()):
                    lines.append(f"{name}{_labels(labels)} {value:g}")
            elif kind == "gauge" and name in self._gauges:
                lines.append(f"{name} {self._gauges[name]():g}")
            elif kind == "histogram":
                lines += self._render_histogram(name)
        return "\n".join(lines) + "\n"

    def _render_histogram(self, name: str) -> list[str]:
        lines = []
        for labels, counts in sorted(self._histograms.items()):
            for bound, count in zip((*BUCKETS, "+Inf"), counts, strict=True):
                le: Labels = (("le", bound if isinstance(bound, str) else f"{bound:g}"),)
                lines.append(f"{name}_bucket{_labels(labels + le)} {count:g}")
            lines.append(f"{name}_sum{_labels(labels)} {self._sums[labels]:g}")
            lines.append(f"{name}_count{_labels(labels)} {counts[-1]:g}")
        return lines
