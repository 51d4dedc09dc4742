"""Mutations: create an encounter, mint a token, submit a command, archive an encounter;
webhooks (`service.api.graphql.webhooks`).

`submitCommand` answers a union: whatever the engine refuses (a rule violation, an invalid
command, a version conflict, a forbidden action, even a bad credential) is a
`CommandRejected` value, never a GraphQL error, and nothing is appended.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import strawberry
from graphql import GraphQLResolveInfo

from service.api.errors import status_of
from service.api.graphql import fields, listing, webhooks
from service.api.graphql.commands import ChosenCommand, request_of
from service.api.graphql.context import Context, Info, graphql_error
from service.api.graphql.inputs import chosen_command, parse
from service.api.graphql.preview import CommandPreview, preview
from service.api.graphql.types import (
    CommandAccepted,
    CommandRejected,
    CommandResult,
    CreatedEncounter,
    Event,
    Token,
    encounter_of,
)
from service.api.graphql.views import receipt_output
from service.api.graphql.webhooks import (
    CreatedWebhook,
    WebhookInput,
    WebhookOutput,
    WebhookPatchInput,
    WebhookRedelivery,
)
from service.api.models import CreateEncounter, MintToken
from service.domain.errors import FrayError

if TYPE_CHECKING:
    # Generated at import from the pydantic models (see pydantic_types); mypy sees Any.
    CommandInput = Any
    CreateEncounterInput = Any
    MintTokenInput = Any
    EncounterItemType = Any
else:
    from service.api.graphql.inputs import CommandInputType as CommandInput
    from service.api.graphql.inputs import CreateEncounterInputType as CreateEncounterInput
    from service.api.graphql.inputs import MintTokenInputType as MintTokenInput
    from service.api.graphql.listing import EncounterItemType

_log = logging.getLogger("fray.api")


@strawberry.type
class Mutation:
    @fields.mutation("Create an encounter (tenant API key only); answers with a GM token.")
    async def create_encounter(self, info: Info, input: CreateEncounterInput) -> CreatedEncounter:
        context = info.context
        try:
            tenant = context.encounters.creator(context.authorization)
            body = parse(CreateEncounter, input, "input")
            created = await context.encounters.create(
                tenant,
                body.ruleset,
                body.options,
                title=body.title,
                encounter_id=body.encounter_id,
                seed=bytes.fromhex(body.seed) if body.seed else None,
            )
        except FrayError as error:
            raise graphql_error(error) from error
        return CreatedEncounter(
            encounter_id=created.encounter_id,
            ruleset=created.ruleset,
            version=created.version,
            gm_token=created.gm_token,
            gm_token_expires_at=created.gm_token_expires_at.isoformat(),
            encounter=encounter_of(created.encounter_id, created.loaded, created.principal),
        )

    @fields.mutation(
        "Mint an encounter token (the tenant's key or a GM token). Player tokens "
        "name at least one combatant of the encounter."
    )
    async def mint_token(self, info: Info, encounter_id: str, input: MintTokenInput) -> Token:
        try:
            return await _mint(info.context, encounter_id, input)
        except FrayError as error:
            raise graphql_error(error) from error

    @fields.mutation("Send a command; a refusal is a `CommandRejected` value.")
    async def submit_command(
        self,
        info: Info,
        encounter_id: str,
        command: CommandInput,
        command_id: str | None = None,
        expected_version: int | None = None,
        dice: list[int] | None = None,
        deck_orders: list[list[int]] | None = None,
    ) -> CommandResult:
        return await submit(
            info.context, encounter_id, command, command_id, expected_version, dice, deck_orders
        )

    @fields.mutation(
        "What a command would append now, appending nothing: its events as you may see "
        "them, or the refusal a `submitCommand` would get. Dice come from a throwaway "
        "seed (`rolled`), never the encounter's."
    )
    async def preview_command(
        self,
        info: Info,
        encounter_id: str,
        command: CommandInput,
        command_id: str | None = None,
        expected_version: int | None = None,
        dice: list[int] | None = None,
        deck_orders: list[list[int]] | None = None,
    ) -> CommandPreview:
        return await preview(
            info.context, encounter_id, command, command_id, expected_version, dice, deck_orders
        )

    @fields.mutation(
        "Archive an encounter (its GM or the tenant's API key): it takes no more commands; "
        "reads, exports and the audit go on until it expires. As DELETE /v1/encounters/{id}; "
        "archiving again answers the same."
    )
    async def archive_encounter(self, info: Info, id: str) -> EncounterItemType:
        try:
            return await listing.archive(info.context, id)
        except FrayError as error:
            raise graphql_error(error) from error

    @fields.mutation(
        "Subscribe a URL to the tenant's encounters' events (tenant API key only), as POST "
        "/v1/webhooks; the answer shows the signing secret, once."
    )
    async def create_webhook(self, info: Info, input: WebhookInput) -> CreatedWebhook:
        try:
            return await webhooks.create(info.context, input)
        except FrayError as error:
            raise graphql_error(error) from error

    @fields.mutation("Change a webhook's fields, as PATCH /v1/webhooks/{id}.")
    async def update_webhook(self, info: Info, id: str, input: WebhookPatchInput) -> WebhookOutput:
        try:
            return await webhooks.update(info.context, id, input)
        except FrayError as error:
            raise graphql_error(error) from error

    @fields.mutation("Delete a webhook and its delivery log, as DELETE /v1/webhooks/{id}.")
    async def delete_webhook(self, info: Info, id: str) -> bool:
        try:
            return await webhooks.delete(info.context, id)
        except FrayError as error:
            raise graphql_error(error) from error

    @fields.mutation(
        "Send a logged delivery's event again as a new delivery, as POST "
        "/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver."
    )
    async def redeliver_webhook_delivery(
        self, info: Info, id: str, delivery_id: str
    ) -> WebhookRedelivery:
        try:
            return await webhooks.redeliver(info.context, id, delivery_id)
        except FrayError as error:
            raise graphql_error(error) from error


async def resolve_submit_command(
    _root: object, info: GraphQLResolveInfo[Context], **arguments: Any
) -> CommandResult:
    """`submitCommand` as graphql-core calls it, installed on the built schema in place of
    strawberry's resolver (which converts the arguments and builds an `Info` per call: about
    a tenth of a command's CPU). The arguments arrive coerced, by their GraphQL names."""
    return await submit_with(info.context, arguments)


