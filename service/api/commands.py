"""`POST /v1/encounters/{id}/commands`: the command envelope into the application layer,
and its answer back; with `?dry_run=true`, the preview's answer (service/api/preview.py)."""

from __future__ import annotations

from starlette.requests import Request

from service.api.access import encounter_id_of, encounters_of
from service.api.bodies import json_body
from service.api.errors import InvalidRequest
from service.api.preview import post_preview
from service.api.responses import JSONResponse
from service.deciding import CommandRequest


async def post_command(request: Request) -> JSONResponse:
    if dry_run(request):
        return await post_preview(request)
    encounters = encounters_of(request)
    principal = await encounters.admit(
        request.headers.get("authorization"), encounter_id_of(request)
    )
    body = await json_body(request, CommandRequest)
    submitted = await encounters.submit(principal, body)
    return JSONResponse(
        {
            "command_id": submitted.command_id,
            "version": submitted.version,
            "duplicate": submitted.duplicate,
            "events": submitted.events,
            "receipt": submitted.receipt,
        },
        status_code=200 if submitted.duplicate else 201,
    )


def dry_run(request: Request) -> bool:
    value = request.query_params.get("dry_run", "false").lower()
    if value not in ("true", "false"):
        raise InvalidRequest(f"dry_run is true or false, not '{value}'")
    return value == "true"
