"""A tenant's index of encounters: what both stores share of it.

Each store keeps, per tenant, every encounter stored under `<tenant>/` (`service.domain.ids.
stream_id`; bare ids under no tenant) ordered by its `updated` time, newest first, ties by
stored id, highest first. The meta hash is the truth (`status`, `created`, `updated`, the
caller's `ruleset`, `ruleset_version`, `title`); the index only orders and finds: a page
reads each entry's meta, drops an entry whose encounter is gone (expired) once it is older
than `GHOST_GRACE_MS`, and re-scores one whose meta says another time.

The entry is written at each change of status and otherwise at most once per
`INDEX_LAG_MS`, so it may trail the meta's `updated` by that much: the order is the index's
(newest first to within a second for an encounter in play), the bounds the meta's.

Times in the index are whole milliseconds since the epoch; the meta keeps them as seconds
with three decimals ("1767225600.123"), as `created` always was (and `indexed`, the time
of the last index write asked for, in ms).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from service.store.errors import InvalidArgument

ACTIVE, ENDED, ARCHIVED = "active", "ended", "archived"
STATUSES = (ACTIVE, ENDED, ARCHIVED)
# A status under which the encounter is kept for the retention period, then expires.
RETAINED = (ENDED, ARCHIVED)
# An entry whose meta is missing may be an encounter being created right now (its entry is
# written first); only one older than this is taken for gone and dropped.
GHOST_GRACE_MS = 60_000
# An encounter in play is placed in its tenant's index again at most once per this long
# (and at each change of status), so a burst of commands costs one index write a second,
# not one each: an entry may trail its meta's `updated` by up to this much, and a page
# reads that much further back than `oldest` to find them all.
INDEX_LAG_MS = 1_000


@dataclass(frozen=True, slots=True, order=True)
class Position:
    """An entry of a tenant's index: its updated time (ms) and stored id. A page starts
    after a position: at entries older, or as old with a lower id."""

    updated: int
    encounter_id: str


@dataclass(frozen=True, slots=True)
class Listed:
    """An encounter found in the index: where it sits there, and its meta."""

    position: Position
    meta: dict[str, str]

    @property
    def encounter_id(self) -> str:
        return self.position.encounter_id


@dataclass(frozen=True, slots=True)
class IndexPage:
    listed: list[Listed]
    # The last entry read (gone ones included): the next page starts after it. None when
    # the index holds no more within the bounds.
    last: Position | None


def millis(seconds: str) -> int:
    return round(float(seconds) * 1000)


def seconds_text(ms: int) -> str:
    return f"{ms // 1000}.{ms % 1000:03d}"


def updated_of(meta: Mapping[str, str]) -> int:
    """The meta's updated time (ms); its created time for an encounter stored before the
    store kept `updated`."""
    return millis(meta.get("updated") or meta["created"])


def check_page(count: int, newest: int | None, oldest: int | None) -> None:
    if count < 1:
        raise InvalidArgument(f"count must be at least 1, got {count}")
    for name, bound in (("newest", newest), ("oldest", oldest)):
        if bound is not None and bound < 0:
            raise InvalidArgument(f"{name} must not be negative, got {bound}")


def check_status(status: str | None) -> None:
    if status is not None and status not in (ACTIVE, ENDED):
        raise InvalidArgument(f"an append sets status active or ended, not {status!r}")


def within(updated: int, newest: int | None, oldest: int | None) -> bool:
    return (newest is None or updated <= newest) and (oldest is None or updated >= oldest)


def select(
    entries: Mapping[str, int],
    count: int,
    after: Position | None,
    newest: int | None,
    oldest: int | None,
) -> list[Position]:
    """The first `count` positions of an index held as a mapping (stored id -> updated)
    after `after` within the bounds, newest first: a page as the Redis store reads one."""
    positions = (Position(updated, eid) for eid, updated in entries.items())
    chosen = (
        p for p in positions if within(p.updated, newest, oldest) and (after is None or p < after)
    )
    return sorted(chosen, reverse=True)[:count]
