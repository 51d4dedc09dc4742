"""Event stores: encounters as streams of opaque, versioned, hashed events.

`Store` is the contract; `EventStore` keeps encounters in Redis, `MemoryStore` in memory.
"""

from service.store.errors import (
    CommandIdReused,
    EncounterArchived,
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
from service.store.memory import MemoryStore
from service.store.protocol import Store
from service.store.redis_store import EventStore
from service.store.subscriptions import StreamHub, Subscription

__all__ = [
    "AppendResult",
    "CommandIdReused",
    "Deadline",
    "EncounterArchived",
    "EncounterExists",
    "EncounterNotFound",
    "EventStore",
    "Head",
    "HubClosed",
    "InvalidArgument",
    "MemoryStore",
    "Store",
    "StoreCorrupted",
    "StoreError",
    "StoredEvent",
    "StreamHub",
    "SubscriberTooSlow",
    "Subscription",
    "SubscriptionFailed",
    "VersionConflict",
]
