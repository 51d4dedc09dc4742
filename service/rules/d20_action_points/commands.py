"""d20-action-points commands: setting up the encounter, the round, and the actions of a
turn (with their action point costs in action_points.ACTIONS)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from service.domain.grid import Cell
from service.domain.messages import Command
from service.rules.d20_action_points.state import CircumstanceName

Id = str

# --- before combat (GM) -----------------------------------------------------------------


class SetMarchingOrder(Command):
    """d20-action-points Marching Order: a side's ranks from the front, `width` abreast."""

    type: Literal["set-marching-order"] = "set-marching-order"
    side: str = Field(min_length=1, max_length=40)
    width: int = Field(default=2, ge=1, le=20)
    ranks: list[list[Id]] = Field(min_length=1, max_length=50)


class SetEnvironment(Command):
    """d20-action-points Environment Modifiers: what surrounds a combatant (or everyone),
    where no map's terrain tags say it."""

    type: Literal["set-environment"] = "set-environment"
    combatant_id: Id | None = None
    circumstances: list[CircumstanceName] = Field(default_factory=list, max_length=10)


class SurpriseCheck(Command):
    """The GM's d20 + the monsters' stealth or WIS bonus against the party's best Notice;
    `monster` names whose bonus counts (default: the lowest among them)."""

    type: Literal["surprise-check"] = "surprise-check"
    monster: Id | None = None


class RecordMonsterReaction(Command):
    """The monsters noticed the party first: the Monster Reaction Chart's result."""

    type: Literal["record-monster-reaction"] = "record-monster-reaction"
    result: str = Field(min_length=1, max_length=200)
    outcome: Literal["fight", "parley", "leave"]


class ChooseApproach(Command):
    """The party noticed the monsters first: Ambush, Evade, Negotiate, or just fight."""

    type: Literal["choose-approach"] = "choose-approach"
    approach: Literal["ambush", "evade", "negotiate", "fight"]


class ResolveEvasion(Command):
    type: Literal["resolve-evasion"] = "resolve-evasion"
    outcome: Literal["evaded", "noticed"]


class RuleNegotiation(Command):
    type: Literal["rule-negotiation"] = "rule-negotiation"
    outcome: Literal["agreement", "pause", "fight"]
    terms: str | None = Field(default=None, max_length=500)


class BeginCombat(Command):
    """Skip (or end) the questions before combat: round 1 begins."""

    type: Literal["begin-combat"] = "begin-combat"


# --- the round --------------------------------------------------------------------------


class Declare(Command):
    """d20-action-points Declaring Actions: before initiative; a spell must be declared to
    be cast, and a fast or slow weapon or spell moves the initiative."""

    type: Literal["declare"] = "declare"
    combatant_id: Id
    action: str = Field(default="attack", min_length=1, max_length=100)
    spell: str | None = None
    weapon: str | None = None


class RollInitiative(Command):
    type: Literal["roll-initiative"] = "roll-initiative"


class EndTurn(Command):
    type: Literal["end-turn"] = "end-turn"
    combatant_id: Id | None = None


class Delay(Command):
    type: Literal["delay"] = "delay"
    combatant_id: Id
    until: Id | None = Field(default=None, description="Act after this combatant; none: last.")


class GiftPoint(Command):
    type: Literal["gift-point"] = "gift-point"
    combatant_id: Id
    to: Id


class SpendHeroicPoint(Command):
    type: Literal["spend-heroic-point"] = "spend-heroic-point"
    combatant_id: Id


# --- actions ----------------------------------------------------------------------------


class Move(Command):
    type: Literal["move"] = "move"
    combatant_id: Id
    feet: int | None = Field(default=None, ge=0, le=5000)
    to: Cell | None = None
    run: bool = False


class Crawl(Command):
    type: Literal["crawl"] = "crawl"
    combatant_id: Id
    feet: int | None = Field(
        default=None, ge=0, le=5000, description="As in `move`; a crawl covers at most 5 feet."
    )
    to: Cell | None = None


