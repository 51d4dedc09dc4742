"""Ability scores as 2nd edition reads them, and the checks combat-ii calls for.

The seed leaves the standard values to the Player's Handbook; the two tables here are the
PH's Dexterity adjustments (reaction/missile and defensive), used when a stat block gives
scores without its own adjustments. An ability check rolls d20 and passes at or under the
score plus its modifier (PH, "Ability Checks").
"""

from __future__ import annotations

from typing import Literal

from service.domain.context import DecideContext
from service.domain.table import Frozen

# PH Table 2 (Dexterity): score -> (reaction/missile adjustment, defensive adjustment).
_DEXTERITY: dict[int, tuple[int, int]] = {
    1: (-6, 5), 2: (-4, 5), 3: (-3, 4), 4: (-2, 3), 5: (-1, 2), 6: (0, 1),
    15: (0, -1), 16: (1, -2), 17: (2, -3), 18: (2, -4), 19: (3, -4), 20: (3, -4),
    21: (4, -5), 22: (4, -5), 23: (4, -5), 24: (5, -6), 25: (5, -6),
}  # fmt: skip


def reaction_adjustment(score: int) -> int:
    """PH Table 2 "Reaction/Missile Attack Adjustment"."""
    return _DEXTERITY.get(score, (0, 0))[0]


def defensive_adjustment(score: int) -> int:
    """PH Table 2 "Defensive Adjustment" (negative is better: it lowers AC)."""
    return _DEXTERITY.get(score, (0, 0))[1]


class Check(Frozen):
    """One ability check: d20 at or under score + modifier passes."""

    ability: str
    score: int
    modifier: int = 0
    roll: int
    passed: bool
    purpose: str


def check(
    ctx: DecideContext, ability: str, score: int, modifier: int, purpose: str, *, roller: str
) -> Check:
    """An ability check made by `roller`."""
    label = f"{ability} check: {purpose}"
    return _under(ctx, 20, label, ability, score, modifier, purpose, roller=roller)


def _under(
    ctx: DecideContext,
    sides: int,
    label: str,
    ability: str,
    score: int,
    modifier: int,
    purpose: str,
    *,
    roller: str,
) -> Check:
    """One die, passed at or under the score plus its modifier."""
    roll = ctx.die(sides, label, roller=roller)
    return Check(
        ability=ability, score=score, modifier=modifier, roll=roll,
        passed=roll <= score + modifier, purpose=purpose,
    )  # fmt: skip


def surprise_roll(ctx: DecideContext, bonus: int, purpose: str, *, roller: str) -> Check:
    """PH "Surprise": d10, surprised on 1-3. combat-ii §2 F: a caster in the midst of an
    incantation adds 1 to the die."""
    roll = ctx.die(10, f"surprise: {purpose}", roller=roller)
    return Check(
        ability="surprise",
        score=3,
        modifier=bonus,
        roll=roll,
        passed=roll + bonus > 3,
        purpose=purpose,
    )


# combat-ii §4 Agility "THIEF ADJUSTMENTS": AGI adjusts Move Silently, Hide in Shadows and
# Climb Walls by PH Table 28 "read 'Dexterity' as the applicable ability": "AGI 9 = -10%,
# 10 = -5%, 17 = +5%, 18 = +10%, 19 = +15%"; 11-16 adjust nothing.
_AGILITY_SKILLS: dict[int, int] = {9: -10, 10: -5, 17: 5, 18: 10, 19: 15}
_AGILITY_LISTED = (9, 19)
"""The scores the seed lists; a score beyond them takes the nearest listed one."""


def agility_skill_adjustment(agility: int) -> int:
    """§4 Agility: the percentage AGI adds to a thief's Move Silently, Hide in Shadows and
    Climb Walls (interpretation: below 9 as 9, above 19 as 19)."""
    low, high = _AGILITY_LISTED
    return _AGILITY_SKILLS.get(min(max(agility, low), high), 0)


ThiefSkill = Literal[
    "move-silently", "hide-in-shadows", "climb-walls", "pick-pockets", "open-locks",
    "find-traps", "remove-traps",
]  # fmt: skip
AGILITY_SKILLS: frozenset[ThiefSkill] = frozenset(
    {"move-silently", "hide-in-shadows", "climb-walls"}
)
"""§4 Agility: "AGI: Move Silently, Hide in Shadows, Climb Walls"; the rest are DEX's."""

# PH Table 28 (Thieving Skill Dexterity Adjustments): DEX -> (PP, OL, F/RT, MS, HS); 13-15
# adjust nothing, and Climb Walls has no Dexterity column.
_TABLE_28: dict[int, tuple[int, int, int, int, int]] = {
    9: (-15, -10, -10, -20, -10), 10: (-10, -5, -10, -15, -5), 11: (-5, 0, -5, -10, 0),
    12: (0, 0, 0, -5, 0), 16: (0, 5, 0, 0, 0), 17: (5, 10, 0, 5, 5), 18: (10, 15, 5, 10, 10),
    19: (15, 20, 10, 15, 15),
}  # fmt: skip
_TABLE_28_COLUMN: dict[ThiefSkill, int] = {
    "pick-pockets": 0, "open-locks": 1, "find-traps": 2, "remove-traps": 2,
    "move-silently": 3, "hide-in-shadows": 4,
}  # fmt: skip
_TABLE_28_LISTED = (9, 19)


def dexterity_skill_adjustment(skill: ThiefSkill, dexterity: int) -> int:
    """PH Table 28: the percentage DEX adds to a thief skill (interpretation, as for AGI:
    below 9 as 9, above 19 as 19)."""
    column = _TABLE_28_COLUMN.get(skill)
    low, high = _TABLE_28_LISTED
    row = _TABLE_28.get(min(max(dexterity, low), high))
    return 0 if column is None or row is None else row[column]


def skill_adjustment(skill: ThiefSkill, dexterity: int, agility: int | None) -> int:
    """§4 Agility "THIEF ADJUSTMENTS": AGI's list for its three skills when `agility` (the
    AGI score, given only with the option) is known; otherwise PH Table 28 by DEX."""
    if agility is not None and skill in AGILITY_SKILLS:
        return agility_skill_adjustment(agility)
    return dexterity_skill_adjustment(skill, dexterity)


def skill_roll(
    ctx: DecideContext, skill: ThiefSkill, chance: int, modifier: int, purpose: str, *, roller: str
) -> Check:
    """A thief's percentile skill roll: d100 at or under the chance plus its modifier."""
    name = skill.replace("-", " ")
    return _under(ctx, 100, name, name, chance, modifier, purpose, roller=roller)


def perception(
    intelligence: int, wisdom: int, level: int, thief: bool, thieves_option: bool
) -> int:
    """combat-ii §4 Perception: the average of INT and WIS (rounded down) plus one per level;
    with the option, thieves gain two per level."""
    per_level = 2 if thief and thieves_option else 1
    return (intelligence + wisdom) // 2 + per_level * level
