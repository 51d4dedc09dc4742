"""CORS for browser clients on other origins (FRAY_CORS_ORIGINS), with Starlette's
CORSMiddleware.

Fray's browser clients send their credential in the `Authorization` header (or a stream
ticket in the URL), never a cookie, so credentials mode stays off: `*` then answers
`Access-Control-Allow-Origin: *`, and no origin can ride on a user's cookies. An origin
that is not allowed gets no CORS header at all, and a preflight Fray refuses (an origin,
method or header it does not take) gets a Fray error naming what was refused, with no
CORS header, so the browser blocks the request.
"""

from __future__ import annotations

from starlette.datastructures import Headers, MutableHeaders
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Send

from service.api.errors import error_response
from service.domain.errors import FrayError

# What Fray's routes take: GET and POST, and DELETE for archiving an encounter.
METHODS = ("GET", "POST", "DELETE")
# What a client sends beyond the safelisted headers: its credential, a JSON body's type,
# and where a resumed SSE stream starts.
REQUEST_HEADERS = ("Authorization", "Content-Type", "Last-Event-ID")
# The response headers a client reads beyond the safelisted ones: a created encounter's
# URL, how long to wait after a 429 or 503, and the scheme a 401 asks for.
EXPOSED_HEADERS = ("Location", "Retry-After", "WWW-Authenticate")
MAX_AGE = 600  # seconds a browser may cache a preflight (Chromium caps it at 7200)


class CorsRefused(FrayError):
    code = "cors/refused"


class FrayCORS(CORSMiddleware):
    def __init__(self, app: ASGIApp, origins: tuple[str, ...]) -> None:
        super().__init__(
            app,
            allow_origins=origins,
            allow_methods=METHODS,
            allow_headers=REQUEST_HEADERS,
            allow_credentials=False,
            # A page on a public origin calling a Fray on a private address: the operator
            # listed that origin, which is the consent Private Network Access asks for.
            allow_private_network=True,
            expose_headers=EXPOSED_HEADERS,
            max_age=MAX_AGE,
        )

    def preflight_response(self, request_headers: Headers) -> Response:
        refused = self._refusal(request_headers)
        if refused is None:
            return super().preflight_response(request_headers)
        response = error_response(CorsRefused(f"CORS preflight refused: {refused}"))
        response.headers["Vary"] = "Origin"
        return response

    def _refusal(self, headers: Headers) -> str | None:
        origin = headers["origin"]
        if not self.is_allowed_origin(origin):
            return f"origin {origin!r} is not in FRAY_CORS_ORIGINS"
        method = headers["access-control-request-method"]
        if method not in self.allow_methods:
            return f"method {method!r} is not one of {', '.join(METHODS)}"
        asked = headers.get("access-control-request-headers", "")
        extra = [h.strip() for h in asked.split(",") if h.strip()]
        unknown = [h for h in extra if h.lower() not in self.allow_headers]
        if unknown:
            allowed = ", ".join(REQUEST_HEADERS)
            return f"header {unknown[0]!r} is not one Fray takes ({allowed} and the safelisted)"
        return None

    async def send(self, message: Message, send: Send, request_headers: Headers) -> None:
        origin = request_headers.get("origin")
        if origin is None or self.is_allowed_origin(origin):
            await super().send(message, send, request_headers)
            return
        # Another origin's response carries no CORS header; caches keep answers per origin.
        if message["type"] == "http.response.start":
            headers = MutableHeaders(scope=message)
            headers["Vary"] = ", ".join([*headers.getlist("Vary"), "Origin"])
        await send(message)


def cors_middleware(origins: tuple[str, ...]) -> list[Middleware]:
    """The middleware for FRAY_CORS_ORIGINS: none when it is unset (no CORS header at all)."""
    return [Middleware(FrayCORS, origins=origins)] if origins else []
