"""Spell casting in d20-action-points (Casting Spells, Declaring Actions): the casting check
against DC 10 + the spell's level, the mana pool, and the spell an injury interrupts.

The caller supplies the d20. Readings of the seed (docs/rules/d20-action-points.md):

* "spell cost/level": a spell's mana cost is its level unless the spell names another cost;
  the DC always adds the level.
* The casting modifier is the casting ability's bonus (WIS or INT) plus a focus bonus the
  stat block carries; the seed's third-level wizard has a focus of +2.
* The casting check knows no natural 20 or natural 1: "meet or exceed" is all there is.
* An interrupted spell takes its mana, as much as is left.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from service.domain.errors import RuleViolation

CASTING = "d20-action-points Casting Spells"
DECLARING = "d20-action-points Declaring Actions"

Outcome = Literal["cast", "failed", "interrupted"]

# d20-action-points Casting Spells: "vs a DC 10 + spell cost/level".
BASE_DC = 10
D20 = 20


class Spell(NamedTuple):
    name: str
    level: int
    mana: int | None = None

    @property
    def cost(self) -> int:
        return self.level if self.mana is None else self.mana


class ManaPool(NamedTuple):
    current: int
    maximum: int


class Casting(NamedTuple):
    """What became of a declared spell, and the caster's mana after it."""

    spell: str
    outcome: Outcome
    pool: ManaPool
    natural: int | None = None
    total: int | None = None
    dc: int | None = None


def casting_modifier(ability: int, focus: int) -> int:
    """d20-action-points Casting Spells: "their casting modifier (WIS/INT + Focus)"."""
    return ability + focus


def casting_dc(spell: Spell) -> int:
    if spell.level < 0 or spell.cost < 0:
        raise ValueError(f"{spell.name}: levels and mana costs are never negative")
    return BASE_DC + spell.level


def spend_mana(pool: ManaPool, spell: Spell) -> ManaPool:
    """The pool after paying for `spell`; refused when it holds too little."""
    if spell.cost > pool.current:
        raise RuleViolation(
            "mana/not-enough",
            f"{spell.name} costs {spell.cost} mana; only {pool.current} is left",
            rule=CASTING,
            details={"spell": spell.name, "cost": spell.cost, "mana": pool.current},
        )
    return pool._replace(current=pool.current - spell.cost)


def declare(pool: ManaPool, spell: Spell) -> Spell:
    """A spell declared at the start of the round (Declaring Actions), if it can be paid."""
    casting_dc(spell)
    spend_mana(pool, spell)
    return spell


def cast(natural: int, modifier: int, spell: Spell, pool: ManaPool) -> Casting:
    """d20-action-points Casting Spells: d20 + casting modifier against DC 10 + the level.
    "If the roll does not meet or exceed the required number, then the mana is used, and the
    spell fails": the mana is spent either way."""
    if not 1 <= natural <= D20:
        raise ValueError(f"a d20 shows 1 to 20, not {natural}")
    dc = casting_dc(spell)
    after = spend_mana(pool, spell)
    total = natural + modifier
    outcome: Outcome = "cast" if total >= dc else "failed"
    return Casting(spell.name, outcome, after, natural, total, dc)


def interrupted(damage_taken: int, turn_taken: bool) -> bool:
    """d20-action-points Casting Spells: "injured BEFORE their turn in initiative"; Declaring
    Actions: "Spell casters cannot complete spells if they take damage"."""
    return damage_taken > 0 and not turn_taken


def interrupt(spell: Spell, pool: ManaPool) -> Casting:
    """The declared spell is not cast "and mana is deducted from their mana pool"."""
    casting_dc(spell)
    after = pool._replace(current=max(0, pool.current - spell.cost))
    return Casting(spell.name, "interrupted", after)
