"""Value types of the event store. Event bodies are opaque bytes: the store never parses them."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from service.store.errors import InvalidArgument

BODY_FIELD = b"e"
HASH_FIELD = b"h"


@dataclass(frozen=True, slots=True)
class StoredEvent:
    version: int
    hash: str
    body: bytes


@dataclass(frozen=True, slots=True)
class Deadline:
    """A timer owned by an encounter; `key` names it, so setting the same key again moves it."""

    key: str
    due: float  # epoch seconds
    payload: bytes


@dataclass(frozen=True, slots=True)
class AppendResult:
    """The versions an append wrote (or, if `duplicate`, wrote the first time).

    An empty append is the empty range first_version = version + 1, last_version = version.
    """

    first_version: int
    last_version: int
    duplicate: bool

    @property
    def count(self) -> int:
        return self.last_version - self.first_version + 1


@dataclass(frozen=True, slots=True)
class Head:
    version: int
    hash: str


def stream_id(version: int) -> str:
    return f"{version}-0"


def version_of(entry_id: bytes | str) -> int:
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    return int(text.split("-", 1)[0])


def event_from_entry(
    entry_id: bytes | str, fields: Mapping[bytes | str, bytes | str]
) -> StoredEvent:
    # Field names come back as bytes or str depending on how the client was built.
    body = fields.get(BODY_FIELD, fields.get(BODY_FIELD.decode(), b""))
    digest = fields.get(HASH_FIELD, fields.get(HASH_FIELD.decode(), b""))
    return StoredEvent(
        version=version_of(entry_id),
        hash=digest.decode() if isinstance(digest, bytes) else digest,
        body=body.encode() if isinstance(body, str) else body,
    )


def check_due(due: float) -> float:
    """A due time as every store keeps it: a finite double."""
    value = float(due)
    if not math.isfinite(value):
        raise InvalidArgument(f"deadline due time must be finite, got {due!r}")
    return value


def score_text(due: float) -> str:
    """A due time as Redis reads it back to the same double (repr round-trips)."""
    return repr(check_due(due))
