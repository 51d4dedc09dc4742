"""Commands and events every ruleset accepts: roster, map, start and end, GM adjudication,
notes, rewind, clocks and reactions.

Commands are imperative, events past tense. GM adjudications are ordinary, attributed
events (DESIGN.md); the `gm_overrides` option decides whether players are told of them.
"""

from __future__ import annotations

from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import BaseModel, Field, model_validator

from service.domain.clocks import (
    ClockExpired,
    ClockPaused,
    ClockResumed,
    ClocksPaused,
    ClocksResumed,
    ClockStarted,
    ClockStopped,
)
from service.domain.grid import Cell, GridMap
from service.domain.hidden import Hidden, Shape
from service.domain.messages import Command, Event
from service.domain.reactions import (
    ReactionAnswered,
    ReactionPolicy,
    ReactionWindowClosed,
    ReactionWindowOpened,
)
from service.domain.roll_requests import (
    CommandHeld,
    CommandReleased,
    ExpireRollRequests,
    RollRequested,
    RollSubmitted,
    SubmitRoll,
)
from service.domain.table import EPITHET, Pool, TurnMoment, absent

# --- commands ---------------------------------------------------------------------------


MAX_POOL = 1_000_000
"""Largest health or resource a GM adjustment may give or take."""


class AddCombatant(Command):
    type: Literal["add-combatant"] = "add-combatant"
    combatant_id: str | None = Field(default=None, min_length=1, max_length=64)
    name: str = Field(min_length=1, max_length=100)
    epithet: str | None = Field(
        default=None, min_length=1, max_length=100, exclude_if=absent, description=EPITHET
    )
    side: str = Field(default="enemies", min_length=1, max_length=40)
    controller: str | None = Field(default=None, max_length=100)
    stats: Annotated[dict[str, Any], Shape("stats", of="combatant_id")] = Field(
        default_factory=dict
    )
    position: Cell | None = None


class UpdateCombatant(Command):
    type: Literal["update-combatant"] = "update-combatant"
    combatant_id: str
    name: str | None = Field(default=None, min_length=1, max_length=100)
    epithet: str | None = Field(
        default=None, min_length=1, max_length=100, exclude_if=absent, description=EPITHET
    )
    side: str | None = Field(default=None, min_length=1, max_length=40)
    controller: str | None = Field(default=None, max_length=100)
    stats: Annotated[dict[str, Any] | None, Shape("stats", of="combatant_id")] = None


class RemoveCombatant(Command):
    type: Literal["remove-combatant"] = "remove-combatant"
    combatant_id: str


class SetMap(Command):
    type: Literal["set-map"] = "set-map"
    map: GridMap


class PlaceToken(Command):
    """The GM puts a token anywhere on the map (setup, teleports, corrections)."""

    type: Literal["place-token"] = "place-token"
    combatant_id: str
    cell: Cell | None


class MoveToken(Command):
    """Move along the cheapest legal path: terrain costs apply, enemies block."""

    type: Literal["move-token"] = "move-token"
    combatant_id: str
    to: Cell


class StartEncounter(Command):
    type: Literal["start-encounter"] = "start-encounter"


class EndEncounter(Command):
    type: Literal["end-encounter"] = "end-encounter"
    reason: str = Field(default="ended by the GM", max_length=200)


class AdjustResource(Command):
    """GM adjudication: change hit points (or any pool) by `delta`, or `set` it outright."""

    type: Literal["adjust-resource"] = "adjust-resource"
    combatant_id: str
    resource: str = Field(default="hp", min_length=1, max_length=40)
    # As large as any stat block's health (freeform's hp is 0-1,000,000).
    delta: Annotated[int | None, Hidden(of="combatant_id")] = Field(
        default=None, ge=-MAX_POOL, le=MAX_POOL
    )
    set: Annotated[int | None, Hidden(of="combatant_id")] = Field(
        default=None, ge=-MAX_POOL, le=MAX_POOL
    )
    max: Annotated[int | None, Hidden(of="combatant_id")] = Field(
        default=None, ge=-MAX_POOL, le=MAX_POOL
    )
    reason: str | None = Field(default=None, max_length=200)


class ApplyCondition(Command):
    type: Literal["apply-condition"] = "apply-condition"
    combatant_id: str
    condition: str = Field(min_length=1, max_length=60)
    rounds: int | None = Field(default=None, ge=1, le=10_000)
    ends: TurnMoment = "end-of-turn"
    anchor: str | None = None
    source: str | None = None
    note: str | None = Field(default=None, max_length=200)


class RemoveCondition(Command):
    type: Literal["remove-condition"] = "remove-condition"
    combatant_id: str
    condition: str


class AddNote(Command):
    type: Literal["add-note"] = "add-note"
    text: str = Field(min_length=1, max_length=2000)
    hidden: bool = False


