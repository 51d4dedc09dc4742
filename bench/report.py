"""Rows of the results table, timing helpers and the markdown rendering."""

from __future__ import annotations

import cProfile
import io
import pstats
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

MET = "met"
NOT_MET = "**not met**"


@dataclass
class Row:
    """One line of the table: a measured figure, and its target if the issue sets one."""

    benchmark: str
    measured: str
    target: str = "—"
    result: str = "context"
    notes: str = ""


@dataclass
class Miss:
    """A target that was missed, with a way to profile the workload behind it."""

    name: str
    profile: Callable[[cProfile.Profile], None]


def verdict(ok: bool) -> str:
    return MET if ok else NOT_MET


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def timed(fn: Callable[[], object]) -> float:
    """Seconds one call of fn takes."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def rate(value: float, unit: str) -> str:
    return f"{value:,.0f} {unit}"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms" if seconds < 1 else f"{seconds * 1000:,.0f} ms"


def progress(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def table(rows: Sequence[Row]) -> str:
    header = ("Benchmark", "Measured", "Target", "Result", "Notes")
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join(["---"] * len(header)) + "|",
    ]
    for row in rows:
        cells = (row.benchmark, row.measured, row.target, row.result, row.notes)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def hot_spots(profile: cProfile.Profile, limit: int = 18) -> str:
    """The top functions of a profile by own time, then by cumulative time."""
    out = io.StringIO()
    stats = pstats.Stats(profile, stream=out)
    stats.strip_dirs()
    stats.sort_stats("tottime").print_stats(limit)
    stats.sort_stats("cumulative").print_stats(limit)
    return out.getvalue()
