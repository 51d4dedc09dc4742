"""Never append what cannot be read back: each decided event must survive its own round
trip (canonical bytes -> parse -> the same bytes and the same event) before it is stored.

A value that does not (an integer past 64 bits that a JSON reader turns into a float, one
past 53 bits that JavaScript rounds, a field its model cannot read again) would poison the
stream: every later load, and the audit, would fail on it. The limits on what clients send
keep such values out; this check is the last line, so a gap in them refuses one command
instead of breaking an encounter.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import orjson

from service.domain.errors import FrayError
from service.domain.messages import Event
from service.domain.upcasting import UnreadableEvent

if TYPE_CHECKING:
    from service.domain.ruleset import RulesetBase


class Unrecordable(FrayError):
    """A decided event would not read back as itself: nothing is appended. A bug in Fray."""

    code = "internal/unrecordable"


def check_recordable(
    ruleset: RulesetBase[Any],
    events: Sequence[Event],
    envelopes: Sequence[dict[str, Any]],
    bodies: Sequence[bytes],
) -> None:
    """Each event's envelope holds no integer beyond JSON's safe range, and its canonical
    bytes parse back into the same event."""
    for event, envelope, body in zip(events, envelopes, bodies, strict=True):
        problem = _round_trip_problem(ruleset, event, envelope, body)
        if problem is not None:
            raise Unrecordable(
                "the command's events could not be recorded faithfully, so nothing was "
                f"appended ({problem}); this is a fault in Fray, not in the command"
            )


def _round_trip_problem(
    ruleset: RulesetBase[Any], event: Event, envelope: dict[str, Any], body: bytes
) -> str | None:
    kind = envelope["type"]
    try:
        # Past 64 bits a JSON reader (orjson) turns an integer into a float, past 53 bits
        # JavaScript rounds it: checked on what was written, before the parse.
        orjson.dumps(envelope, option=orjson.OPT_STRICT_INTEGER)
    except orjson.JSONEncodeError:
        return f"'{kind}' holds an integer beyond JSON's safe range"
    back = orjson.loads(body)
    try:
        again = ruleset.event_from(back["type"], back["schema"], back["data"])
    except UnreadableEvent as error:
        return f"'{kind}' does not parse again: {error.message}"
    if again != event:
        return f"'{kind}' parses back as a different event"
    return None
