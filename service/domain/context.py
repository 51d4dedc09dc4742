"""What `decide` may know besides state and command: the actor, the clock and the dice, and
where the events it emits fall among its draws.

Each event lists in `rolls` the draws it used (DESIGN.md, "Dice"): those made since the
previous event was emitted (`ctx.emit`), up to its own emit; the last event also takes the
draws made after it. Attribution is by position: the engine pairs the events `decide`
returns with those it emitted, in order, and refuses a command where they differ.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import pairwise
from typing import Literal, TypeVar

from service.domain import dice
from service.domain.draws import Roller, RollRecord
from service.domain.errors import FrayError, RuleViolation
from service.domain.messages import Event

T = TypeVar("T")
E = TypeVar("E", bound=Event)
Role = Literal["gm", "player", "observer", "auditor", "system"]


@dataclass(frozen=True, slots=True)
class Actor:
    """Who sends a command or reads a view. Players act only for their own combatants."""

    id: str
    role: Role
    combatants: frozenset[str] = field(default_factory=frozenset)

    @property
    def is_gm(self) -> bool:
        return self.role in ("gm", "system")

    def controls(self, combatant_id: str) -> bool:
        return self.is_gm or (self.role == "player" and combatant_id in self.combatants)

    def to_dict(self) -> dict[str, object]:
        return {"id": self.id, "role": self.role, "combatants": sorted(self.combatants)}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Actor:
        combatants = data.get("combatants") or []
        assert isinstance(combatants, list)
        role = str(data.get("role", "observer"))
        if role not in ("gm", "player", "observer", "auditor", "system"):
            role = "observer"
        return cls(str(data.get("id", "")), role, frozenset(str(c) for c in combatants))  # type: ignore[arg-type]


class Unemitted(FrayError):
    """`decide` returned events other than those it emitted: nothing is appended. A bug in
    a ruleset, which would otherwise list the command's dice under the wrong events."""

    code = "internal/unemitted-event"


EPOCH = datetime.fromtimestamp(0, UTC)
GM = Actor("gm", "gm")
SYSTEM = Actor("system", "system")


@dataclass
class DecideContext:
    """The only source of time and randomness rules code may use."""

    actor: Actor
    now: datetime
    roller: Roller
    _emitted: list[Event] = field(default_factory=list, init=False, repr=False)
    _marks: list[int] = field(default_factory=list, init=False, repr=False)

    def emit(self, event: E) -> E:
        """Record `event` as the command's next one, after the draws made so far."""
        self._emitted.append(event)
        self._marks.append(len(self.roller.records))
        return event

    def emit_ahead(self, event: E, of: Sequence[Event]) -> E:
        """Record `event` ahead of `of`, the events emitted last, which it comes before: it
        lists the draws made since the event before them, up to now (among them the draws
        `of` made while they were built), and `of` lists none."""
        start = len(self._emitted) - len(of)
        if start < 0 or any(a != b for a, b in zip(self._emitted[start:], of, strict=True)):
            raise Unemitted("an event was put ahead of events that were not the last emitted")
        mark = len(self.roller.records)
        self._emitted.insert(start, event)
        self._marks[start:] = [mark] * (len(of) + 1)
        return event

    def mark(self) -> tuple[int, int]:
        """Where the command's events and draws stand now, for `undo_to`."""
        return len(self._emitted), len(self.roller.records)

    def undo_to(self, mark: tuple[int, int]) -> list[RollRecord]:
        """Forget the events emitted and the draws recorded since `mark` (a command held for
        dice emits its events only once they are in); the draws forgotten, returned."""
        events, records = mark
        del self._emitted[events:], self._marks[events:]
        undone = self.roller.records[records:]
        del self.roller.records[records:]
        return undone

    def rolls_per_event(self, events: Sequence[Event]) -> list[list[RollRecord]]:
        """The draws each of `events` used: those made since the previous emit, up to its
        own; the last event takes the rest. `events` must be the emitted ones, in order."""
        if len(events) != len(self._emitted) or any(
            returned != emitted for returned, emitted in zip(events, self._emitted, strict=True)
        ):
            raise Unemitted(
                f"the rules returned {len(events)} events but emitted {len(self._emitted)}, "
                f"or in another order ({_listed(events)} against {_listed(self._emitted)}); "
                "nothing was appended: this is a fault in Fray, not in the command"
            )
        if not events:
            return []
        records = self.roller.records
        bounds = [0, *self._marks[:-1], len(records)]
        return [list(records[a:b]) for a, b in pairwise(bounds)]

    def roll(self, expression: str, purpose: str, *, roller: str | None = None) -> dice.RollResult:
        """Roll `expression`; `roller` is the combatant it is rolled for (by default the
        command's `combatant_id`, else "gm")."""

        def die(sides: int) -> int:
            return self.roller.die(sides, purpose, roller=roller, expression=expression)

        try:
            expr = dice.parse(expression)
            dice.checked_limits(expr)
            sides = dice.die_sides(expr)
            if self.roller.short_of(len(sides)):
                # Every die of an expression is rolled whatever the faces: all are needed.
                for s in sides:
                    die(s)
                total = self.roller.provisional_total(f"{expression} ({purpose})")
                return dice.RollResult(str(expr), total, (), f"{expr} = ?")
            return dice.evaluate(expr, die)
        except dice.DiceError as error:
            raise RuleViolation(error.code, str(error)) from error

    def die(self, sides: int, purpose: str, *, roller: str | None = None) -> int:
        """A die of `sides`; `roller` as for `roll`."""
        return self.roller.die(sides, purpose, roller=roller)

    def index(self, k: int, purpose: str) -> int:
        return self.roller.index(k, purpose)

    def shuffle(self, items: Sequence[T], purpose: str) -> list[T]:
        return self.roller.shuffle(items, purpose)

    def revealed_seed(self) -> str:
        """The seed, hex: revealed in the data of `encounter-ended`."""
        return self.roller.seed.hex()

    def require_gm(self, what: str) -> None:
        if not self.actor.is_gm:
            raise RuleViolation("auth/gm-only", f"only the GM may {what}")

    def require_control(self, combatant_id: str, name: str | None = None) -> None:
        if not self.actor.controls(combatant_id):
            who = name or combatant_id
            raise RuleViolation("auth/not-your-combatant", f"you do not control {who}")


def looking_ahead(actor: Actor = SYSTEM) -> DecideContext:
    """A context for a view that builds events only to look ahead, never to record them: it
    rolls no dice (a draw is refused) and its clock stands at the epoch."""
    return DecideContext(actor, EPOCH, Roller(seed=b"", version=0, mode="table"))


def _listed(events: Sequence[Event]) -> str:
    return "[" + ", ".join(str(getattr(e, "type", type(e).__name__)) for e in events) + "]"
