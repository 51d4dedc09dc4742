"""Attacks in d20-action-points: the d20 against Armor Class (Melee Attack, Ranged Attacks),
range bands and thrown objects, damage and the natural 20 (Resolving Damage), advantage and
disadvantage, and the optional Environment Modifiers as data.

The caller supplies every die. Readings of the seed (docs/rules/d20-action-points.md):

* A natural 20 always hits and a natural 1 always misses (a "Critical Hit" does double
  damage, so it hits; a "Critical Fail" fails); what else a natural 1 does is the GM's.
* Advantage and disadvantage together cancel; the kept die is the natural one.
* A range band ends at its number: 80 feet is within a crossbow's 80, 320 within its 320.
* Cover counts against every attack; 0% is no cover, 50% is half cover (+2), 51-99% +4.
* Darkness, for which the seed gives no number, is fog's -2 for attackers without
  darkvision and advantage for those with it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, NamedTuple

from service.domain.errors import RuleViolation

MELEE = "d20-action-points Melee Attack"
RANGED = "d20-action-points Ranged Attacks"
DAMAGE = "d20-action-points Resolving Damage"
ENVIRONMENT = "d20-action-points Environment Modifiers (optional)"

Edge = Literal["normal", "advantage", "disadvantage"]
Reach = Literal["melee", "ranged"]

D20 = 20
NATURAL_20 = 20
NATURAL_1 = 1
# d20-action-points Resolving Damage: "roll for damage once, add all bonuses, then double".
CRITICAL_MULTIPLIER = 2
# d20-action-points Ranged Attacks: "Penalties are -2 for each additional short distance."
BAND_PENALTY = -2
# d20-action-points Ranged Attacks: thrown items "go about 20 feet plus your strength bonus
# (in feet), minus 1 foot per pound and do 1 damage per pound".
THROW_FEET = 20
DAMAGE_PER_POUND = 1
FULL_COVER = 100
HALF = 50


class AttackRoll(NamedTuple):
    natural: int
    total: int
    ac: int
    hit: bool
    critical_hit: bool
    critical_fail: bool


class Circumstance(NamedTuple):
    """One environment modifier: to the defender's AC, to the attacker's roll (against
    `versus` attacks only, or all when None), to movement in feet, and an edge."""

    name: str
    ac: int = 0
    attack: int = 0
    versus: Reach | None = None
    movement_feet: int = 0
    edge: Edge = "normal"


# d20-action-points Environment Modifiers 1: "Dropping to prown gives characters a +4 Armor
# Class vs ranged attacks".
PRONE = Circumstance("prone", ac=4, versus="ranged")
# Environment Modifiers 5: "0 - 50% cover they gain a +2 ..., 50-99% covered, then add +4".
HALF_COVER = Circumstance("half cover", ac=2)
MOSTLY_COVERED = Circumstance("more than half cover", ac=4)
# Examples of Environmental Modifiers: "the thick fog ... imposing a -2 penalty".
FOG = Circumstance("fog", attack=-2)
# Environment Modifiers 3: darkness "can give attackers with darkvision an advantage".
DARKNESS = Circumstance("darkness", attack=-2)
DARKVISION = Circumstance("darkness, seen with darkvision", edge="advantage")
# Examples of Environmental Modifiers: "The muddy swamp slows your movement, costing you 10
# feet of your normal movement speed."
MUD = Circumstance("mud", movement_feet=10)
DENSE_FOLIAGE = Circumstance("dense foliage", movement_feet=10)


def _d20(value: int) -> int:
    if not 1 <= value <= D20:
        raise ValueError(f"a d20 shows 1 to 20, not {value}")
    return value


def net_edge(advantage: bool, disadvantage: bool) -> Edge:
    """Advantage and disadvantage at once cancel out."""
    if advantage == disadvantage:
        return "normal"
    return "advantage" if advantage else "disadvantage"


def kept_die(first: int, second: int | None = None, edge: Edge = "normal") -> int:
    """The natural d20 that counts: 2d20 keep the highest with advantage, the lowest with
    disadvantage; `second` is only needed, and only read, with an edge."""
    _d20(first)
    if edge == "normal":
        return first
    if second is None:
        raise ValueError(f"{edge} rolls two d20s; only one was given")
    pick = max if edge == "advantage" else min
    return pick(first, _d20(second))


def attack(natural: int, modifier: int, ac: int) -> AttackRoll:
    """d20-action-points Melee Attack and Ranged Attacks: "A tie or greater than an Armor
    Class is a hit". `modifier` sums ability, weapon, range and environment."""
    total = _d20(natural) + modifier
    critical_hit, critical_fail = natural == NATURAL_20, natural == NATURAL_1
    hit = critical_hit or (not critical_fail and total >= ac)
    return AttackRoll(natural, total, ac, hit, critical_hit, critical_fail)


