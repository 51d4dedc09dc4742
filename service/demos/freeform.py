"""`fray demo` (freeform): a goblin skirmish at a ford. Initiative is the server's dice, so
Bramli's attack waits for his turn, and the fight ends after three more turns."""

from __future__ import annotations

from service.demos.runner import Command, Demo, Script, Step
from service.domain.ruleset import EncounterState
from service.rules.registry import ruleset_named


def _end_turn_unless_bramlis(state: EncounterState) -> Command | None:
    if ruleset_named("freeform").acting(state) == ["bramli"]:
        return None
    return {"type": "end-turn"}


def script() -> Script:
    steps = [
        Step({"type": "add-combatant", "combatant_id": "bramli", "name": "Bramli",
              "side": "heroes", "stats": {"initiative_modifier": 3, "hp": 24}}),
        Step({"type": "add-combatant", "name": "Goblin 1", "side": "goblins",
              "stats": {"initiative_modifier": 2, "hp": 7, "group": "goblins"}}),
        Step({"type": "add-combatant", "name": "Goblin 2", "side": "goblins",
              "stats": {"initiative_modifier": 2, "hp": 7, "group": "goblins"}}),
        Step({"type": "roll-initiative"}),
        Step({"type": "start-encounter"}),
        Step({"type": "apply-condition", "combatant_id": "goblin-1", "condition": "frightened",
              "rounds": 1}),
        Step(_end_turn_unless_bramlis),
        Step({"type": "roll", "combatant_id": "bramli", "expression": "1d20+5",
              "purpose": "Bramli attacks Goblin 1"}, actor="bramli"),
        Step({"type": "adjust-resource", "combatant_id": "goblin-1", "delta": -9,
              "reason": "Bramli's axe"}),
        *[Step({"type": "end-turn"})] * 3,
        Step({"type": "end-encounter", "reason": "the goblins fled"}),
    ]  # fmt: skip
    return Script("freeform", "Goblins at the ford", steps)


DEMO = Demo(about="a goblin skirmish (the default)", script=script)
