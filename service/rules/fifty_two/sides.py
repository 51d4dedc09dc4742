"""Allies and Enemies (fifty-two §0): who is on which side, and who may attack whom.

A combatant whose `side` is "allies" is an Ally; every other side is an Enemy faction.
An Enemy attacks the Allies unless it has chosen another Enemy faction as its foe this
turn, when it acts "as an Ally" for the card actions.
"""

from __future__ import annotations

from typing import Literal

from service.domain.table import Combatant, Table
from service.rules.fifty_two.state import ALLIES, FiftyTwoStats

SideName = Literal["allies", "enemies"]


# What a damage roll's purpose starts with: hidden from a viewer who may not see the
# target's health (`hide_enemy_health`), with the damage in the attack's event.
DAMAGE_ROLL = "damage"


def damage_purpose(what: str, attacker: Combatant, target: Combatant) -> str:
    """The purpose of a damage roll: "damage (critical): Alphonse on Eckhart"."""
    return f"{DAMAGE_ROLL} ({what}): {attacker.name} on {target.name}"


def side_of(combatant: Combatant) -> SideName:
    return "allies" if combatant.side == ALLIES else "enemies"


def stats_of(combatant: Combatant) -> FiftyTwoStats:
    return FiftyTwoStats.model_validate(combatant.stats)


def standing(table: Table, side: SideName | None = None) -> list[Combatant]:
    return [
        c
        for c in table.combatants.values()
        if not c.out_of_fight and (side is None or side_of(c) == side)
    ]


def opposes(attacker: Combatant, target: Combatant, foe: str = ALLIES) -> bool:
    """Whether `attacker` may attack `target` this turn: Allies attack any Enemy; an Enemy
    attacks the Allies, or the faction it chose as its foe (§0)."""
    if side_of(attacker) == "allies":
        return side_of(target) == "enemies"
    return target.side == foe and target.side != attacker.side


def as_ally(attacker: Combatant, foe: str = ALLIES) -> bool:
    """§0, §5.2: Allies, and Enemies attacking another Enemy faction, remove cards."""
    return side_of(attacker) == "allies" or foe != ALLIES
