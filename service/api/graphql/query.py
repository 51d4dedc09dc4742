"""Queries: rulesets, the keys receipts verify with, the tenant's encounters, an encounter
as the viewer may see it, and its audit verdict."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import strawberry
from strawberry.scalars import JSON

from service.api.graphql import fields, listing, webhooks
from service.api.graphql.audit import audit_output
from service.api.graphql.context import Info, graphql_error
from service.api.graphql.pydantic_types import graphql_name
from service.api.graphql.types import Encounter, Ruleset, encounter_of
from service.api.graphql.views import key_outputs
from service.api.graphql.webhooks import WebhookDeliveryOutput, WebhookOutput
from service.app.webhooks import MAX_DELIVERIES
from service.domain.errors import FrayError
from service.rules.registry import RULESETS, versions_of

if TYPE_CHECKING:
    SigningKeyType = Any
else:
    from service.api.graphql.views import SigningKeyType

if TYPE_CHECKING:
    # Generated at import (see pydantic_types); mypy sees Any.
    EncounterAuditType = Any
    EncounterListType = Any
    EncounterFilterInput = Any
else:
    from service.api.graphql.audit import EncounterAuditType
    from service.api.graphql.inputs import EncounterFilterInputType as EncounterFilterInput
    from service.api.graphql.listing import EncounterListType


def _rulesets() -> list[Ruleset]:
    return [
        Ruleset(
            name=r.name,
            version=r.version,
            versions=versions_of(r.name),
            title=r.title,
            commands=r.command_types(),
            command_input=graphql_name(r.name),
            options_schema=JSON(r.options_model.model_json_schema()),
            stats_schema=JSON(r.stats_model.model_json_schema()),
        )
        for _, r in sorted(RULESETS.items())
    ]


@strawberry.type
class Query:
    @fields.field("The rulesets Fray runs, their commands and options.")
    def rulesets(self) -> list[Ruleset]:
        return _rulesets()

    @fields.field("The public keys receipts verify with, the signing key first (as GET /v1/keys).")
    def signing_keys(self, info: Info) -> list[SigningKeyType]:
        return key_outputs(info.context.encounters.public_keys())

    @fields.field(
        "The tenant's encounters (tenant API key only), newest updated first, a page at a "
        "time: as GET /v1/encounters. Send `nextCursor` back as `filter.cursor`."
    )
    async def encounters(
        self, info: Info, filter: EncounterFilterInput | None = None
    ) -> EncounterListType:
        try:
            return await listing.encounters(info.context, filter)
        except FrayError as error:
            raise graphql_error(error) from error

    @fields.field("The tenant's webhooks, oldest first (tenant API key only): as GET /v1/webhooks.")
    async def webhooks(self, info: Info) -> list[WebhookOutput]:
        try:
            return await webhooks.webhooks(info.context)
        except FrayError as error:
            raise graphql_error(error) from error

    @fields.field("A webhook (tenant API key only): as GET /v1/webhooks/{id}.")
    async def webhook(self, info: Info, id: str) -> WebhookOutput:
        try:
            return await webhooks.webhook(info.context, id)
        except FrayError as error:
            raise graphql_error(error) from error

    @fields.field(
        "A webhook's delivery log, newest first (tenant API key only): as GET "
        "/v1/webhooks/{id}/deliveries."
    )
    async def webhook_deliveries(
        self, info: Info, id: str, limit: int = 50
    ) -> list[WebhookDeliveryOutput]:
        try:
            if not 1 <= limit <= MAX_DELIVERIES:
                raise FrayError(f"limit is between 1 and {MAX_DELIVERIES}", code="request/invalid")
            return await webhooks.deliveries(info.context, id, limit)
        except FrayError as error:
            raise graphql_error(error) from error

    @fields.field("An encounter, now or as of version `asOf`, as your credential may see it.")
    async def encounter(self, info: Info, id: str, as_of: int | None = None) -> Encounter:
        context = info.context
        try:
            principal = await context.principal(id)
            if as_of is not None and as_of < 1:
                raise FrayError("asOf is a version, 1 or more", code="request/invalid")
            loaded = await context.encounters.view(principal, as_of)
        except FrayError as error:
            raise graphql_error(error) from error
        return encounter_of(id, loaded, principal)

    @fields.field(
        "The audit verdict of an encounter (GM, auditor or tenant API key): `pending` until "
        "it has ended and a worker has audited its stream."
    )
    async def audit(self, info: Info, id: str) -> EncounterAuditType:
        context = info.context
        try:
            principal = await context.principal(id)
            verdict = await context.audits.verdict(principal)
        except FrayError as error:
            raise graphql_error(error) from error
        return audit_output(verdict)
