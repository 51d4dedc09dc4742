"""The API's own named errors, and the handlers that turn every error into JSON.

Every error body is `{"error": {"code", "message", "rule"?, "details"?}}`.
"""

from __future__ import annotations

import logging
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from service.api.responses import JSONResponse
from service.domain.errors import Conflict, Forbidden, FrayError, NotFound, RuleViolation

_log = logging.getLogger("fray.api")


class MalformedJSON(FrayError):
    code = "request/malformed-json"


class InvalidRequest(FrayError):
    """A body or query parameter of the wrong shape; the message names the field."""

    code = "request/invalid"


class BodyTooLarge(FrayError):
    code = "request/too-large"


HTTP_CODES = {404: "route/not-found", 405: "route/method-not-allowed"}

# The one table from error codes to HTTP statuses (GraphQL shows the same status in an
# error's `extensions` and in `CommandRejected`). A code not listed takes its kind's status:
# 422 for what the rules forbid, 403, 404 and 409 for those kinds, else 400.
STATUSES: dict[str, int] = {
    "auth/missing": 401,
    "auth/invalid-token": 401,
    "auth/expired": 401,
    "auth/forbidden": 403,
    "encounter/not-found": 404,
    "encounter/version-conflict": 409,
    "encounter/busy": 409,
    "encounter/exists": 409,
    "command/id-reused": 409,
    "request/too-large": 413,
    "rate/limited": 429,
    "internal/unrecordable": 500,
    "internal/unemitted-event": 500,
    "store/unavailable": 503,
}
KINDS: tuple[tuple[type[FrayError], int], ...] = (
    (RuleViolation, 422),
    (Forbidden, 403),
    (NotFound, 404),
    (Conflict, 409),
)


def status_of(error: FrayError) -> int:
    status = STATUSES.get(error.code)
    if status is not None:
        return status
    return next((s for kind, s in KINDS if isinstance(error, kind)), 400)


def error_response(error: FrayError) -> JSONResponse:
    status = status_of(error)
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    retry_after = getattr(error, "retry_after", None)  # rate limited, store unavailable
    if retry_after is not None:
        headers = {"Retry-After": str(retry_after)}
    return JSONResponse(error.to_dict(), status_code=status, headers=headers)


async def fray_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, FrayError)
    metrics = getattr(request.app.state, "metrics", None)
    if metrics is not None:
        metrics.rejected(exc.code)
    return error_response(exc)


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    code = HTTP_CODES.get(exc.status_code, f"http/{exc.status_code}")
    body: dict[str, Any] = {"error": {"code": code, "message": str(exc.detail)}}
    return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)


async def internal_error(request: Request, exc: Exception) -> Response:
    _log.exception("unhandled error on %s %s", request.method, request.url.path)
    body = {"error": {"code": "internal", "message": "an internal error occurred"}}
    return JSONResponse(body, status_code=500)


EXCEPTION_HANDLERS = {
    FrayError: fray_error,
    HTTPException: http_error,
    Exception: internal_error,
}
