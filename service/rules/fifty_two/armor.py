"""Armor in fifty-two (§5.3): what each armor is vulnerable to, what an attack costs to
execute, the rating that hits must reach before one registers, and the count of hits worn into
a defender's armor (natural armor and the names of armors: armor_types.py).

Pure arithmetic on a defender's `FiftyTwoStats` and the attacker's weapon. Readings of the
seed where it is vague or contradicts itself are on docs/rules/fifty-two.md:

* The Addendum's "(V ...)" per combatant (`stats.vulnerable_to`) wins over the §5.3 table;
  without one, the table's shield line applies to the armors listed above it.
* The attacker's magical bonus is its weapon's enchantment.
* A defender's magic is its armor's enchantment + its shield's score + the shield's
  enchantment: the seed's Evans counts Alan's "Full Plate +2 + Shield +1(+1)" as (+2+1+1);
  an unenchanted shield's score counts only with the option `shield_magic: "always"`.
* An attack registers when the count reaches the rating (Alphonse's criticals at rating 3);
  then the count restarts from zero ("reset") or keeps the excess ("carry").
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal, NamedTuple

from service.rules.fifty_two.armor_types import ArmorType, DamageType
from service.rules.fifty_two.state import FiftyTwoStats, Weapon

Vulnerability = DamageType | Literal["all"]
HitKind = Literal["ordinary", "critical", "spell", "surprise"]
HitMode = Literal["reset", "carry"]
ShieldMagic = Literal["if-enchanted", "always"]

# fifty-two §5.3.3: the armor rating table.
ARMOR_RATING: Mapping[ArmorType, int] = MappingProxyType(
    {
        "none": 0,
        "cloth": 0,
        "padded": 0,
        "soft-leather": 0,
        "hard-leather": 1,
        "bone": 1,
        "chain": 1,
        "banded": 2,
        "ring": 2,
        "half-plate": 2,
        "full-plate": 3,
    }
)

# fifty-two §5.3: "Every armor type has a class of damage to which it is more vulnerable."
VULNERABILITY: Mapping[ArmorType, Vulnerability] = MappingProxyType(
    {
        "none": "all",
        "cloth": "slashing",
        "padded": "slashing",
        "soft-leather": "crushing",
        "hard-leather": "piercing",
        "bone": "crushing",
        "chain": "piercing",
        "banded": "crushing",
        "ring": "piercing",
        "half-plate": "slashing",
        "full-plate": "piercing",
    }
)

# fifty-two §5.3: "Any of the above plus a shield - slashing": the lines above it.
SHIELD_LINE: frozenset[ArmorType] = frozenset(
    {"none", "cloth", "padded", "soft-leather", "hard-leather", "bone", "chain"}
)
SHIELDED: DamageType = "slashing"

# fifty-two §5.3.3: "Ordinary hits count as one ..., critical hits count as three";
# spells count as one; surprise attacks "ignore this requirement".
HIT_COUNT: Mapping[HitKind, int] = MappingProxyType(
    {"ordinary": 1, "critical": 3, "spell": 1, "surprise": 0}
)

# fifty-two §5.3.3: "Ratings cannot increase to more than 2 more than the base rating".
MAGIC_CAP = 2


class HitCount(NamedTuple):
    """Whether an attack's damage registers, and the defender's count of hits after it."""

    registers: bool
    hits: int


def vulnerability(stats: FiftyTwoStats) -> Vulnerability:
    """The damage type the defender's armor is vulnerable to, or "all" for no armor.

    The Addendum's per-combatant "(V ...)" wins: it contradicts the table's shield line
    (Alice, chain and a shield, is "V Piercing"; Artichoke, soft leather and a shield,
    "V Crushing"). Without it, a shield makes the armors above that line vulnerable to
    slashing, and leaves banded, ring, half plate and full plate as they are.
    """
    if stats.vulnerable_to is not None:
        return stats.vulnerable_to
    if stats.shield is not None and stats.armor in SHIELD_LINE:
        return SHIELDED
    return VULNERABILITY[stats.armor]


def execute_cost(weapon: Weapon, defender: FiftyTwoStats) -> int:
    """Action points to execute one attack, ordinary or critical, with `weapon`.

    fifty-two §5.3: "Attackers using weapons that inflict the 'vulnerable' damage type have
    to pay one less action point to execute an attack (either ordinary or critical)."
    """
    weak = vulnerability(defender)
    return 0 if weak in ("all", weapon.damage_type) else 1


def shield_rating(shield: int | None) -> int:
    """fifty-two §5.3.3: "Shield = score above +1"; no shield adds nothing."""
    return 0 if shield is None else max(0, shield - 1)


def base_rating(stats: FiftyTwoStats) -> int:
    """The armor's rating from the §5.3.3 table plus the shield's score above +1."""
    return ARMOR_RATING[stats.armor] + shield_rating(stats.shield)


def defense_magic(stats: FiftyTwoStats, shield_magic: ShieldMagic = "if-enchanted") -> int:
    """The defender's magical defensive total against the attacker's magic (§5.3.2).

    The seed's Evans example sums Alan's "Full Plate +2 + Shield +1(+1)" as (+2+1+1) = 4:
    the armor's enchantment, the shield's score and the shield's enchantment. A plain
    shield's score is magic only with `shield_magic: "always"` (the seed: "If the armor is
    enchanted"; every shield of its examples is).
    """
    if stats.shield is None:
        return stats.armor_enchantment
    if shield_magic == "if-enchanted" and not stats.shield_enchantment:
        return stats.armor_enchantment
    return stats.armor_enchantment + stats.shield + stats.shield_enchantment


def rating(
    defender: FiftyTwoStats, attacker_enchantment: int, shield_magic: ShieldMagic = "if-enchanted"
) -> int:
    """How many counted hits the attacker needs before one registers.

    fifty-two §5.3.2 The Effects Of Magic: "the amount of magical bonus minus the attacker's
    magical bonus adds to this requirement"; never below zero, never more than the base
    rating + 2. The attacker's magical bonus is its weapon's enchantment.
    """
    base = base_rating(defender)
    adjusted = base + defense_magic(defender, shield_magic) - attacker_enchantment
    # fifty-two §5.3.3: "Ratings cannot drop below zero", nor rise above base + 2.
    return max(0, min(adjusted, base + MAGIC_CAP))


def register_hit(count: int, kind: HitKind, rating: int, mode: HitMode = "reset") -> HitCount:
    """Count one successful attack against the defender's armor (§5.3.3).

    The attack registers, i.e. does damage, when the count with it reaches the rating; the
    count then starts again from 0 ("reset") or keeps what went past the rating ("carry").
    Spells count one and always register; surprise attacks always register and count
    nothing. Against a rating of 0 every attack registers.
    """
    if count < 0 or rating < 0:
        raise ValueError(f"hit counts and ratings are never negative ({count}, {rating})")
    if kind == "surprise":
        return HitCount(True, count)
    total = count + HIT_COUNT[kind]
    if total < rating:
        return HitCount(kind == "spell", total)
    return HitCount(True, 0 if mode == "reset" else total - rating)
