"""ASGI middleware: refuse a declared body over the limit before any route runs."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from service.api.errors import BodyTooLarge, error_response


class BodyLimitMiddleware:
    """Answers 413 to a Content-Length over `limit`; `bodies.read_body` also counts the
    bytes of a body sent without one (chunked)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            for name, value in scope["headers"]:
                if name == b"content-length" and value.isdigit() and int(value) > self.limit:
                    error = BodyTooLarge(f"the body is over the limit of {self.limit} bytes")
                    await error_response(error)(scope, receive, send)
                    return
        await self.app(scope, receive, send)
