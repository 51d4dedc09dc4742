"""An encounter's events: pages by version cursor, or a live SSE stream that resumes."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import orjson
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from service.api.access import encounters_of, engine_of, viewer
from service.api.bodies import MAX_QUERY_INT, query_int
from service.api.errors import InvalidRequest
from service.api.responses import JSONResponse
from service.app.views import redacted_envelope
from service.domain.context import Actor
from service.domain.envelope import Envelope
from service.domain.errors import FrayError
from service.engine import Engine
from service.store.errors import StoreError
from service.store.subscriptions import StreamHub

MAX_LIMIT = 1000
DEFAULT_LIMIT = 100
RETRY_MS = 2000
DISCONNECT_POLL = 0.25
_log = logging.getLogger("fray.api")


def wants_stream(request: Request) -> bool:
    follow = request.query_params.get("follow", "").lower() in ("1", "true", "yes")
    return follow or "text/event-stream" in request.headers.get("accept", "")


async def list_events(request: Request) -> Response:
    principal = await viewer(request)
    encounter_id = principal.stream_of()
    engine = engine_of(request)
    if wants_stream(request):
        after = _resume_from(request)
        await engine.load(encounter_id)  # 404 before the stream starts
        return StreamingResponse(
            _sse(request, engine, encounter_id, principal.actor, after),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
    after = query_int(request, "after", 0, 0, None)
    limit = query_int(request, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
    page = await encounters_of(request).events(principal, after, limit)
    return JSONResponse({"events": page.events, "next_after": page.last, "has_more": page.has_more})


def _resume_from(request: Request) -> int:
    last = request.headers.get("last-event-id")
    if last is not None and last.strip():
        if not last.strip().isdigit() or int(last) > MAX_QUERY_INT:
            raise InvalidRequest("header 'Last-Event-ID' must be an event version")
        return int(last)
    return query_int(request, "after", 0, 0, None)


async def _sse(
    request: Request, engine: Engine, encounter_id: str, actor: Actor, after: int
) -> AsyncIterator[bytes]:
    hub: StreamHub = request.app.state.hub
    heartbeat: float = request.app.state.settings.sse_heartbeat
    loaded = await engine.load(encounter_id)
    yield f"retry: {RETRY_MS}\n\n".encode()
    try:
        async with hub.subscribe(encounter_id, after) as events:
            idle = 0.0
            while True:
                try:
                    stored = await asyncio.wait_for(anext(events), DISCONNECT_POLL)
                except TimeoutError:
                    # A gone client is otherwise noticed only at the next write.
                    if await request.is_disconnected():
                        return
                    idle += DISCONNECT_POLL
                    if idle >= heartbeat:
                        idle = 0.0
                        yield b": keep-alive\n\n"
                    continue
                idle = 0.0
                if stored.version > loaded.version:
                    loaded = await engine.load(encounter_id)
                envelope = Envelope.from_body(stored.body)
                seen = redacted_envelope(loaded.ruleset, envelope, actor, loaded.state)
                if seen is not None:
                    yield _frame(envelope.version, envelope.type, orjson.dumps(seen))
    except (StoreError, StopAsyncIteration) as error:
        # A slow subscriber or a stopping hub: the client reconnects with Last-Event-ID.
        _log.info("SSE stream for %s ended: %s", encounter_id, error)
    except FrayError as error:
        # The store went away mid-stream: say so, and when to come back, before closing.
        _log.info("SSE stream for %s ended: %s", encounter_id, error.code)
        wait = getattr(error, "retry_after", RETRY_MS // 1000)
        yield b"retry: %d\nevent: error\ndata: %s\n\n" % (
            wait * 1000,
            orjson.dumps(error.to_dict()),
        )


def _frame(version: int, kind: str, data: bytes) -> bytes:
    return b"id: %d\nevent: %s\ndata: %s\n\n" % (version, kind.encode(), data)
