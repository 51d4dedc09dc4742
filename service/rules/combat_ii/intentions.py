"""Turning a command into a declared intention, refused with the seed's words when the
rules forbid it (combat-ii §1 C, §2)."""

from __future__ import annotations

from service.domain.errors import RuleViolation
from service.domain.messages import Command
from service.rules.combat_ii import casting
from service.rules.combat_ii.allowance import (
    attacks_left,
    stationary,
)
from service.rules.combat_ii.combatants import (
    can_attack,
    can_move,
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
from service.rules.combat_ii.declared_attacks import (
    attack,
    check_step,
    no_attack_with_casting,
    system_two_allowance,
    weapon_for,
)
from service.rules.combat_ii.declared_moves import MOVEMENT, check_speed, momentum, move, prepare
from service.rules.combat_ii.evolve import fighter
from service.rules.combat_ii.state import CombatIIState, Intention
from service.rules.combat_ii.stats import stats_of


def actor_of(command: Command) -> str | None:
    return getattr(command, "combatant_id", None)


def intention_for(state: CombatIIState, command: Command) -> Intention:
    if not isinstance(command, Move | Charge):
        momentum(state, actor_of(command))
    match command:
        case Attack():
            return attack(state, command)
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
            check_step(state, command.combatant_id, command.step)
            check_step(state, command.combatant_id, command.shift, _shifting(state, command))
            casting.check_cast(state, command.combatant_id, intention)
            return intention
        case Touch():
            return _touch(state, command)
        case Release():
            return _release(state, command)
        case Move():
            return move(state, command)
        case Charge():
            return _charge(state, command)
        case SetWeapon():
            weapon = weapon_for(state, command.combatant_id, command.weapon, ranged=False)
            what = "ambush" if command.ambush else None
            return Intention(kind="set-weapon", weapons=(weapon,), what=what)
        case CoverArea():
            weapon = weapon_for(state, command.combatant_id, command.weapon, ranged=True)
            return Intention(kind="cover-area", weapons=(weapon,), cells=tuple(command.cells))
        case Prepare():
            return prepare(state, command)
        case Stand():
            return Intention(kind="stand")
    raise RuleViolation("command/unknown", f"combat-ii does not know '{command}'")


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


def _charge(state: CombatIIState, command: Charge) -> Intention:
    cid = command.combatant_id
    combatant = state.table.combatant(cid)
    if not can_attack(state, cid) or not can_move(state, cid):
        raise RuleViolation("charge/cannot", f"{combatant.name} cannot charge this phase")
    no_attack_with_casting(state, cid)
    target = state.table.combatant(command.target)
    if state.table.map is None or combatant.position is None or target.position is None:
        raise RuleViolation("move/no-position", "a charge needs both combatants on the map")
    check_speed(state, cid, command.speed)
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
        system_two_allowance(state, cid, (command.target,))  # §3 C: a charge's blow waits too
    weapon = weapon_for(state, cid, command.weapon, ranged=False)
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
