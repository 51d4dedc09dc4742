"""How many attacks a combatant has left: System I counts each weapon's allowance for the
round (combat-ii §2 C Multiple Attacks, Multi-Part Attack Routine), a warrior's level of
them against creatures below 1 HD; System II asks the delay schedule (§3 C). And who is a
stationary, defenceless target, which "may be attacked each phase" (§2 C)."""

from __future__ import annotations

from service.domain.errors import RuleViolation
from service.rules.combat_ii import delays
from service.rules.combat_ii.combatants import (
    ASLEEP,
    DEFENCELESS,
    HELD,
    can_attack,
    casting_bars_attack,
    casting_somatic,
    still_casting,
)
from service.rules.combat_ii.delays import in_melee, rapid
from service.rules.combat_ii.evolve import fighter
from service.rules.combat_ii.state import CombatIIState
from service.rules.combat_ii.stats import CombatIIStats, Weapon, attacks_in_round, stats_of

STATIONARY = (DEFENCELESS, HELD, ASLEEP)
"""Effects that make a stationary, defenceless target (§2 C; held and asleep: PH)."""


def attacks_left(state: CombatIIState, cid: str, targets: tuple[str, ...] = ()) -> int:
    """Attacks left with the default routine against `targets` (none: the normal rate)."""
    if state.options.phase_system == "II":
        return delays.allowed(state, cid, targets)
    stats = stats_of(state.table.combatant(cid))
    weapons = default_weapons(state, cid, stats)
    if not weapons:
        return 0
    return max(left_with(state, cid, stats, w, targets) for w in weapons)


def left_with(
    state: CombatIIState,
    cid: str,
    stats: CombatIIStats,
    name: str,
    targets: tuple[str, ...] | None = None,
) -> int:
    """Attacks left this round with one weapon against `targets` (None: the targets of the
    attack it declared this phase): its allowance less every attack it made this round."""
    if targets is None:
        declared = state.intentions.get(cid)
        targets = declared.targets if declared is not None else ()
    return allowed_with(state, stats, name, targets) - fighter(state, cid).used.get(name, 0)


def allowed_with(
    state: CombatIIState, stats: CombatIIStats, name: str, targets: tuple[str, ...]
) -> int:
    """A weapon's attacks this round: its own rate, else the stat block's, alternating as
    2nd edition does (`attacks_in_round`); a warrior's level when that is more and the
    weapon strikes in melee at creatures below 1 HD only (`rapid`)."""
    weapon = stats.weapon(name)
    rate = weapon.attacks if weapon is not None and weapon.attacks else stats.attacks
    allowed = attacks_in_round(rate, max(state.round, 1))
    if in_melee(stats, name) and rapid(state, stats, targets):
        return max(allowed, stats.level)
    return allowed


def routines_in_round(
    state: CombatIIState, stats: CombatIIStats, weapons: tuple[str, ...], targets: tuple[str, ...]
) -> int:
    """Attack routines this round, which decide a double attack (§2 C: more than the phases
    to make them in): the stat block's rate, or a warrior's level in melee with creatures
    below 1 HD ("Fighters gain such a rapid attacking capability")."""
    normal = attacks_in_round(stats.attacks, max(state.round, 1))
    if all(in_melee(stats, w) for w in weapons) and rapid(state, stats, targets):
        return max(normal, stats.level)
    return normal


def stationary(state: CombatIIState, targets: tuple[str, ...]) -> bool:
    """§2 C: every target is a stationary, defenceless target, which "may be attacked each
    phase": `defenceless` (or held, asleep), or a spellcaster "invoking magicks requiring
    somatic components" (the +4 AC of `combatants.armor_class`), or one that declared such
    a spell this phase (its casting begins as the phase does, §1 D)."""
    return bool(targets) and all(_defenceless(state, t) for t in targets)


def _defenceless(state: CombatIIState, tid: str) -> bool:
    if tid not in state.table.combatants:
        return False
    mine = fighter(state, tid)
    if any(mine.effect(name) for name in STATIONARY) or casting_somatic(state, tid):
        return True
    declared = state.intentions.get(tid)
    if declared is None or declared.kind != "cast" or declared.spell is None:
        return False
    spell = stats_of(state.table.combatant(tid)).spell(declared.spell)
    return spell is not None and spell.somatic


def default_weapons(state: CombatIIState, cid: str, stats: CombatIIStats) -> tuple[str, ...]:
    """The routine an attack uses when the command names none: the stat block's routine,
    else the weapons in hand, else the first natural attack."""
    if stats.routine:
        return stats.routine
    held = tuple(w for w in fighter(state, cid).in_hand if stats.weapon(w) is not None)
    if held:
        return held
    return tuple(w.name for w in stats.weapons if w.kind == "natural")[:1]


def check_ammunition(state: CombatIIState, cid: str, weapon: Weapon, rule: str) -> None:
    """Optional ammunition: a missile weapon that counts its missiles and has none left
    makes no shot (`attack/no-ammunition`)."""
    if fighter(state, cid).ammunition_left(weapon) == 0:
        raise RuleViolation(
            "attack/no-ammunition",
            f"{state.table.combatant(cid).name} has no {weapon.name} ammunition left (each "
            "shot spends one of the stat block's `ammunition`)",
            rule=rule,
        )


def may_respond(state: CombatIIState, cid: str) -> bool:
    """§2 D: "A defender may not respond if it has already attacked within the phase or met
    its maximum number of attacks per round"."""
    combatant = state.table.combatants.get(cid)
    if combatant is None or combatant.out_of_fight or not can_attack(state, cid):
        return False
    if still_casting(state, cid) or casting_bars_attack(state, cid):
        return False  # §2 A, §2 C: no swing at an incantation, nor in a round of casting
    if fighter(state, cid).attacked_tick == state.tick:
        return False
    return attacks_left(state, cid) > 0
