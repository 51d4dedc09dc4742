"""The export's header line: what anchors the head of an exported stream (docs/audit.md).

`{"fray_export": 1, "encounter_id", "exported_at", "head", "keys"}`: `head` is the receipt
of the last exported event (None when this Fray signs nothing), `keys` the public keys that
sign receipts. The header is outside the hash chain; every line after it is an envelope.

A redacted export (anyone who may not see every event as stored) has one line per stored
version all the same, so that a player can check how far it links to the signed head
(docs/audit.md, "A player's export"): an event seen whole is its stored bytes; an event with
parts hidden is its envelope as the viewer sees it, with `redacted` naming the members that
were blanked (beside the envelope's own, outside its hash, as an SSE frame's `receipt`);
an event left out is `{"left_out": true, "version": v}`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson

from service.domain.canonical import canonical_bytes
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


def shown_line(stored: bytes, full: dict[str, Any], seen: dict[str, Any] | None) -> bytes:
    """A redacted export's line for one stored event: `full` is its envelope as stored,
    `seen` as the viewer may see it (None when it is left out)."""
    if seen is None:
        return canonical_bytes({"left_out": True, "version": full["version"]}) + b"\n"
    blanked = sorted(k for k in full.keys() | seen.keys() if seen.get(k) != full.get(k))
    if not blanked:
        return stored + b"\n"
    return canonical_bytes({**seen, "redacted": blanked}) + b"\n"
