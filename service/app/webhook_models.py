"""What a webhook is: the bodies that create and change one (the pydantic models REST,
GraphQL and the OpenAPI document share), the stored subscription, and the identities of
its deliveries (outbox keys, payloads, delivery ids). `service.app.webhooks` is the use
cases."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from service.domain.canonical import canonical_bytes
from service.domain.context import Actor
from service.domain.deadlines import WEBHOOK
from service.domain.errors import FrayError
from service.domain.ids import ID_PATTERN, split_stream

PREFIX = WEBHOOK  # outbox keys: webhook:<webhook id>:<version>
EventName = Annotated[str, StringConstraints(pattern=r"^(\*|[a-z][a-z0-9-]{0,63})$")]
CombatantId = Annotated[str, StringConstraints(pattern=ID_PATTERN)]


class PlayerView(BaseModel):
    """Deliveries as a player bound to these combatants sees the events."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    player: Annotated[list[CombatantId], Field(min_length=1, max_length=50)]


View = Literal["gm", "observer"] | PlayerView


class WebhookSpec(BaseModel):
    """`POST /v1/webhooks`: where to call, on which events, as whom."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    url: Annotated[str, Field(max_length=2048, description="https, a public host.")]
    events: Annotated[
        list[EventName],
        Field(min_length=1, max_length=100, description='Event types, or ["*"] for all.'),
    ]
    encounter_id: Annotated[
        str | None,
        Field(pattern=ID_PATTERN, description="Only this encounter's events; every one if absent."),
    ] = None
    view: Annotated[
        View,
        Field(description='What deliveries carry: "gm", "observer" or {"player": [ids]}.'),
    ]
    description: Annotated[str | None, Field(max_length=500)] = None


class WebhookPatch(BaseModel):
    """`PATCH /v1/webhooks/{id}`: the fields to change. `enabled: true` re-enables a webhook
    the failures disabled (its failure streak starts again from 0)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    url: Annotated[str | None, Field(max_length=2048)] = None
    events: Annotated[list[EventName] | None, Field(min_length=1, max_length=100)] = None
    encounter_id: Annotated[str | None, Field(pattern=ID_PATTERN)] = None
    view: View | None = None
    description: Annotated[str | None, Field(max_length=500)] = None
    enabled: bool | None = None


@dataclass(frozen=True)
class Webhook:
    id: str
    tenant: str
    url: str
    events: tuple[str, ...]
    encounter_id: str | None
    view: str | tuple[str, ...]  # "gm", "observer", or the player's combatants
    description: str | None
    secret: str
    enabled: bool
    disabled_reason: str | None
    created: str
    updated: str

    def matches(self, stream: str, event_type: str) -> bool:
        if self.encounter_id is not None and split_stream(stream)[1] != self.encounter_id:
            return False
        return "*" in self.events or event_type in self.events

    def actor(self) -> Actor:
        """The viewer a delivery's event is redacted for, as SSE redacts it."""
        name = f"webhook:{self.id}"
        if isinstance(self.view, tuple):
            return Actor(name, "player", frozenset(self.view))
        return Actor(name, "gm" if self.view == "gm" else "observer")

    def public(self, failures: int = 0) -> dict[str, Any]:
        view: Any = {"player": list(self.view)} if isinstance(self.view, tuple) else self.view
        return {
            "id": self.id,
            "url": self.url,
            "events": list(self.events),
            "encounter_id": self.encounter_id,
            "view": view,
            "description": self.description,
            "enabled": self.enabled,
            "failing": failures > 0,
            "failure_streak": failures,
            "disabled_reason": self.disabled_reason,
            "created": self.created,
            "updated": self.updated,
        }

    def record(self) -> bytes:
        return orjson.dumps({**self.public(), "secret": self.secret, "tenant": self.tenant})

    @classmethod
    def from_record(cls, raw: bytes) -> Webhook:
        data = orjson.loads(raw)
        view = data["view"]
        return cls(
            id=data["id"],
            tenant=data["tenant"],
            url=data["url"],
            events=tuple(data["events"]),
            encounter_id=data.get("encounter_id"),
            view=tuple(view["player"]) if isinstance(view, dict) else view,
            description=data.get("description"),
            secret=data["secret"],
            enabled=bool(data.get("enabled", True)),
            disabled_reason=data.get("disabled_reason"),
            created=data["created"],
            updated=data["updated"],
        )


def delivery_id(webhook_id: str, stream: str, version: int, redelivery: int = 0) -> str:
    """Stable across retries (a receiver deduplicates on it); a redelivery asked for by
    hand is a new delivery of the same event."""
    digest = hashlib.sha256(f"{webhook_id}\0{stream}\0{version}\0{redelivery}".encode())
    return f"whd_{digest.hexdigest()[:32]}"


def entry_key(webhook_id: str, version: int) -> str:
    return f"{PREFIX}{webhook_id}:{version}"


def parse_key(key: str) -> tuple[str, int]:
    """The webhook id and the event version of an outbox key `webhook:<id>:<version>`."""
    webhook_id, _, version = key.removeprefix(PREFIX).rpartition(":")
    return webhook_id, int(version)


def delivery_payload(stream: str, webhook_id: str, version: int, **state: Any) -> bytes:
    return canonical_bytes(
        {"encounter_id": stream, "webhook": webhook_id, "version": version, **state}
    )


def parse_spec(model: type[WebhookSpec] | type[WebhookPatch], data: Any) -> Any:
    """For callers holding a plain value (GraphQL's JSON view): the model, or the same
    `request/invalid` REST answers."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        first = error.errors(include_url=False, include_input=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "(body)"
        raise FrayError(f"field '{where}': {first['msg']}", code="request/invalid") from None
