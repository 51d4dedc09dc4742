"""Event store: encounters as Redis streams of opaque, versioned, hashed events."""

from service.store.errors import (
    CommandIdReused,
    EncounterExists,
    EncounterNotFound,
    HubClosed,
    InvalidArgument,
    StoreCorrupted,
    StoreError,
    SubscriberTooSlow,
    SubscriptionFailed,
    VersionConflict,
)
from service.store.events import AppendResult, Deadline, Head, StoredEvent
from service.store.redis_store import EventStore
from service.store.subscriptions import StreamHub, Subscription

__all__ = [
    "AppendResult",
    "CommandIdReused",
    "Deadline",
    "EncounterExists",
    "EncounterNotFound",
    "EventStore",
    "Head",
    "HubClosed",
    "InvalidArgument",
    "StoreCorrupted",
    "StoreError",
    "StoredEvent",
    "StreamHub",
    "SubscriberTooSlow",
    "Subscription",
    "SubscriptionFailed",
    "VersionConflict",
]
