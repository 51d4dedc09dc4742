"""Webhooks: a tenant's subscriptions (tenant API key only), their delivery log and
redelivery. Each handler parses and calls `service.app.webhooks.Webhooks`."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from service.api.access import encounters_of
from service.api.bodies import json_body, query_int
from service.api.responses import JSONResponse
from service.app.webhook_models import WebhookPatch, WebhookSpec
from service.app.webhooks import MAX_DELIVERIES, Webhooks


def webhooks_of(request: Request) -> Webhooks:
    webhooks: Webhooks = request.app.state.webhooks
    return webhooks


def _tenant(request: Request) -> str:
    return encounters_of(request).creator(request.headers.get("authorization"))


def _id(request: Request) -> str:
    return str(request.path_params["webhook_id"])


async def create_webhook(request: Request) -> JSONResponse:
    tenant = _tenant(request)
    spec = await json_body(request, WebhookSpec)
    created = await webhooks_of(request).create(tenant, spec)
    return JSONResponse(created, status_code=201)


async def list_webhooks(request: Request) -> JSONResponse:
    tenant = _tenant(request)
    return JSONResponse({"webhooks": await webhooks_of(request).listed(tenant)})


async def get_webhook(request: Request) -> JSONResponse:
    tenant = _tenant(request)
    return JSONResponse(await webhooks_of(request).get(tenant, _id(request)))


async def update_webhook(request: Request) -> JSONResponse:
    tenant = _tenant(request)
    patch = await json_body(request, WebhookPatch)
    return JSONResponse(await webhooks_of(request).update(tenant, _id(request), patch))


async def delete_webhook(request: Request) -> Response:
    tenant = _tenant(request)
    await webhooks_of(request).delete(tenant, _id(request))
    return Response(status_code=204)


async def list_deliveries(request: Request) -> JSONResponse:
    tenant = _tenant(request)
    limit = query_int(request, "limit", 50, 1, MAX_DELIVERIES)
    found = await webhooks_of(request).deliveries(tenant, _id(request), limit)
    return JSONResponse({"deliveries": found})


async def redeliver(request: Request) -> JSONResponse:
    tenant = _tenant(request)
    delivery = str(request.path_params["delivery_id"])
    queued = await webhooks_of(request).redeliver(tenant, _id(request), delivery)
    return JSONResponse(queued, status_code=202)
