"""d20-action-points events. Hit point changes are the shared `resource-adjusted` events
(gm_override false) that follow attacks; every action of a turn is first an
`action-taken`, which says what it cost."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from service.domain.grid import Cell
from service.domain.hidden import Hidden
from service.domain.messages import Event
from service.domain.table import Frozen
from service.rules.d20_action_points.state import (
    CircumstanceName,
    Readied,
    Surprise,
    Weapon,
)

# The damage of a blow or a spell on a combatant is its health, and so are its dice
# ("damage: longsword on Goblin", "damage: Magic Missile").
Damage = Annotated[int | None, Hidden(of="target", rolls="damage: *")]

# --- before combat ----------------------------------------------------------------------


class MarchingOrderSet(Event):
    type: Literal["marching-order-set"] = "marching-order-set"
    side: str
    width: int
    ranks: tuple[tuple[str, ...], ...]


class EnvironmentSet(Event):
    type: Literal["environment-set"] = "environment-set"
    combatant_id: str | None = Field(default=None, description="None: everyone.")
    circumstances: tuple[CircumstanceName, ...]


class SurpriseChecked(Event):
    """d20-action-points Setting Up An Encounter: the GM's d20 + the monsters' stealth or
    WIS bonus against the party's highest Notice."""

    type: Literal["surprise-checked"] = "surprise-checked"
    notice: int
    noticer: str
    roll: int
    bonus: int
    total: int
    sneaker: str
    result: Surprise


class MonsterReactionRecorded(Event):
    type: Literal["monster-reaction-recorded"] = "monster-reaction-recorded"
    result: str
    outcome: Literal["fight", "parley", "leave"]


class ApproachChosen(Event):
    type: Literal["approach-chosen"] = "approach-chosen"
    approach: Literal["ambush", "evade", "negotiate", "fight"]


class AmbushRolled(Event):
    """d20-action-points Ambush: d20 + the party's lowest WIS bonus is the hide DC; the GM's
    roll equal or greater foils it."""

    type: Literal["ambush-rolled"] = "ambush-rolled"
    roll: int
    wisdom: int
    dc: int
    gm_roll: int
    gm_bonus: int
    gm_total: int
    success: bool


class Evading(Event):
    type: Literal["evading"] = "evading"
    speeds: dict[str, int] = Field(description="Feet a move: a tenth of the usual speed.")


class EvasionResolved(Event):
    type: Literal["evasion-resolved"] = "evasion-resolved"
    outcome: Literal["evaded", "noticed"]


class NegotiationRuled(Event):
    type: Literal["negotiation-ruled"] = "negotiation-ruled"
    outcome: Literal["agreement", "pause", "fight"]
    terms: str | None = None


class CombatBegan(Event):
    type: Literal["combat-began"] = "combat-began"
    ambush: bool = False


# --- the round --------------------------------------------------------------------------


class RoundStarted(Event):
    type: Literal["round-started"] = "round-started"
    round: int


class ActionDeclared(Event):
    type: Literal["action-declared"] = "action-declared"
    combatant_id: str
    action: str
    spell: str | None = None
    weapon: str | None = None
    initiative: int = 0


class Initiative(Frozen):
    """One combatant's initiative: a player's own d20, or its GM combat group's one d20,
    plus its bonuses (the stat block's and a declared fast or slow action's)."""

    combatant_id: str
    roll: int
    bonus: int
    total: int
    group: str | None = None


class InitiativeRolled(Event):
    type: Literal["initiative-rolled"] = "initiative-rolled"
    rolls: tuple[Initiative, ...]
    order: tuple[str, ...]
    ambush: bool = False


class TurnStarted(Event):
    type: Literal["turn-started"] = "turn-started"
    combatant_id: str
    round: int
    points: int = Field(description="Action points this turn (0 without action points).")
    actions: int = Field(default=1, description="Actions allowed without action points.")


class TurnEnded(Event):
    type: Literal["turn-ended"] = "turn-ended"
    combatant_id: str
    reason: Literal["done", "out-of-fight", "timeout", "removed"] = "done"
    points_left: int = 0


class TurnSkipped(Event):
    type: Literal["turn-skipped"] = "turn-skipped"
    combatant_id: str
    reason: str


class TurnDelayed(Event):
    type: Literal["turn-delayed"] = "turn-delayed"
    combatant_id: str
    until: str | None = Field(default=None, description="Acts after this one; None: last.")


class ActionTaken(Event):
    """An action of the turn and what it cost: action points, or the round's one action."""

    type: Literal["action-taken"] = "action-taken"
    combatant_id: str
    action: str
    points: int = 0
    counts: bool = Field(default=False, description="Uses the turn's action (no points).")


class PointGifted(Event):
    type: Literal["point-gifted"] = "point-gifted"
    combatant_id: str
    to: str


class HeroicPointSpent(Event):
    type: Literal["heroic-point-spent"] = "heroic-point-spent"
    combatant_id: str
    points: int = Field(description="Action points gained (0 without action points).")


# --- actions ----------------------------------------------------------------------------


class Moved(Event):
    type: Literal["moved"] = "moved"
    combatant_id: str
    how: Literal["move", "run", "crawl", "charge", "flee"]
    feet: int
    allowed: int
    path: tuple[Cell, ...] | None = None


class StoodUp(Event):
    type: Literal["stood-up"] = "stood-up"
    combatant_id: str


class DroppedProne(Event):
    type: Literal["dropped-prone"] = "dropped-prone"
    combatant_id: str


