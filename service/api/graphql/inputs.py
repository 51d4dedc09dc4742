"""Every generated input type, from one factory so nested models get one type each."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from service.api.graphql.commands import ChosenCommand, build_command_input
from service.api.graphql.pydantic_types import TypeFactory, to_payload
from service.api.models import CreateEncounter, MintToken
from service.app.management import EncounterFilter
from service.domain.ruleset import invalid

M = TypeVar("M", bound=BaseModel)

_inputs = TypeFactory("input", lambda model: f"{model.__name__}Input")
CommandInputType, RULESET_INPUTS = build_command_input(_inputs)
CreateEncounterInputType: Any = _inputs.build(CreateEncounter)
MintTokenInputType: Any = _inputs.build(MintToken)
EncounterFilterInputType: Any = _inputs.build(EncounterFilter)


def chosen_command(value: Mapping[str, Any]) -> ChosenCommand:
    """A `CommandInput` as graphql-core coerced it, taken as strawberry takes it."""
    chosen: ChosenCommand = CommandInputType.__strawberry_definition__.from_input(None, value, None)
    return chosen


def parse(model: type[M], value: Any, what: str) -> M:
    """A generated input as its pydantic model; a bad field is a `request/invalid` error."""
    try:
        return model.model_validate(to_payload(value))
    except ValidationError as error:
        raise invalid(error, what, code="request/invalid") from None
