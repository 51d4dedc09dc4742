"""Declaring an attack (combat-ii §2 C Physical Attacks, §3 C): the weapons in hand, the
targets in reach, the allowance of the round or the delay schedule, two-weapon and
multi-part routines, and the repositioning step, refused with the seed's words when the
rules forbid them."""

from __future__ import annotations

from service.domain.errors import RuleViolation
from service.domain.grid import Cell, on_map, terrain_at
from service.rules.combat_ii import delays
from service.rules.combat_ii.allowance import (
    check_ammunition,
    default_weapons,
    left_with,
    routines_in_round,
    stationary,
)
from service.rules.combat_ii.combatants import (
    NO_MOVE,
    can_attack,
    can_move,
    casting_bars_attack,
    squares,
    within,
)
from service.rules.combat_ii.commands import (
    Attack,
)
from service.rules.combat_ii.declared_moves import MOVEMENT
from service.rules.combat_ii.evolve import fighter
from service.rules.combat_ii.paths import occupancy
from service.rules.combat_ii.state import CombatIIState, Intention
from service.rules.combat_ii.stats import CombatIIStats, stats_of

ATTACKS = "combat-ii §2 C Physical Attacks"


MAX_STEP = 1
"""§2 A, C Repositioning: "a step or two (max. 10')": one square."""


def attack(state: CombatIIState, command: Attack) -> Intention:
    cid = command.combatant_id
    combatant = state.table.combatant(cid)
    stats = stats_of(combatant)
    if not can_attack(state, cid):
        raise RuleViolation(
            "attack/cannot", f"{combatant.name} cannot attack this phase", rule=ATTACKS
        )
    no_attack_with_casting(state, cid)
    if command.draw is not None:
        if stats.weapon(command.draw) is None:
            raise RuleViolation("attack/unknown-weapon", f"no weapon '{command.draw}'")
        weapons: tuple[str, ...] = (command.draw,)
    else:
        weapons = tuple(command.weapons) or default_weapons(state, cid, stats)
    if not weapons:
        raise RuleViolation(
            "attack/no-weapon", f"{combatant.name} has no weapon in hand", rule=ATTACKS
        )
    for name in weapons:
        _usable(state, cid, stats, name, drawing=name == command.draw)
    targets = tuple(command.targets)
    if state.options.phase_system == "I":
        weapons = _system_one_allowance(state, command, stats, weapons, targets)
    if len(targets) not in (1, len(weapons)):
        raise RuleViolation(
            "attack/targets",
            f"name one target for the routine or one for each of its {len(weapons)} parts "
            "(§2 C Multi-Part Attack Routine: targets are declared in advance)",
            rule=ATTACKS,
        )
    twice = command.twice
    forms: int | None = None
    if state.options.phase_system == "II":
        twice = system_two_allowance(state, cid, targets, weapons)
        if state.options.split_attack_forms and stats.routine:
            # §3 C Table 7: the entry is the number of forms this phase, not a double attack.
            forms, twice = max(delays.allowed(state, cid), 1), False
        else:
            _alternate(state, cid, stats, weapons, targets)
    twice = twice and not _one_missile_left(state, cid, stats, weapons)
    check_step(state, cid, command.step)
    _check_targets(state, cid, targets, weapons, command.step)
    if state.options.split_attack_forms:
        _check_forms(stats, weapons, forms)
    return Intention(
        kind="attack",
        targets=targets,
        weapons=weapons,
        fallback=command.fallback,
        twice=twice,
        step=command.step,
        draw=command.draw,
    )


def _system_one_allowance(
    state: CombatIIState,
    command: Attack,
    stats: CombatIIStats,
    weapons: tuple[str, ...],
    targets: tuple[str, ...],
) -> tuple[str, ...]:
    """§2 C Multiple Attacks: the parts of the routine with an attack left this round (a
    warrior's level of them against creatures below 1 HD, `allowance.rapid`), one routine a
    phase, and a double attack only with more routines a round than phases. A stationary,
    defenceless target "may be attacked each phase": the whole routine strikes it, attacks
    left or not (§2 C Stationary, Defenseless Target)."""
    cid = command.combatant_id
    name = state.table.combatant(cid).name
    mine = fighter(state, cid)
    free = mine.effect("free-attack") is not None
    _paired(state, cid, stats, weapons, bool(command.weapons), targets)
    if not stationary(state, targets):
        weapons = tuple(w for w in weapons if left_with(state, cid, stats, w, targets) > 0 or free)
    if not weapons:
        raise RuleViolation(
            "attack/none-left",
            f"{name} has made all its attacks this round (only a stationary, defenceless "
            "target may still be attacked, §2 C)",
            rule=ATTACKS,
        )
    if mine.attacked_tick == state.tick:
        raise RuleViolation("attack/one-per-phase", "one attack routine per phase (§1 C)")
    if command.twice and min(left_with(state, cid, stats, w, targets) for w in weapons) < 2:
        raise RuleViolation(
            "attack/no-double",
            "a double attack needs two attacks left this round and more than 3 a round "
            "(§2 C Multiple Attacks)",
            rule=ATTACKS,
        )
    if command.twice and routines_in_round(state, stats, weapons, targets) <= 3:
        raise RuleViolation(
            "attack/no-double",
            "only a combatant with more attacks a round than phases to make them in "
            "(more than 3) may attack twice in a phase (§2 C Multiple Attacks)",
            rule=ATTACKS,
        )
    return weapons


