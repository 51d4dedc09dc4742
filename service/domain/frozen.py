"""A cheap copy-with-changes for frozen pydantic models, for the evolve hot path.

`model_copy(update=...)` copies the model's private and fields-set state on every call;
folding thousands of events spends most of its time there. Evolve only ever replaces
whole field values with values that were already validated, so a shallow copy suffices.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)
_set = object.__setattr__


def replace(model: M, update: Mapping[str, Any]) -> M:
    copy = object.__new__(type(model))
    values = dict(model.__dict__)
    values.update(update)
    _set(copy, "__dict__", values)
    _set(copy, "__pydantic_fields_set__", model.__pydantic_fields_set__ | update.keys())
    _set(copy, "__pydantic_extra__", model.__pydantic_extra__)
    _set(copy, "__pydantic_private__", model.__pydantic_private__)
    return copy
