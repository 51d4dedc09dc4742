"""Command inputs: one `@oneOf` input per ruleset, one member per command type.

Generated from each ruleset's `command_models`, so a new command or field appears in the
schema without a line here. Commands every ruleset shares (`service.domain.common`) have
one input type (`RollInput`); a ruleset's own commands are prefixed with its name
(`DelversDeepAttackInput`), so adding a ruleset never renames an existing type. A command
without fields is a `Boolean` member: send `true`.

`submitCommand` takes a `CommandInput`: a `@oneOf` over the rulesets, e.g.
`{freeform: {rollInitiative: {}}}`. The member must be the encounter's ruleset.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from service.api.graphql.pydantic_types import (
    TypeFactory,
    chosen,
    graphql_name,
    one_of_input,
    pascal,
    to_payload,
)
from service.domain.common import COMMON_COMMANDS
from service.domain.errors import InvalidCommand
from service.domain.ruleset import RulesetBase
from service.rules.registry import RULESETS


@dataclass(frozen=True)
class RulesetInput:
    ruleset: str
    input_type: Any  # the ruleset's generated @oneOf input
    types: dict[str, str]  # member attribute -> command type


def _attr(key: str) -> str:
    return key.replace("-", "_")


def _fields(model: type[BaseModel]) -> list[str]:
    return [name for name in model.model_fields if name != "type"]


def _ruleset_input(factory: TypeFactory, ruleset: RulesetBase[Any]) -> RulesetInput:
    prefix = pascal(ruleset.name)
    members: dict[str, tuple[str, Any, str | None]] = {}
    kinds: dict[str, str] = {}
    for kind in ruleset.command_types():
        model = ruleset.command_models[kind]
        attr = _attr(kind)
        kinds[attr] = kind
        if not _fields(model):
            members[attr] = (graphql_name(kind), bool, f"`{kind}`: no fields; send true.")
            continue
        shared = model in COMMON_COMMANDS
        name = f"{'' if shared else prefix}{model.__name__}Input"
        built = factory.build(model, name=name, skip=("type",))
        members[attr] = (graphql_name(kind), built, f"`{kind}`")
    doc = f"A {ruleset.title} command ({ruleset.name}): set exactly one member."
    return RulesetInput(ruleset.name, one_of_input(f"{prefix}CommandInput", members, doc), kinds)


def build_command_input(factory: TypeFactory) -> tuple[Any, dict[str, RulesetInput]]:
    """`CommandInput` (one member per ruleset) and each ruleset's input, by attribute."""
    rulesets = {_attr(name): _ruleset_input(factory, RULESETS[name]) for name in sorted(RULESETS)}
    members: dict[str, tuple[str, Any, str | None]] = {
        attr: (
            graphql_name(r.ruleset),
            r.input_type,
            f"A command of an encounter run by `{r.ruleset}`.",
        )
        for attr, r in rulesets.items()
    }
    doc = "A command: set the member of the encounter's ruleset."
    return one_of_input("CommandInput", members, doc), rulesets


def command_payload(value: Any, rulesets: dict[str, RulesetInput]) -> tuple[str, dict[str, Any]]:
    """The ruleset a `CommandInput` names and the command as the REST API would take it."""
    attr, member = chosen(value)
    ruleset = rulesets[attr]
    command_attr, fields = chosen(member)
    kind = ruleset.types[command_attr]
    if isinstance(fields, bool):
        if not fields:
            raise InvalidCommand(f"send `true` to issue `{kind}`", code="command/invalid")
        return ruleset.ruleset, {"type": kind}
    payload = to_payload(fields)
    assert isinstance(payload, dict)
    return ruleset.ruleset, {"type": kind, **payload}
