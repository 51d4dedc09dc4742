"""The reaction window an interruption opens: a defence against a hit, an attack of
opportunity, a reserved move or overwatch set off. It names the queued item it resolves, who
may answer with what, and takes the encounter's window seconds and policies (hex-tactical
Attacks of Opportunity: "pause all other actions to resolve it")."""

from __future__ import annotations

from typing import Any

from service.domain import reactions
from service.domain.context import DecideContext
from service.domain.messages import Event
from service.rules.hex_tactical.state import HexState, Pending


def open_window(
    state: HexState,
    item: Pending,
    trigger: dict[str, Any],
    eligible: dict[str, tuple[str, ...]],
    ctx: DecideContext,
) -> list[Event]:
    order = [c for c in eligible if c in state.table.combatants]
    return reactions.open_window(
        window_id=f"w{state.table.windows_opened + 1}",
        trigger={"resolves": item.id, "actor": item.actor, "target": item.target, **trigger},
        eligible=eligible,
        order=order,
        ctx=ctx,
        seconds=state.options.reaction_window,
        policies=state.table.policies,
        resources=state.table.resources_of,
    )
