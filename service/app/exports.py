"""The export's header line: what anchors the head of an exported stream (docs/audit.md).

`{"fray_export": 1, "encounter_id", "exported_at", "head", "keys"}`: `head` is the receipt
of the last exported event (None when this Fray signs nothing), `keys` the public keys that
sign receipts. The header is outside the hash chain; every line after it is an envelope.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson

from service.domain.timefmt import iso

EXPORT_FORMAT = 1


def header_line(
    encounter_id: str, now: datetime, head: dict[str, Any] | None, keys: list[dict[str, Any]]
) -> bytes:
    header = {
        "fray_export": EXPORT_FORMAT,
        "encounter_id": encounter_id,
        "exported_at": iso(now),
        "head": head,
        "keys": keys,
    }
    return orjson.dumps(header, option=orjson.OPT_SORT_KEYS) + b"\n"
