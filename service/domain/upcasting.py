"""Old event shapes are read through upcasters kept beside the event model.

An upcaster turns the data of event `type` at schema version n into schema version n + 1;
it is keyed by `(type, n)`, as each envelope records the schema of its own event type. A
stream written by an older Fray still folds: its events are upcast step by step, then
validated once against today's model (`RulesetBase.event_from`). This is the one place old
shapes are read: evolve folds today's models only and never validates.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from service.domain.errors import FrayError

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


class UnreadableEvent(FrayError):
    """A stored event that today's model does not read, and no upcaster brings to it. The
    stream is intact; this Fray lacks the upcaster (a fault in Fray, not in a command)."""

    code = "internal/unreadable-event"

    @classmethod
    def of(cls, kind: str, schema: int, current: int, error: ValidationError) -> UnreadableEvent:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or kind}: {e['msg']}" for e in error.errors()
        )
        return cls(
            f"a stored '{kind}' event (schema {schema}) does not fit today's model (schema "
            f"{current}): {problems}; it needs an upcaster keyed ('{kind}', {schema})",
            details={"type": kind, "schema": schema, "problems": problems},
        )


class MissingUpcaster(UnreadableEvent):
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
            raise MissingUpcaster(
                f"no upcaster for '{kind}' from schema {schema}",
                details={"type": kind, "schema": schema},
            )
        data = step(data)
        schema += 1
    return data
