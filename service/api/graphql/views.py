"""Output types generated from pydantic models: the summary every front end renders and
the legal actions (`service.domain.views`; `PoolView` becomes `Pool`, `EncounterSummary`
keeps its name), and receipts and their keys (`service.api.replies`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from service.api.graphql.pydantic_types import TypeFactory, from_dump
from service.api.replies import Receipt, SigningKey
from service.domain.views import ActionOption, Blocked, EncounterSummary


def _name(model: type[BaseModel]) -> str:
    return model.__name__.removesuffix("View")


_outputs = TypeFactory("output", _name)
EncounterSummaryType: Any = _outputs.build(EncounterSummary)
ActionOptionType: Any = _outputs.build(ActionOption)
BlockedType: Any = _outputs.build(Blocked)
ReceiptType: Any = _outputs.build(Receipt)
SigningKeyType: Any = _outputs.build(SigningKey)


def summary_output(summary: EncounterSummary) -> Any:
    return from_dump(EncounterSummaryType, summary.model_dump(mode="json"))


def action_outputs(actions: list[ActionOption]) -> list[Any]:
    return [from_dump(ActionOptionType, a.model_dump(mode="json")) for a in actions]


def blocked_outputs(blocked: list[Blocked]) -> list[Any]:
    return [from_dump(BlockedType, b.model_dump(mode="json")) for b in blocked]


def receipt_output(receipt: dict[str, Any] | None) -> Any:
    return from_dump(ReceiptType, receipt)


def key_outputs(keys: list[dict[str, str]]) -> list[Any]:
    return [from_dump(SigningKeyType, key) for key in keys]
