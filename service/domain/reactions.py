"""Reaction windows: "others may respond once", resolved in the ruleset's order.

A window lists the eligible reactors and their options. It closes when every reactor has
answered or at its deadline. A combatant's reaction policy ("always dodge while REF >= 2")
answers the moment the window opens, so a GM with twenty goblins is not asked twenty times.
Rulesets supply the trigger and resolve the answers; this module only keeps the window.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.frozen import replace
from service.domain.hidden import Shape
from service.domain.messages import Event
from service.domain.timefmt import later

PASS = "pass"
CloseReason = Literal["all-answered", "deadline", "gm"]


class Requirement(BaseModel):
    """A policy applies only while a resource is within bounds, e.g. REF at least 2."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    resource: str
    at_least: int | None = None
    at_most: int | None = None

    def met(self, resources: Mapping[str, int]) -> bool:
        value = resources.get(self.resource)
        if value is None:
            return False
        if self.at_least is not None and value < self.at_least:
            return False
        return not (self.at_most is not None and value > self.at_most)


class ReactionPolicy(BaseModel):
    """Answer `option` to windows of `trigger` (any when None) while every requirement holds."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", populate_by_name=True, serialize_by_alias=True
    )

    option: str
    trigger: str | None = None
    while_: tuple[Requirement, ...] = Field(default=(), alias="while")


class ReactionWindow(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    trigger: Annotated[dict[str, Any], Shape("trigger")]
    eligible: dict[str, tuple[str, ...]]
    order: tuple[str, ...]
    deadline: str | None = None
    answers: dict[str, str] = Field(default_factory=dict)
    open: bool = True

    def waiting_for(self) -> list[str]:
        return [c for c in self.order if c not in self.answers]

    def resolution(self) -> list[tuple[str, str]]:
        """The reactions taken, in the ruleset's order; passes are left out."""
        return [(c, self.answers[c]) for c in self.order if self.answers.get(c, PASS) != PASS]


class ReactionWindowOpened(Event):
    type: Literal["reaction-window-opened"] = "reaction-window-opened"
    window_id: str
    trigger: Annotated[dict[str, Any], Shape("trigger")]
    eligible: dict[str, tuple[str, ...]]
    order: tuple[str, ...]
    deadline: str | None = None


class ReactionAnswered(Event):
    type: Literal["reaction-answered"] = "reaction-answered"
    window_id: str
    combatant_id: str
    option: str
    by_policy: bool = False


class ReactionWindowClosed(Event):
    type: Literal["reaction-window-closed"] = "reaction-window-closed"
    window_id: str
    reason: CloseReason
    trigger: Annotated[dict[str, Any], Shape("trigger")] = Field(default_factory=dict)
    reactions: tuple[tuple[str, str], ...] = ()


ReactionEvent = ReactionWindowOpened | ReactionAnswered | ReactionWindowClosed
ResourceLookup = Callable[[str], Mapping[str, int]]


def open_window(
    window_id: str,
    trigger: dict[str, Any],
    eligible: Mapping[str, Sequence[str]],
    order: Sequence[str],
    ctx: DecideContext,
    seconds: float,
    policies: Mapping[str, Sequence[ReactionPolicy]],
    resources: ResourceLookup,
) -> list[Event]:
    """Open a window; policies answer at once; a window nobody is left to answer closes."""
    options = {c: (*eligible[c], PASS) for c in order if c in eligible}
    opened = ctx.emit(
        ReactionWindowOpened(
            window_id=window_id,
            trigger=trigger,
            eligible=options,
            order=tuple(c for c in order if c in options),
            deadline=later(ctx.now, seconds) if seconds > 0 else None,
        )
    )
    window = window_from(opened)
    events: list[Event] = [opened]
    for combatant in window.order:
        choice = policy_answer(
            policies.get(combatant, ()), trigger, options[combatant], resources(combatant)
        )
        if choice is not None:
            answered = ctx.emit(
                ReactionAnswered(
                    window_id=window_id, combatant_id=combatant, option=choice, by_policy=True
                )
            )
            events.append(answered)
            window = evolve_window(window, answered)
    if not window.waiting_for():
        events.append(_closed(window, "all-answered", ctx))
    elif seconds <= 0:
        events.append(_closed(window, "deadline", ctx))
    return events


def policy_answer(
    policies: Sequence[ReactionPolicy],
    trigger: Mapping[str, Any],
    options: Sequence[str],
    resources: Mapping[str, int],
) -> str | None:
    """The first policy that fits this trigger, offers a legal option and whose bounds hold."""
    for policy in policies:
        if policy.trigger is not None and policy.trigger != trigger.get("kind"):
            continue
        if policy.option in options and all(r.met(resources) for r in policy.while_):
            return policy.option
    return None


def answer(
    window: ReactionWindow | None, combatant_id: str, option: str, ctx: DecideContext
) -> list[Event]:
    if window is None or not window.open:
        raise RuleViolation("reactions/window-closed", "that reaction window is already closed")
    if combatant_id not in window.eligible:
        raise RuleViolation(
            "reactions/not-eligible", f"{combatant_id} may not react in this window"
        )
    if combatant_id in window.answers:
        raise RuleViolation("reactions/already-answered", f"{combatant_id} has already answered")
    if option not in window.eligible[combatant_id]:
        choices = ", ".join(window.eligible[combatant_id])
        raise RuleViolation(
            "reactions/unknown-option", f"'{option}' is not one of the choices: {choices}"
        )
    answered = ctx.emit(
        ReactionAnswered(window_id=window.id, combatant_id=combatant_id, option=option)
    )
    after = evolve_window(window, answered)
    if not after.waiting_for():
        return [answered, _closed(after, "all-answered", ctx)]
    return [answered]


def close(window: ReactionWindow | None, reason: CloseReason, ctx: DecideContext) -> list[Event]:
    """Close at the deadline or by the GM; closing a closed window is a no-op."""
    if window is None or not window.open:
        return []
    return [_closed(window, reason, ctx)]


def evolve_window(
    window: ReactionWindow, event: ReactionAnswered | ReactionWindowClosed
) -> ReactionWindow:
    match event:
        case ReactionAnswered():
            answers = {**window.answers, event.combatant_id: event.option}
            return replace(window, {"answers": answers})
        case ReactionWindowClosed():
            return replace(window, {"open": False, "deadline": None})


def window_from(event: ReactionWindowOpened) -> ReactionWindow:
    return ReactionWindow(
        id=event.window_id,
        trigger=event.trigger,
        eligible=event.eligible,
        order=event.order,
        deadline=event.deadline,
    )


def _closed(
    window: ReactionWindow, reason: CloseReason, ctx: DecideContext
) -> ReactionWindowClosed:
    return ctx.emit(
        ReactionWindowClosed(
            window_id=window.id,
            reason=reason,
            trigger=window.trigger,
            reactions=tuple(window.resolution()),
        )
    )
