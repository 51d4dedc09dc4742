"""What `decide` may know besides state and command: the actor, the clock and the dice."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, TypeVar

from service.domain import dice
from service.domain.draws import Roller
from service.domain.errors import RuleViolation

T = TypeVar("T")
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


GM = Actor("gm", "gm")
SYSTEM = Actor("system", "system")


@dataclass
class DecideContext:
    """The only source of time and randomness rules code may use."""

    actor: Actor
    now: datetime
    roller: Roller

    def roll(self, expression: str, purpose: str) -> dice.RollResult:
        try:
            return dice.roll(expression, lambda sides: self.roller.die(sides, purpose))
        except dice.DiceError as error:
            raise RuleViolation(error.code, str(error)) from error

    def die(self, sides: int, purpose: str) -> int:
        return self.roller.die(sides, purpose)

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
