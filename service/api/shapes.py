"""Shapes declared once in the domain, derived for the HTTP layers.

The envelope is declared once, as `service.domain.envelope.Envelope` (its fields and their
descriptions). From it come the OpenAPI `Event` (a pydantic model made here), the GraphQL
`Event` (made from that model in `service.api.graphql.types`) and the envelope table of
docs/api.md (`service.api.doctables`).
"""

from __future__ import annotations

import dataclasses
import typing
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.fields import FieldInfo

from service.domain.envelope import Envelope

# Names a pydantic model cannot take as fields (BaseModel's own attributes): such a field
# is `<name>_` with the name as its alias.
_TAKEN = frozenset(dir(BaseModel))


def described_fields(source: type) -> list[tuple[str, Any, FieldInfo]]:
    """Each field of a dataclass: its name, its type and its `Field(...)` (description)."""
    hints = typing.get_type_hints(source, include_extras=True)
    out = []
    for f in dataclasses.fields(source):
        if f.metadata.get("internal"):
            continue
        hint = hints[f.name]
        info = next(
            (m for m in getattr(hint, "__metadata__", ()) if isinstance(m, FieldInfo)),
            FieldInfo(),
        )
        kind = typing.get_args(hint)[0] if hasattr(hint, "__metadata__") else hint
        out.append((f.name, kind, info))
    return out


def model_of(source: type, name: str, doc: str) -> type[BaseModel]:
    """A pydantic model with the fields of the dataclass `source`, for JSON Schema."""
    definitions: dict[str, Any] = {}
    defaults = {f.name: f.default for f in dataclasses.fields(source)}
    for field_name, kind, info in described_fields(source):
        key = f"{field_name}_" if field_name in _TAKEN else field_name
        alias = field_name if key != field_name else None
        # A field with a default (the envelope's `salt`) is optional: not `required`.
        default = defaults[field_name]
        extra = {} if default is dataclasses.MISSING else {"default": default}
        definitions[key] = (kind, Field(description=info.description, alias=alias, **extra))
    model: type[BaseModel] = create_model(
        name, __config__=ConfigDict(populate_by_name=True), __doc__=doc, **definitions
    )
    return model


if TYPE_CHECKING:
    Event = BaseModel  # made at import; mypy sees a model
else:
    Event = model_of(
        Envelope,
        "Event",
        "An event envelope, as DESIGN.md defines it: a link of the encounter's hash chain.",
    )
