"""`submitCommand` compiled: the hot mutation without strawberry's view or graphql-core's
executor, for the documents where that changes nothing but the cost.

A client sends the same `submitCommand` text again and again with new variables. The first
time a text arrives it is parsed and validated (the same cache and rules as strawberry's
path) and, if it is simple enough, compiled into a `Plan`: the variables it declares with
their types, the arguments, and for each result type (`CommandAccepted`,
`CommandRejected`) the response keys in graphql-core's order with how to complete each.
A request then costs the variables' coercion, one `submit()` and building a dict.

A text is compiled only when it is one mutation whose one root field is `submitCommand`,
with no directives, no variable defaults, no variables inside literals, and selections
(fields, inline fragments, fragment spreads) that read plain fields of the result types.
Anything else, and any request the plan cannot take as it is (variables that do not
coerce, an unknown operation name, a body that is not one JSON object), goes to
strawberry's view unchanged, which answers it as it always has: errors included.
`tests/api/test_graphql_compiled.py` sends the same requests both ways and compares the
answers.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import orjson
from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLField,
    GraphQLInputType,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
    Undefined,
    VariableNode,
    coerce_input_value,
    get_named_type,
    is_abstract_type,
    is_input_object_type,
    is_leaf_type,
    is_list_type,
    is_non_null_type,
    is_object_type,
    type_from_ast,
    value_from_ast,
    visit,
)
from graphql.language import Node, Visitor
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.api.bodies import read_body
from service.api.graphql.context import Context
from service.api.graphql.mutation import submit_with
from service.api.graphql.schema import MASKED, RULES, SCHEMA, parsed, validated
from service.domain.errors import FrayError

_log = logging.getLogger("fray.api")

CACHED_PLANS = 256
# graphql-core refuses variables nested deeper than this (MAX_NESTING_DEPTH is 512): a
# value nested less deeply than this bound by JSON's count is within it by the type's.
MAX_DEPTH = 64
_ROOT_FIELD = "submitCommand"
_STREAMING = ("multipart/", "text/event-stream")
NOT_AN_OBJECT = "The GraphQL request body must be a JSON object"

Complete = Callable[[Any], Any]


class _Broken(Exception):
    """A result the schema does not allow (a null in a non-null field): graphql-core would
    answer with `data: null` and a masked error at this path."""

    def __init__(self, path: list[str | int]) -> None:
        super().__init__("broken result")
        self.path = path


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
            raise _Broken([self.key])
        try:
            return {"data": {self.key: completion(result)}}
        except _Broken as broken:
            raise _Broken([self.key, *broken.path]) from None


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


class _NotCompiled(Exception):
    """The document is not one the plan takes: strawberry's path answers it."""


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
    except _NotCompiled:
        return None


def _compile(schema: GraphQLSchema, document: DocumentNode, operation_name: str | None) -> Plan:
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    if len(operations) != 1 or _contains(document, "directive"):
        raise _NotCompiled
    (operation,) = operations
    name = operation.name.value if operation.name else None
    if operation.operation != OperationType.MUTATION or operation_name not in (None, name):
        raise _NotCompiled
    selections = operation.selection_set.selections
    if len(selections) != 1 or not isinstance(selections[0], FieldNode):
        raise _NotCompiled
    node = selections[0]
    if node.name.value != _ROOT_FIELD or node.selection_set is None:
        raise _NotCompiled
    mutation = schema.mutation_type
    assert mutation is not None
    field = mutation.fields[_ROOT_FIELD]
    static, from_variables = _arguments(field, node)
    results = _Results(schema, fragments, OBJECTS)
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
            raise _NotCompiled
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
                raise _NotCompiled
            coerced = value_from_ast(value, definition.type)
            if coerced is Undefined:
                raise _NotCompiled
            static[argument] = coerced
    return static, tuple(from_variables)