def _paired(
    state: CombatIIState,
    cid: str,
    stats: CombatIIStats,
    weapons: tuple[str, ...],
    named: bool,
    targets: tuple[str, ...],
) -> None:
    """§2 C: two weapons attack "only in paired fashion (one part of the routine may not be
    'saved' until later)": naming one while the other still has an attack is refused."""
    held = [
        w
        for w in fighter(state, cid).in_hand
        if (weapon := stats.weapon(w)) is not None
        and weapon.kind != "missile"
        and left_with(state, cid, stats, w, targets) > 0
    ]
    saved = [w for w in held if w not in weapons]
    if named and len(held) > 1 and saved:
        raise RuleViolation(
            "attack/paired",
            f"two weapons attack together while both have attacks left: '{saved[0]}' may not "
            "be saved for later (§2 C Multi-Part Attack Routine)",
            rule=ATTACKS,
        )


def system_two_allowance(
    state: CombatIIState, cid: str, targets: tuple[str, ...], weapons: tuple[str, ...] = ()
) -> bool:
    """§3 C Table 6: no attack in a delay (but at a stationary, defenceless target, §2 C); a
    double attack where the row says 2, the rapid row against creatures below 1 HD included
    (`delays.rapid_row`). A charge names no `weapons`: its blow is a melee one."""
    allowed = delays.allowed(state, cid, targets, weapons)
    if allowed == 0 and not stationary(state, targets):
        mine = fighter(state, cid)
        raise RuleViolation(
            "attack/delay",
            f"{state.table.combatant(cid).name} is between attacks until phase tick "
            f"{mine.rest_until + 1} (§3 C Table 6)",
            rule="combat-ii §3 C",
        )
    return allowed >= 2


def no_attack_with_casting(state: CombatIIState, cid: str) -> None:
    if casting_bars_attack(state, cid):
        raise RuleViolation(
            "attack/casting-this-round",
            "a caster cannot attack in a round in which it casts, except the touch of a "
            "touch spell (§2 A)",
            rule="combat-ii §2 A Spellcasting",
        )


def _usable(state: CombatIIState, cid: str, stats: CombatIIStats, name: str, drawing: bool) -> None:
    weapon = stats.weapon(name)
    mine = fighter(state, cid)
    if weapon is None:
        names = ", ".join(w.name for w in stats.weapons) or "none"
        raise RuleViolation("attack/unknown-weapon", f"no weapon '{name}' (has: {names})")
    if weapon.kind != "natural" and name not in mine.in_hand and not drawing:
        raise RuleViolation(
            "attack/not-in-hand",
            f"'{name}' is not in hand: draw it with `prepare` (a phase) or attack with "
            "`draw` (+3 SF, §2 E)",
            rule="combat-ii §2 E",
        )
    if name in mine.string_broken:
        raise RuleViolation(
            "attack/string-broken", f"the string of '{name}' is broken: restring it (§2 E)"
        )
    check_ammunition(state, cid, weapon, ATTACKS)


def _one_missile_left(
    state: CombatIIState, cid: str, stats: CombatIIStats, weapons: tuple[str, ...]
) -> bool:
    """A weapon of the routine counts its missiles and has one left: one shot, not two."""
    mine = fighter(state, cid)
    return any(
        weapon is not None and mine.ammunition_left(weapon) == 1
        for weapon in map(stats.weapon, weapons)
    )


def _check_targets(
    state: CombatIIState,
    cid: str,
    targets: tuple[str, ...],
    weapons: tuple[str, ...],
    step: Cell | None,
) -> None:
    attacker = state.table.combatant(cid)
    stats = stats_of(attacker)
    for i, target_id in enumerate(targets):
        target = state.table.combatant(target_id)
        if target.out_of_fight:
            raise RuleViolation("attack/target-down", f"{target.name} is already down")
        if target_id == cid:
            raise RuleViolation("attack/self", "a combatant cannot attack itself")
        weapon = stats.weapon(weapons[i] if len(targets) > 1 else weapons[0])
        if weapon is None:
            continue
        if weapon.kind == "missile":
            # PH: missile ranges: no shot beyond long range (from the square stepped into).
            origin = step or attacker.position
            if weapon.range is None or origin is None or target.position is None:
                continue
            apart = squares(state, origin, target.position)
            if not weapon.in_range(apart):
                raise RuleViolation(
                    "attack/out-of-range",
                    f"{target.name} is {apart} squares away, beyond the long range of "
                    f"'{weapon.name}' ({weapon.range[2]} squares)",
                    rule=ATTACKS,
                )
            continue
        if step is not None and target.position is not None:
            reachable = squares(state, step, target.position) <= weapon.reach
        else:
            reachable = within(state, attacker, target, weapon.reach)
        if not reachable:
            raise RuleViolation(
                "attack/out-of-reach",
                f"{target.name} is out of striking distance: close in first (a move this "
                "phase, an attack the next), or charge",
                rule=ATTACKS,
            )


