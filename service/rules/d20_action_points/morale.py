"""Morale in d20-action-points (Check Morale (DC 20 vs Wisdom / Morale)): who must check,
the check itself, and what a broken combatant does, flee or surrender.

The caller supplies the d20s. Readings of the seed (docs/rules/d20-action-points.md):

* "drops below 50%" is the blow that takes hit points from half or more to below half, and
  above zero: a combatant checks once per drop, and one at zero or less is down instead.
* The check holds when d20 + bonus meets or exceeds 20, like every other d20 roll of the
  seed; it knows no natural 20 or natural 1.
* A monster uses its morale bonus; a combatant without one (every player character) its
  WIS bonus.
* Fleeing is immediate and costs no action points; each foe with a ranged weapon readied in
  hand may make one attack at the fleeing combatant, at no cost either.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, NamedTuple

from service.domain.errors import RuleViolation
from service.rules.d20_action_points.attacks import kept_die

MORALE = "d20-action-points Check Morale (DC 20 vs Wisdom / Morale)"

Choice = Literal["flee", "surrender"]

# d20-action-points Check Morale: "DC 20 vs d20 + morale or wisdom bonus".
MORALE_DC = 20
# Check Morale: "Move away from combat at double normal movement speed."
FLIGHT_MULTIPLIER = 2


class MoraleCheck(NamedTuple):
    natural: int
    total: int
    dc: int
    disadvantage: bool
    broken: bool


class Broken(NamedTuple):
    """A broken combatant's choice: how far it flees, who may shoot at it as it goes, and
    whether it throws down its arms."""

    choice: Choice
    feet: int = 0
    parting_shots: tuple[str, ...] = ()
    drops_arms: bool = False


def below_half(hp: int, max_hp: int) -> bool:
    return 2 * hp < max_hp


def must_check(hp_before: int, hp_after: int, max_hp: int) -> bool:
    """d20-action-points Check Morale: "When a creature or player drops below 50% of their
    hit points they must make a morale check"; at zero or less the death check takes over
    (Killing Monsters and Character Death)."""
    return hp_after > 0 and below_half(hp_after, max_hp) and not below_half(hp_before, max_hp)


def morale_bonus(morale: int | None, wisdom: int) -> int:
    return wisdom if morale is None else morale


def check_morale(
    first: int, bonus: int, critical_blow: bool = False, second: int | None = None
) -> MoraleCheck:
    """d20 + morale or WIS bonus against DC 20, or become broken. "If the last attack was
    with a natural 20, then the check is made with Disadvantage": two d20s, the lower kept."""
    natural = kept_die(first, second, "disadvantage" if critical_blow else "normal")
    total = natural + bonus
    return MoraleCheck(natural, total, MORALE_DC, critical_blow, total < MORALE_DC)


def break_off(
    check: MoraleCheck,
    choice: Choice,
    movement_rate: int = 0,
    readied_ranged: Iterable[str] = (),
) -> Broken:
    """d20-action-points Check Morale: "Broken combatants have two options": flee at double
    normal movement speed, open to one attack from each foe in `readied_ranged` ("a ranged
    weapon readied in hand"), or surrender and "throw down their arms"."""
    if not check.broken:
        raise RuleViolation(
            "morale/not-broken",
            f"the morale check held ({check.total} against DC {check.dc}); only a broken "
            "combatant flees or surrenders",
            rule=MORALE,
            details={"total": check.total, "dc": check.dc},
        )
    if choice == "surrender":
        return Broken("surrender", drops_arms=True)
    shooters = tuple(dict.fromkeys(readied_ranged))
    return Broken("flee", FLIGHT_MULTIPLIER * movement_rate, shooters)