class StandUp(Command):
    type: Literal["stand-up"] = "stand-up"
    combatant_id: Id


class DropProne(Command):
    type: Literal["drop-prone"] = "drop-prone"
    combatant_id: Id


class DropItem(Command):
    type: Literal["drop-item"] = "drop-item"
    combatant_id: Id
    weapon: str | None = Field(default=None, description="None: whatever is in hand.")


class EquipItem(Command):
    """Draw or pick up a weapon, or use an item (a potion, a door): `description`."""

    type: Literal["equip-item"] = "equip-item"
    combatant_id: Id
    weapon: str | None = None
    description: str | None = Field(default=None, max_length=200)


class Talk(Command):
    type: Literal["talk"] = "talk"
    combatant_id: Id
    text: str = Field(min_length=1, max_length=500)


class Attack(Command):
    type: Literal["attack"] = "attack"
    combatant_id: Id
    target: Id
    weapon: str | None = Field(default=None, description="None: the weapon in hand.")
    feet: int | None = Field(default=None, ge=0, le=5000, description="Distance, no map.")
    backstab: bool = False


class Throw(Command):
    """Throw an object that is not a weapon: a rock, a flask, a chair."""

    type: Literal["throw"] = "throw"
    combatant_id: Id
    target: Id
    pounds: int = Field(ge=1, le=500)
    what: str = Field(default="an object", min_length=1, max_length=60)
    feet: int | None = Field(default=None, ge=0, le=5000)


class FullAttack(Command):
    type: Literal["full-attack"] = "full-attack"
    combatant_id: Id
    targets: list[Id] = Field(min_length=1, max_length=10)
    weapon: str | None = None
    feet: int | None = Field(default=None, ge=0, le=5000)
    backstab: bool = Field(default=False, description="The first attack only (Backstab).")


class CastSpell(Command):
    type: Literal["cast-spell"] = "cast-spell"
    combatant_id: Id
    spell: str
    target: Id | None = None


class Ready(Command):
    type: Literal["ready"] = "ready"
    combatant_id: Id
    trigger: Literal["moves", "attacks", "casts", "gm"] = "gm"
    by: Id | None = Field(default=None, description="Whose action triggers it; none: a foe's.")
    weapon: str | None = None
    target: Id | None = Field(default=None, description="None: whoever triggers it.")
    description: str = Field(default="a readied attack", min_length=1, max_length=200)


class TriggerReadied(Command):
    """The GM says a readied action's trigger happened ("something comes through the door")."""

    type: Literal["trigger-readied"] = "trigger-readied"
    combatant_id: Id
    target: Id | None = None


class Charge(Command):
    type: Literal["charge"] = "charge"
    combatant_id: Id
    target: Id
    feet: int | None = Field(default=None, ge=0, le=5000)
    to: Cell | None = None
    weapon: str | None = None


class Disarm(Command):
    type: Literal["disarm"] = "disarm"
    combatant_id: Id
    target: Id


class Grapple(Command):
    type: Literal["grapple"] = "grapple"
    combatant_id: Id
    target: Id


class BreakFree(Command):
    type: Literal["break-free"] = "break-free"
    combatant_id: Id


class Release(Command):
    type: Literal["release"] = "release"
    combatant_id: Id


D20Command = (
    SetMarchingOrder
    | SetEnvironment
    | SurpriseCheck
    | RecordMonsterReaction
    | ChooseApproach
    | ResolveEvasion
    | RuleNegotiation
    | BeginCombat
    | Declare
    | RollInitiative
    | EndTurn
    | Delay
    | GiftPoint
    | SpendHeroicPoint
    | Move
    | Crawl
    | StandUp
    | DropProne
    | DropItem
    | EquipItem
    | Talk
    | Attack
    | Throw
    | FullAttack
    | CastSpell
    | Ready
    | TriggerReadied
    | Charge
    | Disarm
    | Grapple
    | BreakFree
    | Release
)
COMMANDS = D20Command.__args__
