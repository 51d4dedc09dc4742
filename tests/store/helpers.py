"""Small builders shared by the store tests."""

from __future__ import annotations

import hashlib

from service.store import StoredEvent


def event(version: int, body: str | None = None) -> StoredEvent:
    payload = (body if body is not None else f'{{"n":{version}}}').encode()
    return StoredEvent(version=version, hash=hashlib.sha256(payload).hexdigest(), body=payload)


def events(first: int, count: int, tag: str = "e") -> list[StoredEvent]:
    return [event(v, f'{{"tag":"{tag}","n":{v}}}') for v in range(first, first + count)]
