"""Ruleset-independent views every front end can render."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from service.domain.grid import Cell
from service.domain.table import EPITHET


class View(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PoolView(View):
    current: int | None
    max: int | None = None


class ConditionView(View):
    name: str
    rounds_left: int | None = None


class CombatantSummary(View):
    id: str
    name: str
    epithet: str | None = Field(default=None, description=EPITHET)
    side: str
    controller: str | None = None
    health: PoolView | None = None
    pools: dict[str, PoolView] = Field(default_factory=dict)
    position: Cell | None = None
    conditions: list[ConditionView] = Field(default_factory=list)
    out_of_fight: bool = False
    health_word: str | None = Field(
        default=None, description="Shown instead of numbers when the encounter hides health."
    )


class ClockView(View):
    id: str
    label: str
    owner: str | None = None
    status: str
    deadline: str | None = None
    remaining_ms: int | None = None


class Blocked(View):
    """One of the viewer's combatants that may do nothing now, and why: what legal actions
    leave out. Not a reaction window's waiting list (that is `eligible`)."""

    actor: str = Field(description="The viewer's combatant that has to wait.")
    reason: str = Field(description="Why, in the ruleset's words, citing its section.")
    blocked_by: list[str] = Field(
        default_factory=list, description="The combatants it waits for, in order."
    )


class WindowView(View):
    window_id: str = Field(
        description="The window's id, as `answer-reaction` and the window's events name it."
    )
    id: str = Field(deprecated="Use `window_id`: the same value.", description="`window_id`.")
    trigger: dict[str, Any]
    eligible: dict[str, list[str]] = Field(
        description=(
            "Who may still answer, each with the options it may answer: the `eligible` of "
            "`reaction-window-opened`, less those who have answered."
        )
    )
    waiting_for: list[str] = Field(
        deprecated="Use `eligible` (its keys, in the same order): the same combatants.",
        description="The combatants of `eligible`.",
    )
    deadline: str | None = None


class EncounterSummary(View):
    ruleset: str
    version: int = 0
    phase: str
    round: int = 0
    acting: list[str] = Field(default_factory=list, description="Who may act now.")
    combatants: list[CombatantSummary] = Field(default_factory=list)
    clocks: list[ClockView] = Field(default_factory=list)
    reaction_windows: list[WindowView] = Field(default_factory=list)
    details: dict[str, Any] | None = Field(
        default=None,
        description=(
            "What this ruleset adds for a front end to draw, or null where it adds nothing "
            "(combat-ii: the current phase's half-segment timeline and the viewer's own "
            "combatants' sheets)."
        ),
    )


class ActionOption(View):
    """One thing a viewer may do now, so a front end can draw a button for it."""

    type: str = Field(description="The command type to send.")
    label: str
    actor: str | None = Field(default=None, description="The combatant who would act.")
    cost: dict[str, int] | None = None
    targets: list[str] | None = None
    params: dict[str, Any] = Field(
        default_factory=dict,
        description="Hints for the command's fields, in the ruleset's words (the choices on "
        "offer, a limit): what a front end draws, not a schema.",
    )
    params_schema: dict[str, Any] | None = Field(
        default=None,
        description="The JSON Schema of the command's fields but `type`: what to fill in and "
        "send as the command, with `type`. The same as the command's in GET /v1/rulesets/{name}.",
    )
