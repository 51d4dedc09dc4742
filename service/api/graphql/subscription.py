"""Subscriptions over graphql-transport-ws, fed by the process's StreamHub.

`encounterEvents` delivers every event after `afterVersion` in order with no gap and no
duplicate (the hub's guarantee), less those the viewer may not see; a client that drops
resubscribes from the last version it received. If the hub drops a slow subscriber the
subscription ends with an error whose `details.last_version` says where to resume.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

import strawberry

from service.api.graphql import fields
from service.api.graphql.context import Context, Info, graphql_error
from service.api.graphql.types import Event
from service.api.graphql.views import summary_output
from service.app.auth import Principal
from service.app.views import redacted_envelope
from service.domain.envelope import Envelope
from service.domain.errors import FrayError
from service.engine import Loaded
from service.store.errors import InvalidArgument, StoreError, SubscriberTooSlow

if TYPE_CHECKING:
    EncounterSummaryType = Any
else:
    from service.api.graphql.views import EncounterSummaryType


async def _open(context: Context, encounter_id: str) -> tuple[Principal, Loaded]:
    try:
        principal = await context.principal(encounter_id)
        return principal, await context.engine.load(principal.stream_of())
    except FrayError as error:
        raise graphql_error(error) from error


def _lost(encounter_id: str, error: StoreError, last_version: int) -> FrayError:
    if isinstance(error, SubscriberTooSlow):
        message = "the subscription fell too far behind and was dropped; resubscribe"
        code = "subscription/too-slow"
    else:
        message = "the subscription was interrupted; resubscribe"
        code = "subscription/interrupted"
    return FrayError(
        f"{message} with afterVersion {last_version}",
        code=code,
        details={"encounter_id": encounter_id, "last_version": last_version},
    )


@strawberry.type
class Subscription:
    @fields.subscription(
        "Every event after `afterVersion`, in order, as you may see it; resume "
        "with the last version you received."
    )
    async def encounter_events(
        self, info: Info, encounter_id: str, after_version: int = 0
    ) -> AsyncGenerator[Event, None]:
        context = info.context
        principal, loaded = await _open(context, encounter_id)
        stream = principal.stream_of()
        if after_version < 0:
            raise graphql_error(FrayError("afterVersion must be 0 or more", code="request/invalid"))
        last = after_version
        try:
            async with context.hub.subscribe(stream, after_version) as events:
                async for stored in events:
                    last = stored.version
                    if stored.version > loaded.version:
                        # Redaction reads the state (options, sides): keep it current.
                        loaded = await context.engine.load(stream)
                    envelope = Envelope.from_body(stored.body)
                    seen = redacted_envelope(
                        loaded.ruleset, envelope, principal.actor, loaded.state
                    )
                    if seen is not None:
                        yield Event.of(seen)
        except InvalidArgument as error:
            raise graphql_error(FrayError(str(error), code="request/invalid")) from error
        except StoreError as error:
            raise graphql_error(_lost(encounter_id, error, last)) from error
        except FrayError as error:  # the store went away: its code and `retry_after`
            raise graphql_error(error) from error

    @fields.subscription("The encounter's summary now, then again after every change.")
    async def encounter_summary(
        self, info: Info, encounter_id: str
    ) -> AsyncGenerator[EncounterSummaryType, None]:
        context = info.context
        principal, loaded = await _open(context, encounter_id)
        stream = principal.stream_of()
        actor = principal.actor
        yield summary_output(loaded.ruleset.summary(loaded.state, actor, loaded.version))
        try:
            async with context.hub.subscribe(stream, loaded.version) as events:
                async for stored in events:
                    if stored.version <= loaded.version:
                        continue  # already folded into the last summary sent
                    loaded = await context.engine.load(stream)
                    yield summary_output(
                        loaded.ruleset.summary(loaded.state, actor, loaded.version)
                    )
        except StoreError as error:
            raise graphql_error(_lost(encounter_id, error, loaded.version)) from error
        except FrayError as error:
            raise graphql_error(error) from error
