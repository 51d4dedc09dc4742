"""hex-tactical events. Hit point changes are the shared `resource-adjusted` events (with
gm_override false) that follow damage; prone, stuck and grappled are shared conditions."""

from __future__ import annotations

from typing import Literal

from service.domain.grid import Cell
from service.domain.messages import Event
from service.rules.hex_tactical.base import CheckResult
from service.rules.hex_tactical.state import AttackInfo, CoverObject, Maneuver, Paused, Reservation


class ActionBegun(Event):
    """One of the turn's two actions begins: a move, or the one other action."""

    type: Literal["action-begun"] = "action-begun"
    combatant_id: str
    kind: Literal["move", "other"]
    what: str


class InitiativeRolled(Event):
    type: Literal["initiative-rolled"] = "initiative-rolled"
    combatant_id: str
    check: CheckResult
    degree: int


class OrderSet(Event):
    type: Literal["order-set"] = "order-set"
    order: tuple[str, ...]


class RoundStarted(Event):
    type: Literal["round-started"] = "round-started"
    round: int


class TurnStarted(Event):
    type: Literal["turn-started"] = "turn-started"
    combatant_id: str
    round: int


class TurnEnded(Event):
    type: Literal["turn-ended"] = "turn-ended"
    combatant_id: str
    reason: Literal["done", "actions-spent", "out-of-fight", "removed", "timeout"] = "done"


class Moved(Event):
    """A stretch of a move, from where the token stood: a move pauses for interruptions
    and splits where something happens on the way. `reserved` for a reserved move."""

    type: Literal["moved"] = "moved"
    combatant_id: str
    path: tuple[Cell, ...]
    cost: int
    reserved: bool = False


class TerrainChecked(Event):
    """Slippery (fall prone) or mired (stuck) terrain called for an Agility check."""

    type: Literal["terrain-checked"] = "terrain-checked"
    combatant_id: str
    cell: Cell
    terrain: Literal["slippery", "mired"]
    check: CheckResult


class BrokeFree(Event):
    """A stuck or grappled combatant's Agility check at the start of its move."""

    type: Literal["broke-free"] = "broke-free"
    combatant_id: str
    held: Literal["stuck", "grappled"]
    check: CheckResult


class StoodUp(Event):
    """A prone combatant stands at the start of its move, for half of it."""

    type: Literal["stood-up"] = "stood-up"
    combatant_id: str
    cost: int


class TerrainDamaged(Event):
    type: Literal["terrain-damaged"] = "terrain-damaged"
    health_of = "combatant_id"
    combatant_id: str
    cell: Cell
    kind: Literal["passing", "stationary"]
    expression: str
    rolled: int
    taken: int


class PassAttempted(Event):
    type: Literal["pass-attempted"] = "pass-attempted"
    combatant_id: str
    enemy: str
    check: CheckResult


class OpportunityRaised(Event):
    """hex-tactical Attacks of Opportunity: a risky action in a threatened cell. Everything
    pauses (`paused` resumes afterwards) while the threateners may strike."""

    type: Literal["opportunity-raised"] = "opportunity-raised"
    combatant_id: str
    threateners: tuple[str, ...]
    reason: Literal["leaves", "skill", "item"]
    cell: Cell | None = None
    paused: Paused | None = None


class OpportunityChecked(Event):
    """The threatener's Initiative check: only a success seizes the opportunity."""

    type: Literal["opportunity-checked"] = "opportunity-checked"
    combatant_id: str
    target: str
    check: CheckResult


class AttackRolled(Event):
    type: Literal["attack-rolled"] = "attack-rolled"
    attacker: str
    target: str
    weapon: str | None
    maneuver: Maneuver | None = None
    ranged: bool = False
    check: CheckResult
    hit: bool
    band: int | None = None
    distance_feet: int | None = None
    into_melee: Literal["bane", "risk"] | None = None
    opportunity: bool = False
    overwatch: bool = False
    response: AttackInfo | None = None


class StrayHit(Event):
    """A risky shot into a melee that missed by less than half the skill score."""

    type: Literal["stray-hit"] = "stray-hit"
    attacker: str
    intended: str
    struck: str
    weapon: str | None


