"""A webhook receiver for the tests: a small Starlette app behind uvicorn in a thread, on a
free loopback port. Each path answers from a script of failures before it answers 200:
`500`, `timeout` (no answer for `hang` seconds) or `drop` (the headers of a 200, then
the connection cut half way through the body). It keeps every request it read, and which
were answered 200 in full."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import orjson
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from service.embedded_redis import free_port


@dataclass
class Received:
    path: str
    body: bytes
    headers: dict[str, str]
    outcome: str  # "ok", "500", "timeout", "drop"
    at: float

    @cached_property
    def delivery(self) -> dict[str, Any]:
        parsed: dict[str, Any] = orjson.loads(self.body)
        return parsed


@dataclass
class Receiver:
    url: str
    hang: float
    scripts: dict[str, list[str]] = field(default_factory=dict)
    received: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    on_request: Callable[[], None] | None = None  # told of each request as it is read

    def fail_first(self, path: str, *outcomes: str) -> None:
        self.scripts[path] = list(outcomes)

    def ok(self, path: str) -> list[Received]:
        with self.lock:
            return [r for r in self.received if r.path == path and r.outcome == "ok"]

    def all(self, path: str | None = None) -> list[Received]:
        with self.lock:
            return [r for r in self.received if path is None or r.path == path]

    def _next_outcome(self, path: str) -> str:
        with self.lock:
            script = self.scripts.get(path) or []
            return script.pop(0) if script else "ok"

    def _keep(self, request: Request, body: bytes, outcome: str) -> None:
        with self.lock:
            self.received.append(
                Received(request.url.path, body, dict(request.headers), outcome, time.time())
            )


def _app(receiver: Receiver) -> Starlette:
    async def hook(request: Request) -> Response:
        body = await request.body()
        outcome = receiver._next_outcome(request.url.path)
        receiver._keep(request, body, outcome)
        if receiver.on_request is not None:
            receiver.on_request()
        if outcome == "500":
            return Response("no", status_code=500)
        if outcome == "timeout":
            await asyncio.sleep(receiver.hang)
            return Response("late", status_code=200)
        if outcome == "drop":
            return _Dropped()
        return Response("ok", status_code=200)

    return Starlette(routes=[Route("/{name}", hook, methods=["POST"])])


class _Dropped(Response):
    """A 200's headers promising a body, a part of it, then the connection cut."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send(
            {"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"100")]}
        )
        await send({"type": "http.response.body", "body": b"partial", "more_body": True})
        raise ConnectionResetError("dropped by the test receiver")


@contextmanager
def receiving(hang: float = 3.0) -> Iterator[Receiver]:
    port = free_port()
    receiver = Receiver(f"http://127.0.0.1:{port}", hang)
    config = uvicorn.Config(
        _app(receiver), host="127.0.0.1", port=port, log_level="critical", lifespan="off"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the receiver did not start"
        time.sleep(0.01)
    try:
        yield receiver
    finally:
        server.should_exit = True
        thread.join(timeout=10)
