"""The bounds every value a client sends must keep, whatever field it is in.

A number beyond these could not come back out of the stream unchanged: JSON readers turn
integers past 64 bits (orjson) or 53 bits (JavaScript) into floats, and GraphQL's `Int` is
32 bits. So every number in a command, its options or a stat block stays within GraphQL's
`Int` (the widest integer the API carries), and nesting stays shallow enough for every
JSON library Fray and its clients use. Fields tighten these where the rules imply it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BeforeValidator

from service.domain.dice import MAX_VALUE
from service.domain.errors import InvalidCommand

MAX_NUMBER = MAX_VALUE
"""Largest magnitude of any number in a command or options: 2,147,483,647."""
MAX_DEPTH = 32
"""Deepest nesting of objects and arrays in a command or options."""


def check_values(value: Any, what: str) -> None:
    """Refuse a number out of range or nesting too deep anywhere in `value`, naming the
    field's path (`stats.hp`, `path.2.x`)."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if isinstance(item, dict):
            children = [(v, (*path, str(k))) for k, v in item.items()]
        elif isinstance(item, list | tuple):
            children = [(v, (*path, str(i))) for i, v in enumerate(item)]
        else:
            if (
                isinstance(item, int | float)
                and not isinstance(item, bool)
                and not -MAX_NUMBER <= item <= MAX_NUMBER
            ):
                raise InvalidCommand(
                    f"the {what} is not valid: field '{_field(path)}': {item} is out of range; "
                    f"numbers are between -{MAX_NUMBER} and {MAX_NUMBER}",
                    code="request/number-out-of-range",
                    details=[{"field": _field(path), "problem": "number out of range"}],
                )
            continue
        if len(path) >= MAX_DEPTH:
            raise InvalidCommand(
                f"the {what} is not valid: field '{_field(path)}' nests deeper than "
                f"{MAX_DEPTH} levels",
                code="request/too-deep",
                details=[{"field": _field(path), "problem": "nested too deeply"}],
            )
        stack.extend(children)


def _field(path: tuple[str, ...]) -> str:
    return ".".join(path) or "(value)"


def _tuple_of_list(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


ARRAY = BeforeValidator(_tuple_of_list)
"""For a tuple field of a model with a `mode="before"` validator: strict validation goes on
in Python after such a validator, where a JSON array has become a list and only a tuple is
a tuple."""