class MeleeJoined(Event):
    type: Literal["melee-joined"] = "melee-joined"
    combatants: tuple[str, str]


class MeleeEnded(Event):
    type: Literal["melee-ended"] = "melee-ended"
    combatants: tuple[str, str]
    reason: Literal["moved-apart", "out-of-fight", "surrendered"]


class Defended(Event):
    type: Literal["defended"] = "defended"
    combatant_id: str
    attacker: str
    response: Literal["dodge", "parry"]
    check: CheckResult
    resolves: int | None = None


class DamageDealt(Event):
    type: Literal["damage-dealt"] = "damage-dealt"
    health_of = "combatant_id"
    combatant_id: str
    attacker: str | None
    weapon: str | None
    rolled: int
    armor: int
    taken: int
    resolves: int | None = None


class ManeuverLanded(Event):
    type: Literal["maneuver-landed"] = "maneuver-landed"
    attacker: str
    target: str
    maneuver: Maneuver
    weapon: str | None = None
    resolves: int | None = None


class CoverTaken(Event):
    type: Literal["cover-taken"] = "cover-taken"
    combatant_id: str
    cells: tuple[Cell, ...]
    check: CheckResult


class SkillUsed(Event):
    type: Literal["skill-used"] = "skill-used"
    combatant_id: str
    skill: str
    description: str
    target: str | None = None
    check: CheckResult


class ItemUsed(Event):
    type: Literal["item-used"] = "item-used"
    combatant_id: str
    item: str
    description: str | None = None


class ObjectStruck(Event):
    type: Literal["object-struck"] = "object-struck"
    combatant_id: str
    cell: Cell
    name: str
    weapon: str | None
    check: CheckResult
    rolled: int = 0
    damage: int = 0
    durability: int | None = None
    destroyed: bool = False


class CoverPlaced(Event):
    type: Literal["cover-placed"] = "cover-placed"
    cover: CoverObject


class CoverRemoved(Event):
    type: Literal["cover-removed"] = "cover-removed"
    cell: Cell


class AwarenessSet(Event):
    type: Literal["awareness-set"] = "awareness-set"
    combatant_id: str
    of: str
    aware: bool


class Wielded(Event):
    type: Literal["wielded"] = "wielded"
    combatant_id: str
    weapon: str | None
    dropped: bool = False


class MoveReserved(Event):
    type: Literal["move-reserved"] = "move-reserved"
    combatant_id: str
    reservation: Reservation


class ReservationTriggered(Event):
    """An enemy's move set off a reserved move or overwatch; its move pauses meanwhile."""

    type: Literal["reservation-triggered"] = "reservation-triggered"
    combatant_id: str
    mover: str
    kind: Literal["run", "overwatch"]
    paused: Paused | None = None


class ActionResumed(Event):
    type: Literal["action-resumed"] = "action-resumed"
    combatant_id: str
    action: Literal["move", "skill", "item"]
    resolves: int


class ActionCut(Event):
    type: Literal["action-cut"] = "action-cut"
    combatant_id: str
    action: Literal["move", "skill", "item"]
    reason: str
    resolves: int | None = None


class Surrendered(Event):
    type: Literal["surrendered"] = "surrendered"
    combatant_id: str


class CheckCalled(Event):
    type: Literal["check-called"] = "check-called"
    combatant_id: str
    check: CheckResult
    reason: str | None = None


EVENTS: tuple[type[Event], ...] = (
    ActionBegun,
    InitiativeRolled,
    OrderSet,
    RoundStarted,
    TurnStarted,
    TurnEnded,
    Moved,
    TerrainChecked,
    BrokeFree,
    StoodUp,
    TerrainDamaged,
    PassAttempted,
    OpportunityRaised,
    OpportunityChecked,
    AttackRolled,
    StrayHit,
    MeleeJoined,
    MeleeEnded,
    Defended,
    DamageDealt,
    ManeuverLanded,
    CoverTaken,
    SkillUsed,
    ItemUsed,
    ObjectStruck,
    CoverPlaced,
    CoverRemoved,
    AwarenessSet,
    Wielded,
    MoveReserved,
    ReservationTriggered,
    ActionResumed,
    ActionCut,
    Surrendered,
    CheckCalled,
)
