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
from pydantic import ValidationError

from service.domain.canonical import canonical_bytes
from service.domain.errors import FrayError
from service.domain.messages import Event

if TYPE_CHECKING:
    from service.domain.ruleset import RulesetBase


class Unrecordable(FrayError):
    """A decided event would not read back as itself: nothing is appended. A bug in Fray."""

    code = "internal/unrecordable"


def check_recordable(
    ruleset: RulesetBase[Any], events: Sequence[Event], bodies: Sequence[bytes]
) -> None:
    for event, body in zip(events, bodies, strict=True):
        problem = _round_trip_problem(ruleset, event, body)
        if problem is not None:
            raise Unrecordable(
                "the command's events could not be recorded faithfully, so nothing was "
                f"appended ({problem}); this is a fault in Fray, not in the command"
            )


def _round_trip_problem(ruleset: RulesetBase[Any], event: Event, body: bytes) -> str | None:
    back = orjson.loads(body)
    if canonical_bytes(back) != body:
        return f"'{back['type']}' does not read back as written"
    try:
        orjson.dumps(back, option=orjson.OPT_STRICT_INTEGER)
    except orjson.JSONEncodeError:
        return f"'{back['type']}' holds an integer beyond JSON's safe range"
    try:
        again = ruleset.event_from(back["type"], back["schema"], back["data"])
    except ValidationError as error:
        return f"'{back['type']}' does not parse again: {error.errors()[0]['msg']}"
    if again != event:
        return f"'{back['type']}' parses back as a different event"
    return None
