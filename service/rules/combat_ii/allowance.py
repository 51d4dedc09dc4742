"""How many attacks a combatant has left: System I counts each weapon's allowance for the
round (combat-ii §2 C Multiple Attacks, Multi-Part Attack Routine); System II asks the
delay schedule (§3 C)."""

from __future__ import annotations

from service.rules.combat_ii import delays
from service.rules.combat_ii.evolve import fighter
from service.rules.combat_ii.state import CombatIIState, CombatIIStats, attacks_in_round, stats_of


def attacks_left(state: CombatIIState, cid: str) -> int:
    if state.options.phase_system == "II":
        return delays.allowed(state, cid)
    stats = stats_of(state.table.combatant(cid))
    weapons = default_weapons(state, cid, stats)
    if not weapons:
        return 0
    return max(left_with(state, cid, stats, w) for w in weapons)


def left_with(state: CombatIIState, cid: str, stats: CombatIIStats, name: str) -> int:
    """Attacks left this round with one weapon: its own rate, else the stat block's."""
    weapon = stats.weapon(name)
    rate = weapon.attacks if weapon is not None and weapon.attacks else stats.attacks
    return attacks_in_round(rate, max(state.round, 1)) - fighter(state, cid).used.get(name, 0)


def default_weapons(state: CombatIIState, cid: str, stats: CombatIIStats) -> tuple[str, ...]:
    """The routine an attack uses when the command names none: the stat block's routine,
    else the weapons in hand, else the first natural attack."""
    if stats.routine:
        return stats.routine
    held = tuple(w for w in fighter(state, cid).in_hand if stats.weapon(w) is not None)
    if held:
        return held
    return tuple(w.name for w in stats.weapons if w.kind == "natural")[:1]
