"""hex-tactical commands: the actions of a turn on the grid, and the GM's cover, awareness
and checks. Moves take a destination cell; Fray finds the cheapest legal path."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from service.domain.grid import Cell
from service.domain.messages import Command
from service.rules.hex_tactical.base import Difficulty
from service.rules.hex_tactical.state import CoverKind, Maneuver

Id = str
Text = Field(default=None, max_length=200)


class Move(Command):
    """hex-tactical Movement on the Tactical Grid: one move action, speed / cell size cells."""

    type: Literal["move"] = "move"
    combatant_id: Id
    to: Cell
    path: list[Cell] | None = Field(
        default=None,
        max_length=200,
        description="The cells to walk through, ending at `to`; default the cheapest path.",
    )


class PassEnemy(Command):
    """hex-tactical Moving Past an Enemy: a maneuver the GM approves, so the GM sends it. A
    check (Agility unless named) lets the move pass through that enemy's cell."""

    type: Literal["pass-enemy"] = "pass-enemy"
    combatant_id: Id
    enemy: Id
    to: Cell
    skill: str = Field(default="agility", min_length=1, max_length=40)
    difficulty: Difficulty = "normal"


class ReserveMove(Command):
    """Reserve the move action: run to `to` when an enemy (one of `watch`, or any) moves
    toward this combatant before its next turn."""

    type: Literal["reserve-move"] = "reserve-move"
    combatant_id: Id
    to: Cell
    watch: list[Id] = Field(default_factory=list, max_length=50)


class Overwatch(Command):
    """Ranged weapons give Overwatch: shoot the first enemy that moves within range and in
    the line of fire before this combatant's next turn."""

    type: Literal["overwatch"] = "overwatch"
    combatant_id: Id
    weapon: str | None = None


class Attack(Command):
    type: Literal["attack"] = "attack"
    combatant_id: Id
    target: Id
    weapon: str | None = Field(default=None, description="Default: the wielded weapon.")
    into_melee: Literal["bane", "risk"] | None = Field(
        default=None, description="A ranged attack at someone in melee; default the option."
    )


class UseManeuver(Command):
    """A combat maneuver (grapple, trip, disarm): a melee attack that provokes nothing."""

    type: Literal["maneuver"] = "maneuver"
    combatant_id: Id
    target: Id
    maneuver: Maneuver


class TakeCover(Command):
    type: Literal["take-cover"] = "take-cover"
    combatant_id: Id


class UseSkill(Command):
    """Any other use of a skill; offensive uses (a spell, nearby machinery) provoke."""

    type: Literal["use-skill"] = "use-skill"
    combatant_id: Id
    skill: str = Field(min_length=1, max_length=40)
    description: str = Field(min_length=1, max_length=200)
    target: Id | None = None
    difficulty: Difficulty = "normal"
    provokes: bool = Field(default=True, description="False when a ruling or trait says so.")


class UseItem(Command):
    """Use an item that is not a weapon (a potion, a rope); provokes in a threatened cell."""

    type: Literal["use-item"] = "use-item"
    combatant_id: Id
    item: str = Field(min_length=1, max_length=60)
    description: str | None = Text


class TargetObject(Command):
    """Target Inanimate Object: strike a cover object to wear down its durability."""

    type: Literal["target-object"] = "target-object"
    combatant_id: Id
    cell: Cell
    weapon: str | None = None


class Wield(Command):
    """Take a weapon in hand (or none); free on one's own turn."""

    type: Literal["wield"] = "wield"
    combatant_id: Id
    weapon: str | None


class EndTurn(Command):
    type: Literal["end-turn"] = "end-turn"
    combatant_id: Id | None = None


class Surrender(Command):
    type: Literal["surrender"] = "surrender"
    combatant_id: Id


class PlaceCover(Command):
    type: Literal["place-cover"] = "place-cover"
    cell: Cell
    name: str = Field(min_length=1, max_length=60)
    kind: CoverKind = "partial"
    durability: int | None = Field(default=None, ge=1, le=10_000)
    armor: int = Field(default=0, ge=0, le=100)


class RemoveCover(Command):
    type: Literal["remove-cover"] = "remove-cover"
    cell: Cell


class SetAwareness(Command):
    """Whether `combatant_id` is aware of `of` (an unaware target gets no Dodge roll)."""

    type: Literal["set-awareness"] = "set-awareness"
    combatant_id: Id
    of: Id
    aware: bool


class CallCheck(Command):
    """The GM calls for a check of any skill, with boons and banes."""

    type: Literal["call-check"] = "call-check"
    combatant_id: Id
    skill: str = Field(min_length=1, max_length=40)
    difficulty: Difficulty = "normal"
    boons: int = Field(default=0, ge=0, le=10)
    banes: int = Field(default=0, ge=0, le=10)
    reason: str | None = Text


COMMANDS: tuple[type[Command], ...] = (
    Move,
    PassEnemy,
    ReserveMove,
    Overwatch,
    Attack,
    UseManeuver,
    TakeCover,
    UseSkill,
    UseItem,
    TargetObject,
    Wield,
    EndTurn,
    Surrender,
    PlaceCover,
    RemoveCover,
    SetAwareness,
    CallCheck,
)
