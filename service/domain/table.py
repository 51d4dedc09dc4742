"""The state every ruleset shares: combatants, the map, notes, clocks and reaction windows.

Each ruleset's state holds one `Table` as `table` and adds what its own rules need.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from service.domain.clocks import Clock
from service.domain.errors import RuleViolation
from service.domain.grid import Cell, GridMap
from service.domain.hidden import Hidden, Shape
from service.domain.reactions import ReactionPolicy, ReactionWindow
from service.domain.roll_requests import HeldCommand

Phase = Literal["setup", "running", "ended"]
NOTES_KEPT = 20
TurnMoment = Literal["start-of-turn", "end-of-turn"]


def absent(value: object) -> bool:
    """`exclude_if` of a field added after streams were recorded: left out of the dump when
    unset, so what was recorded without it re-decides and folds to the same JSON."""
    return value is None


EPITHET = 'A line for readers under the name ("Ranger, level 10"); no rule reads it.'


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Pool(Frozen):
    """A resource with a current value and an optional maximum: hit points, REF, mana."""

    current: int
    max: int | None = None


class Condition(Frozen):
    """A named condition; with `rounds` it lasts that many of the anchor's turns."""

    name: str
    rounds: int | None = None
    ends: TurnMoment | None = "end-of-turn"  # null: no rounds, it lasts until removed
    anchor: str | None = None
    source: str | None = None
    note: str | None = None


class Combatant(Frozen):
    id: str
    name: str
    epithet: str | None = Field(default=None, exclude_if=absent)
    side: str
    controller: str | None = None
    stats: Annotated[dict[str, Any], Shape("stats", of="id")] = Field(default_factory=dict)
    # Every pool (hit points, REF, mana) counts as health: none of an enemy's is shown.
    pools: Annotated[dict[str, Pool], Hidden(of="id", shown_as={})] = Field(default_factory=dict)
    conditions: tuple[Condition, ...] = ()
    position: Cell | None = None
    out_of_fight: bool = False

    def resource_values(self) -> dict[str, int]:
        return {name: pool.current for name, pool in self.pools.items()}

    def has_condition(self, name: str) -> bool:
        return any(c.name == name for c in self.conditions)


class Note(Frozen):
    text: str
    hidden: bool = False
    author: str | None = None


class Table(Frozen):
    phase: Phase = "setup"
    combatants: dict[str, Combatant] = Field(default_factory=dict)
    map: GridMap | None = None
    notes: tuple[Note, ...] = Field(default=(), description="The latest notes.")
    notes_total: int = 0
    clocks: dict[str, Clock] = Field(default_factory=dict)
    clocks_on_hold: bool = Field(
        default=False, description="Paused by `clocks-paused` until the GM resumes them."
    )
    windows: dict[str, ReactionWindow] = Field(default_factory=dict)
    windows_opened: int = 0
    policies: dict[str, tuple[ReactionPolicy, ...]] = Field(default_factory=dict)
    end_reason: str | None = None
    held: HeldCommand | None = Field(
        default=None, description="A command waiting for dice (the `prompt` dice mode)."
    )
    straight_paths: bool = Field(
        default=False,
        description="Of equally cheap paths a move takes the one nearest the straight line "
        "from start to goal (service.domain.straight_paths; issue 27's ruleset versions "
        "set it at creation); false in encounters created before, whose moves took the "
        "first the search found.",
    )

    def combatant(self, combatant_id: str) -> Combatant:
        found = self.combatants.get(combatant_id)
        if found is None:
            raise RuleViolation(
                "combatant/unknown", f"there is no combatant '{combatant_id}' in this encounter"
            )
        return found

    def occupancy(self, mover: str) -> dict[Cell, str]:
        """The cells the others still in the fight stand on, with their sides: what a path
        of `mover`'s may pass (an ally's) or not (a foe's), and may not end on."""
        return {
            c.position: c.side
            for c in self.combatants.values()
            if c.position is not None and c.id != mover and not c.out_of_fight
        }

    def resources_of(self, combatant_id: str) -> dict[str, int]:
        found = self.combatants.get(combatant_id)
        return found.resource_values() if found else {}

    def open_windows(self) -> list[ReactionWindow]:
        return [w for w in self.windows.values() if w.open]
