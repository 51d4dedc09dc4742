"""Auditable randomness: every die and shuffle derives from the encounter's committed seed.

DESIGN.md, audit algorithm: draw(v, n, k) is a uniform integer in [0, k) taken from
HMAC-SHA256(seed, "{v}:{n}:{a}") by rejection sampling; v is the version of the first
event a command produced, n counts draws while deciding that command.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from service.domain.errors import RuleViolation

T = TypeVar("T")
_SPAN = 1 << 64
DrawKind = Literal["die", "index", "order"]
DiceMode = Literal["server", "table", "mixed", "prompt"]


def draw(seed: bytes, v: int, n: int, k: int) -> int:
    """A uniform integer in [0, k) for draw n of the command whose first event is version v."""
    if k < 1:
        raise ValueError(f"cannot draw from an empty range (k={k})")
    limit = _SPAN - (_SPAN % k)
    attempt = 0
    while True:
        digest = hmac.new(seed, f"{v}:{n}:{attempt}".encode("ascii"), hashlib.sha256).digest()
        x = int.from_bytes(digest[:8], "big")
        if x < limit:
            return x % k
        attempt += 1


def shuffle_from(items: Sequence[T], draws: Sequence[int]) -> list[T]:
    """Fisher-Yates from the end, with j_i = draws[m-1-i] for i = m-1 down to 1."""
    out = list(items)
    for step, i in enumerate(range(len(out) - 1, 0, -1)):
        j = draws[step]
        out[i], out[j] = out[j], out[i]
    return out


@dataclass(frozen=True, slots=True)
class RollRecord:
    """One draw as an event lists it in `rolls`."""

    k: int
    value: int | list[int]
    purpose: str
    kind: DrawKind
    n: int | None = None
    source: Literal["server", "table"] = "server"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"k": self.k, "value": self.value, "purpose": self.purpose}
        out["kind"] = self.kind
        if self.source == "table":
            out["source"] = "table"
        else:
            out["n"] = self.n
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RollRecord:
        return cls(
            k=int(data["k"]),
            value=data["value"],
            purpose=str(data.get("purpose", "")),
            kind=data.get("kind", "die"),
            n=data.get("n"),
            source="table" if data.get("source") == "table" else "server",
        )


@dataclass(frozen=True, slots=True)
class NeededDie:
    """A table die a command still needs."""

    sides: int
    expression: str  # the expression of the roll it belongs to, e.g. "d20" or "2d6+1"
    purpose: str  # the purpose string the rules gave (as recorded in rolls)
    roller: str  # the id of the combatant it is rolled for, or "gm"

    def to_dict(self) -> dict[str, Any]:
        return {
            "sides": self.sides,
            "expression": self.expression,
            "purpose": self.purpose,
            "roller": self.roller,
        }


class MissingTableDice(RuleViolation):
    """code "dice/table-dice-missing"; `needed` lists the dice still needed, in order."""

    def __init__(self, needed: tuple[NeededDie, ...], message: str | None = None) -> None:
        first = needed[0]
        super().__init__(
            "dice/table-dice-missing",
            message
            or f"this command needs a d{first.sides} ({first.purpose}) from the table, "
            "and none is left",
            details={"needed": [die.to_dict() for die in needed]},
        )
        self.needed = needed


@dataclass
class Roller:
    """The source of every random value while deciding one command.

    With table dice (faces the players rolled by hand) or a table deck order, values are
    taken from those in order and recorded with source "table"; otherwise they are drawn
    from the seed. `mode` is the encounter's `dice` option.

    In "prompt" mode every die comes from the table: `table_dice` are taken in order while
    `supplier` (who sent them; None: anyone) may roll the die, and a die past them is
    missing (`MissingTableDice`), unless `seed_dice` says the seed rolls it instead (a
    roll request that ran out of time). Cards and shuffles come from the seed, as in mixed.
    """

    seed: bytes
    version: int
    mode: DiceMode = "server"
    table_dice: list[int] = field(default_factory=list)
    table_orders: list[list[int]] = field(default_factory=list)
    records: list[RollRecord] = field(default_factory=list)
    default_roller: str = "gm"
    supplier: Callable[[str], bool] | None = None
    seed_dice: bool = False
    _n: int = 0

    def die(
        self,
        sides: int,
        purpose: str,
        *,
        roller: str | None = None,
        expression: str | None = None,
    ) -> int:
        if sides < 1:
            raise ValueError(f"a die needs at least one side, not {sides}")
        if self.mode == "prompt":
            return self._prompted(sides, purpose, roller or self.default_roller, expression)
        if self.table_dice or self.mode == "table":
            needed = NeededDie(
                sides, expression or f"d{sides}", purpose, roller or self.default_roller
            )
            face = self._table_face(sides, purpose, needed)
            self.records.append(RollRecord(sides, face, purpose, "die", source="table"))
            return face
        face = self._draw(sides) + 1
        self.records.append(RollRecord(sides, face, purpose, "die", n=self._n - 1))
        return face

    def index(self, k: int, purpose: str) -> int:
        """A uniform index in [0, k), e.g. a card drawn from k."""
        value = self._draw(k)
        self.records.append(RollRecord(k, value, purpose, "index", n=self._n - 1))
        return value

    def shuffle(self, items: Sequence[T], purpose: str) -> list[T]:
        if self.table_orders or self.mode == "table":
            return self._table_shuffle(items, purpose)
        draws = [self.index(i + 1, purpose) for i in range(len(items) - 1, 0, -1)]
        return shuffle_from(items, draws)

    def finish(self) -> None:
        """Refuse table dice the command never used: a typo at the table must not vanish."""
        if self.table_dice:
            more = f"the table supplied {len(self.table_dice)} more dice than this command rolls"
            if self.mode == "prompt":
                more = (
                    f"{len(self.table_dice)} of the dice sent were not used: send only the "
                    "dice the command rolls up to the first one someone else rolls (Fray "
                    "asks for that one and those after it)"
                )
            raise RuleViolation("dice/unused-table-dice", more)
        if self.table_orders:
            raise RuleViolation(
                "dice/unused-table-order", "the table supplied a deck order this command never used"
            )

    def _draw(self, k: int) -> int:
        if self.mode == "table":
            raise RuleViolation(
                "dice/table-dice-required", "this encounter takes every roll from the table"
            )
        value = draw(self.seed, self.version, self._n, k)
        self._n += 1
        return value

    def _prompted(self, sides: int, purpose: str, roller: str, expression: str | None) -> int:
        needed = NeededDie(sides, expression or f"d{sides}", purpose, roller)
        if self.table_dice and (self.supplier is None or self.supplier(roller)):
            face = self._table_face(sides, purpose, needed)
            self.records.append(RollRecord(sides, face, purpose, "die", source="table"))
            return face
        if not self.seed_dice:
            raise MissingTableDice((needed,))
        face = draw(self.seed, self.version, self._n, sides) + 1
        self._n += 1
        self.records.append(RollRecord(sides, face, purpose, "die", n=self._n - 1))
        return face

    def _table_face(self, sides: int, purpose: str, needed: NeededDie) -> int:
        if not self.table_dice:
            raise MissingTableDice((needed,))
        face = self.table_dice.pop(0)
        if not 1 <= face <= sides:
            raise RuleViolation(
                "dice/table-die-out-of-range",
                f"a d{sides} ({purpose}) cannot show {face}",
            )
        return face

    def _table_shuffle(self, items: Sequence[T], purpose: str) -> list[T]:
        if not self.table_orders:
            raise RuleViolation(
                "dice/table-order-missing", f"this command needs a deck order ({purpose})"
            )
        order = self.table_orders.pop(0)
        if sorted(order) != list(range(len(items))):
            raise RuleViolation(
                "dice/table-order-invalid",
                f"a deck order of {len(items)} items lists each index 0..{len(items) - 1} once",
            )
        self.records.append(RollRecord(len(items), order, purpose, "order", source="table"))
        return [items[i] for i in order]
