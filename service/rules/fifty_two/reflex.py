"""Reflex saves in fifty-two (§8): what a save costs in action points and from which round,
cover within a step or a dive away, and the save itself.

The seed prices the save but leaves the save to "the rules pertaining to such saves"; Fray
uses the D&D 3.x Reflex save (d20 + save bonus against the DC, half damage on a success).
Readings are on docs/rules/fifty-two.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal, NamedTuple

from service.domain.errors import RuleViolation
from service.rules.fifty_two.state import FiftyTwoStats, Size

REFLEX = "fifty-two §8"
COVER = "fifty-two §8.3"

Approach = Literal["step", "dive"]
ChargedTo = Literal["this-round", "next-round"]

# fifty-two §8.1: "the cost of 1 action point ..., and the cost of a second action point
# ... if successful".
ATTEMPT_COST = 1
SUCCESS_COST = 1
# fifty-two §8.3: "Cover that is available within a 5' step reduces the action point cost
# by 1."
COVER_DISCOUNT = 1
STEP_FEET = 5
# fifty-two §8.3: a dive "automatically leaves the defender prone, requiring an action point
# to stand up before they can do anything else".
STAND_UP_COST = 1
PRONE = "prone"
# fifty-two §8.3: "The limit is 5+STR in feet, minimum 10'", -5 feet small, +5 feet large.
DIVE_BASE_FEET = 5
DIVE_MINIMUM_FEET = 10
DIVE_SIZE_FEET: Mapping[Size, int] = MappingProxyType({"small": -5, "medium": 0, "large": 5})
D20 = 20


class ReflexCost(NamedTuple):
    """Action points a Reflex save costs, the round they come from, and whether the
    defender dived into cover and lies prone."""

    points: int
    charged_to: ChargedTo
    prone: bool = False


def dive_limit(str_mod: int, size: Size) -> int:
    """How far, in feet, a defender can dive into cover (§8.3).

    5 + STR modifier, at least 10 feet; then small defenders lose 5 feet and large ones gain
    5. The minimum comes first, so a weak small defender reaches 5 feet and cannot dive to
    cover 10 feet away. Feet are not rounded to 5-foot squares.
    """
    return max(DIVE_BASE_FEET + str_mod, DIVE_MINIMUM_FEET) + DIVE_SIZE_FEET[size]


def reach_cover(feet: int, str_mod: int, size: Size) -> Approach:
    """How a defender gets to cover `feet` away: a 5-foot step, or a dive within its limit."""
    if feet < 0:
        raise ValueError(f"a distance is never negative ({feet} feet)")
    if feet <= STEP_FEET:
        return "step"
    limit = dive_limit(str_mod, size)
    if feet > limit:
        raise RuleViolation(
            "reflex/cover-out-of-reach",
            f"the cover is {feet} feet away; a {size} defender with STR {str_mod:+d} can "
            f"dive at most {limit} feet",
            rule=COVER,
            details={"feet": feet, "limit": limit},
        )
    return "dive"


def reflex_cost(
    defender: FiftyTwoStats,
    succeeded: bool,
    *,
    acted_this_round: bool,
    cover_feet: int | None = None,
) -> ReflexCost:
    """The action points a Reflex save costs the defender (§8.1 to §8.3).

    1, and 1 more if the save succeeds; cover the defender can reach (`cover_feet` away,
    None for no cover) takes 1 off that total, never below 0. A defender who has not yet
    acted this round pays from this round's points (§8.2), one who has from its next
    round's (§8.1). Diving to cover leaves it prone: standing costs `STAND_UP_COST` more,
    charged by the caller when it next acts.
    """
    points = ATTEMPT_COST + (SUCCESS_COST if succeeded else 0)
    prone = False
    if cover_feet is not None:
        approach = reach_cover(cover_feet, defender.str_mod, defender.size)
        points = max(0, points - COVER_DISCOUNT)
        prone = approach == "dive"
    return ReflexCost(points, "next-round" if acted_this_round else "this-round", prone)


def save_succeeds(roll: int, reflex_save: int, dc: int) -> bool:
    """A D&D 3.x Reflex save: d20 + save bonus meets the DC; a natural 1 always fails and a
    natural 20 always succeeds."""
    if not 1 <= roll <= D20:
        raise RuleViolation(
            "reflex/not-a-d20-roll",
            f"a Reflex save is rolled on a d20: {roll} cannot be rolled",
            rule=REFLEX,
            details={"roll": roll},
        )
    if roll in (1, D20):
        return roll == D20
    return roll + reflex_save >= dc


def saved_damage(damage: int, succeeded: bool) -> int:
    """The damage the defender takes: half, rounded down, after a successful save."""
    if damage < 0:
        raise ValueError(f"damage is never negative ({damage})")
    return damage // 2 if succeeded else damage