class Rewind(Command):
    """Undo: the fold skips everything after `to_version`. Nothing is deleted."""

    type: Literal["rewind"] = "rewind"
    to_version: int = Field(ge=1)


class SetReactionPolicy(Command):
    type: Literal["set-reaction-policy"] = "set-reaction-policy"
    combatant_id: str
    policies: tuple[ReactionPolicy, ...] = Field(default=(), max_length=20)


class AnswerReaction(Command):
    type: Literal["answer-reaction"] = "answer-reaction"
    window_id: str
    combatant_id: str
    option: str


class CloseReactionWindow(Command):
    """Sent by a worker at the window's deadline, or by the GM to close it early."""

    type: Literal["close-reaction-window"] = "close-reaction-window"
    window_id: str


class PauseClocks(Command):
    type: Literal["pause-clocks"] = "pause-clocks"


class ResumeClocks(Command):
    type: Literal["resume-clocks"] = "resume-clocks"


class Roll(Command):
    """Roll any dice expression: checks the rules leave to the table, contested rolls."""

    type: Literal["roll"] = "roll"
    expression: str = Field(min_length=1, max_length=200)
    purpose: str = Field(default="roll", max_length=100)
    combatant_id: str | None = None
    hidden: bool = False


class ExpireClock(Command):
    """Sent by a worker at a clock's deadline; a stale expiry is decided as a no-op."""

    type: Literal["expire-clock"] = "expire-clock"
    clock_id: str
    generation: int
    armed_version: int | None = Field(
        default=None,
        description="Set by Fray: the encounter's version once the deadline was armed.",
    )
    idle_streak: int = Field(
        default=0,
        ge=0,
        description=(
            "Set by Fray: the clock timeouts in a row, with no command from anyone at the "
            "table between them, up to that version."
        ),
    )


CommonCommand = (
    AddCombatant
    | UpdateCombatant
    | RemoveCombatant
    | SetMap
    | PlaceToken
    | MoveToken
    | StartEncounter
    | EndEncounter
    | AdjustResource
    | ApplyCondition
    | RemoveCondition
    | AddNote
    | Rewind
    | SetReactionPolicy
    | AnswerReaction
    | CloseReactionWindow
    | PauseClocks
    | ResumeClocks
    | ExpireClock
    | Roll
    | SubmitRoll
    | ExpireRollRequests
)
COMMON_COMMANDS: tuple[type[Command], ...] = CommonCommand.__args__
SYSTEM_COMMANDS = frozenset({"expire-clock", "close-reaction-window", "expire-roll-requests"})

# --- events -----------------------------------------------------------------------------


class EncounterCreated(Event):
    """Version 1 of every stream: what the encounter is and the seed commitment."""

    type: Literal["encounter-created"] = "encounter-created"
    encounter_id: str
    ruleset: str
    ruleset_version: str
    options: dict[str, Any]
    seed_commitment: str
    seed_source: Literal["server", "client"] = "server"
    title: str | None = None


StatsT = TypeVar("StatsT", bound=BaseModel)
"""A ruleset's stat block model: the events that carry a stat block are parametrised by it."""


class CombatantAdded(Event, Generic[StatsT]):
    """Each ruleset reads it as `CombatantAdded[<its stats model>]` (see `stat_block_events`):
    the stat block is validated once, when the event is parsed, and evolve only folds it."""

    type: Literal["combatant-added"] = "combatant-added"
    combatant_id: str
    name: str
    epithet: str | None = Field(default=None, exclude_if=absent)
    side: str
    controller: str | None = None
    stats: Annotated[StatsT, Shape("stats", of="combatant_id")]
    pools: Annotated[dict[str, Pool], Hidden(of="combatant_id", shown_as={})] = Field(
        default_factory=dict
    )
    position: Cell | None = None


class CombatantUpdated(Event, Generic[StatsT]):
    type: Literal["combatant-updated"] = "combatant-updated"
    combatant_id: str
    name: str | None = None
    epithet: str | None = Field(default=None, exclude_if=absent)
    side: str | None = None
    controller: str | None = None
    stats: Annotated[StatsT | None, Shape("stats", of="combatant_id")] = None


class CombatantRemoved(Event):
    type: Literal["combatant-removed"] = "combatant-removed"
    combatant_id: str


class MapSet(Event):
    type: Literal["map-set"] = "map-set"
    map: GridMap


class TokenPlaced(Event):
    type: Literal["token-placed"] = "token-placed"
    combatant_id: str
    cell: Cell | None


class TokenMoved(Event):
    type: Literal["token-moved"] = "token-moved"
    combatant_id: str
    path: tuple[Cell, ...]
    cost: int


class EncounterStarted(Event):
    type: Literal["encounter-started"] = "encounter-started"


