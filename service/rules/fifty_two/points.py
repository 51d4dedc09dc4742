"""Action points in fifty-two: the combat bonus (§5.1), the free action every conscious
combatant gets (§5.2), and the time each side has per decision (§4.5).

The seed prints Alphonse's combat bonus as "3+2+5+1-3 = 7"; those terms add to 8. Fray adds
the terms (docs/rules/fifty-two.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from service.rules.fifty_two.initiative import Side
from service.rules.fifty_two.state import FiftyTwoStats

# fifty-two §5.2: "All conscious combatants, regardless of their available attack points,
# gets one attack point".
FREE_ACTIONS = 1
# fifty-two §4.5: "20 seconds per decision", 10 more per Enemy over 2 or per Ally below 4.
DECISION_SECONDS = 20.0
EXTRA_SECONDS = 10.0
ENEMIES_BEFORE_EXTRA = 2
ALLIES_BEFORE_EXTRA = 4


@dataclass(frozen=True)
class CombatBonus:
    """The terms of a combat bonus in the seed's order, each (label, value), and their sum."""

    terms: tuple[tuple[str, int], ...]

    @property
    def total(self) -> int:
        return sum(value for _, value in self.terms)

    @property
    def values(self) -> tuple[int, ...]:
        return tuple(value for _, value in self.terms)


def first_term(stats: FiftyTwoStats) -> tuple[str, int]:
    """fifty-two §5.1: "DEX bonus or STR bonus (depends on type of weapon) or other Bonus (by
    character class) [Classed combatants only] or 1/3 of CR or equivalent [Enemies without
    class levels only]". An unclassed combatant without a CR uses its DEX or STR too."""
    if stats.classed and stats.class_ability_bonus is not None:
        return ("class ability bonus", stats.class_ability_bonus)
    if not stats.classed and stats.cr is not None:
        return ("1/3 of CR", stats.cr // 3)
    if stats.weapon.uses == "dex":
        return ("DEX bonus", stats.dex_mod)
    return ("STR bonus", stats.str_mod)


def combat_bonus(stats: FiftyTwoStats, opponents_magic_defense: Sequence[int]) -> CombatBonus:
    """The combat bonus of §5.1, term by term.

    `opponents_magic_defense` holds the Magic Defense Bonus of each opponent "currently
    placed within attack range of the character". The circumstantial term appears only when
    there is one, and the opponents' term only when some opponent is in range, as in the
    seed's sums ("5+2+7+3-3").
    """
    terms = [
        first_term(stats),
        ("magical attack", stats.magical_attack),
        ("attack bonus", stats.attack_bonus),
        ("class bonus", stats.class_bonus),
    ]
    if stats.circumstantial:
        terms.append(("circumstantial", stats.circumstantial))
    if opponents_magic_defense:
        # fifty-two §5.1: "- the sum of all Magic Defense Bonuses of opposition".
        terms.append(("opponents' magic defense", -sum(opponents_magic_defense)))
    return CombatBonus(tuple(terms))


def action_points(bonus_total: int) -> int:
    """Actions in a turn: one per point of combat bonus (none when it is negative) plus the
    one every conscious combatant gets (§5.2: "in addition to a single action that every
    conscious combatant receives each round")."""
    return max(0, bonus_total) + FREE_ACTIONS


def decision_seconds(
    side: Side, allies: int, enemies: int, base: float = DECISION_SECONDS
) -> float:
    """Seconds a side has for each decision (§4.5).

    "Enemies get an extra 10 seconds for each Enemy combatant over 2"; "Allies get an extra
    10 seconds for each Ally below 4". The extra 10 seconds stay 10 when a table changes
    the base. `allies` and `enemies` are the combatants the caller counts as in the fight.
    """
    if base <= 0:
        raise ValueError(f"a decision needs some time, not {base} seconds")
    if allies < 0 or enemies < 0:
        raise ValueError(f"combatant counts are never negative ({allies}, {enemies})")
    if side == "enemies":
        extra = max(0, enemies - ENEMIES_BEFORE_EXTRA)
    else:
        extra = max(0, ALLIES_BEFORE_EXTRA - allies)
    return base + EXTRA_SECONDS * extra
