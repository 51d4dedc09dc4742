"""Server times are ISO 8601 UTC strings with milliseconds, e.g. 2026-11-21T19:24:17.123Z."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


def iso(moment: datetime) -> str:
    # isoformat of a UTC time ends "+00:00" (twice as fast as strftime, which also leaves
    # a year before 1000 unpadded).
    return moment.astimezone(UTC).isoformat(timespec="milliseconds")[:-6] + "Z"


def to_millis(moment: datetime) -> datetime:
    """`moment` in UTC, cut to the millisecond: what `parse_iso(iso(moment))` reads back."""
    utc = moment.astimezone(UTC)
    return utc.replace(microsecond=utc.microsecond // 1000 * 1000)


def parse_iso(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def later(moment: datetime, seconds: float) -> str:
    return iso(moment + timedelta(seconds=seconds))


def millis_between(start: datetime, end: datetime) -> int:
    return int((end - start) / timedelta(milliseconds=1))
