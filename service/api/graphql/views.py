"""Output types generated from `service.domain.views`: the summary every front end renders
and the legal actions. `PoolView` becomes `Pool`, `EncounterSummary` keeps its name."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from service.api.graphql.pydantic_types import TypeFactory, from_dump
from service.domain.views import ActionOption, EncounterSummary


def _name(model: type[BaseModel]) -> str:
    return model.__name__.removesuffix("View")


_outputs = TypeFactory("output", _name)
EncounterSummaryType: Any = _outputs.build(EncounterSummary)
ActionOptionType: Any = _outputs.build(ActionOption)


def summary_output(summary: EncounterSummary) -> Any:
    return from_dump(EncounterSummaryType, summary.model_dump(mode="json"))


def action_outputs(actions: list[ActionOption]) -> list[Any]:
    return [from_dump(ActionOptionType, a.model_dump(mode="json")) for a in actions]
