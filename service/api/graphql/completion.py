"""How a compiled `submitCommand` plan builds its answer: graphql-core's field collection
and value completion, worked out once per document for the result types
(`CommandAccepted`, `CommandRejected`), so that a request only builds a dict."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    SelectionSetNode,
    Undefined,
    is_abstract_type,
    is_leaf_type,
    is_list_type,
    is_non_null_type,
    is_object_type,
)

Complete = Callable[[Any], Any]


class Broken(Exception):
    """A result the schema does not allow (a null in a non-null field): graphql-core would
    answer with `data: null` and a masked error at this path."""

    def __init__(self, path: list[str | int]) -> None:
        super().__init__("broken result")
        self.path = path


class NotCompiled(Exception):
    """The document is not one the plan takes: strawberry's path answers it."""


@dataclass(frozen=True)
class Results:
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
            raise NotCompiled
        steps: list[tuple[str, Complete]] = []
        for key, nodes in self._collect(type_, selection_sets, {}).items():
            name = nodes[0].name.value
            if name == "__typename":
                steps.append((key, _constant(type_.name)))
                continue
            if name not in plain or nodes[0].arguments:
                raise NotCompiled
            inner = [n.selection_set for n in nodes if n.selection_set is not None]
            complete = self.output(type_.fields[name].type, inner)
            steps.append((key, _read(plain[name], complete)))

        def completed(source: Any) -> dict[str, Any]:
            out = {}
            for key, step in steps:
                try:
                    out[key] = step(source)
                except Broken as broken:
                    raise Broken([key, *broken.path]) from None
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
        raise NotCompiled  # an interface or union below the root: not in these types

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
                    raise NotCompiled
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
            raise Broken([])
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
            except Broken as broken:
                raise Broken([index, *broken.path]) from None
        return out

    return items


def _leaf(serialize: Callable[[Any], Any]) -> Complete:
    def leaf(value: Any) -> Any:
        if value is None:
            return None
        try:
            serialized = serialize(value)
        except Exception as error:
            raise Broken([]) from error
        if serialized is Undefined or serialized is None:
            raise Broken([])
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
    from service.api.graphql.views import ReceiptType

    return _plain_fields(CommandAccepted, CommandRejected, Event, ReceiptType)


OBJECTS = _objects()
