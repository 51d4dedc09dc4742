"""`POST /v1/encounters/{id}/commands`: the command envelope into the application layer,
and its answer back."""

from __future__ import annotations

from starlette.requests import Request

from service.api.access import encounter_id_of, encounters_of
from service.api.bodies import json_body
from service.api.responses import JSONResponse
from service.deciding import CommandRequest


async def post_command(request: Request) -> JSONResponse:
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
