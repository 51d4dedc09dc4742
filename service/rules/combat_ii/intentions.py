"""Turning a command into a declared intention, refused with the seed's words when the
rules forbid it (combat-ii §1 C, §2)."""

from __future__ import annotations

from service.domain.errors import RuleViolation
from service.domain.grid import Cell, on_map, terrain_at
from service.domain.messages import Command
from service.rules.combat_ii import casting, delays
from service.rules.combat_ii.allowance import (
    attacks_left,
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
    engaged_with,
    squares,
    within,
)
from service.rules.combat_ii.commands import (
    Attack,
    Cast,
    Charge,
    CoverArea,
    Move,
    Prepare,
    Release,
    SetWeapon,
    Stand,
    Touch,
)
from service.rules.combat_ii.evolve import fighter
from service.rules.combat_ii.movement import allowance, minimum, occupancy, route
from service.rules.combat_ii.state import (
    CombatIIState,
    CombatIIStats,
    Intention,
    stats_of,
)

ATTACKS = "combat-ii §2 C Physical Attacks"
MOVEMENT = "combat-ii §2 D Movement"
MAX_STEP = 1
"""§2 A, C Repositioning: "a step or two (max. 10')": one square."""


def actor_of(command: Command) -> str | None:
    return getattr(command, "combatant_id", None)


def intention_for(state: CombatIIState, command: Command) -> Intention:
    if not isinstance(command, Move | Charge):
        _momentum(state, actor_of(command))
    match command:
        case Attack():
            return _attack(state, command)
        case Cast():
            intention = Intention(
                kind="cast",
                spell=command.spell,
                targets=(command.target,) if command.target else (),
                at=command.at,
                hold=command.hold,
                step=command.step,
                shift=command.shift,
            )
            _check_step(state, command.combatant_id, command.step)
            _check_step(state, command.combatant_id, command.shift, _shifting(state, command))
            casting.check_cast(state, command.combatant_id, intention)
            return intention
        case Touch():
            return _touch(state, command)
        case Release():
            return _release(state, command)
        case Move():
            return _move(state, command)
        case Charge():
            return _charge(state, command)
        case SetWeapon():
            weapon = _weapon(state, command.combatant_id, command.weapon, ranged=False)
            what = "ambush" if command.ambush else None
            return Intention(kind="set-weapon", weapons=(weapon,), what=what)
        case CoverArea():
            weapon = _weapon(state, command.combatant_id, command.weapon, ranged=True)
            return Intention(kind="cover-area", weapons=(weapon,), cells=tuple(command.cells))
        case Prepare():
            return _prepare(state, command)
        case Stand():
            return Intention(kind="stand")
    raise RuleViolation("command/unknown", f"combat-ii does not know '{command}'")


def _attack(state: CombatIIState, command: Attack) -> Intention:
    cid = command.combatant_id
    combatant = state.table.combatant(cid)
    stats = stats_of(combatant)
    if not can_attack(state, cid):
        raise RuleViolation(
            "attack/cannot", f"{combatant.name} cannot attack this phase", rule=ATTACKS
        )
    _no_attack_with_casting(state, cid)
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
        twice = _system_two_allowance(state, cid, targets, weapons)
        if state.options.split_attack_forms and stats.routine:
            # §3 C Table 7: the entry is the number of forms this phase, not a double attack.
            forms, twice = max(delays.allowed(state, cid), 1), False
        else:
            _alternate(state, cid, stats, weapons, targets)
    twice = twice and not _one_missile_left(state, cid, stats, weapons)
    _check_step(state, cid, command.step)
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


