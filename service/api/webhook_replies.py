"""What the webhook routes answer (`service.api.webhooks`), for the OpenAPI document and
the GraphQL types: the shapes `service.app.webhooks.Webhooks` returns."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from service.app.webhook_models import PlayerView


class Webhook(BaseModel):
    """A webhook subscription, without its secret."""

    id: str
    url: str
    events: list[str] = Field(description='Event types delivered, or ["*"] for all.')
    encounter_id: str | None = Field(description="Only this encounter's events; null for all.")
    view: Literal["gm", "observer"] | PlayerView = Field(
        description="Deliveries carry each event as this role would see it on SSE."
    )
    description: str | None
    enabled: bool = Field(description="False once disabled (by the tenant, or by failures).")
    failing: bool = Field(description="Its last delivery attempt failed.")
    failure_streak: int = Field(description="Failed attempts in a row.")
    disabled_reason: str | None
    created: str = Field(json_schema_extra={"format": "date-time"})
    updated: str = Field(json_schema_extra={"format": "date-time"})


class WebhookCreated(Webhook):
    """A new webhook, with its signing secret: shown this once."""

    secret: str = Field(description="Signs every delivery (`Fray-Signature`); shown only here.")


class WebhookList(BaseModel):
    webhooks: list[Webhook]


class WebhookDelivery(BaseModel):
    """A delivery as of its last attempt."""

    delivery_id: str = Field(description="The same across retries: deduplicate on it.")
    webhook_id: str
    encounter_id: str
    version: int = Field(description="The version of the event delivered.")
    event_type: str | None
    status: Literal["delivered", "retrying", "failed", "abandoned"] = Field(
        description="`retrying` until its next attempt; `failed` once given up (24 h); "
        "`abandoned` when the webhook was disabled."
    )
    attempts: int
    last_response_code: int | None
    last_error: str | None
    last_attempt_at: str | None = Field(json_schema_extra={"format": "date-time"})
    next_attempt_at: str | None = Field(json_schema_extra={"format": "date-time"})
    redelivery: int = Field(description="0, or which redelivery asked for by hand this is.")


class WebhookDeliveries(BaseModel):
    deliveries: list[WebhookDelivery] = Field(description="Newest first.")


class Redelivery(BaseModel):
    """A redelivery queued: a new delivery (its own id) of the same event."""

    delivery_id: str
    redelivery_of: str
    webhook_id: str
    encounter_id: str
    version: int
    status: Literal["pending"]
