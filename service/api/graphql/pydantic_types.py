"""GraphQL types built from pydantic models, so the models stay the one source of truth.

This is the only module that builds strawberry types at run time. Strawberry's decorators
are typed for classes written in source; here the classes come from `type(...)`, so mypy
cannot follow them and every value that is a generated class is typed `Any`.

Mapping: str, int, float and bool map to their scalars; a `Literal` of strings to `String`
(its values are listed in the description; pydantic validates them); `Optional[X]` to a
nullable X; lists, tuples and sets to lists; a nested model to its own input or output
type; `dict[str, Any]` and anything unusual to the `JSON` scalar. Field names are the
camelCase of the pydantic alias (or name), and `to_payload` turns an input back into the
dict the pydantic model validates.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import strawberry
from pydantic import BaseModel, PydanticUserError, TypeAdapter
from pydantic.fields import FieldInfo
from strawberry.scalars import JSON
from strawberry.types.unset import UNSET
from strawberry.utils.str_converters import to_camel_case

_SEQUENCES = (list, tuple, set, frozenset)
_SCALARS = (str, int, float, bool)


@dataclass(frozen=True)
class _Field:
    attr: str  # the Python attribute on the strawberry class
    key: str  # the key in the pydantic model's JSON (its alias, else its name)
    nested: Any  # the generated class of a nested model (or list of them), else None


# Generated class -> its fields: how to turn an input into a payload, or a dump into output.
_FIELDS: dict[type, tuple[_Field, ...]] = {}
# Generated input class -> GraphQL field name -> (JSON key, nested class or None).
_BY_GRAPHQL_NAME: dict[type, dict[str, tuple[str, Any]]] = {}


def graphql_name(key: str) -> str:
    return to_camel_case(key.replace("-", "_"))


def pascal(name: str) -> str:
    return "".join(part.capitalize() for part in name.replace("_", "-").split("-"))


class TypeFactory:
    """Builds (and remembers) one GraphQL type per pydantic model.

    `kind` is "input" or "output"; `name_of` names the type of a model.
    """

    def __init__(self, kind: typing.Literal["input", "output"], name_of: Callable[[type], str]):
        self._kind = kind
        self._name_of = name_of
        self._built: dict[type[BaseModel], Any] = {}
        self._names: dict[str, type[BaseModel]] = {}

    def build(
        self, model: type[BaseModel], *, name: str | None = None, skip: tuple[str, ...] = ()
    ) -> Any:
        if model in self._built:
            return self._built[model]
        name = name or self._name_of(model)
        clash = self._names.get(name)
        if clash is not None and clash is not model:
            raise TypeError(f"GraphQL type name {name} is used by {clash} and {model}")
        self._names[name] = model
        annotations: dict[str, Any] = {}
        namespace: dict[str, Any] = {}
        fields: list[_Field] = []
        for attr, info in model.model_fields.items():
            if attr in skip:
                continue
            key = info.alias or attr
            annotation, nested = self._annotation(info.annotation)
            annotation, default = self._with_default(annotation, info)
            annotations[attr] = annotation
            extra = {} if default is _REQUIRED else {"default": default}
            if isinstance(info.deprecated, str):
                extra["deprecation_reason"] = info.deprecated
            namespace[attr] = strawberry.field(
                name=graphql_name(key), description=_describe(info), **extra
            )
            fields.append(_Field(attr, key, nested))
        if not annotations:
            raise TypeError(f"{model.__name__} has no fields to expose")
        cls = type(name, (), {"__annotations__": annotations, **namespace})
        decorate: Any = strawberry.input if self._kind == "input" else strawberry.type
        built = decorate(cls, name=name, description=_doc(model))
        _FIELDS[built] = tuple(fields)
        _BY_GRAPHQL_NAME[built] = {graphql_name(f.key): (f.key, f.nested) for f in fields}
        self._built[model] = built
        return built

    def _annotation(self, tp: Any) -> tuple[Any, Any]:
        """The strawberry annotation of a pydantic annotation, and its nested class if any."""
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if origin is typing.Annotated:
            return self._annotation(args[0])
        if origin in (typing.Union, types.UnionType):
            rest = [a for a in args if a is not type(None)]
            if len(rest) == 1:
                inner, nested = self._annotation(rest[0])
                return typing.Optional[inner], nested  # noqa: UP045 (a runtime value)
            return JSON, None
        if origin is typing.Literal:
            return _literal(args), None
        if origin in _SEQUENCES and args and (origin is not tuple or _homogeneous(args)):
            # A fixed-length tuple of one type (a pair of cards) is a list in GraphQL; its
            # pydantic model still checks the length.
            inner, nested = self._annotation(args[0])
            return types.GenericAlias(list, (inner,)), nested
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            built = self.build(tp)
            return built, built
        if tp in _SCALARS:
            return tp, None
        if _text_type(tp):
            return str, None
        return JSON, None

    def _with_default(self, annotation: Any, info: FieldInfo) -> tuple[Any, Any]:
        """Simple defaults are shown in the schema; any other optional field is left unset,
        so the pydantic model applies its own default."""
        if self._kind == "output":
            return annotation, UNSET
        if info.is_required():
            nullable = typing.get_origin(annotation) is typing.Union
            return annotation, UNSET if nullable else _REQUIRED
        if isinstance(info.default, _SCALARS):
            return annotation, info.default
        if typing.get_origin(annotation) is typing.Union:
            return annotation, UNSET
        return typing.Optional[annotation], UNSET  # noqa: UP045 (a runtime value)


def _homogeneous(args: tuple[Any, ...]) -> bool:
    return args[-1] is Ellipsis or all(a == args[0] for a in args)


def _text_type(tp: Any) -> bool:
    """A custom type pydantic reads and writes as a JSON string (a card: "10S")."""
    if not isinstance(tp, type) or not hasattr(tp, "__get_pydantic_core_schema__"):
        return False
    try:
        schema = TypeAdapter(tp).json_schema()
    except PydanticUserError:
        return False
    return schema.get("type") == "string"


# A required, non-null field gets no default, so GraphQL validation demands it.
_REQUIRED: Any = object()


def _literal(values: tuple[Any, ...]) -> Any:
    if all(isinstance(v, bool) for v in values):
        return bool
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return int
    if all(isinstance(v, str) for v in values):
        return str
    return JSON


def _describe(info: FieldInfo) -> str | None:
    parts = [info.description] if info.description else []
    literal = _literal_values(info.annotation)
    if literal:
        parts.append("One of: " + ", ".join(str(v) for v in literal) + ".")
    return " ".join(parts) or None


def _literal_values(tp: Any) -> tuple[Any, ...]:
    origin = typing.get_origin(tp)
    if origin is typing.Literal:
        return typing.get_args(tp)
    if origin in (typing.Union, types.UnionType, typing.Annotated):
        for arg in typing.get_args(tp):
            found = _literal_values(arg)
            if found:
                return found
    return ()


def _doc(model: type[BaseModel]) -> str | None:
    doc = model.__doc__
    if not doc or doc == BaseModel.__doc__ or doc.startswith(f"{model.__name__}("):
        return None
    # The first paragraph: later ones tend to be notes for Python callers.
    return " ".join(doc.strip().split("\n\n")[0].split())


def to_payload(value: Any) -> Any:
    """An input value as the JSON its pydantic model validates (unset fields left out)."""
    if isinstance(value, list):
        return [to_payload(v) for v in value]
    fields = _FIELDS.get(type(value))
    if fields is None:
        return value
    out: dict[str, Any] = {}
    for field in fields:
        item = getattr(value, field.attr)
        if item is not UNSET:
            out[field.key] = to_payload(item)
    return out


def raw_payload(cls: Any, value: Mapping[str, Any]) -> dict[str, Any]:
    """A GraphQL input value as graphql-core coerced it (keyed by GraphQL names, nested
    inputs as dicts) straight to the JSON its pydantic model validates: what `to_payload`
    gives from strawberry's input objects, without building them. Fields the client left
    out and that publish no default are absent, as in `to_payload`."""
    fields = _BY_GRAPHQL_NAME[cls]
    out: dict[str, Any] = {}
    for name, item in value.items():
        key, nested = fields[name]
        out[key] = item if nested is None else _raw_nested(nested, item)
    return out


def _raw_nested(cls: Any, item: Any) -> Any:
    if item is None:
        return None
    if isinstance(item, list):
        return [_raw_nested(cls, element) for element in item]
    return raw_payload(cls, item)


def from_dump(cls: Any, data: Any) -> Any:
    """A generated output object from a model's JSON dump (`model_dump(mode="json")`)."""
    if data is None:
        return None
    if isinstance(data, list):
        return [from_dump(cls, item) for item in data]
    fields = _FIELDS[cls]
    values = {}
    for field in fields:
        item = data.get(field.key)
        values[field.attr] = from_dump(field.nested, item) if field.nested else item
    return cls(**values)


def one_of_input(name: str, members: dict[str, tuple[str, Any, str | None]], doc: str) -> Any:
    """A `@oneOf` input: attr -> (GraphQL name, member type, description); exactly one is set."""
    annotations = {attr: typing.Optional[tp] for attr, (_, tp, _) in members.items()}  # noqa: UP045
    namespace = {
        attr: strawberry.field(name=gql, default=UNSET, description=text)
        for attr, (gql, _, text) in members.items()
    }
    cls = type(name, (), {"__annotations__": annotations, **namespace})
    decorate: Any = strawberry.input
    return decorate(cls, name=name, one_of=True, description=doc)
