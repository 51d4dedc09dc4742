"""The stored form of an event: the envelope DESIGN.md defines, sealed into a hash chain."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from service.domain.canonical import canonical_bytes, envelope_hash

ENVELOPE_FIELDS = (
    "version",
    "type",
    "schema",
    "data",
    "at",
    "command_id",
    "actor",
    "command",
    "rolls",
    "prev_hash",
    "hash",
)


@dataclass(frozen=True, slots=True)
class Envelope:
    version: int
    type: str
    schema: int
    data: dict[str, Any]
    at: str
    command_id: str
    actor: dict[str, Any]
    command: dict[str, Any] | None
    rolls: list[dict[str, Any]]
    prev_hash: str
    hash: str

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in ENVELOPE_FIELDS}

    def body(self) -> bytes:
        return canonical_bytes(self.to_dict())

    def computed_hash(self) -> str:
        return envelope_hash(self.to_dict())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Envelope:
        return cls(**{name: data[name] for name in ENVELOPE_FIELDS})

    @classmethod
    def from_body(cls, body: bytes) -> Envelope:
        return cls.from_dict(orjson.loads(body))


def seal(
    *,
    version: int,
    type: str,
    schema: int,
    data: dict[str, Any],
    at: str,
    command_id: str,
    actor: dict[str, Any],
    command: dict[str, Any] | None,
    rolls: list[dict[str, Any]],
    prev_hash: str,
) -> Envelope:
    """Build an envelope and its hash: SHA-256 of its canonical JSON without `hash`."""
    unsealed: dict[str, Any] = {
        "version": version,
        "type": type,
        "schema": schema,
        "data": data,
        "at": at,
        "command_id": command_id,
        "actor": actor,
        "command": command,
        "rolls": rolls,
        "prev_hash": prev_hash,
    }
    return Envelope(**unsealed, hash=envelope_hash(unsealed))
