"""The rulesets Fray runs: one literal dict."""

from __future__ import annotations

from typing import Any

from service.domain.errors import FrayError
from service.domain.ruleset import RulesetBase
from service.rules import (
    combat_ii,
    d20_action_points,
    delvers_deep,
    fifty_two,
    freeform,
    hex_tactical,
)

RULESETS: dict[str, RulesetBase[Any]] = {
    freeform.RULESET.name: freeform.RULESET,
    delvers_deep.RULESET.name: delvers_deep.RULESET,
    fifty_two.RULESET.name: fifty_two.RULESET,
    d20_action_points.RULESET.name: d20_action_points.RULESET,
    hex_tactical.RULESET.name: hex_tactical.RULESET,
    combat_ii.RULESET.name: combat_ii.RULESET,
}


def ruleset_named(name: str) -> RulesetBase[Any]:
    found = RULESETS.get(name)
    if found is None:
        valid = ", ".join(sorted(RULESETS))
        raise FrayError(
            f"unknown ruleset '{name}'; Fray runs: {valid}",
            code="encounter/unknown-ruleset",
            details={"valid": sorted(RULESETS)},
        )
    return found
