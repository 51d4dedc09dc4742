"""Old event shapes are read through upcasters kept beside the event model.

An upcaster turns the data of event `type` at schema version n into schema version n + 1.
A stream written by an older Fray still folds: its events are upcast step by step.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


class MissingUpcaster(LookupError):
    pass


def upcast(
    upcasters: Mapping[tuple[str, int], Upcaster],
    kind: str,
    schema: int,
    target: int,
    data: dict[str, Any],
) -> dict[str, Any]:
    while schema < target:
        step = upcasters.get((kind, schema))
        if step is None:
            raise MissingUpcaster(f"no upcaster for '{kind}' from schema {schema}")
        data = step(data)
        schema += 1
    return data
