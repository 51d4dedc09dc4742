"""Subscriptions over graphql-transport-ws: `Encounters.follow` and `Encounters.watch`.

`encounterEvents` delivers every event after `after` (a version) in order with no gap and no
duplicate (the hub's guarantee), less those the viewer may not see; a client that drops
resubscribes from the last version it received. If the hub drops a slow subscriber the
subscription ends with an error whose `details.last_version` says where to resume.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Annotated, Any

import strawberry

from service.api.graphql import fields
from service.api.graphql.context import Info, graphql_error
from service.api.graphql.types import Event
from service.api.graphql.views import summary_output
from service.domain.errors import FrayError

if TYPE_CHECKING:
    EncounterSummaryType = Any
else:
    from service.api.graphql.views import EncounterSummaryType

# `after` is the name REST (`?after=`) and the `events` field give the version to resume
# after; `afterVersion` was this subscription's own name for it and still answers.
OLD_AFTER = "Use `after`, the same version under the name REST and `Encounter.events` use."


def _check_resume_point(after: int | None, after_version: int | None, version: int) -> None:
    if after is not None and after_version is not None and after != after_version:
        raise FrayError(
            "give `after` only (`afterVersion` is its old name), not both with different values",
            code="request/invalid",
        )
    if version < 0:
        raise FrayError("after must be 0 or more", code="request/invalid")


@strawberry.type
class Subscription:
    @fields.subscription(
        "Every event after the version `after` (0 when left out: from the start), in "
        "order, as you may see it; resume with the last version you received."
    )
    async def encounter_events(
        self,
        info: Info,
        encounter_id: str,
        after: int | None = None,
        after_version: Annotated[
            int | None, strawberry.argument(deprecation_reason=OLD_AFTER)
        ] = None,
    ) -> AsyncGenerator[Event, None]:
        context = info.context
        try:
            principal = await context.principal(encounter_id)
            version = next((v for v in (after, after_version) if v is not None), 0)
            events = await context.encounters.follow(principal, version)
            # Checked once the encounter is known (404 first).
            _check_resume_point(after, after_version, version)
        except FrayError as error:
            raise graphql_error(error) from error
        try:
            async for seen in events:
                if seen is not None:
                    yield Event.of(seen)
        except FrayError as error:  # dropped (where to resume), or the store went away
            raise graphql_error(error) from error
        finally:
            await events.aclose()

    @fields.subscription("The encounter's summary now, then again after every change.")
    async def encounter_summary(
        self, info: Info, encounter_id: str
    ) -> AsyncGenerator[EncounterSummaryType, None]:
        context = info.context
        try:
            principal = await context.principal(encounter_id)
            summaries = await context.encounters.watch(principal)
        except FrayError as error:
            raise graphql_error(error) from error
        try:
            async for summary in summaries:
                yield summary_output(summary)
        except FrayError as error:
            raise graphql_error(error) from error
        finally:
            await summaries.aclose()
