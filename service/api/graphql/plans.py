"""Compiling a `submitCommand` document into a `Plan`: which texts compile, the variables
and arguments, and their coercion as graphql-core does it (see `service.api.graphql.compiled`
for what a plan is for)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    GraphQLError,
    GraphQLField,
    GraphQLInputType,
    GraphQLSchema,
    OperationDefinitionNode,
    OperationType,
    Undefined,
    VariableNode,
    coerce_input_value,
    get_named_type,
    is_input_object_type,
    is_non_null_type,
    type_from_ast,
    value_from_ast,
    visit,
)
from graphql.language import Node, Visitor

from service.api.graphql.completion import OBJECTS, Broken, Complete, NotCompiled, Results
from service.api.graphql.schema import RULES, SCHEMA, parsed, validated

CACHED_PLANS = 256
# graphql-core refuses variables nested deeper than this (MAX_NESTING_DEPTH is 512): a
# value nested less deeply than this bound by JSON's count is within it by the type's.
MAX_DEPTH = 64
_ROOT_FIELD = "submitCommand"


@dataclass(frozen=True)
class _Variable:
    name: str
    type: GraphQLInputType


@dataclass(frozen=True)
class Plan:
    key: str  # the root field's response key (its alias, or submitCommand)
    location: dict[str, int]
    variables: tuple[_Variable, ...]
    static: dict[str, Any]  # arguments given as literals (and defaults), coerced once
    from_variables: tuple[tuple[str, str], ...]  # (argument, variable)
    by_type: dict[str, Complete]  # runtime type name -> its completion

    def arguments(self, values: Mapping[str, Any]) -> dict[str, Any] | None:
        """The arguments as graphql-core would pass them, or None when a variable does not
        coerce (strawberry's path then answers with graphql-core's error)."""
        coerced: dict[str, Any] = {}
        for variable in self.variables:
            value = values.get(variable.name, Undefined)
            if value is Undefined:
                if is_non_null_type(variable.type):
                    return None
                continue
            if _too_deep(value, MAX_DEPTH):
                return None
            result = _coerce(value, variable.type)
            if result is Undefined:
                return None
            coerced[variable.name] = result
        arguments = dict(self.static)
        for argument, name in self.from_variables:
            if name in coerced:
                arguments[argument] = coerced[name]
        return arguments

    def complete(self, result: Any) -> dict[str, Any]:
        completion = self.by_type.get(type(result).__name__)
        if completion is None:
            raise Broken([self.key])
        try:
            return {"data": {self.key: completion(result)}}
        except Broken as broken:
            raise Broken([self.key, *broken.path]) from None


# --- coercion ------------------------------------------------------------------------------


def _coerce(value: Any, type_: GraphQLInputType) -> Any:
    """graphql-core's `coerce_input_value`, without walking every absent member of a
    `@oneOf` input (`CommandInput` and each ruleset's have dozens): a `@oneOf` value is its
    one member. Its members are nullable and have no defaults (the spec's rule, checked
    by `_one_of_without_defaults`), so nothing else could be added."""
    if is_non_null_type(type_):
        if value is None:
            return Undefined
        type_ = type_.of_type
    if value is None:
        return None
    if is_input_object_type(type_) and type_ in _ONE_OF:
        if not isinstance(value, dict) or len(value) != 1:
            return Undefined
        ((name, member),) = value.items()
        field = type_.fields.get(name)
        if field is None or member is None:
            return Undefined
        coerced = _coerce(member, field.type)
        if coerced is Undefined or coerced is None:
            return Undefined
        return type_.out_type({field.out_name or name: coerced})
    try:
        return coerce_input_value(value, type_)
    except GraphQLError:  # strawberry's @oneOf check of a nested input, say
        return Undefined


def _too_deep(value: Any, limit: int) -> bool:
    if limit <= 0:
        return True
    if isinstance(value, dict):
        return any(_too_deep(v, limit - 1) for v in value.values())
    if isinstance(value, list):
        return any(_too_deep(v, limit - 1) for v in value)
    return False


def _one_of_without_defaults(schema: GraphQLSchema) -> frozenset[Any]:
    """The `@oneOf` inputs. strawberry does not set graphql-core's `is_one_of`: it checks
    the rule in each type's `out_type`, which raises `StrawberryInputCoercionError`."""
    return frozenset(
        t
        for t in schema.type_map.values()
        if is_input_object_type(t)
        and (t.is_one_of or getattr(t.extensions.get("strawberry-definition"), "is_one_of", False))
        and all(f.default_value is Undefined for f in t.fields.values())
    )


_ONE_OF = _one_of_without_defaults(SCHEMA._schema)


# --- compiling -----------------------------------------------------------------------------


def _contains(node: Node, kind: str) -> bool:
    """Whether `node` or a node under it is of `kind` ("directive", "variable")."""
    found = False

    class Finder(Visitor):
        def enter(self, node: Node, *_: object) -> None:
            nonlocal found
            found = found or node.kind == kind

    visit(node, Finder())
    return found


@lru_cache(maxsize=CACHED_PLANS)
def plan_for(query: str, operation_name: str | None) -> Plan | None:
    """The plan for a text, compiled once; None when strawberry's path must answer it."""
    try:
        document = parsed(query)
    except GraphQLError:
        return None
    schema = SCHEMA._schema
    if validated(schema, query, RULES):
        return None
    try:
        return _compile(schema, document, operation_name)
    except NotCompiled:
        return None


def _compile(schema: GraphQLSchema, document: DocumentNode, operation_name: str | None) -> Plan:
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    if len(operations) != 1 or _contains(document, "directive"):
        raise NotCompiled
    (operation,) = operations
    name = operation.name.value if operation.name else None
    if operation.operation != OperationType.MUTATION or operation_name not in (None, name):
        raise NotCompiled
    selections = operation.selection_set.selections
    if len(selections) != 1 or not isinstance(selections[0], FieldNode):
        raise NotCompiled
    node = selections[0]
    if node.name.value != _ROOT_FIELD or node.selection_set is None:
        raise NotCompiled
    mutation = schema.mutation_type
    assert mutation is not None
    field = mutation.fields[_ROOT_FIELD]
    static, from_variables = _arguments(field, node)
    results = Results(schema, fragments, OBJECTS)
    possible = schema.get_possible_types(get_named_type(field.type))
    location = node.loc.source.get_location(node.loc.start) if node.loc else None
    return Plan(
        key=node.alias.value if node.alias else _ROOT_FIELD,
        location={"line": location.line, "column": location.column} if location else {},
        variables=_variables(schema, operation),
        static=static,
        from_variables=from_variables,
        by_type={t.name: results.object(t, [node.selection_set]) for t in possible},
    )


def _variables(schema: GraphQLSchema, operation: OperationDefinitionNode) -> tuple[_Variable, ...]:
    variables = []
    for definition in operation.variable_definitions or ():
        if definition.default_value is not None:
            raise NotCompiled
        type_ = type_from_ast(schema, definition.type)
        assert type_ is not None  # validation found none unknown
        variables.append(_Variable(definition.variable.name.value, type_))  # type: ignore[arg-type]
    return tuple(variables)


def _arguments(
    field: GraphQLField, node: FieldNode
) -> tuple[dict[str, Any], tuple[tuple[str, str], ...]]:
    """The arguments known now (literals coerced once, defaults) and those taken from a
    variable: (argument, variable)."""
    static: dict[str, Any] = {}
    from_variables: list[tuple[str, str]] = []
    given = {a.name.value: a.value for a in node.arguments or ()}
    for argument, definition in field.args.items():
        value = given.get(argument)
        if value is None:
            if definition.default_value is not Undefined:
                static[argument] = definition.default_value
        elif isinstance(value, VariableNode):
            from_variables.append((argument, value.name.value))
        else:
            if _contains(value, "variable"):
                raise NotCompiled
            coerced = value_from_ast(value, definition.type)
            if coerced is Undefined:
                raise NotCompiled
            static[argument] = coerced
    return static, tuple(from_variables)
