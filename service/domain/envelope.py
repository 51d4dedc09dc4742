"""The stored form of an event: the envelope DESIGN.md defines, sealed into a hash chain."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Annotated, Any

import orjson
from pydantic import Field

from service.domain.canonical import canonical_bytes, envelope_hash, sha256_hex


@dataclass(frozen=True, slots=True)
class Envelope:
    """An event as it is stored: a link of its encounter's hash chain (DESIGN.md, "Events,
    dice and the audit trail").

    This is the one declaration of the envelope's shape: the OpenAPI `Event`, the GraphQL
    `Event` and the table in docs/api.md are derived from these fields and descriptions."""

    version: Annotated[
        int, Field(description="Its position in the encounter's stream: 1, 2, 3 … with no gap.")
    ]
    type: Annotated[
        str,
        Field(description="What happened, in the past tense (`pair-removed`), as its ruleset "
              "names it."),
    ]  # fmt: skip
    schema: Annotated[
        int,
        Field(description="The version of this event type's shape; older shapes are upcast "
              "when read."),
    ]  # fmt: skip
    data: Annotated[
        dict[str, Any],
        Field(description="What its type records; what the viewer may not see is left out."),
    ]
    at: Annotated[
        str,
        Field(description="When it was recorded, by the server's clock: ISO 8601 UTC, "
              "milliseconds."),
    ]  # fmt: skip
    command_id: Annotated[
        str,
        Field(description="The command it came from: the client's `command_id`, or one the "
              "server assigned."),
    ]  # fmt: skip
    actor: Annotated[
        dict[str, Any],
        Field(description="Who sent that command: `id`, `role` and the `combatants` they act "
              "for."),
    ]  # fmt: skip
    command: Annotated[
        dict[str, Any] | None,
        Field(description="The command as sent, on the first event of each command (so an "
              "auditor can decide it again); null on the others."),
    ]  # fmt: skip
    rolls: Annotated[
        list[dict[str, Any]],
        Field(description="The draws this event used: `k`, `value`, `purpose`, `kind`, and "
              "`n` (server dice) or `source: table`."),
    ]  # fmt: skip
    prev_hash: Annotated[
        str,
        Field(description="The `hash` of the event before it; 64 zeros for version 1."),
    ]
    hash: Annotated[
        str,
        Field(description="SHA-256 (hex) of its canonical JSON without `hash`."),
    ]
    salt: Annotated[
        str | None,
        Field(description="128 secret random bits (32 hex digits) hashed with the rest, so that "
              "what a viewer is not shown cannot be guessed back from `hash`: left out of an "
              "event shown with parts hidden, and absent from events recorded before it."),
    ] = None  # fmt: skip
    # The body `seal` wrote while hashing (an envelope read from a body recomputes it): not
    # part of the envelope's shape.
    sealed_body: bytes | None = field(
        default=None, compare=False, repr=False, metadata={"internal": True}
    )

    def to_dict(self) -> dict[str, Any]:
        """Its members; `salt` only when it has one (absent, not null, on an envelope
        recorded before salts, so that its canonical JSON and its hash are as they were)."""
        out = {name: getattr(self, name) for name in ENVELOPE_FIELDS}
        if self.salt is None:
            del out["salt"]
        return out

    def body(self) -> bytes:
        """The canonical JSON of the envelope: what the store keeps."""
        if self.sealed_body is not None:
            return self.sealed_body
        return canonical_bytes(self.to_dict())

    def computed_hash(self) -> str:
        return envelope_hash(self.to_dict())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Envelope:
        return cls(**{name: data[name] for name in REQUIRED_FIELDS}, salt=data.get("salt"))

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
    salt: str | None = None,
) -> Envelope:
    """Build an envelope and its hash: SHA-256 of its canonical JSON without `hash`.

    Canonical JSON sorts keys, and `hash` sorts between `data` and `prev_hash`: the
    canonical JSON of the keys before it and of those after it, joined, is the hashed text,
    and joined around `"hash":"…"` the body, so the envelope is serialized once, not twice.
    `salt`, when given, sorts after `rolls` (in the tail); without one the envelope has no
    `salt` member at all, as every envelope recorded before salts.
    """
    head = canonical_bytes(
        {"actor": actor, "at": at, "command": command, "command_id": command_id, "data": data}
    )
    after: dict[str, Any] = {
        "prev_hash": prev_hash,
        "rolls": rolls,
        "schema": schema,
        "type": type,
        "version": version,
    }
    if salt is not None:
        after["salt"] = salt
    tail = canonical_bytes(after)
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
        salt=salt,
        sealed_body=b"".join((head[:-1], b',"hash":"', digest.encode(), b'",', tail[1:])),
    )


ENVELOPE_FIELDS: tuple[str, ...] = tuple(
    f.name for f in fields(Envelope) if not f.metadata.get("internal")
)
# The members every envelope has; `salt` is the one an envelope may lack.
REQUIRED_FIELDS: tuple[str, ...] = tuple(name for name in ENVELOPE_FIELDS if name != "salt")
