"""Delver's Deep commands: the combat order, the recovery phase and the actions of 4.1."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from service.domain.grid import Cell
from service.domain.messages import Command
from service.rules.delvers_deep.state import Check

Id = str


class BoostReflex(Command):
    """delvers-deep 4.1 Combat Order: spend REF, +1 to the reflex result per point."""

    type: Literal["boost-reflex"] = "boost-reflex"
    combatant_id: Id
    points: int = Field(default=1, ge=1, le=100)


class FixOrder(Command):
    """The GM closes the reflex rolls: PCs act from the highest result to the lowest."""

    type: Literal["fix-order"] = "fix-order"


class Pick(Command):
    """The GM's slot: one creature, or several of a group sharing the slot."""

    type: Literal["pick"] = "pick"
    combatant_ids: list[Id] = Field(min_length=1, max_length=50)


class Recover(Command):
    """delvers-deep 4.1 Recovery Phase: allocate recovery points to the pools."""

    type: Literal["recover"] = "recover"
    combatant_id: Id
    fort: int = Field(default=0, ge=0, le=100)
    ref: int = Field(default=0, ge=0, le=100)
    will: int = Field(default=0, ge=0, le=100)


class Move(Command):
    type: Literal["move"] = "move"
    combatant_id: Id
    to: Cell | None = None
    distance: int | None = Field(default=None, ge=0, le=1000)
    sprint: Literal[0, 1, 2] = 0
    enters_reach_of: list[Id] = Field(default_factory=list, max_length=50)


class Attack(Command):
    type: Literal["attack"] = "attack"
    combatant_id: Id
    weapon: str
    target: Id
    extra: int = Field(default=0, ge=0, le=50)


class Reload(Command):
    type: Literal["reload"] = "reload"
    combatant_id: Id
    weapon: str


class Cast(Command):
    type: Literal["cast"] = "cast"
    combatant_id: Id
    spell: str
    target: Id | None = None


class Improvise(Command):
    type: Literal["improvise"] = "improvise"
    combatant_id: Id
    description: str = Field(min_length=1, max_length=200)
    fort: int = Field(default=0, ge=0, le=100)
    ref: int = Field(default=0, ge=0, le=100)
    will: int = Field(default=0, ge=0, le=100)
    dc: int | None = Field(default=None, ge=2, le=6)


class Interact(Command):
    type: Literal["interact"] = "interact"
    combatant_id: Id
    description: str = Field(min_length=1, max_length=200)
    with_: Id | None = Field(default=None, alias="with")


class Brace(Command):
    type: Literal["brace"] = "brace"
    combatant_id: Id


class Defend(Command):
    type: Literal["defend"] = "defend"
    combatant_id: Id


class Focus(Command):
    type: Literal["focus"] = "focus"
    combatant_id: Id


class Encourage(Command):
    type: Literal["encourage"] = "encourage"
    combatant_id: Id
    target: Id


class CallCheck(Command):
    """The GM calls a Health, Sanity or Dodge check against the combatant's current DC."""

    type: Literal["call-check"] = "call-check"
    combatant_id: Id
    check: Check
    reason: str = Field(default="the GM calls for it", max_length=200)


class EndTurn(Command):
    type: Literal["end-turn"] = "end-turn"
    combatant_id: Id | None = None


DelversCommand = (
    BoostReflex
    | FixOrder
    | Pick
    | Recover
    | Move
    | Attack
    | Reload
    | Cast
    | Improvise
    | Interact
    | Brace
    | Defend
    | Focus
    | Encourage
    | CallCheck
    | EndTurn
)
COMMANDS = DelversCommand.__args__
