"""The argument checks and rules every store applies alike.

Each store calls these before it touches its data, so a refused call writes nothing and
every store refuses the same calls with the same `InvalidArgument`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from service.store.errors import InvalidArgument
from service.store.events import AppendResult, Deadline, StoredEvent, check_due

RESERVED_META = frozenset({"version", "hash", "created", "updated", "status", "indexed"})
# What `fill_meta` may not set: the head, the creation time and the index's bookkeeping
# are the store's alone.
UNFILLABLE_META = frozenset({"version", "hash", "created", "indexed"})

# Braces would break the Redis store's hash tag and whitespace makes keys hard to handle in
# tooling; every store refuses the same ids, so an encounter can move between stores.
_ENCOUNTER_ID = re.compile(r"[^{}\s]{1,200}")


def check_encounter_id(encounter_id: str) -> str:
    if not isinstance(encounter_id, str) or not _ENCOUNTER_ID.fullmatch(encounter_id):
        raise InvalidArgument(
            f"invalid encounter id {encounter_id!r}: 1-200 characters, no braces or whitespace"
        )
    return encounter_id


def retention_ms(retention: float | None) -> int:
    """A retention period (seconds; None: for ever) as the scripts take it (ms; 0: for ever)."""
    if retention is None:
        return 0
    if not retention > 0:
        raise InvalidArgument(f"retention must be a positive number of seconds, got {retention}")
    return max(1, round(retention * 1000))


# A stream ticket's id is random base64url, as `service.app.tickets` makes it.
_TICKET_ID = re.compile(r"[A-Za-z0-9_-]{16,128}")


def check_ticket_id(ticket_id: str) -> str:
    if not isinstance(ticket_id, str) or not _TICKET_ID.fullmatch(ticket_id):
        raise InvalidArgument(
            f"invalid ticket id {ticket_id!r}: 16-128 letters, digits, '-' or '_'"
        )
    return ticket_id


def check_ttl(ttl_ms: int) -> int:
    if ttl_ms < 1:
        raise InvalidArgument(f"a ticket's time to live must be at least 1 ms, got {ttl_ms}")
    return ttl_ms


def check_snapshot_every(snapshot_every: int) -> int:
    if snapshot_every < 1:
        raise InvalidArgument("snapshot_every must be at least 1")
    return snapshot_every


def check_create(first: StoredEvent, meta: Mapping[str, str]) -> None:
    if first.version != 1:
        raise InvalidArgument(f"the first event must be version 1, got {first.version}")
    clash = RESERVED_META.intersection(meta)
    if clash:
        raise InvalidArgument(f"meta fields {sorted(clash)} are reserved by the store")


def check_fill(fields: Mapping[str, str]) -> None:
    clash = UNFILLABLE_META.intersection(fields)
    if clash:
        raise InvalidArgument(f"meta fields {sorted(clash)} are kept by the store alone")


def check_append(
    expected_version: int,
    command_id: str,
    events: Sequence[StoredEvent],
    deadlines: Sequence[Deadline],
    cancel: Sequence[str],
) -> None:
    if expected_version < 0:
        raise InvalidArgument(f"expected_version must not be negative, got {expected_version}")
    if not command_id:
        raise InvalidArgument("command_id must not be empty")
    for offset, event in enumerate(events, start=1):
        if event.version != expected_version + offset:
            raise InvalidArgument(
                f"event {offset} of the append has version {event.version}, "
                f"expected {expected_version + offset}"
            )
    set_keys = [deadline.key for deadline in deadlines]
    for deadline in deadlines:
        _check_deadline_key(deadline.key)
        check_due(deadline.due)
    if len(set(set_keys)) != len(set_keys):
        raise InvalidArgument(f"a deadline key is set twice in one append: {set_keys}")
    both = set(set_keys).intersection(cancel)
    if both:
        raise InvalidArgument(f"deadlines both set and cancelled in one append: {sorted(both)}")


def check_deadline(encounter_id: str, deadline: Deadline, key: str | None = None) -> None:
    """A deadline set outside an append: a key, a due time; a move keeps its key."""
    check_encounter_id(encounter_id)
    _check_deadline_key(deadline.key)
    if key is not None and deadline.key != key:
        raise InvalidArgument(f"a moved deadline keeps its key: {key!r}, not {deadline.key!r}")
    check_due(deadline.due)


# The Redis store's count of an encounter's outbox changes lives beside the deadlines'
# payloads under this name (`service.store.scripts.OUTBOX_GEN`).
RESERVED_DEADLINE_KEY = "\x00gen"


def _check_deadline_key(key: str) -> None:
    if not key:
        raise InvalidArgument("deadline keys must not be empty")
    if key == RESERVED_DEADLINE_KEY:
        raise InvalidArgument(f"the deadline key {key!r} is reserved")


def check_read(after: int, limit: int | None) -> None:
    if after < 0:
        raise InvalidArgument(f"after must not be negative, got {after}")
    if limit is not None and limit < 0:
        raise InvalidArgument(f"limit must not be negative, got {limit}")


def check_snapshot_version(version: int) -> None:
    if version < 1:
        raise InvalidArgument(f"snapshot version must be at least 1, got {version}")


def check_audit_version(version: int) -> None:
    if version < 1:
        raise InvalidArgument(f"audited version must be at least 1, got {version}")


def tenant_of(encounter_id: str) -> str | None:
    """The tenant an encounter is stored under (`service.domain.ids.stream_id`)."""
    tenant, sep, _ = encounter_id.rpartition("/")
    return tenant if sep else None


def snapshot_due(snapshot_every: int, result: AppendResult) -> bool:
    """Whether an append crossed a multiple of `snapshot_every`."""
    if result.duplicate or result.count <= 0:
        return False
    return result.last_version // snapshot_every > (result.first_version - 1) // snapshot_every