@dataclass(frozen=True)
class _Results:
    """How a document's selections complete the result objects: graphql-core's field
    collection (without directives) and `complete_value`, done once per document."""

    schema: GraphQLSchema
    fragments: Mapping[str, FragmentDefinitionNode]
    attributes: Mapping[str, Mapping[str, str]]  # type -> GraphQL field -> attribute

    def object(
        self, type_: GraphQLObjectType, selection_sets: Iterable[SelectionSetNode]
    ) -> Complete:
        plain = self.attributes.get(type_.name)
        if plain is None:
            raise _NotCompiled
        steps: list[tuple[str, Complete]] = []
        for key, nodes in self._collect(type_, selection_sets, {}).items():
            name = nodes[0].name.value
            if name == "__typename":
                steps.append((key, _constant(type_.name)))
                continue
            if name not in plain or nodes[0].arguments:
                raise _NotCompiled
            inner = [n.selection_set for n in nodes if n.selection_set is not None]
            complete = self.output(type_.fields[name].type, inner)
            steps.append((key, _read(plain[name], complete)))

        def completed(source: Any) -> dict[str, Any]:
            out = {}
            for key, step in steps:
                try:
                    out[key] = step(source)
                except _Broken as broken:
                    raise _Broken([key, *broken.path]) from None
            return out

        return completed

    def output(self, type_: Any, inner: list[SelectionSetNode]) -> Complete:
        """How graphql-core's `complete_value` completes a value of `type_`."""
        if is_non_null_type(type_):
            return _non_null(self.output(type_.of_type, inner))
        if is_list_type(type_):
            return _items(self.output(type_.of_type, inner))
        if is_leaf_type(type_):
            return _leaf(type_.serialize)
        if is_object_type(type_):
            complete = self.object(type_, inner)
            return lambda value: None if value is None else complete(value)
        raise _NotCompiled  # an interface or union below the root: not in these types

    def _collect(
        self,
        type_: GraphQLObjectType,
        selection_sets: Iterable[SelectionSetNode],
        into: dict[str, list[FieldNode]],
    ) -> dict[str, list[FieldNode]]:
        """The fields a selection asks of an object of `type_`, grouped by response key in
        first-seen order: graphql-core's CollectFields without directives."""
        for selection_set in selection_sets:
            for selection in selection_set.selections:
                if isinstance(selection, FieldNode):
                    key = selection.alias.value if selection.alias else selection.name.value
                    into.setdefault(key, []).append(selection)
                    continue
                if isinstance(selection, InlineFragmentNode):
                    condition = selection.type_condition
                    inner = selection.selection_set
                elif isinstance(selection, FragmentSpreadNode):
                    fragment = self.fragments[selection.name.value]
                    condition, inner = fragment.type_condition, fragment.selection_set
                else:  # pragma: no cover - the language has no other selection
                    raise _NotCompiled
                if condition is None or self._applies(condition.name.value, type_):
                    self._collect(type_, [inner], into)
        return into

    def _applies(self, condition: str, type_: GraphQLObjectType) -> bool:
        named = self.schema.get_type(condition)
        return named is type_ or (is_abstract_type(named) and self.schema.is_sub_type(named, type_))


def _constant(value: str) -> Complete:
    return lambda _source: value


def _read(attribute: str, complete: Complete) -> Complete:
    return lambda source: complete(getattr(source, attribute))


def _non_null(nullable: Complete) -> Complete:
    def non_null(value: Any) -> Any:
        completed = None if value is None else nullable(value)
        if completed is None:
            raise _Broken([])
        return completed

    return non_null


def _items(item: Complete) -> Complete:
    def items(value: Any) -> Any:
        if value is None:
            return None
        out = []
        for index, each in enumerate(value):
            try:
                out.append(item(each))
            except _Broken as broken:
                raise _Broken([index, *broken.path]) from None
        return out

    return items


def _leaf(serialize: Callable[[Any], Any]) -> Complete:
    def leaf(value: Any) -> Any:
        if value is None:
            return None
        try:
            serialized = serialize(value)
        except Exception as error:
            raise _Broken([]) from error
        if serialized is Undefined or serialized is None:
            raise _Broken([])
        return serialized

    return leaf


