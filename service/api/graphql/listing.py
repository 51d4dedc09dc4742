"""A tenant's encounters in GraphQL: the `encounters` query and `archiveEncounter`, their
types generated from the REST models (`EncounterList`, `EncounterItem`, and the filter
`service.app.management.EncounterFilter`), so both APIs answer the same shapes."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from service.api.graphql.context import Context
from service.api.graphql.inputs import parse
from service.api.graphql.pydantic_types import TypeFactory, from_dump
from service.api.replies import EncounterItem, EncounterList
from service.app.management import EncounterFilter


def _name(model: type[BaseModel]) -> str:
    return model.__name__


_outputs = TypeFactory("output", _name)
EncounterListType: Any = _outputs.build(EncounterList)
EncounterItemType: Any = _outputs.build(EncounterItem)


async def encounters(context: Context, filter: Any) -> Any:
    """The `encounters` query: the tenant's key only (`Encounters.creator`)."""
    tenant = context.encounters.creator(context.authorization)
    query = EncounterFilter() if filter is None else parse(EncounterFilter, filter, "filter")
    listing = await context.management.list(tenant, query)
    return from_dump(EncounterListType, listing.to_dict())


async def archive(context: Context, encounter_id: str) -> Any:
    """The `archiveEncounter` mutation: the GM or the tenant's key."""
    principal = await context.principal(encounter_id)
    archived = await context.management.archive(principal)
    return from_dump(EncounterItemType, archived.to_dict())