class EncounterEnded(Event):
    type: Literal["encounter-ended"] = "encounter-ended"
    reason: str
    seed: str


class ResourceAdjusted(Event):
    type: Literal["resource-adjusted"] = "resource-adjusted"
    health_of = "combatant_id"
    combatant_id: str
    resource: str
    before: int
    after: int
    max: int | None = None
    reason: str | None = None
    gm_override: bool = True


class ConditionApplied(Event):
    """Schema 2: a condition without `rounds` lasts until it is removed, and its `ends` is
    null. Schema 1 wrote "end-of-turn" there too (the command's default), which read as if
    a persisting condition (hex-tactical's stuck, d20-action-points' hidden) ended at the end
    of the turn."""

    type: Literal["condition-applied"] = "condition-applied"
    combatant_id: str
    condition: str
    rounds: int | None = None
    ends: TurnMoment | None = Field(
        default="end-of-turn",
        description="Whose turn moment the rounds count down at; null when it has no rounds.",
    )
    anchor: str | None = None
    source: str | None = None
    note: str | None = None
    gm_override: bool = True

    @model_validator(mode="before")
    @classmethod
    def _no_moment_without_rounds(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("rounds") is None:
            return {**data, "ends": None}
        return data


def condition_applied_1_to_2(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 1 to 2: a condition without rounds has no `ends`."""
    return {**data, "ends": None} if data.get("rounds") is None else data


# Event shapes every ruleset shares, at their schema versions, and their upcasters
# (docs/architecture.md, "Upcasting"); a ruleset's own are in its `event_schemas`.
COMMON_EVENT_SCHEMAS: dict[str, int] = {"condition-applied": 2}
COMMON_UPCASTERS = {("condition-applied", 1): condition_applied_1_to_2}


class ConditionRemoved(Event):
    type: Literal["condition-removed"] = "condition-removed"
    combatant_id: str
    condition: str
    gm_override: bool = True


class ConditionTicked(Event):
    """A round of a timed condition ran out on its anchor's turn."""

    type: Literal["condition-ticked"] = "condition-ticked"
    combatant_id: str
    condition: str
    rounds_left: int


class ConditionExpired(Event):
    type: Literal["condition-expired"] = "condition-expired"
    combatant_id: str
    condition: str


class CombatantDowned(Event):
    """Out of the fight: hit points fell to zero or below (or the ruleset's equivalent)."""

    type: Literal["combatant-downed"] = "combatant-downed"
    combatant_id: str


class CombatantRevived(Event):
    type: Literal["combatant-revived"] = "combatant-revived"
    combatant_id: str


class NoteAdded(Event):
    type: Literal["note-added"] = "note-added"
    text: str
    hidden: bool = False
    author: str | None = None


class Rewound(Event):
    type: Literal["rewound"] = "rewound"
    to_version: int
    from_version: int


class DiceRolled(Event):
    type: Literal["dice-rolled"] = "dice-rolled"
    expression: str
    total: int
    text: str
    purpose: str
    combatant_id: str | None = None
    by: str
    hidden: bool = False


class ReactionPolicySet(Event):
    type: Literal["reaction-policy-set"] = "reaction-policy-set"
    combatant_id: str
    policies: tuple[ReactionPolicy, ...] = ()


CommonEvent = (
    EncounterCreated
    | CombatantAdded  # type: ignore[type-arg]  # parametrised per ruleset (stat_block_events)
    | CombatantUpdated  # type: ignore[type-arg]
    | CombatantRemoved
    | MapSet
    | TokenPlaced
    | TokenMoved
    | EncounterStarted
    | EncounterEnded
    | ResourceAdjusted
    | ConditionApplied
    | ConditionRemoved
    | ConditionTicked
    | ConditionExpired
    | CombatantDowned
    | CombatantRevived
    | NoteAdded
    | Rewound
    | ReactionPolicySet
    | ClockStarted
    | ClockPaused
    | ClockResumed
    | ClockExpired
    | ClockStopped
    | ClocksPaused
    | ClocksResumed
    | ReactionWindowOpened
    | ReactionAnswered
    | ReactionWindowClosed
    | DiceRolled
    | CommandHeld
    | RollRequested
    | RollSubmitted
    | CommandReleased
)
COMMON_EVENTS: tuple[type[Event], ...] = CommonEvent.__args__
GM_OVERRIDE_EVENTS = frozenset({"resource-adjusted", "condition-applied", "condition-removed"})


def stat_block_events(stats_model: type[BaseModel]) -> tuple[type[Event], ...]:
    """The shared events that carry a stat block, typed by a ruleset's stats model."""
    return (
        CombatantAdded[stats_model],  # type: ignore[valid-type]
        CombatantUpdated[stats_model],  # type: ignore[valid-type]
    )
