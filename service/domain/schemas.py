"""The JSON Schemas of a ruleset: its commands, its events, its options and its stat block.

Derived from the pydantic models, the one source of truth (DESIGN.md): `GET
/v1/rulesets/{name}` answers them, `fray schemas schema/` writes them under
`schema/<ruleset>/` (checked in; a test fails when they drift), the OpenAPI document
types the command envelope with them, and each legal action carries the schema of its
command's parameters. JSON Schema 2020-12 as pydantic emits it: the commands and the events
are each a `oneOf` with a `type` discriminator (OpenAPI's `discriminator` keyword, which
plain JSON Schema reads as an annotation), their models under `$defs`.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, Field, TypeAdapter
from pydantic.json_schema import JsonSchemaMode

DIALECT = "https://json-schema.org/draft/2020-12/schema"
LOCAL_REF = "#/$defs/{model}"
KINDS = ("commands", "events", "options", "stats")
Kind = Literal["commands", "events", "options", "stats"]


def union_schema(
    models: Iterable[type[BaseModel]], mode: JsonSchemaMode, ref_template: str = LOCAL_REF
) -> dict[str, Any]:
    """A `oneOf` over `models` with `type` as the discriminator, the models under `$defs`.

    `type` is required of every member: the models give it a default (a model made in code
    needs no `type=`), but a client's JSON must say which command it is."""
    members = tuple(models)
    union: Any = Annotated[Union[members], Field(discriminator="type")]  # noqa: UP007
    adapter: TypeAdapter[Any] = TypeAdapter(union)
    schema = adapter.json_schema(mode=mode, ref_template=ref_template)
    # pydantic leaves out, without a word, a member it cannot describe (a field whose type
    # has no JSON Schema): every model must be there.
    kinds = {m.model_fields["type"].default for m in members}
    missing = kinds - schema["discriminator"]["mapping"].keys()
    assert not missing, f"no JSON Schema for {sorted(missing)}"
    prefix = ref_template.split("{model}")[0]
    for ref in schema["discriminator"]["mapping"].values():
        member = schema["$defs"][ref.removeprefix(prefix)]
        required = member.setdefault("required", [])
        if "type" not in required:
            required.insert(0, "type")
    return schema


@cache
def params_schema(command: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema of a command's parameters: its fields but `type`, which a legal
    action already names. Shared by every caller: never mutate it."""
    schema = command.model_json_schema(mode="validation")
    schema["properties"].pop("type", None)
    if "required" in schema:
        schema["required"] = [name for name in schema["required"] if name != "type"]
    return {"$schema": DIALECT, **schema}


def document(kind: Kind, title: str, schema: dict[str, Any]) -> dict[str, Any]:
    """A schema as a standalone document: the dialect and a title first."""
    body = {k: v for k, v in schema.items() if k not in ("$schema", "title")}
    return {"$schema": DIALECT, "title": f"{title} {kind}", **body}