def damage_bonus(reach: Reach, strength: int, other: int) -> int:
    """Bonuses to damage: STR and the rest (a magical sword, ...) in melee; "Ranged weapons
    do no benefit from strength or dexterity bonuses"."""
    return other + (strength if reach == "melee" else 0)


def damage(rolled: int, bonus: int, critical_hit: bool = False) -> int:
    """d20-action-points Resolving Damage: the dice rolled once plus the bonuses, doubled on
    a natural 20. Never below 0."""
    total = rolled + bonus
    return max(0, total * CRITICAL_MULTIPLIER if critical_hit else total)


def range_penalty(feet: int, short: int, long: int) -> int:
    """d20-action-points Ranged Attacks: nothing within the first number, -2 for each further
    band as long as the first, and no attack beyond the second."""
    if feet < 0 or short <= 0 or long < short:
        raise ValueError(f"not a range: {feet} feet with a range of {short}/{long}")
    if feet > long:
        raise RuleViolation(
            "attack/out-of-range",
            f"the target is {feet} feet away; this weapon reaches {long} feet at most",
            rule=RANGED,
            details={"feet": feet, "short": short, "long": long},
        )
    bands = -(-max(0, feet - short) // short)
    return BAND_PENALTY * bands


def throw_range(strength: int, pounds: int) -> int:
    """How far an object of `pounds` can be thrown: 20 feet + STR bonus - 1 foot a pound."""
    if pounds < 1:
        raise ValueError(f"a thrown object weighs a pound or more, not {pounds}")
    return max(0, THROW_FEET + strength - pounds)


def throw_penalty(feet: int, strength: int, pounds: int) -> int:
    """No penalty within the throw's range, and no throw beyond it."""
    reach = throw_range(strength, pounds)
    if feet > reach:
        raise RuleViolation(
            "attack/out-of-range",
            f"the target is {feet} feet away; a {pounds} lb object thrown with STR "
            f"{strength:+d} goes {reach} feet",
            rule=RANGED,
            details={"feet": feet, "pounds": pounds, "strength": strength, "range": reach},
        )
    return 0


def thrown_damage(pounds: int) -> int:
    return DAMAGE_PER_POUND * pounds


def cover(percent: int) -> Circumstance | None:
    """The cover a body `percent` hidden gets; none at 0, and no attack at 100."""
    if not 0 <= percent <= FULL_COVER:
        raise ValueError(f"cover is 0 to 100 percent, not {percent}")
    if percent == FULL_COVER:
        raise RuleViolation(
            "attack/full-cover",
            "the target is completely behind cover and cannot be attacked",
            rule=ENVIRONMENT,
            details={"percent": percent},
        )
    if percent == 0:
        return None
    return HALF_COVER if percent <= HALF else MOSTLY_COVERED


def darkness(darkvision: bool) -> Circumstance:
    return DARKVISION if darkvision else DARKNESS


def _applies(circumstance: Circumstance, reach: Reach) -> bool:
    return circumstance.versus in (None, reach)


def armor_class(base: int, reach: Reach, around_defender: Iterable[Circumstance]) -> int:
    return base + sum(c.ac for c in around_defender if _applies(c, reach))


def attack_modifier(reach: Reach, around_attacker: Iterable[Circumstance]) -> int:
    return sum(c.attack for c in around_attacker if _applies(c, reach))


def attack_edge(around_attacker: Iterable[Circumstance]) -> Edge:
    edges = {c.edge for c in around_attacker}
    return net_edge("advantage" in edges, "disadvantage" in edges)


def movement_rate(speed: int, terrain: Iterable[Circumstance]) -> int:
    """The current movement rate on `terrain`: each difficult terrain costs its feet."""
    return max(0, speed - sum(c.movement_feet for c in terrain))
