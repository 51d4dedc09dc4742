"""Declaring a move or a preparation (combat-ii §2 D Movement, §2 E Miscellaneous
Preparation, §2 F Surprise): the checks that turn a `move` or `prepare` command into an
intention, refused with the seed's words when the rules forbid it."""

from __future__ import annotations

from service.domain.errors import RuleViolation
from service.domain.grid import on_map
from service.rules.combat_ii.allowance import (
    attacks_left,
    check_ammunition,
    default_weapons,
    stationary,
)
from service.rules.combat_ii.combatants import (
    NO_MOVE,
    can_move,
    engaged_with,
    squares,
)
from service.rules.combat_ii.commands import (
    Move,
    Prepare,
)
from service.rules.combat_ii.evolve import fighter
from service.rules.combat_ii.paths import allowance, minimum, route
from service.rules.combat_ii.state import CombatIIState, Intention
from service.rules.combat_ii.stats import stats_of

MOVEMENT = "combat-ii §2 D Movement"


def move(state: CombatIIState, command: Move) -> Intention:
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
    if command.attack is not None:
        _loaded(state, cid, intention.weapons)
    check_speed(state, cid, command.speed)
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


def _loaded(state: CombatIIState, cid: str, weapons: tuple[str, ...]) -> None:
    """The blow at the end of a move, like any attack, needs a missile left to shoot."""
    stats = stats_of(state.table.combatant(cid))
    for weapon in filter(None, map(stats.weapon, weapons)):
        check_ammunition(state, cid, weapon, "combat-ii §2 F Surprise")


def momentum(state: CombatIIState, cid: str | None) -> None:
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


def check_speed(state: CombatIIState, cid: str, speed: int | None) -> None:
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


def prepare(state: CombatIIState, command: Prepare) -> Intention:
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
