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

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from pydantic import BaseModel, ValidationError

from service.api.graphql.context import Context
from service.api.graphql.pydantic_types import (
    TypeFactory,
    graphql_name,
    one_of_input,
    pascal,
    raw_payload,
)
from service.app.auth import Principal
from service.deciding import CommandRequest
from service.domain.common import COMMON_COMMANDS
from service.domain.errors import InvalidCommand
from service.domain.ruleset import RulesetBase, invalid
from service.rules.registry import RULESETS


@dataclass(frozen=True)
class RulesetInput:
    ruleset: str
    input_type: Any  # the ruleset's generated @oneOf input
    members: dict[str, tuple[str, Any]]  # GraphQL member name -> (command type, input or bool)


@dataclass(frozen=True)
class ChosenCommand:
    """What a `CommandInput` argument arrives as: its one ruleset member and that member's
    one command, the fields as graphql-core coerced them (or `true`)."""

    ruleset: RulesetInput
    kind: str
    input_type: Any  # the command's generated input class, or bool
    fields: Any


def _attr(key: str) -> str:
    return key.replace("-", "_")


def _fields(model: type[BaseModel]) -> list[str]:
    return [name for name in model.model_fields if name != "type"]


def _ruleset_input(factory: TypeFactory, ruleset: RulesetBase[Any]) -> RulesetInput:
    prefix = pascal(ruleset.name)
    members: dict[str, tuple[str, Any, str | None]] = {}
    by_name: dict[str, tuple[str, Any]] = {}
    for kind in ruleset.command_types():
        model = ruleset.command_models[kind]
        attr = _attr(kind)
        if not _fields(model):
            members[attr] = (graphql_name(kind), bool, f"`{kind}`: no fields; send true.")
            by_name[graphql_name(kind)] = (kind, bool)
            continue
        shared = model in COMMON_COMMANDS
        name = f"{'' if shared else prefix}{model.__name__}Input"
        built = factory.build(model, name=name, skip=("type",))
        members[attr] = (graphql_name(kind), built, f"`{kind}`")
        by_name[graphql_name(kind)] = (kind, built)
    doc = f"A {ruleset.title} command ({ruleset.name}): set exactly one member."
    input_type = one_of_input(f"{prefix}CommandInput", members, doc)
    return RulesetInput(ruleset.name, input_type, by_name)


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
    command_input = one_of_input("CommandInput", members, doc)
    by_name = {graphql_name(r.ruleset): r for r in rulesets.values()}
    # Strawberry would build an input object per level and walk every member of each (a
    # ruleset has dozens): 113-124 µs per submitCommand, measured. The command is wanted as
    # JSON for its pydantic model anyway, so it is taken from graphql-core's coerced value.
    command_input.__strawberry_definition__.from_input = partial(_chosen, by_name)
    return command_input, rulesets


def _chosen(
    rulesets: dict[str, RulesetInput], target: Any, value: Mapping[str, Any], context: Any
) -> ChosenCommand:
    # graphql-core has checked that each @oneOf level sets exactly one non-null member.
    ((ruleset_name, member),) = value.items()
    ruleset = rulesets[ruleset_name]
    ((command_name, fields),) = member.items()
    kind, input_type = ruleset.members[command_name]
    return ChosenCommand(ruleset, kind, input_type, fields)


def command_payload(value: ChosenCommand) -> tuple[str, dict[str, Any]]:
    """The ruleset a `CommandInput` names and the command as the REST API would take it."""
    kind = value.kind
    if value.input_type is bool:
        if not value.fields:
            raise InvalidCommand(f"send `true` to issue `{kind}`", code="command/invalid")
        return value.ruleset.ruleset, {"type": kind}
    return value.ruleset.ruleset, {"type": kind, **raw_payload(value.input_type, value.fields)}


async def request_of(
    context: Context,
    principal: Principal,
    command: ChosenCommand,
    command_id: str | None,
    expected_version: int | None,
    dice: list[int] | None,
    deck_orders: list[list[int]] | None,
) -> CommandRequest:
    """The command request as REST takes it, once the command is of the encounter's
    ruleset (`submitCommand` and `previewCommand`)."""
    named, payload = command_payload(command)
    # An encounter's ruleset never changes: the engine's cached copy is enough.
    stream = principal.stream_of()
    loaded = context.engine.peek(stream) or await context.engine.load(stream)
    if named != loaded.ruleset.name:
        raise InvalidCommand(
            f"this encounter runs {loaded.ruleset.name}: send the "
            f"`{graphql_name(loaded.ruleset.name)}` member of CommandInput, not "
            f"`{graphql_name(named)}`",
            code="command/wrong-ruleset",
        )
    try:
        return CommandRequest(
            command_id=command_id,
            expected_version=expected_version,
            command=payload,
            dice=dice,
            deck_orders=deck_orders,
        )
    except ValidationError as error:
        raise invalid(error, "command request") from None