def _system_two_allowance(
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


def _no_attack_with_casting(state: CombatIIState, cid: str) -> None:
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
    if mine.ammunition_left(weapon) == 0:
        raise RuleViolation(
            "attack/no-ammunition",
            f"{state.table.combatant(cid).name} has no {name} ammunition left (each shot "
            "spends one of the stat block's `ammunition`)",
            rule=ATTACKS,
        )


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
    favoured, other = delays.favoured(state, cid)
    if favoured is None or other is None or other not in weapons:
        return
    if delays.rapid_row(state, cid, targets, weapons) is not None:
        return  # both weapons attack at the level's rate: no discrepancy to alternate
    if delays.attack_number(state, cid) % 2 == 1:
        raise RuleViolation(
            "attack/alternate",
            f"this phase '{favoured}' attacks alone: a two-weapon routine alternates between "
            "both weapons and the favoured weapon alone (§3 C)",
            rule="combat-ii §3 C",
        )


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


def _shifting(state: CombatIIState, command: Cast) -> str:
    """§2 A Movement and Spellcasting: only a spell with no somatic component lets its
    caster shift while casting."""
    spell = casting.spell_of(state, command.combatant_id, command.spell)
    if command.shift is not None and spell.somatic:
        raise RuleViolation(
            "cast/somatic-shift",
            f"'{spell.name}' has a somatic component: its caster may not move while casting "
            "(§2 A Movement and Spellcasting); only a step before it begins (`step`, +1 CT)",
            rule="combat-ii §2 A Spellcasting",
        )
    return "shift"


def _check_step(state: CombatIIState, cid: str, step: Cell | None, what: str = "step") -> None:
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


def _weapon(state: CombatIIState, cid: str, name: str | None, ranged: bool) -> str:
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


def _touch(state: CombatIIState, command: Touch) -> Intention:
    mine = fighter(state, command.combatant_id)
    if mine.charged is None:
        raise RuleViolation(
            "touch/no-spell", "there is no completed touch spell to deliver (§2 A Touch Spells)"
        )
    attacker = state.table.combatant(command.combatant_id)
    target = state.table.combatant(command.target)
    if not within(state, attacker, target, 1):
        raise RuleViolation("attack/out-of-reach", f"{target.name} is out of reach")
    natural = [w.name for w in stats_of(attacker).weapons]
    weapons = tuple(mine.in_hand[:1]) or tuple(natural[:1])
    if not weapons:
        raise RuleViolation("touch/no-hand", "the touch needs a weapon or natural attack entry")
    return Intention(kind="touch", targets=(command.target,), weapons=weapons, spell=mine.charged)


def _release(state: CombatIIState, command: Release) -> Intention:
    """§2 A: only a spell whose casting is done and which is being held can be let go early;
    "Losers automatically cast their spells at the end of all movement"."""
    cid = command.combatant_id
    held = fighter(state, cid).casting
    if held is None or held.begun_tick > state.tick or not 0 < held.left <= held.hold:
        raise RuleViolation(
            "release/nothing-held",
            f"{state.table.combatant(cid).name} is not holding a cast spell: a held spell "
            "is released once its casting time has passed (§2 A Holding a Spell)",
            rule="combat-ii §2 A Spellcasting",
        )
    if state.tracks.get(cid) != "winner" and command.timing != "after":
        raise RuleViolation(
            "release/losers-after-movement",
            "initiative losers release their spells at the end of all movement (§2 A "
            "Movement and Spellcasting): timing 'after'",
            rule="combat-ii §2 A Spellcasting",
        )
    targets = (held.target,) if held.target else ()
    return Intention(kind="release", spell=held.spell, targets=targets, timing=command.timing)


def _move(state: CombatIIState, command: Move) -> Intention:
    cid = command.combatant_id
    combatant = state.table.combatant(cid)
    if state.table.map is None or combatant.position is None:
        raise RuleViolation(
            "move/no-position", f"{combatant.name} needs a place on the map to move"
        )
    if not can_move(state, cid) or fighter(state, cid).effect(NO_MOVE):
        raise RuleViolation("move/cannot", f"{combatant.name} cannot move this phase")
    intention = Intention(
        kind="move",
        to=command.to,
        path=tuple(command.path or ()),
        speed=command.speed,
        mode=command.mode,
        stop_short=command.stop_short,
        targets=(command.attack,) if command.attack else (),
        weapons=_move_weapons(state, command),
        what=command.prepare.what if command.prepare else None,
        alongside=command.alongside,
        behind=command.behind,
    )
    _alongside(state, command)
    _behind(state, command)
    _prepare_on_the_move(state, command)
    if command.attack is not None and command.attack != command.alongside:
        _surprised_target(state, cid, command.attack)
    _check_speed(state, cid, command.speed)
    engaged = [e for e in engaged_with(state, combatant) if e.id != command.alongside]
    if command.mode == "normal" and engaged:
        raise RuleViolation(
            "move/engaged",
            f"{combatant.name} is in melee: it may withdraw (a third of its movement) or flee "
            "(full movement, but each foe gets a free attack), not move away normally (§2 D)",
            rule=MOVEMENT,
        )
    cells = route(state, cid, intention)
    if not cells and command.to != combatant.position:
        raise RuleViolation("move/no-path", f"no path for {combatant.name} to {command.to}")
    need = minimum(state, cid, intention) - command.stop_short
    if len(cells) < need:
        raise RuleViolation(
            "move/momentum",
            f"still running, {combatant.name} must cover at least {need} squares this phase "
            "(§2 D Deceleration), or try to stop short with `stop_short` (DEX at -1 per 10 ft)",
            rule=MOVEMENT,
        )
    if allowance(state, cid, intention) == 0:
        raise RuleViolation("move/no-movement", f"{combatant.name} has no movement at this speed")
    return intention


def _move_weapons(state: CombatIIState, command: Move) -> tuple[str, ...]:
    """The weapon of a blow at the end of the move, or of a preparation on the move."""
    cid = command.combatant_id
    if command.attack is not None:
        return default_weapons(state, cid, stats_of(state.table.combatant(cid)))[:1]
    if command.prepare is not None and command.prepare.weapon is not None:
        return (command.prepare.weapon,)
    return ()


def _alongside(state: CombatIIState, command: Move) -> None:
    """§2 D Closing Movement: "An exception to this would be parallel movement coupled with
    simultaneous attacks, such as by two mounted figures engaged while riding in the same
    direction": a normal move beside a foe it is engaged with, and maybe a blow at it."""
    foe_id = command.alongside
    if foe_id is None:
        return
    mover = state.table.combatant(command.combatant_id)
    foe = state.table.combatant(foe_id)
    if command.mode != "normal":
        raise RuleViolation(
            "move/alongside-mode",
            "moving alongside a foe is a normal move, not a withdrawal or a flight (§2 D)",
            rule=MOVEMENT,
        )
    if foe.id not in {e.id for e in engaged_with(state, mover)}:
        raise RuleViolation(
            "move/not-alongside",
            f"{foe.name} is not a foe in melee with {mover.name}: `alongside` is for two foes "
            "engaged while riding or running the same way (§2 D)",
            rule=MOVEMENT,
        )
    if command.attack is not None and command.attack != foe_id:
        raise RuleViolation(
            "move/attack-not-alongside",
            f"moving alongside {foe.name}, {mover.name} may strike only {foe.name} (§2 D)",
            rule=MOVEMENT,
        )
    if command.attack is not None:
        _attack_left(state, mover.id, foe_id)


def _behind(state: CombatIIState, command: Move) -> None:
    """§2 D Fleeing: "If another party member can interpose himself, a combatant may flee
    unmolested"."""
    ally_id = command.behind
    if ally_id is None:
        return
    mover = state.table.combatant(command.combatant_id)
    ally = state.table.combatant(ally_id)
    if command.mode != "flee":
        raise RuleViolation(
            "move/behind-not-fleeing",
            "`behind` names the ally a fleeing combatant escapes behind: give mode 'flee' (§2 D)",
            rule=MOVEMENT,
        )
    if ally.id == mover.id or ally.side != mover.side or ally.out_of_fight:
        raise RuleViolation(
            "move/not-an-ally",
            f"{ally.name} is not an ally of {mover.name} still in the fight, so cannot interpose "
            "itself (§2 D)",
            rule=MOVEMENT,
        )


def _attack_left(state: CombatIIState, cid: str, target_id: str) -> None:
    if attacks_left(state, cid, (target_id,)) <= 0 and not stationary(state, (target_id,)):
        raise RuleViolation("attack/none-left", "no attacks left this round")


def _surprised_target(state: CombatIIState, cid: str, target_id: str) -> None:
    """§2 F: "combatants moving up to a surprised individual may attack at the completion
    of their movement"."""
    target = state.table.combatant(target_id)
    lost = fighter(state, target_id).effect("surprised") is not None or (
        target_id in state.surprised and state.tick == 1
    )
    if not lost:
        raise RuleViolation(
            "move/attack-not-surprised",
            f"only a surprised foe may be attacked at the end of a move; {target.name} is not "
            "surprised this phase (§2 F)",
            rule="combat-ii §2 F Surprise",
        )
    _attack_left(state, cid, target_id)


def _momentum(state: CombatIIState, cid: str | None) -> None:
    """§2 D Deceleration: a runner drops two factors at once; still accelerated after that
    (4x or more), it must keep moving this phase."""
    if cid is None or cid not in state.fighters:
        return
    factor = fighter(state, cid).phase_factor
    if factor - 2 > 1:
        raise RuleViolation(
            "move/momentum",
            f"running at {factor}x MV, {state.table.combatant(cid).name} cannot stop this phase: "
            "move (slowing by up to 2 factors), with `stop_short` to risk a DEX check (§2 D)",
            rule=MOVEMENT,
        )


def _check_speed(state: CombatIIState, cid: str, speed: int | None) -> None:
    """§2 D Acceleration: standstill to walking is automatic, then up to 2 more multiples of
    base MV per phase, to the combatant's top speed (5x at most)."""
    if speed is None:
        return
    current = fighter(state, cid).phase_factor
    stats = stats_of(state.table.combatant(cid))
    top = min(stats.max_speed, 3 if current == 0 else current + 2)
    if speed > top:
        raise RuleViolation(
            "move/too-fast",
            f"from {current}x MV a combatant may reach at most {top}x this phase (§2 D "
            "Acceleration: walking is automatic, then up to 2x base MV more per phase)",
            rule=MOVEMENT,
        )


def _charge(state: CombatIIState, command: Charge) -> Intention:
    cid = command.combatant_id
    combatant = state.table.combatant(cid)
    if not can_attack(state, cid) or not can_move(state, cid):
        raise RuleViolation("charge/cannot", f"{combatant.name} cannot charge this phase")
    _no_attack_with_casting(state, cid)
    target = state.table.combatant(command.target)
    if state.table.map is None or combatant.position is None or target.position is None:
        raise RuleViolation("move/no-position", "a charge needs both combatants on the map")
    _check_speed(state, cid, command.speed)
    speed = command.speed if command.speed is not None else fighter(state, cid).phase_factor
    if speed < 2:
        raise RuleViolation(
            "charge/too-slow",
            "a charge needs at least jogging speed, twice base MV (§2 D Charging): give speed",
            rule=MOVEMENT,
        )
    target_ids = (command.target,)
    spent = attacks_left(state, cid, target_ids) <= 0 and not stationary(state, target_ids)
    if state.options.phase_system == "I" and spent:  # §2 C: the defenceless, each phase
        raise RuleViolation("attack/none-left", f"{combatant.name} has no attacks left")
    if state.options.phase_system == "II":
        _system_two_allowance(state, cid, (command.target,))  # §3 C: a charge's blow waits too
    weapon = _weapon(state, cid, command.weapon, ranged=False)
    if command.backstab and not stats_of(combatant).thief:
        raise RuleViolation("charge/not-thief", "only a thief may make a charging backstab")
    if command.backstab and command.target in fighter(state, cid).noticed_by:
        raise RuleViolation(
            "charge/noticed",
            f"{target.name} has noticed {combatant.name} (they have traded blows): a charging "
            "backstab needs a thief previously unnoticed (§2 D)",
            rule=MOVEMENT,
        )
    return Intention(
        kind="charge",
        targets=(command.target,),
        weapons=(weapon,),
        speed=speed,
        barrel=command.barrel,
        stop_short=command.stop_short,
        backstab=command.backstab,
    )


def _prepare(state: CombatIIState, command: Prepare) -> Intention:
    _check_preparation(state, command.combatant_id, command.what, command.weapon)
    return Intention(
        kind="prepare", what=command.what, weapons=(command.weapon,) if command.weapon else ()
    )


def _check_preparation(state: CombatIIState, cid: str, what: str, weapon: str | None) -> None:
    """§2 E Miscellaneous Preparation: what the preparation needs."""
    stats = stats_of(state.table.combatant(cid))
    if what in ("draw", "restring"):
        if weapon is None or stats.weapon(weapon) is None:
            raise RuleViolation("prepare/weapon", f"name the weapon to {what}")
        if what == "restring" and weapon not in fighter(state, cid).string_broken:
            raise RuleViolation("prepare/not-broken", f"the string of '{weapon}' is fine")
        if what == "restring" and engaged_with(state, state.table.combatant(cid)):
            raise RuleViolation(
                "prepare/engaged",
                "no restringing a bow with an enemy in reach (§2 E: 'Not likely')",
                rule="combat-ii §2 E",
            )
        if what == "draw":
            _within_reach_of_dropped(state, cid, weapon)


def _prepare_on_the_move(state: CombatIIState, command: Move) -> None:
    """§2 E: "Some actions may be performed while moving, at the DM's discretion": those the
    GM allows in `prepare_while_moving`; "By foregoing the attacks", so not with a blow."""
    preparation = command.prepare
    if preparation is None:
        return
    allowed = state.options.prepare_while_moving
    if preparation.what not in allowed:
        permitted = ", ".join(allowed) or "none"
        raise RuleViolation(
            "move/prepare-not-allowed",
            f"the GM allows no '{preparation.what}' on the move (option prepare_while_moving: "
            f"{permitted}; §2 E: 'at the DM's discretion')",
            rule="combat-ii §2 E",
        )
    if command.attack is not None:
        raise RuleViolation(
            "move/prepare-and-attack",
            "a preparation forgoes the phase's attacks (§2 E): no blow at the end of this move",
            rule="combat-ii §2 E",
        )
    _check_preparation(state, command.combatant_id, preparation.what, preparation.weapon)


def _within_reach_of_dropped(state: CombatIIState, cid: str, weapon: str) -> None:
    """§4 Critical Miss: a weapon lying on a known square is picked up standing on it or next
    to it; one dropped without a square (no map or position) the GM places, so it is allowed."""
    lying = fighter(state, cid).dropped_at.get(weapon)
    combatant = state.table.combatant(cid)
    grid, here = state.table.map, combatant.position
    if lying is None or grid is None or here is None or not on_map(grid, lying):
        return
    if squares(state, here, lying) > 1:
        raise RuleViolation(
            "prepare/out-of-reach",
            f"the {weapon} lies at {lying}: {combatant.name} must stand on or next to that "
            "square to pick it up",
            rule="combat-ii §4 Critical Hit and Miss Tables I",
        )
