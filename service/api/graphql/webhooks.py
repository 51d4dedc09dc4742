"""Webhooks in GraphQL: the `webhooks`, `webhook` and `webhookDeliveries` queries and the
`createWebhook`, `updateWebhook`, `deleteWebhook` and `redeliverWebhookDelivery`
mutations, each a translation of `service.app.webhooks.Webhooks` (tenant API key only),
answering the shapes REST answers. `view` is JSON, as in REST: `"gm"`, `"observer"` or
`{"player": [ids]}`."""

from __future__ import annotations

from typing import Any

import strawberry
from strawberry.scalars import JSON

from service.api.graphql.context import Context
from service.app.webhook_models import WebhookPatch, WebhookSpec, parse_spec


@strawberry.type(name="Webhook", description="A webhook subscription, without its secret.")
class WebhookOutput:
    id: str
    url: str
    events: list[str]
    encounter_id: str | None
    view: JSON
    description: str | None
    enabled: bool
    failing: bool
    failure_streak: int
    disabled_reason: str | None
    created: str
    updated: str


@strawberry.type(description="A new webhook, with its signing secret: shown this once.")
class CreatedWebhook(WebhookOutput):
    secret: str


@strawberry.type(name="WebhookDelivery", description="A delivery as of its last attempt.")
class WebhookDeliveryOutput:
    delivery_id: str
    webhook_id: str
    encounter_id: str
    version: int
    event_type: str | None
    status: str
    attempts: int
    last_response_code: int | None
    last_error: str | None
    last_attempt_at: str | None
    next_attempt_at: str | None
    redelivery: int


@strawberry.type(description="A redelivery queued: a new delivery of the same event.")
class WebhookRedelivery:
    delivery_id: str
    redelivery_of: str
    webhook_id: str
    encounter_id: str
    version: int
    status: str


@strawberry.input(description="As the body of POST /v1/webhooks.")
class WebhookInput:
    url: str
    events: list[str]
    view: JSON
    encounter_id: str | None = None
    description: str | None = None


@strawberry.input(description="As the body of PATCH /v1/webhooks/{id}: the fields to change.")
class WebhookPatchInput:
    url: str | None = strawberry.UNSET
    events: list[str] | None = strawberry.UNSET
    view: JSON | None = strawberry.UNSET
    encounter_id: str | None = strawberry.UNSET
    description: str | None = strawberry.UNSET
    enabled: bool | None = strawberry.UNSET


def _given(value: Any) -> dict[str, Any]:
    return {k: v for k, v in vars(value).items() if v is not strawberry.UNSET}


def _webhook(data: dict[str, Any], kind: type[WebhookOutput] = WebhookOutput) -> Any:
    return kind(**data)


async def webhooks(context: Context) -> list[WebhookOutput]:
    tenant = context.encounters.creator(context.authorization)
    return [_webhook(w) for w in await context.webhooks.listed(tenant)]


async def webhook(context: Context, webhook_id: str) -> WebhookOutput:
    tenant = context.encounters.creator(context.authorization)
    found: WebhookOutput = _webhook(await context.webhooks.get(tenant, webhook_id))
    return found


async def deliveries(context: Context, webhook_id: str, limit: int) -> list[Any]:
    tenant = context.encounters.creator(context.authorization)
    found = await context.webhooks.deliveries(tenant, webhook_id, limit)
    return [WebhookDeliveryOutput(**d) for d in found]


async def create(context: Context, value: WebhookInput) -> CreatedWebhook:
    tenant = context.encounters.creator(context.authorization)
    spec: WebhookSpec = parse_spec(WebhookSpec, _given(value))
    created: CreatedWebhook = _webhook(await context.webhooks.create(tenant, spec), CreatedWebhook)
    return created


async def update(context: Context, webhook_id: str, value: WebhookPatchInput) -> WebhookOutput:
    tenant = context.encounters.creator(context.authorization)
    patch: WebhookPatch = parse_spec(WebhookPatch, _given(value))
    changed: WebhookOutput = _webhook(await context.webhooks.update(tenant, webhook_id, patch))
    return changed


async def delete(context: Context, webhook_id: str) -> bool:
    tenant = context.encounters.creator(context.authorization)
    await context.webhooks.delete(tenant, webhook_id)
    return True


async def redeliver(context: Context, webhook_id: str, delivery_id: str) -> WebhookRedelivery:
    tenant = context.encounters.creator(context.authorization)
    queued = await context.webhooks.redeliver(tenant, webhook_id, delivery_id)
    return WebhookRedelivery(**queued)