async def submit_with(context: Context, arguments: dict[str, Any]) -> CommandResult:
    """`submit` with the arguments as graphql-core coerces them, by their GraphQL names."""
    return await submit(
        context,
        arguments["encounterId"],
        chosen_command(arguments["command"]),
        arguments.get("commandId"),
        arguments.get("expectedVersion"),
        arguments.get("dice"),
        arguments.get("deckOrders"),
    )


async def submit(
    context: Context,
    encounter_id: str,
    command: ChosenCommand,
    command_id: str | None,
    expected_version: int | None,
    dice: list[int] | None,
    deck_orders: list[list[int]] | None,
) -> CommandResult:
    encounters = context.encounters
    try:
        principal = await context.admitted(encounter_id)
        request = await request_of(
            context, principal, command, command_id, expected_version, dice, deck_orders
        )
        submitted = await encounters.submit(principal, request, api="graphql")
    except FrayError as error:
        if status_of(error) >= 500:  # not a refusal of the command: Fray or its store failed
            raise graphql_error(error) from error
        if encounters.metrics is not None:
            encounters.metrics.rejected(error.code)
        return CommandRejected.of(error)
    return CommandAccepted(
        command_id=submitted.command_id,
        version=submitted.version,
        duplicate=submitted.duplicate,
        events=[Event.of(e) for e in submitted.events],
        receipt=receipt_output(submitted.receipt),
    )


async def _mint(context: Context, encounter_id: str, input: MintTokenInput) -> Token:
    principal = await context.encounters.minter(context.authorization, encounter_id)
    body = parse(MintToken, input, "input")
    minted = await context.encounters.mint_token(
        principal,
        encounter_id,
        role=body.role,
        combatants=body.combatants,
        subject=body.subject,
        ttl_seconds=body.ttl_seconds,
    )
    return Token(
        token=minted.token,
        role=minted.role,
        subject=minted.subject,
        combatants=minted.combatants,
        expires_at=minted.expires_at.isoformat(),
    )
