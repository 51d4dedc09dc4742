"""`fray demo`: a short freeform skirmish through the real pipeline, narrated and audited."""

from __future__ import annotations

from typing import Any

from service.domain.context import GM, Actor
from service.domain.narration import namer
from service.engine import CommandRequest, Engine

BRAMLI = Actor("player-1", "player", frozenset({"bramli"}))

SCRIPT: list[tuple[Actor, dict[str, Any]]] = [
    (GM, {"type": "add-combatant", "combatant_id": "bramli", "name": "Bramli", "side": "heroes",
          "stats": {"initiative_modifier": 3, "hp": 24}}),
    (GM, {"type": "add-combatant", "name": "Goblin 1", "side": "goblins",
          "stats": {"initiative_modifier": 2, "hp": 7, "group": "goblins"}}),
    (GM, {"type": "add-combatant", "name": "Goblin 2", "side": "goblins",
          "stats": {"initiative_modifier": 2, "hp": 7, "group": "goblins"}}),
    (GM, {"type": "roll-initiative"}),
    (GM, {"type": "start-encounter"}),
    (GM, {"type": "apply-condition", "combatant_id": "goblin-1", "condition": "frightened",
          "rounds": 1}),
    (BRAMLI, {"type": "roll", "combatant_id": "bramli", "expression": "1d20+5",
              "purpose": "Bramli attacks Goblin 1"}),
    (GM, {"type": "adjust-resource", "combatant_id": "goblin-1", "delta": -9,
          "reason": "Bramli's axe"}),
]  # fmt: skip


async def run_demo(engine: Engine) -> tuple[str, list[str]]:
    """Play the script, ending turns as they come round; return the id and the narration."""
    encounter_id, _ = await engine.create("freeform", {}, title="Goblins at the ford", actor=GM)
    lines: list[str] = []

    async def send(actor: Actor, command: dict[str, Any]) -> None:
        outcome = await engine.execute(encounter_id, CommandRequest(command=command), actor)
        state = (await engine.load(encounter_id)).state
        names = namer(state.table.combatants)
        ruleset = (await engine.load(encounter_id)).ruleset
        lines.extend(ruleset.narrate(e.type, e.data, names) for e in outcome.events)

    for actor, command in SCRIPT:
        current = (await engine.load(encounter_id)).state
        if command["type"] == "roll" and getattr(current, "current", None) != "bramli":
            await send(GM, {"type": "end-turn"})
        await send(actor, command)
    for _ in range(3):
        await send(GM, {"type": "end-turn"})
    await send(GM, {"type": "end-encounter", "reason": "the goblins fled"})
    return encounter_id, lines
