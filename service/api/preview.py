"""`POST /v1/encounters/{id}/commands/preview`, and `POST /v1/encounters/{id}/commands` with
`?dry_run=true`, which answers the same: what a command would append now, nothing appended.
A credential, rate limit, unknown encounter or malformed body is the usual HTTP error; the
command's own refusal (the code and words a submit would get, and the status it would
answer with) is a 200 `{"accepted": false, "error": {...}}`, with `dice_needed` when table
dice are missing."""

from __future__ import annotations

from starlette.requests import Request

from service.api.access import encounter_id_of, encounters_of
from service.api.bodies import json_body
from service.api.errors import status_of
from service.api.responses import JSONResponse
from service.app.encounters import dice_needed
from service.deciding import CommandRequest
from service.domain.errors import FrayError

# The statuses of a command's refusal: invalid, forbidden, conflicting, against the rules.
REFUSALS = frozenset({400, 403, 409, 422})


async def post_preview(request: Request) -> JSONResponse:
    encounters = encounters_of(request)
    principal = await encounters.admit(
        request.headers.get("authorization"), encounter_id_of(request)
    )
    body = await json_body(request, CommandRequest)
    try:
        previewed = await encounters.preview(principal, body)
    except FrayError as error:
        status = status_of(error)
        if status not in REFUSALS:
            raise
        refused: dict[str, object] = {"accepted": False, "error": refusal(error, status)}
        needed = dice_needed(error)
        if needed is not None:
            refused["dice_needed"] = needed
        return JSONResponse(refused)
    return JSONResponse(
        {
            "accepted": True,
            "version": previewed.version,
            "rolled": previewed.rolled,
            "duplicate": previewed.duplicate,
            "events": previewed.events,
            "rolls": previewed.rolls,
        }
    )


def refusal(error: FrayError, status: int) -> dict[str, object]:
    """The error body a submit would get, and the status it would answer with."""
    return {**error.to_dict()["error"], "status": status}