def _plain_fields(*types: Any) -> dict[str, dict[str, str]]:
    """GraphQL name -> Python attribute of each strawberry type's fields that are plain
    attributes (no resolver): what the plan may read without running a resolver."""
    out: dict[str, dict[str, str]] = {}
    for type_ in types:
        definition = type_.__strawberry_definition__
        out[definition.name] = {
            f.graphql_name or _camel(f.python_name): f.python_name
            for f in definition.fields
            if f.base_resolver is None
        }
    return out


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _objects() -> dict[str, dict[str, str]]:
    from service.api.graphql.types import CommandAccepted, CommandRejected, Event

    return _plain_fields(CommandAccepted, CommandRejected, Event)


OBJECTS = _objects()


# --- the endpoint --------------------------------------------------------------------------


class CompiledGraphQL:
    """The ASGI app at /graphql: a POSTed JSON `submitCommand` whose text compiles runs its
    plan; everything else (GraphiQL, other operations, websockets, anything unusual) goes
    to `app`, strawberry's view, with the body it was sent. A POSTed body is read within
    the size limit (also when it is sent without a length), and a JSON body that is
    neither an object nor a list is answered 400 here (strawberry's view fails on it)."""

    def __init__(self, app: ASGIApp, *, compiled: bool = True) -> None:
        self.app = app
        self.compiled = compiled  # False: strawberry's view answers everything

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        body = await read_body(request)
        response = await self._answer(request, body)
        if response is not None:
            await response(scope, receive, send)
            return
        await self.app(scope, _replay(body, receive), send)

    async def _answer(self, request: Request, body: bytes) -> Response | None:
        headers = request.headers
        if "application/json" not in headers.get("content-type", ""):
            return None
        try:
            # The standard library's parser, as strawberry's: orjson reads an integer
            # beyond 64 bits as a float, which a JSON scalar would see.
            data = json.loads(body)
        except (ValueError, RecursionError):  # strawberry's view answers (FrayGraphQL)
            return None
        if not isinstance(data, dict | list):
            return PlainTextResponse(NOT_AN_OBJECT, status_code=400)
        if not isinstance(data, dict) or not self.compiled:
            return None
        accept = headers.get("accept", "")
        if any(kind in accept for kind in _STREAMING):
            return None
        query, variables = data.get("query"), data.get("variables")
        operation_name, extensions = data.get("operationName"), data.get("extensions")
        if (
            not isinstance(query, str)
            or not isinstance(variables, dict | None)
            or not isinstance(extensions, dict | None)
            or not isinstance(operation_name, str | None)
        ):
            return None
        plan = plan_for(query, operation_name)
        if plan is None:
            return None
        arguments = plan.arguments(variables or {})
        if arguments is None:
            return None
        return await _run(plan, Context(request=request), arguments)


async def _run(plan: Plan, context: Context, arguments: dict[str, Any]) -> Response:
    try:
        answer = plan.complete(await submit_with(context, arguments))
    except Exception as error:  # graphql-core's answer to a resolver's or a result's fault
        path = error.path if isinstance(error, _Broken) else [plan.key]
        located = [plan.location] if plan.location else []
        if isinstance(error, GraphQLError) and isinstance(error.original_error, FrayError):
            # Raised on purpose (the store is away): its text and code, as strawberry shows it.
            failure = {
                "message": error.message,
                "locations": located,
                "path": path,
                "extensions": error.extensions,
            }
        else:
            _log.exception("submitCommand failed")
            failure = {"message": MASKED, "locations": located, "path": path}
        answer = {"data": None, "errors": [failure]}
    return Response(orjson.dumps(answer), media_type="application/json")


def _replay(body: bytes, receive: Receive) -> Receive:
    """`receive` for an app that reads a body this one has already read."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed
