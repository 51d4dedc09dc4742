"""Following an encounter live: its events after a version, as the viewer may see them,
and its summary after every change. SSE and GraphQL subscriptions translate these.

The process's `StreamHub` delivers every event after the cursor in order, with no gap and
no duplicate; here each is redacted for the follower against the state as of that event
(redaction reads options and sides, so the state is reloaded when the stream passes it).
A follower resumes by following again from the last version it received (SSE's
`Last-Event-ID`, GraphQL's `after`).

While Redis is away the hub reconnects with backoff and the follower just waits: nothing
arrives, and idle ticks still do when asked for (SSE's heartbeats). If the hub drops the
follower (too slow, the reader failed, the hub stopped) iteration ends with
`SubscriptionLost`, naming the version to resume from; an error of the store while
reloading the state (`store/unavailable`) ends it with that error.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable
from typing import Any

from service.app.auth import Principal
from service.app.views import redacted_envelope
from service.deciding import Loaded
from service.domain.envelope import Envelope
from service.domain.errors import FrayError
from service.domain.ids import public_id
from service.domain.views import EncounterSummary
from service.engine import Engine
from service.store.errors import InvalidArgument, StoreError, SubscriberTooSlow
from service.store.events import StoredEvent
from service.store.subscriptions import StreamHub, Subscription

Seen = dict[str, Any]
Sign = Callable[[int, str], dict[str, Any] | None]  # version, hash -> the receipt


class SubscriptionLost(FrayError):
    """The live feed dropped its follower; `details.last_version` is where to resume."""

    code = "subscription/interrupted"

    def __init__(self, stream: str, error: StoreError, last_version: int) -> None:
        if isinstance(error, SubscriberTooSlow):
            message = "the subscription fell too far behind and was dropped; resubscribe"
            code = "subscription/too-slow"
        else:
            message = "the subscription was interrupted; resubscribe"
            code = self.code
        encounter_id = public_id(stream)
        super().__init__(
            f"{message} with after {last_version}",
            code=code,
            details={"encounter_id": encounter_id, "last_version": last_version},
        )
        self.last_version = last_version


def _subscribe(hub: StreamHub, stream: str, after: int) -> Subscription:
    try:
        return hub.subscribe(stream, after)
    except InvalidArgument as error:
        raise FrayError(str(error), code="request/invalid") from error


async def events(
    engine: Engine,
    hub: StreamHub,
    principal: Principal,
    loaded: Loaded,
    after: int,
    idle: float | None,
    sign: Sign | None = None,
) -> AsyncGenerator[Seen | None, None]:
    """Every event after `after` that the principal may see, redacted; None after each
    `idle` seconds with nothing to send (when `idle` is given). With `sign`, each carries
    `receipt`, the receipt of the stored event (its stored hash: also for a viewer who sees
    it redacted and so cannot re-hash it; an auditor with the stream can)."""
    stream = principal.stream_of()
    actor = principal.actor
    last = after
    try:
        async with _subscribe(hub, stream, after) as subscription:
            while True:
                stored = await _next(subscription, idle)
                if stored is None:
                    yield None
                    continue
                last = stored.version
                if stored.version > loaded.version:
                    loaded = await engine.load(stream)
                envelope = Envelope.from_body(stored.body)
                seen = redacted_envelope(loaded.ruleset, envelope, actor, loaded.state)
                if seen is None:
                    continue
                if sign is not None:
                    seen = {**seen, "receipt": sign(stored.version, stored.hash)}
                yield seen
    except StopAsyncIteration:
        return  # the subscription was closed
    except StoreError as error:
        raise SubscriptionLost(stream, error, last) from error


async def summaries(
    engine: Engine, hub: StreamHub, principal: Principal, loaded: Loaded
) -> AsyncGenerator[EncounterSummary, None]:
    """The summary as the principal may see it now, then again after every change."""
    stream = principal.stream_of()
    actor = principal.actor
    yield loaded.ruleset.summary(loaded.state, actor, loaded.version)
    try:
        async with _subscribe(hub, stream, loaded.version) as subscription:
            async for stored in subscription:
                if stored.version <= loaded.version:
                    continue  # already folded into the last summary sent
                loaded = await engine.load(stream)
                yield loaded.ruleset.summary(loaded.state, actor, loaded.version)
    except StoreError as error:
        raise SubscriptionLost(stream, error, loaded.version) from error


async def _next(subscription: Subscription, idle: float | None) -> StoredEvent | None:
    """The next event; None if none came within `idle` seconds (the subscription stays
    usable: only its wait on the queue is cancelled)."""
    if idle is None:
        return await anext(subscription)
    try:
        return await asyncio.wait_for(anext(subscription), idle)
    except TimeoutError:
        return None
