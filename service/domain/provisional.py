"""A provisional face: what the Roller hands the rules for a table die that was not supplied,
so that deciding can go on and find the other dice the command certainly needs.

A `Provisional` stands where an `int` would, and refuses to be read. Any operation whose
outcome depends on its value (a comparison, truth, hashing, arithmetic, conversion,
formatting, indexing a sequence with it) calls `on_read`, which raises: the rules have
reached a decision that depends on the missing die, so no die they ask for after this point
is certainly needed (docs/api.md, "Table dice"). Passing it around, storing it in a tuple or
a dataclass, and `is` tests read nothing.

It is deliberately not an `int` subclass: Python reads an `int` subclass's value without
asking it (pydantic copies it into a model field, `seq[face]`, `%d`), which would let the
rules decide on a value nobody rolled without anyone noticing. A plain object is asked every
time, or refused outright: building a pydantic model (an event) from one fails with "Input
should be a valid integer", which deciding takes for a read too (service/deciding.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn


class Provisional:
    """A face not yet supplied; reading it raises through `on_read`."""

    __slots__ = ("label", "on_read")

    def __init__(self, label: str, on_read: Callable[[], NoReturn]) -> None:
        self.label = label
        self.on_read = on_read

    def __repr__(self) -> str:
        return f"<provisional {self.label}>"

    def _read(self, *_: Any) -> NoReturn:
        self.on_read()

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _read
    __hash__ = __bool__ = __int__ = __index__ = __float__ = __complex__ = _read
    __str__ = __format__ = __bytes__ = _read
    __round__ = __trunc__ = __floor__ = __ceil__ = _read
    __neg__ = __pos__ = __abs__ = __invert__ = _read
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _read
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = _read
    __mod__ = __rmod__ = __divmod__ = __rdivmod__ = __pow__ = __rpow__ = _read
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = _read
    __lshift__ = __rlshift__ = __rshift__ = __rrshift__ = _read
