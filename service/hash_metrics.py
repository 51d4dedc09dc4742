"""Metrics kept as fields of one Redis hash per subject (deadlines, audits, webhooks), so
every API instance's /metrics shows what every worker counted: a histogram is its bucket
counts (`<prefix>:le:<bound>`), `<prefix>:count` and `<prefix>:sum`, rendered in the
Prometheus text format when scraped."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def observe(pipe: Any, key: str, prefix: str, buckets: Sequence[float], value: float) -> None:
    """Queue on `pipe` (a redis pipeline) the writes that count `value` in the histogram."""
    for bound in buckets:
        if value <= bound:
            pipe.hincrby(key, f"{prefix}:le:{bound:g}", 1)
    pipe.hincrby(key, f"{prefix}:count", 1)
    pipe.hincrbyfloat(key, f"{prefix}:sum", value)


def histogram_lines(
    name: str, help_text: str, fields: Mapping[str, str], prefix: str, buckets: Sequence[float]
) -> list[str]:
    """The Prometheus lines of the histogram `name` kept under `prefix` in `fields`."""
    lines = [f"# HELP {name} {help_text}", f"# TYPE {name} histogram"]
    for bound in buckets:
        count = fields.get(f"{prefix}:le:{bound:g}", "0")
        lines.append(f'{name}_bucket{{le="{bound:g}"}} {count}')
    count = fields.get(f"{prefix}:count", "0")
    return [
        *lines,
        f'{name}_bucket{{le="+Inf"}} {count}',
        f"{name}_sum {fields.get(f'{prefix}:sum', '0')}",
        f"{name}_count {count}",
    ]


def texts(raw: Mapping[bytes | str, bytes | str]) -> dict[str, str]:
    """A hash as Redis answered it (bytes or str), as text."""
    return {_text(k): _text(v) for k, v in raw.items()}


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
