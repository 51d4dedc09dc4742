"""Small builders and observers shared by the store tests."""

from __future__ import annotations

import hashlib
import sys

from service.store import Store, StoredEvent

FAR_FUTURE = sys.float_info.max  # due_deadlines takes finite times only


def event(version: int, body: str | None = None) -> StoredEvent:
    payload = (body if body is not None else f'{{"n":{version}}}').encode()
    return StoredEvent(version=version, hash=hashlib.sha256(payload).hexdigest(), body=payload)


def events(first: int, count: int, tag: str = "e") -> list[StoredEvent]:
    return [event(v, f'{{"tag":"{tag}","n":{v}}}') for v in range(first, first + count)]


async def indexed(store: Store, encounter_id: str) -> list[float]:
    """The due times of the encounter's deadlines that the global due index leads to."""
    found = await store.due_deadlines(FAR_FUTURE, limit=10_000)
    return [deadline.due for eid, deadline in found if eid == encounter_id]


async def observed(store: Store, encounter_id: str, *command_ids: str) -> tuple[object, ...]:
    """All that the contract lets a caller see of an encounter (and of these command ids),
    to show that a refused or repeated call changed nothing."""
    return (
        await store.read(encounter_id),
        await store.head(encounter_id),
        await store.meta(encounter_id),
        await store.seed(encounter_id),
        await store.pending_deadlines(encounter_id),
        await indexed(store, encounter_id),
        await store.load_snapshot(encounter_id),
        [await store.command_outcome(encounter_id, c) for c in command_ids],
    )
