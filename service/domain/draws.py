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
from typing import Any, Literal, NoReturn, TypeVar, cast

from service.domain.errors import Forbidden, RuleViolation
from service.domain.provisional import Provisional

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
    expression: str
    """The expression of the roll it belongs to, e.g. "d20" or "2d6+1"."""
    purpose: str
    """The purpose the rules gave, as the roll's record will list it."""
    roller: str
    """The id of the combatant it is rolled for, or "gm"."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "sides": self.sides,
            "expression": self.expression,
            "purpose": self.purpose,
            "roller": self.roller,
        }

    def words(self) -> str:
        return f"a d{self.sides} ({self.purpose}) rolled for {self.roller}"


class MissingTableDice(RuleViolation):
    """The table supplied too few dice; `needed` lists, in order, every die the command
    certainly still needs (docs/api.md, "Table dice")."""

    def __init__(self, needed: tuple[NeededDie, ...]) -> None:
        count = "a die" if len(needed) == 1 else f"{len(needed)} more dice"
        super().__init__(
            "dice/table-dice-missing",
            f"this command needs {count} from the table: "
            + "; ".join(d.words() for d in needed)
            + " (details.needed lists them in the order to send them)",
            details={"needed": [d.to_dict() for d in needed]},
        )
        self.needed = needed


class DieNotYours(Forbidden):
    """A table die supplied by someone who neither is the GM nor controls its roller."""

    code = "dice/not-yours"

    def __init__(self, die: NeededDie, face: int) -> None:
        whose = "the GM's" if die.roller == "gm" else f"rolled for {die.roller}"
        super().__init__(
            f"the table die {face} was given for a d{die.sides} ({die.purpose}), which is "
            f"{whose}: only the GM or that combatant's controller may supply it",
            details={"die": die.to_dict(), "face": face},
        )


@dataclass
class Roller:
    """The source of every random value while deciding one command.

    With table dice (faces the players rolled by hand) or a table deck order, values are
    taken from those in order and recorded with source "table"; otherwise they are drawn
    from the seed. `mode` is the encounter's `dice` option.

    `default_roller` is whom a die is rolled for when the rules name nobody (the command's
    `combatant_id`, else "gm"). With `listing`, a table die that was not supplied does not
    refuse the command at once: it is noted in `needed` and the rules get a `Provisional`
    face, until they read one (docs/architecture.md, "Table dice").

    In "prompt" mode every die comes from the table: `table_dice` are taken in order while
    `supplier` (who sent them; None: anyone) may roll the die, and a die past them is
    missing (`MissingTableDice`, one die at a time: no listing), unless `seed_dice` says the
    seed rolls it instead (a roll request that ran out of time). Cards and shuffles come
    from the seed, as in mixed.
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
    listing: bool = False
    needed: list[NeededDie] = field(default_factory=list)
    """The table dice not supplied, in the order the rules asked for them."""
    supplied: list[tuple[NeededDie, int]] = field(default_factory=list)
    """Each table die used, with whom it is rolled for, in order."""
    read: bool = False
    """Whether the rules read a provisional face: `needed` is then complete."""
    _n: int = 0

    def die(
        self, sides: int, purpose: str, *, roller: str | None = None, expression: str | None = None
    ) -> int:
        if sides < 1:
            raise ValueError(f"a die needs at least one side, not {sides}")
        if self.mode == "prompt":
            return self._prompted(sides, purpose, roller or self.default_roller, expression)
        if self.table_dice or self.mode == "table":
            wanted = NeededDie(
                sides, expression or f"d{sides}", purpose, roller or self.default_roller
            )
            if not self.table_dice and self.listing:
                return self._provisional(wanted)
            face = self._table_face(wanted)
            self.records.append(RollRecord(sides, face, purpose, "die", source="table"))
            self.supplied.append((wanted, face))
            return face
        face = self._draw(sides) + 1
        self.records.append(RollRecord(sides, face, purpose, "die", n=self._n - 1))
        return face

    def short_of(self, count: int) -> bool:
        """Whether `count` dice rolled now would take provisional faces."""
        return self.listing and self.mode == "table" and len(self.table_dice) < count

    def provisional_total(self, label: str) -> int:
        """A provisional value standing for a roll some of whose dice are provisional."""
        return cast(int, Provisional(label, self._missing))

    def missing(self) -> MissingTableDice:
        """The refusal for the dice noted in `needed`."""
        return MissingTableDice(tuple(self.needed))

    def check_authority(self, controls: Callable[[str], bool]) -> None:
        """Refuse a table die whose roller `controls` does not name (the sender's)."""
        for wanted, face in self.supplied:
            if not controls(wanted.roller):
                raise DieNotYours(wanted, face)

    def _provisional(self, wanted: NeededDie) -> int:
        if not self.read:
            self.needed.append(wanted)
        return cast(int, Provisional(f"d{wanted.sides} ({wanted.purpose})", self._missing))

    def _missing(self) -> NoReturn:
        self.read = True
        raise self.missing()

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
        wanted = NeededDie(sides, expression or f"d{sides}", purpose, roller)
        if self.table_dice and (self.supplier is None or self.supplier(roller)):
            face = self._table_face(wanted)
            self.records.append(RollRecord(sides, face, purpose, "die", source="table"))
            return face
        if not self.seed_dice:
            raise MissingTableDice((wanted,))
        face = draw(self.seed, self.version, self._n, sides) + 1
        self._n += 1
        self.records.append(RollRecord(sides, face, purpose, "die", n=self._n - 1))
        return face

    def _table_face(self, wanted: NeededDie) -> int:
        if not self.table_dice:
            raise MissingTableDice((wanted,))
        face = self.table_dice.pop(0)
        if not 1 <= face <= wanted.sides:
            raise RuleViolation(
                "dice/table-die-out-of-range",
                f"a d{wanted.sides} ({wanted.purpose}) cannot show {face}",
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
