"""Delver's Deep events. Pool changes themselves are the shared `resource-adjusted` events
(gm_override false) that follow each of these; `cost` here says what an action paid."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from service.domain.grid import Cell
from service.domain.hidden import Hidden
from service.domain.messages import Event
from service.rules.delvers_deep.state import Check, Side

Points = dict[str, int]
DAMAGE_ROLLS = "* damage"
"""The draws of a blow's or a spell's damage: "maul damage", "Lance of Dawn damage"."""


class ReflexRolled(Event):
    type: Literal["reflex-rolled"] = "reflex-rolled"
    combatant_id: str
    roll: int


class ReflexBoosted(Event):
    type: Literal["reflex-boosted"] = "reflex-boosted"
    combatant_id: str
    points: int
    total: int


class OrderFixed(Event):
    type: Literal["order-fixed"] = "order-fixed"
    order: tuple[str, ...]


class RoundStarted(Event):
    type: Literal["round-started"] = "round-started"
    round: int


class TurnStarted(Event):
    type: Literal["turn-started"] = "turn-started"
    combatant_ids: tuple[str, ...]
    round: int
    side: Side


class TurnEnded(Event):
    type: Literal["turn-ended"] = "turn-ended"
    combatant_id: str
    reason: Literal["done", "actions-spent", "downed", "removed", "timeout"] = "done"


class Recovered(Event):
    type: Literal["recovered"] = "recovered"
    combatant_id: str
    fort: int = 0
    ref: int = 0
    will: int = 0
    discarded: int = 0
    auto: bool = False


class Moved(Event):
    type: Literal["moved"] = "moved"
    combatant_id: str
    path: tuple[Cell, ...] | None = None
    distance: int
    sprint: int = 0
    cost: Points = Field(default_factory=dict)
    provokes: tuple[str, ...] = Field(
        default=(), description="Enemies whose melee reach the move entered, longest first."
    )


class AttackRolled(Event):
    type: Literal["attack-rolled"] = "attack-rolled"
    attacker: str
    target: str
    weapon: str
    dice: tuple[int, ...]
    hit_on: int
    hit: bool
    damage: Annotated[int, Hidden(of="target", rolls=DAMAGE_ROLLS)] = 0
    tags: tuple[str, ...] = ()
    cost: Points = Field(default_factory=dict)
    reaction: bool = False
    unloads: bool = Field(default=False, description="A [LOADING] weapon is empty after this.")


class Reloaded(Event):
    type: Literal["reloaded"] = "reloaded"
    combatant_id: str
    weapon: str
    cost: Points = Field(default_factory=dict)


class SpellCast(Event):
    type: Literal["spell-cast"] = "spell-cast"
    combatant_id: str
    spell: str
    target: str | None = None
    roll: int | None = None
    dc: int | None = None
    success: bool = True
    damage: Annotated[int, Hidden(of="target", rolls=DAMAGE_ROLLS)] = 0
    tags: tuple[str, ...] = ()
    cost: Points = Field(default_factory=dict)


class Improvised(Event):
    type: Literal["improvised"] = "improvised"
    combatant_id: str
    description: str
    roll: int | None = None
    dc: int | None = None
    success: bool | None = None
    cost: Points = Field(default_factory=dict)


class Interacted(Event):
    type: Literal["interacted"] = "interacted"
    combatant_id: str
    description: str
    partner: str | None = None


class InteractionAnswered(Event):
    type: Literal["interaction-answered"] = "interaction-answered"
    combatant_id: str
    actor: str
    participated: bool


class Improved(Event):
    """A check's DC improved by an action: brace, defend or focus (4.1 Action Phase)."""

    combatant_id: str
    dc: int
    cost: Points = Field(default_factory=dict)


class Braced(Improved):
    type: Literal["braced"] = "braced"


class Defended(Improved):
    type: Literal["defended"] = "defended"


class Focused(Improved):
    type: Literal["focused"] = "focused"


class Encouraged(Event):
    type: Literal["encouraged"] = "encouraged"
    combatant_id: str
    target: str
    dc: int
    cost: Points = Field(default_factory=dict)


class CheckRolled(Event):
    type: Literal["check-rolled"] = "check-rolled"
    combatant_id: str
    check: Check
    roll: int
    dc: int
    success: bool
    reason: str


class DodgeRolled(Event):
    """A dodge check against one attack (4.1 Dodge): the dice, the DC and the REF paid."""

    combatant_id: str
    attacker: str
    weapon: str | None
    dice: tuple[int, ...]
    dc: int
    cost: Points = Field(default_factory=dict)


class Dodged(DodgeRolled):
    type: Literal["dodged"] = "dodged"


class DodgeFailed(DodgeRolled):
    type: Literal["dodge-failed"] = "dodge-failed"


class ReactionRefused(Event):
    """delvers-deep 4.1 Reactions: without the points there is no reaction; recorded why."""

    type: Literal["reaction-refused"] = "reaction-refused"
    combatant_id: str
    reaction: str
    reason: str


class DamageTaken(Event):
    type: Literal["damage-taken"] = "damage-taken"
    health_of = "combatant_id"
    combatant_id: str
    amount: int
    rolled: int
    source: str | None = None
    attacker: str | None = None
    halved: bool = False
    resolves: int | None = Field(default=None, description="The queued hit this settles.")


DelversEvent = (
    ReflexRolled
    | ReflexBoosted
    | OrderFixed
    | RoundStarted
    | TurnStarted
    | TurnEnded
    | Recovered
    | Moved
    | AttackRolled
    | Reloaded
    | SpellCast
    | Improvised
    | Interacted
    | InteractionAnswered
    | Braced
    | Defended
    | Focused
    | Encouraged
    | CheckRolled
    | Dodged
    | DodgeFailed
    | ReactionRefused
    | DamageTaken
)
EVENTS = DelversEvent.__args__