class ItemDropped(Event):
    type: Literal["item-dropped"] = "item-dropped"
    combatant_id: str
    weapon: Weapon


class ItemEquipped(Event):
    type: Literal["item-equipped"] = "item-equipped"
    combatant_id: str
    weapon: Weapon | None = None
    picked_up: bool = False
    description: str | None = None


class Talked(Event):
    type: Literal["talked"] = "talked"
    combatant_id: str
    text: str


class AttackRolled(Event):
    type: Literal["attack-rolled"] = "attack-rolled"
    attacker: str
    target: str
    weapon: str
    how: Literal["melee", "ranged", "thrown", "object"]
    dice: tuple[int, ...]
    natural: int
    modifier: int
    total: int
    ac: int
    edge: Literal["normal", "advantage", "disadvantage"] = "normal"
    hit: bool
    critical_hit: bool = False
    critical_fail: bool = False
    damage: Damage = 0
    feet: int | None = None
    backstab: int | None = Field(default=None, description="The multiplier, on a backstab.")
    reaction: str | None = Field(
        default=None, description="Out of turn: parting-shot, counter or readied."
    )


class SpellCast(Event):
    type: Literal["spell-cast"] = "spell-cast"
    combatant_id: str
    spell: str
    target: str | None = None
    natural: int
    modifier: int
    total: int
    dc: int
    outcome: Literal["cast", "failed"]
    mana: int
    damage: Damage = None


class SpellInterrupted(Event):
    type: Literal["spell-interrupted"] = "spell-interrupted"
    combatant_id: str
    spell: str
    mana: int


class ActionReadied(Event):
    type: Literal["action-readied"] = "action-readied"
    combatant_id: str
    readied: Readied


class ReadiedTriggered(Event):
    """The GM says a readied action's trigger happened."""

    type: Literal["readied-triggered"] = "readied-triggered"
    combatant_id: str
    target: str


class Charged(Event):
    type: Literal["charged"] = "charged"
    combatant_id: str
    target: str
    until_round: int


class Opposed(Event):
    """Opposed Strength: d20 + STR (+4 with a two-handed weapon) each; the one who
    initiates must beat the other (d20-action-points Special Combat Moves and Actions)."""

    combatant_id: str
    target: str
    roll: int
    bonus: int
    total: int
    target_roll: int
    target_bonus: int
    target_total: int


class DisarmRolled(Opposed):
    type: Literal["disarm-rolled"] = "disarm-rolled"
    success: bool
    weapon: Weapon | None = None
    taken: bool = Field(default=False, description="An unarmed disarmer now holds it.")


class GrappleRolled(Opposed):
    type: Literal["grapple-rolled"] = "grapple-rolled"
    outcome: Literal["failed", "grappled", "pinned"]


class BreakFreeRolled(Opposed):
    type: Literal["break-free-rolled"] = "break-free-rolled"
    success: bool


class Released(Event):
    type: Literal["released"] = "released"
    combatant_id: str
    target: str


class MoraleChecked(Event):
    type: Literal["morale-checked"] = "morale-checked"
    combatant_id: str
    dice: tuple[int, ...]
    natural: int
    bonus: int
    total: int
    dc: int
    disadvantage: bool
    broken: bool


class Fled(Event):
    type: Literal["fled"] = "fled"
    combatant_id: str
    feet: int


class Surrendered(Event):
    type: Literal["surrendered"] = "surrendered"
    combatant_id: str


class Defeated(Event):
    type: Literal["defeated"] = "defeated"
    combatant_id: str


class DeathChecked(Event):
    type: Literal["death-checked"] = "death-checked"
    combatant_id: str
    roll: int | None = None
    bonus: int = 0
    total: int | None = None
    dc: int | None = None
    outcome: Literal["unconscious", "dead", "dying"]


class Killed(Event):
    type: Literal["killed"] = "killed"
    combatant_id: str
    cause: str


class LevelDrained(Event):
    type: Literal["level-drained"] = "level-drained"
    health_of = "combatant_id"
    combatant_id: str
    attacker: str
    level: int
    max_hp: int
    hp_per_level: int = Field(description="Hit points a level, kept for the next drain.")


class PoisonSaved(Event):
    type: Literal["poison-saved"] = "poison-saved"
    combatant_id: str
    attacker: str
    roll: int
    bonus: int
    total: int
    dc: int
    saved: bool


D20Event = (
    MarchingOrderSet
    | EnvironmentSet
    | SurpriseChecked
    | MonsterReactionRecorded
    | ApproachChosen
    | AmbushRolled
    | Evading
    | EvasionResolved
    | NegotiationRuled
    | CombatBegan
    | RoundStarted
    | ActionDeclared
    | InitiativeRolled
    | TurnStarted
    | TurnEnded
    | TurnSkipped
    | TurnDelayed
    | ActionTaken
    | PointGifted
    | HeroicPointSpent
    | Moved
    | StoodUp
    | DroppedProne
    | ItemDropped
    | ItemEquipped
    | Talked
    | AttackRolled
    | SpellCast
    | SpellInterrupted
    | ActionReadied
    | ReadiedTriggered
    | Charged
    | DisarmRolled
    | GrappleRolled
    | BreakFreeRolled
    | Released
    | MoraleChecked
    | Fled
    | Surrendered
    | Defeated
    | DeathChecked
    | Killed
    | LevelDrained
    | PoisonSaved
)
EVENTS = D20Event.__args__
