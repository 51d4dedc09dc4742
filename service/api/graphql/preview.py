"""`previewCommand`: what a command would append now, nothing appended (`Encounters.preview`).

The same shape as REST's preview: `accepted`, and either the events (as you may see them)
with `rolled` and the dice used (`rolls`), or the error a `submitCommand` would get
(`CommandRejected`, as that mutation answers it) with `diceNeeded` when table dice are
missing. As with `submitCommand`, only a failure of Fray or its store is a GraphQL error.
"""

from __future__ import annotations

from typing import cast

import strawberry
from strawberry.scalars import JSON

from service.api.errors import status_of
from service.api.graphql.commands import ChosenCommand, request_of
from service.api.graphql.context import Context, graphql_error
from service.api.graphql.types import CommandRejected, Event
from service.app.encounters import dice_needed
from service.domain.errors import FrayError


@strawberry.type(description="A table die a command still needs.")
class NeededDie:
    sides: int
    expression: str = strawberry.field(description='The roll it belongs to, e.g. "2d6+1".')
    purpose: str = strawberry.field(description="What it is for, as its record will say.")
    roller: str = strawberry.field(
        description='Whom it is rolled for: a combatant id, or "gm". Only the GM or that '
        "combatant's controller may supply it."
    )


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
    rolls: JSON = strawberry.field(
        description="The dice it used (a list), in order: every `rolls` entry of `events`."
    )
    dice_needed: list[NeededDie] | None = strawberry.field(
        description="When table dice are missing: every die still certainly needed, in "
        "order; send their faces after the `dice` given."
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
        needed = dice_needed(error)
        return CommandPreview(
            accepted=False,
            version=None,
            rolled=False,
            duplicate=False,
            events=[],
            error=rejected,
            rolls=cast(JSON, []),
            dice_needed=None if needed is None else [NeededDie(**die) for die in needed],
        )
    return CommandPreview(
        accepted=True,
        version=previewed.version,
        rolled=previewed.rolled,
        duplicate=previewed.duplicate,
        events=[Event.of(e) for e in previewed.events],
        error=None,
        rolls=cast(JSON, previewed.rolls),
        dice_needed=None,
    )
