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
from service.domain.errors import FrayError

_log = logging.getLogger("fray.api")


class MalformedJSON(FrayError):
    code = "request/malformed-json"
    status = 400


class InvalidRequest(FrayError):
    """A body or query parameter of the wrong shape; the message names the field."""

    code = "request/invalid"
    status = 400


class BodyTooLarge(FrayError):
    code = "request/too-large"
    status = 413


HTTP_CODES = {404: "route/not-found", 405: "route/method-not-allowed"}


def error_response(error: FrayError) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if error.status == 401 else None
    retry_after = getattr(error, "retry_after", None)  # rate limited, store unavailable
    if retry_after is not None:
        headers = {"Retry-After": str(retry_after)}
    return JSONResponse(error.to_dict(), status_code=error.status, headers=headers)


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
