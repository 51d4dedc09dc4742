"""An export read back: its header line, then one canonical envelope per line.

The header (`{"fray_export": 1, ...}`, docs/audit.md) is outside the hash chain: it carries
the receipt of the last exported event and the keys that sign receipts, which anchor the
head of the chain. Every other line must be the canonical JSON of an envelope.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from service.domain.canonical import canonical_bytes
from service.domain.envelope import Envelope


@dataclass
class Export:
    header: dict[str, Any] | None = None
    envelopes: list[Envelope] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # lines that are not envelopes
    lines: int = 0  # envelope lines read


def read_export(lines: Iterable[bytes]) -> Export:
    export = Export()
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip(b"\n")
        if not line:
            continue
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError as error:
            export.problems.append(f"line {number}: not JSON ({error})")
            continue
        if number == 1 and isinstance(value, dict) and "fray_export" in value:
            export.header = value
            continue
        export.lines += 1
        if not isinstance(value, dict):
            export.problems.append(f"line {number}: not an event envelope (not a JSON object)")
            continue
        try:
            envelope = Envelope.from_dict(value)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            export.problems.append(f"line {number}: not an event envelope ({error!r})")
            continue
        if canonical_bytes(envelope.to_dict()) != line:
            export.problems.append(
                f"line {number}: not in canonical form (edited after it was written?)"
            )
        export.envelopes.append(envelope)
    return export


def parse_lines(lines: Iterable[bytes]) -> tuple[list[Envelope], list[str]]:
    """The envelopes of an export (its header skipped) and the lines that are not."""
    export = read_export(lines)
    return export.envelopes, export.problems
