"""Errors raised by the event store and the stream hub.

Every error carries a stable `code` that callers (the API layer) can map to responses
without matching on messages.
"""

from __future__ import annotations

import redis.exceptions

from service.domain.errors import FrayError

RETRY_AFTER = 2
"""Seconds a client is told to wait before it tries again while the store is away."""


class StoreError(Exception):
    """Base class of every error the store raises on purpose."""

    code: str = "store/error"


class InvalidArgument(StoreError, ValueError):
    """A caller passed something the store refuses before touching Redis."""

    code = "store/invalid-argument"


class VersionConflict(StoreError):
    """The encounter is not at the version the writer expected."""

    code = "store/version-conflict"

    def __init__(self, expected: int, actual: int) -> None:
        super().__init__(f"expected version {expected} but the encounter is at version {actual}")
        self.expected = expected
        self.actual = actual


class CommandIdReused(StoreError):
    """A command id that was already recorded came back with a different fingerprint."""

    code = "store/command-id-reused"

    def __init__(self, command_id: str) -> None:
        super().__init__(f"command id {command_id!r} was already used for a different command")
        self.command_id = command_id


class EncounterNotFound(StoreError):
    code = "store/encounter-not-found"

    def __init__(self, encounter_id: str) -> None:
        super().__init__(f"encounter {encounter_id!r} does not exist")
        self.encounter_id = encounter_id


class EncounterExists(StoreError):
    code = "store/encounter-exists"

    def __init__(self, encounter_id: str) -> None:
        super().__init__(f"encounter {encounter_id!r} already exists")
        self.encounter_id = encounter_id


class EncounterArchived(StoreError):
    """The encounter is archived: it takes no more appends."""

    code = "store/encounter-archived"

    def __init__(self, encounter_id: str) -> None:
        super().__init__(f"encounter {encounter_id!r} is archived")
        self.encounter_id = encounter_id


class StoreCorrupted(StoreError):
    """The encounter's metadata and its stream disagree; the store refuses to write."""

    code = "store/corrupted"

    def __init__(self, encounter_id: str, meta_version: int, stream_version: int) -> None:
        super().__init__(
            f"encounter {encounter_id!r}: meta says version {meta_version} "
            f"but the stream ends at version {stream_version}"
        )
        self.encounter_id = encounter_id
        self.meta_version = meta_version
        self.stream_version = stream_version


class HubClosed(StoreError):
    """The stream hub is not running (never started, or stopped under a subscriber)."""

    code = "store/hub-closed"

    def __init__(self) -> None:
        super().__init__("the stream hub is not running")


class SubscriberTooSlow(StoreError):
    """A subscriber's queue filled up, so the hub dropped it to keep the others flowing."""

    code = "store/subscriber-too-slow"

    def __init__(self, encounter_id: str, last_version: int) -> None:
        super().__init__(
            f"subscriber to encounter {encounter_id!r} fell behind and was dropped; "
            f"resubscribe after version {last_version}"
        )
        self.encounter_id = encounter_id
        self.last_version = last_version


class SubscriptionFailed(StoreError):
    """The hub's reader hit an unexpected error; the cause is chained."""

    code = "store/subscription-failed"

    def __init__(self, encounter_id: str, last_version: int) -> None:
        super().__init__(
            f"subscription to encounter {encounter_id!r} failed after version {last_version}"
        )
        self.encounter_id = encounter_id
        self.last_version = last_version


class StoreUnavailable(FrayError, redis.exceptions.ConnectionError):
    """Redis does not answer (down, unreachable, loading, read-only after a failover, out
    of connections). A FrayError, so every edge answers it the same way (503 with
    Retry-After, the same code in GraphQL), and a redis ConnectionError, so the code that
    reconnects on one (the stream hub) goes on doing so. A command whose answer was lost
    may or may not have been appended: retrying it with the same command id is safe."""

    code = "store/unavailable"

    def __init__(self, cause: str) -> None:
        super().__init__(
            f"Fray's event store is not answering ({cause}); try again in {RETRY_AFTER} s "
            "(a command retried with the same command_id is never applied twice)",
            details={"retry_after": RETRY_AFTER},
        )
        self.retry_after = RETRY_AFTER


# What redis-py raises while the server is away: these become StoreUnavailable.
UNAVAILABLE: tuple[type[Exception], ...] = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    redis.exceptions.ReadOnlyError,
    redis.exceptions.ClusterDownError,
    redis.exceptions.TryAgainError,
)
# Their error replies' prefixes, for the multiplexed client that reads replies itself.
UNAVAILABLE_REPLIES = ("LOADING", "READONLY", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN")
