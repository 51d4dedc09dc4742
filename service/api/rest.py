"""The REST API under /v1: one explicit route table."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from service.api import commands, encounters, events, keys, openapi, preview, webhooks

ENCOUNTER = "/v1/encounters/{encounter_id}"
WEBHOOK = "/v1/webhooks/{webhook_id}"
Endpoint = Callable[[Request], Awaitable[Response]]


def by_method(path: str, **handlers: Endpoint) -> Route:
    """One route for a path that several methods share, so a 405 lists them all in `Allow`
    (Starlette answers HEAD as GET)."""

    async def endpoint(request: Request) -> Response:
        method = "GET" if request.method == "HEAD" else request.method
        return await handlers[method](request)

    return Route(path, endpoint, methods=list(handlers))


# Starlette tries the routes in order (a regex each) and no two of these paths overlap:
# the busiest, the command path, comes first.
routes: list[BaseRoute] = [
    Route(f"{ENCOUNTER}/commands", commands.post_command, methods=["POST"]),
    Route("/v1/rulesets", encounters.list_rulesets, methods=["GET"]),
    Route("/v1/rulesets/{name}", encounters.get_ruleset, methods=["GET"]),
    Route("/v1/keys", keys.list_keys, methods=["GET"]),
    by_method("/v1/encounters", POST=encounters.create_encounter, GET=encounters.list_encounters),
    by_method(ENCOUNTER, GET=encounters.get_encounter, DELETE=encounters.archive_encounter),
    Route(f"{ENCOUNTER}/commands/preview", preview.post_preview, methods=["POST"]),
    Route(f"{ENCOUNTER}/events", events.list_events, methods=["GET"]),
    Route(f"{ENCOUNTER}/narration", events.list_narration, methods=["GET"]),
    Route(f"{ENCOUNTER}/stream-tickets", events.mint_stream_ticket, methods=["POST"]),
    Route(f"{ENCOUNTER}/legal-actions", encounters.legal_actions, methods=["GET"]),
    Route(f"{ENCOUNTER}/tokens", encounters.mint_token, methods=["POST"]),
    Route(f"{ENCOUNTER}/seed", encounters.get_seed, methods=["GET"]),
    Route(f"{ENCOUNTER}/export", encounters.export, methods=["GET"]),
    Route(f"{ENCOUNTER}/audit", encounters.get_audit, methods=["GET"]),
    by_method("/v1/webhooks", POST=webhooks.create_webhook, GET=webhooks.list_webhooks),
    by_method(
        WEBHOOK,
        GET=webhooks.get_webhook,
        PATCH=webhooks.update_webhook,
        DELETE=webhooks.delete_webhook,
    ),
    Route(f"{WEBHOOK}/deliveries", webhooks.list_deliveries, methods=["GET"]),
    Route(f"{WEBHOOK}/deliveries/{{delivery_id}}/redeliver", webhooks.redeliver, methods=["POST"]),
    Route("/openapi.json", openapi.openapi_json, methods=["GET"]),
]
