"""Strawberry's field decorators, typed for mypy.

Called with arguments (`strawberry.field(description=...)`) strawberry's overloads return
`Any`, which strict mypy reports as an untyped decorator; these wrappers keep the
decorated resolver's signature visible to mypy and change nothing at run time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import strawberry

F = TypeVar("F", bound=Callable[..., Any])


def field(description: str) -> Callable[[F], F]:
    decorator: Callable[[F], F] = strawberry.field(description=description)
    return decorator


def mutation(description: str) -> Callable[[F], F]:
    decorator: Callable[[F], F] = strawberry.mutation(description=description)
    return decorator


def subscription(description: str) -> Callable[[F], F]:
    decorator: Callable[[F], F] = strawberry.subscription(description=description)
    return decorator
