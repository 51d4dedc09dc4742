"""What freeform shows: legal actions per viewer and one sentence per event."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.domain.context import Actor
from service.domain.legal import common_actions
from service.domain.narration import Names
from service.domain.views import ActionOption
from service.rules.freeform.state import FreeformState


def legal_actions(state: FreeformState, viewer: Actor) -> list[ActionOption]:
    actions = common_actions(state.table, viewer)
    table = state.table
    if viewer.role in ("observer", "auditor"):
        return actions
    if table.phase == "setup":
        missing = [c for c in table.combatants if c not in state.initiative and viewer.controls(c)]
        if missing:
            actions.append(
                ActionOption(type="roll-initiative", label="Roll initiative", targets=missing)
            )
    if table.phase != "running":
        return actions
    current = state.current
    if current is not None and viewer.controls(current):
        name = table.combatants[current].name
        for kind, label in (
            ("end-turn", "End turn"),
            ("delay", "Delay"),
            ("ready", "Ready an action"),
        ):
            actions.append(ActionOption(type=kind, label=f"{label} ({name})", actor=current))
    for combatant_id in state.delayed:
        if viewer.controls(combatant_id):
            actions.append(ActionOption(type="rejoin", label="Act now", actor=combatant_id))
    for combatant_id in state.readied:
        if viewer.controls(combatant_id):
            actions.append(
                ActionOption(type="trigger-ready", label="Use readied action", actor=combatant_id)
            )
    if viewer.is_gm and state.readied:
        actions.append(ActionOption(type="call-for-readied", label="Ask who reacts"))
    return actions


NARRATION: dict[str, Callable[[dict[str, Any], Names], str]] = {
    "initiative-rolled": lambda d, n: f"{n(d['combatant_id'])} has initiative {d['total']}.",
    "round-started": lambda d, n: f"Round {d['round']} begins.",
    "turn-started": lambda d, n: (
        f"{n(d['combatant_id'])} takes up the delayed turn."
        if d.get("resumed")
        else f"It is {n(d['combatant_id'])}'s turn."
    ),
    "turn-ended": lambda d, n: (
        f"{n(d['combatant_id'])}'s turn ended"
        + ("." if d["reason"] == "done" else f" ({d['reason']}).")
    ),
    "turn-delayed": lambda d, n: f"{n(d['combatant_id'])} delays.",
    "delay-ended": lambda d, n: f"{n(d['combatant_id'])} stops delaying and acts next.",
    "action-readied": lambda d, n: (
        f"{n(d['combatant_id'])} readies '{d['action']}' for when {d['trigger']}."
    ),
    "readied-action-triggered": lambda d, n: f"{n(d['combatant_id'])} acts: {d['action']}.",
    "readied-action-lapsed": lambda d, n: f"{n(d['combatant_id'])}'s readied action lapsed.",
}
