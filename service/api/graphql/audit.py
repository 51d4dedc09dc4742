"""The audit verdict in GraphQL: its type generated from the REST reply's model
(`service.api.replies.EncounterAudit`), so the two answer the same shape."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from service.api.graphql.pydantic_types import TypeFactory, from_dump
from service.api.replies import EncounterAudit
from service.app.audits import Verdict


def _name(model: type[BaseModel]) -> str:
    return model.__name__


_outputs = TypeFactory("output", _name)
EncounterAuditType: Any = _outputs.build(EncounterAudit)


def audit_output(verdict: Verdict) -> Any:
    return from_dump(EncounterAuditType, verdict.to_dict())
