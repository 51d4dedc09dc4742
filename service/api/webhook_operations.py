"""The webhook routes in the OpenAPI route table (`service.api.operations` holds the rest;
`service.api.openapi` renders both)."""

from __future__ import annotations

from pydantic import BaseModel

from service.api.operations import (
    BODY_CODES,
    Operation,
    Param,
    Reply,
    _forbidden,
    _too_large,
    _unauthorized,
)
from service.api.replies import Error
from service.api.webhook_replies import (
    Redelivery,
    Webhook,
    WebhookCreated,
    WebhookDeliveries,
    WebhookDelivery,
    WebhookList,
)
from service.app.webhook_models import WebhookPatch, WebhookSpec
from service.app.webhooks import MAX_DELIVERIES

WEBHOOK_ID = "/v1/webhooks/{webhook_id}"
WEBHOOK_PARAM = Param(
    "webhook_id", "path", {"type": "string", "minLength": 1}, "The webhook.", required=True
)
DELIVERY_PARAM = Param(
    "delivery_id", "path", {"type": "string", "minLength": 1}, "The delivery.", required=True
)
KEY_ONLY = "An encounter token: only a tenant API key manages webhooks."
URL_CODES = (
    "webhook/bad-url",
    "webhook/private-address",
    "webhook/unresolvable-host",
)


def _not_found() -> Reply:
    return Reply(404, "No such webhook (or another tenant's).", Error, codes=("webhook/not-found",))


def _refused_url() -> Reply:
    return Reply(
        422,
        "A URL Fray will not call: not https, a private or otherwise non-public address, or "
        "a host that does not resolve.",
        Error,
        codes=URL_CODES,
    )


WEBHOOK_OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "post",
        "/v1/webhooks",
        "createWebhook",
        "Subscribe a URL to the tenant's encounters' events (tenant API key only); the "
        "answer shows the signing secret, once.",
        "webhooks",
        (
            Reply(201, "Created.", WebhookCreated),
            Reply(400, "A malformed body.", Error, codes=BODY_CODES),
            _unauthorized(),
            _forbidden(KEY_ONLY),
            _too_large(),
            Reply(
                422,
                "A URL Fray will not call, or the tenant has its 100 webhooks already.",
                Error,
                codes=(*URL_CODES, "webhook/too-many"),
            ),
        ),
        security=("tenantKey",),
        body=WebhookSpec,
        description="Each appended event that matches is POSTed to the URL, signed, at "
        "least once and in version order per encounter (docs/api.md, Webhooks).",
    ),
    Operation(
        "get",
        "/v1/webhooks",
        "listWebhooks",
        "The tenant's webhooks, oldest first (tenant API key only).",
        "webhooks",
        (Reply(200, "The webhooks.", WebhookList), _unauthorized(), _forbidden(KEY_ONLY)),
        security=("tenantKey",),
    ),
    Operation(
        "get",
        WEBHOOK_ID,
        "getWebhook",
        "A webhook (tenant API key only).",
        "webhooks",
        (Reply(200, "The webhook.", Webhook), _unauthorized(), _forbidden(KEY_ONLY), _not_found()),
        security=("tenantKey",),
        params=(WEBHOOK_PARAM,),
    ),
    Operation(
        "patch",
        WEBHOOK_ID,
        "updateWebhook",
        "Change a webhook's fields; `enabled: true` re-enables a disabled one.",
        "webhooks",
        (
            Reply(200, "The webhook, changed.", Webhook),
            Reply(400, "A malformed body.", Error, codes=BODY_CODES),
            _unauthorized(),
            _forbidden(KEY_ONLY),
            _not_found(),
            _too_large(),
            _refused_url(),
        ),
        security=("tenantKey",),
        params=(WEBHOOK_PARAM,),
        body=WebhookPatch,
    ),
    Operation(
        "delete",
        WEBHOOK_ID,
        "deleteWebhook",
        "Delete a webhook: nothing more is delivered to it, and its log goes with it.",
        "webhooks",
        (
            Reply(204, "Deleted.", media=""),
            _unauthorized(),
            _forbidden(KEY_ONLY),
            _not_found(),
        ),
        security=("tenantKey",),
        params=(WEBHOOK_PARAM,),
    ),
    Operation(
        "get",
        f"{WEBHOOK_ID}/deliveries",
        "listWebhookDeliveries",
        "A webhook's delivery log, newest first: each delivery's status, attempts, last "
        "response code and next attempt.",
        "webhooks",
        (
            Reply(200, "The deliveries.", WebhookDeliveries),
            Reply(400, "A bad `limit`.", Error, codes=("request/invalid",)),
            _unauthorized(),
            _forbidden(KEY_ONLY),
            _not_found(),
        ),
        security=("tenantKey",),
        params=(
            WEBHOOK_PARAM,
            Param(
                "limit",
                "query",
                {"type": "integer", "minimum": 1, "maximum": MAX_DELIVERIES, "default": 50},
                "How many deliveries, newest first.",
            ),
        ),
    ),
    Operation(
        "post",
        f"{WEBHOOK_ID}/deliveries/{{delivery_id}}/redeliver",
        "redeliverWebhookDelivery",
        "Send a logged delivery's event again, as a new delivery.",
        "webhooks",
        (
            Reply(202, "Queued.", Redelivery),
            _unauthorized(),
            _forbidden(KEY_ONLY),
            Reply(
                404,
                "No such webhook or delivery.",
                Error,
                codes=("webhook/not-found", "webhook/delivery-not-found"),
            ),
            Reply(
                409,
                "The webhook is disabled, or the event is already waiting to be delivered.",
                Error,
                codes=("webhook/disabled", "webhook/delivery-pending"),
            ),
        ),
        security=("tenantKey",),
        params=(WEBHOOK_PARAM, DELIVERY_PARAM),
    ),
)

WEBHOOK_REQUEST_MODELS: tuple[type[BaseModel], ...] = (WebhookSpec, WebhookPatch)
WEBHOOK_RESPONSE_MODELS: tuple[type[BaseModel], ...] = (
    Webhook,
    WebhookCreated,
    WebhookList,
    WebhookDelivery,
    WebhookDeliveries,
    Redelivery,
)
