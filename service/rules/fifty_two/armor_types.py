"""The armors and damage types of fifty-two (§5.3), and the armor a monster's natural AC is
equivalent to (§5.3.2): the vocabulary both the stat block (state.py), which reads a natural
AC as an armor, and the armor arithmetic (armor.py) use."""

from __future__ import annotations

from typing import Literal

from service.domain.errors import RuleViolation

NATURAL_ARMOR = "fifty-two §5.3.2"

DamageType = Literal["slashing", "piercing", "crushing"]
ArmorType = Literal[
    "none",
    "cloth",
    "padded",
    "soft-leather",
    "hard-leather",
    "bone",
    "chain",
    "banded",
    "ring",
    "half-plate",
    "full-plate",
]

# fifty-two §5.3.2 gives no AC table. Fray's: the §5.3 table in its own order, one line a
# point of armor bonus (AC - 10 - magic - stat bonuses), cloth and padded sharing a line;
# three points of armor bonus make one point of rating.
NATURAL_ARMOR_BY_BONUS: tuple[ArmorType, ...] = (
    "none",
    "padded",
    "soft-leather",
    "hard-leather",
    "bone",
    "chain",
    "banded",
    "ring",
    "half-plate",
    "full-plate",
)


def natural_armor(ac: int, magic_defense: int, stat_bonus: int) -> ArmorType:
    """The armor a monster's natural AC is equivalent to (§5.3.2 Natural Armors).

    "Subtract any magical defensive bonus and stat-based bonuses from the AC specified":
    what is left above 10 is the armor bonus, read off `NATURAL_ARMOR_BY_BONUS` (9 and more
    are full plate). The magical defensive bonus becomes the armor's enchantment, as the
    Addendum's Esther (Magic Def +2, "Ring +2") shows; that is the caller's to set.
    """
    if magic_defense < 0:
        raise RuleViolation(
            "armor/negative-magic-defense",
            f"a magical defensive bonus cannot be negative ({magic_defense})",
            rule=NATURAL_ARMOR,
            details={"magic_defense": magic_defense},
        )
    bonus = ac - 10 - magic_defense - stat_bonus
    if bonus < 0:
        raise RuleViolation(
            "armor/ac-below-unarmored",
            f"an AC of {ac} with a magical bonus of {magic_defense} and stat bonuses of "
            f"{stat_bonus} leaves {bonus} for the skin, less than no armor at all (AC 10)",
            rule=NATURAL_ARMOR,
            details={"ac": ac, "magic_defense": magic_defense, "stat_bonus": stat_bonus},
        )
    return NATURAL_ARMOR_BY_BONUS[min(bonus, len(NATURAL_ARMOR_BY_BONUS) - 1)]