def _alternate(
    state: CombatIIState,
    cid: str,
    stats: CombatIIStats,
    weapons: tuple[str, ...],
    targets: tuple[str, ...],
) -> None:
    """§3 C: "In the event of a discrepancy in number of attacks for two weapon routines, use
    the schedule of the FAVORED weapon, alternating between two weapon and single weapon
    attacks": the favoured weapon (the one with more attacks a round) strikes alone in every
    second attack phase of the sequence."""
    favoured = favoured_alone(state, cid, weapons, targets)
    if favoured is not None:
        raise RuleViolation(
            "attack/alternate",
            f"this phase '{favoured}' attacks alone: a two-weapon routine alternates between "
            "both weapons and the favoured weapon alone (§3 C)",
            rule="combat-ii §3 C",
        )


def favoured_alone(
    state: CombatIIState, cid: str, weapons: tuple[str, ...], targets: tuple[str, ...]
) -> str | None:
    """§3 C: the favoured weapon when this is the phase it strikes alone and `weapons` would
    bring the other one too; None when the routine may go as it is."""
    favoured, other = delays.favoured(state, cid)
    if favoured is None or other is None or other not in weapons:
        return None
    if delays.rapid_row(state, cid, targets, weapons) is not None:
        return None  # both weapons attack at the level's rate: no discrepancy to alternate
    return favoured if delays.attack_number(state, cid) % 2 == 1 else None


def _check_forms(stats: CombatIIStats, weapons: tuple[str, ...], limit: int | None = None) -> None:
    """§2 C option: one attack form per phase, or two when a creature has more than three;
    in System II, as many as Table 7's entry for the phase (`limit`)."""
    forms_of = {w.name: w.form or w.name for w in stats.weapons}
    used = {forms_of.get(w, w) for w in weapons}
    every = {forms_of.get(w, w) for w in (stats.routine or weapons)}
    if limit is None:
        limit = 2 if len(every) > 3 else 1
    if len(used) > limit:
        raise RuleViolation(
            "attack/forms",
            f"only {limit} attack form{'s' * (limit > 1)} per phase with separate forms "
            "(§2 C option)",
            rule=ATTACKS,
        )


def check_step(state: CombatIIState, cid: str, step: Cell | None, what: str = "step") -> None:
    combatant = state.table.combatant(cid)
    if step is None:
        return
    if combatant.position is None or state.table.map is None:
        raise RuleViolation("move/no-position", f"{combatant.name} is not on the map")
    if not on_map(state.table.map, step):
        raise RuleViolation("map/off-map", f"cell ({step.x}, {step.y}) is not on the map")
    if not can_move(state, cid) or fighter(state, cid).effect(NO_MOVE):
        raise RuleViolation("move/cannot", f"{combatant.name} cannot move this phase")
    if squares(state, combatant.position, step) > MAX_STEP or step == combatant.position:
        raise RuleViolation(
            "move/step-too-far",
            f"a {what} is at most 10 ft: a square next to {combatant.name}'s square",
            rule="combat-ii §2 A Spellcasting, §2 C Physical Attacks",
        )
    if terrain_at(state.table.map, step).kind == "impassable" or step in occupancy(state, cid):
        raise RuleViolation(
            "move/step-blocked",
            f"{combatant.name} cannot {what} into ({step.x}, {step.y}): it is taken or impassable",
            rule="combat-ii §2 A Spellcasting, §2 C Physical Attacks",
        )


def weapon_for(state: CombatIIState, cid: str, name: str | None, ranged: bool) -> str:
    stats = stats_of(state.table.combatant(cid))
    mine = fighter(state, cid)
    if name is None:
        candidates = [w for w in mine.in_hand if stats.weapon(w) is not None]
        candidates += [w.name for w in stats.weapons if w.kind == "natural"]
        name = candidates[0] if candidates else None
    weapon = stats.weapon(name) if name is not None else None
    if weapon is None:
        raise RuleViolation("attack/no-weapon", "name a weapon the combatant has")
    if ranged and weapon.kind != "missile":
        raise RuleViolation(
            "cover/not-missile", "an area is covered with a missile weapon (§2 D)", rule=MOVEMENT
        )
    _usable(state, cid, stats, weapon.name, drawing=False)
    return weapon.name
