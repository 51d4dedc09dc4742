"""The shared actions a viewer may take, for front ends to draw as buttons."""

from __future__ import annotations

from service.domain.context import Actor
from service.domain.table import Table
from service.domain.views import ActionOption


def common_actions(table: Table, viewer: Actor) -> list[ActionOption]:
    actions: list[ActionOption] = []
    if viewer.is_gm and table.phase != "ended":
        actions.append(ActionOption(type="add-combatant", label="Add a combatant"))
        if table.phase == "setup" and table.combatants:
            actions.append(ActionOption(type="start-encounter", label="Start the encounter"))
        if table.phase == "running":
            actions.append(ActionOption(type="end-encounter", label="End the encounter"))
        placed = [c.id for c in table.combatants.values() if c.position is not None]
        if table.map is not None and placed:
            # The GM's correction (common.MoveToken): a front end offers the tokens to move.
            actions.append(ActionOption(type="move-token", label="Move a token", targets=placed))
        if any(c.status == "running" for c in table.clocks.values()):
            actions.append(ActionOption(type="pause-clocks", label="Pause all clocks"))
        if table.clocks_on_hold or any(c.status == "paused" for c in table.clocks.values()):
            actions.append(ActionOption(type="resume-clocks", label="Resume the clocks"))
    if table.phase == "running" and viewer.role in ("gm", "player"):
        actions.append(ActionOption(type="roll", label="Roll dice"))
    for window in table.open_windows():
        for combatant_id in window.waiting_for():
            if viewer.controls(combatant_id):
                actions.append(
                    ActionOption(
                        type="answer-reaction",
                        label=f"React ({window.trigger.get('kind', 'reaction')})",
                        actor=combatant_id,
                        params={
                            "window_id": window.id,
                            "options": list(window.eligible[combatant_id]),
                        },
                    )
                )
    return actions
