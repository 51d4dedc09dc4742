"""`previewCommand`: what a command would append now, nothing appended (`Encounters.preview`).

The same shape as REST's preview: `accepted`, and either the events (as you may see them)
with `rolled`, or the error a `submitCommand` would get (`CommandRejected`, as that
mutation answers it). As with `submitCommand`, only a failure of Fray or its store is a
GraphQL error.
"""

from __future__ import annotations

import strawberry

from service.api.errors import status_of
from service.api.graphql.commands import ChosenCommand, request_of
from service.api.graphql.context import Context, graphql_error
from service.api.graphql.types import CommandRejected, Event
from service.domain.errors import FrayError


@strawberry.type(
    description="What a command would append now; nothing was appended. When `rolled`, "
    "the dice came from a throwaway seed, not the ones the real command will roll."
)
class CommandPreview:
    accepted: bool = strawberry.field(description="Whether a submit now would be accepted.")
    version: int | None = strawberry.field(
        description="The version it was decided against: pin `expectedVersion` to it."
    )
    rolled: bool = strawberry.field(
        description="Dice were drawn, from a throwaway seed: the real command rolls anew."
    )
    duplicate: bool = strawberry.field(
        description="The command id was already used for this command: its recorded events."
    )
    events: list[Event] = strawberry.field(description="Its events, as you may see them.")
    error: CommandRejected | None = strawberry.field(
        description="Why a submit now would be refused (when not `accepted`)."
    )


async def preview(
    context: Context,
    encounter_id: str,
    command: ChosenCommand,
    command_id: str | None,
    expected_version: int | None,
    dice: list[int] | None,
    deck_orders: list[list[int]] | None,
) -> CommandPreview:
    try:
        principal = await context.admitted(encounter_id)
        request = await request_of(
            context, principal, command, command_id, expected_version, dice, deck_orders
        )
        previewed = await context.encounters.preview(principal, request)
    except FrayError as error:
        if status_of(error) >= 500:  # not a refusal of the command: Fray or its store failed
            raise graphql_error(error) from error
        rejected = CommandRejected.of(error)
        return CommandPreview(
            accepted=False, version=None, rolled=False, duplicate=False, events=[], error=rejected
        )
    return CommandPreview(
        accepted=True,
        version=previewed.version,
        rolled=previewed.rolled,
        duplicate=previewed.duplicate,
        events=[Event.of(e) for e in previewed.events],
        error=None,
    )
