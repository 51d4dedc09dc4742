"""The stored form of an event: the envelope DESIGN.md defines, sealed into a hash chain."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from service.domain.canonical import canonical_bytes, envelope_hash, sha256_hex

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
    # The body `seal` wrote while hashing (an envelope read from a body recomputes it).
    sealed_body: bytes | None = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in ENVELOPE_FIELDS}

    def body(self) -> bytes:
        """The canonical JSON of the envelope: what the store keeps."""
        if self.sealed_body is not None:
            return self.sealed_body
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
    """Build an envelope and its hash: SHA-256 of its canonical JSON without `hash`.

    Canonical JSON sorts keys, and `hash` sorts between `data` and `prev_hash`: the
    canonical JSON of the keys before it and of those after it, joined, is the hashed text,
    and joined around `"hash":"…"` the body, so the envelope is serialized once, not twice.
    """
    head = canonical_bytes(
        {"actor": actor, "at": at, "command": command, "command_id": command_id, "data": data}
    )
    tail = canonical_bytes(
        {"prev_hash": prev_hash, "rolls": rolls, "schema": schema, "type": type, "version": version}
    )
    digest = sha256_hex(head[:-1] + b"," + tail[1:])
    return Envelope(
        version=version,
        type=type,
        schema=schema,
        data=data,
        at=at,
        command_id=command_id,
        actor=actor,
        command=command,
        rolls=rolls,
        prev_hash=prev_hash,
        hash=digest,
        sealed_body=b"".join((head[:-1], b',"hash":"', digest.encode(), b'",', tail[1:])),
    )
