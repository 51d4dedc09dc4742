"""An encounter's events: pages by version cursor, or a live SSE stream that resumes; and
the stream tickets a browser opens that stream with."""

from __future__ import annotations

import logging
import random
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from service.api.access import encounter_id_of, encounters_of, tickets_of, viewer
from service.api.bodies import MAX_QUERY_INT, query_int
from service.api.draining import Draining, ShuttingDown
from service.api.errors import InvalidRequest
from service.api.responses import JSONResponse
from service.app.auth import Principal
from service.app.following import SubscriptionLost
from service.domain.errors import FrayError

MAX_LIMIT = 1000
DEFAULT_LIMIT = 100
RETRY_MS = 2000
# The retry hint of a stream ended by a shutdown: drawn in this range, so that the
# followers of a draining instance do not all come back to the others in the same instant.
SHUTDOWN_RETRY_MS = (500, 3000)
DISCONNECT_POLL = 0.25
_log = logging.getLogger("fray.api")


def wants_stream(request: Request) -> bool:
    follow = request.query_params.get("follow", "").lower() in ("1", "true", "yes")
    return follow or "text/event-stream" in request.headers.get("accept", "")


async def list_events(request: Request) -> Response:
    encounters = encounters_of(request)
    ticket = request.query_params.get("ticket")
    if wants_stream(request):
        if ticket is None:
            principal = await viewer(request)
            after = _resume_from(request)
        else:
            after = _resume_from(request)  # a bad one is refused before the ticket is spent
            principal = await _ticket_holder(request, ticket)
        # Refused (404, 503) before the stream starts.
        events = await encounters.follow(principal, after, idle=DISCONNECT_POLL)
        return StreamingResponse(
            _sse(request, events, principal.stream_of()),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
    if ticket is not None:
        raise InvalidRequest(
            "a stream ticket opens the live stream only (add follow=true); read pages with "
            "the Authorization header"
        )
    principal = await viewer(request)
    after = query_int(request, "after", 0, 0, None)
    limit = query_int(request, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
    page = await encounters.events(principal, after, limit)
    return JSONResponse({"events": page.events, "next_after": page.last, "has_more": page.has_more})


async def list_narration(request: Request) -> Response:
    """The page `list_events` answers, each event as the ruleset's sentence."""
    principal = await viewer(request)
    after = query_int(request, "after", 0, 0, None)
    limit = query_int(request, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
    page = await encounters_of(request).narration(principal, after, limit)
    return JSONResponse({"lines": page.lines, "next_after": page.last, "has_more": page.has_more})


async def _ticket_holder(request: Request, ticket: str) -> Principal:
    """Whom a stream ticket stands for (`Tickets.redeem`): it is spent."""
    if "authorization" in request.headers:
        raise InvalidRequest("send the Authorization header or a stream ticket, not both")
    return await tickets_of(request).redeem(ticket, encounter_id_of(request))


async def mint_stream_ticket(request: Request) -> JSONResponse:
    """A single-use ticket for this encounter's SSE stream, granting what the caller's
    credential grants; minting counts against the credential's rate limit."""
    principal = await encounters_of(request).admit(
        request.headers.get("authorization"), encounter_id_of(request)
    )
    minted = await tickets_of(request).mint(principal)
    return JSONResponse(
        {"ticket": minted.ticket, "expires_at": minted.expires_at.isoformat()}, status_code=201
    )


def _resume_from(request: Request) -> int:
    last = request.headers.get("last-event-id")
    if last is not None and last.strip():
        if not last.strip().isdigit() or int(last) > MAX_QUERY_INT:
            raise InvalidRequest("header 'Last-Event-ID' must be an event version")
        return int(last)
    return query_int(request, "after", 0, 0, None)


async def _sse(
    request: Request, events: AsyncGenerator[dict[str, Any] | None, None], stream: str
) -> AsyncIterator[bytes]:
    """`Encounters.follow` as SSE frames, with heartbeats while idle; ends when the client
    goes (noticed at each idle tick, not only at the next write), or with a retry hint
    when the process begins to shut down (noticed as soon, `service.api.draining`)."""
    heartbeat: float = request.app.state.settings.sse_heartbeat
    draining: Draining = request.app.state.draining
    yield f"retry: {RETRY_MS}\n\n".encode()
    try:
        idle = 0.0
        async for seen in events:
            if seen is not None:
                idle = 0.0
                yield _frame(seen["version"], seen["type"], orjson.dumps(seen))
            elif await request.is_disconnected():
                return
            else:
                idle += DISCONNECT_POLL
                if idle >= heartbeat:
                    idle = 0.0
                    yield b": keep-alive\n\n"
            if draining.began:
                _log.info("SSE stream for %s ended: shutting down", stream)
                yield _goodbye()
                return
    except SubscriptionLost as error:
        # A slow subscriber or a stopping hub: the client reconnects with Last-Event-ID.
        _log.info("SSE stream for %s ended: %s", stream, error.__cause__)
    except FrayError as error:
        # The store went away mid-stream: say so, and when to come back, before closing.
        _log.info("SSE stream for %s ended: %s", stream, error.code)
        wait = getattr(error, "retry_after", RETRY_MS // 1000)
        yield b"retry: %d\nevent: error\ndata: %s\n\n" % (
            wait * 1000,
            orjson.dumps(error.to_dict()),
        )
    finally:
        await events.aclose()  # unsubscribes now, not when collected


def _goodbye() -> bytes:
    """The last frame of a stream ended by a shutdown: when to reconnect, and why. It has no
    `id:`, so the client's Last-Event-ID stays the last event it was sent."""
    wait = random.randint(*SHUTDOWN_RETRY_MS)
    return b"retry: %d\nevent: error\ndata: %s\n\n" % (wait, orjson.dumps(ShuttingDown().to_dict()))


def _frame(version: int, kind: str, data: bytes) -> bytes:
    return b"id: %d\nevent: %s\ndata: %s\n\n" % (version, kind.encode(), data)
