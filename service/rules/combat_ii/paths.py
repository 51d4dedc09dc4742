"""Where a combatant may go in a phase and what going there sets off (combat-ii §1 F, §2 D):
the squares a phase gives at a speed, routes on the map, the DEX check to stop short, and the
set weapons and covered areas a mover enters.

Squares are the seed's 10 ft "squares" (§4: "Each 'square' is the equivalent of 10' of
movement"): a map's cell is one square."""

from __future__ import annotations

from service.domain.grid import Cell
from service.domain.grid_paths import find_path
from service.rules.combat_ii.abilities import check, surprise_roll
from service.rules.combat_ii.allowance import attacks_left
from service.rules.combat_ii.attacks import Exchange, Strike, exchange
from service.rules.combat_ii.combatants import (
    FALLEN,
    SURPRISED,
    can_attack,
    ready_weapon,
    squares,
    within,
)
from service.rules.combat_ii.events import (
    CheckRolled,
    EffectApplied,
    Moved,
    SpeedChanged,
)
from service.rules.combat_ii.evolve import fighter
from service.rules.combat_ii.run import Run
from service.rules.combat_ii.schedule import (
    HALF_SEGMENTS,
    half_segment,
    movement_squares,
)
from service.rules.combat_ii.state import CombatIIState, Effect, Intention
from service.rules.combat_ii.stats import stats_of

MOVEMENT_HALF_SEGMENT = HALF_SEGMENTS


def numbered(state: CombatIIState, offset: int = MOVEMENT_HALF_SEGMENT) -> int:
    """The half-segment's number as the phase system counts it (System I: 1-18)."""
    return half_segment(state.phase, offset, state.options.phase_system)


def speeds(state: CombatIIState, cid: str, intention: Intention) -> tuple[int, int]:
    """§2 D Change of Current MV: (the multiple of MV moved at this phase, the one reached by
    its end). Slowing drops at most 2 factors at once; the rest comes by the phase's end."""
    current = fighter(state, cid).phase_factor
    wanted = intention.speed if intention.speed is not None else max(current, 1)
    if intention.mode == "withdraw":
        return 1, 1
    if wanted >= current:
        return wanted, wanted
    return max(wanted, current - 2), wanted


def allowance(state: CombatIIState, cid: str, intention: Intention) -> int:
    """Squares this phase: a third of current MV (Table 3); withdrawing, a third of that
    ("making a 12 MV into just over 1 per phase"), at least 1."""
    mv = stats_of(state.table.combatant(cid)).mv
    if intention.mode == "withdraw":
        return max(1, movement_squares(mv) // 3)
    return movement_squares(speeds(state, cid, intention)[0] * mv)


def minimum(state: CombatIIState, cid: str, intention: Intention) -> int:
    """§2 D Deceleration: still accelerated, a runner must cover at least half its current
    MV's phase ("She must move at least 6 (half of 12)"), less the squares it risks a DEX
    check to skip."""
    now = speeds(state, cid, intention)[0]
    slowing = intention.speed is not None and intention.speed < fighter(state, cid).phase_factor
    if now <= 1 or intention.mode == "withdraw" or not slowing:
        return 0
    return allowance(state, cid, intention) // 2


def stop_short(run: Run, cid: str, intention: Intention) -> bool:
    """§2 D: DEX at -1 per 10 ft of slowdown skipped, or fall prone for 1d4 phases."""
    dexterity = stats_of(run.state.table.combatant(cid)).dexterity
    modifier = -intention.stop_short
    rolled = check(run.ctx, "dexterity", dexterity, modifier, "stop short", roller=cid)
    run.emit([run.ctx.emit(CheckRolled(combatant_id=cid, check=rolled))])
    if rolled.passed:
        return True
    phases = run.ctx.die(4, "fallen: phases", roller=cid)
    fallen = Effect(name=FALLEN, until=run.state.tick + phases)
    run.emit(
        [
            run.ctx.emit(EffectApplied(combatant_id=cid, effect=fallen)),
            run.ctx.emit(SpeedChanged(combatant_id=cid, factor=0)),
        ]
    )
    return False


def occupancy(state: CombatIIState, mover: str) -> dict[Cell, str]:
    return state.table.occupancy(mover)


def route(state: CombatIIState, cid: str, intention: Intention) -> list[Cell]:
    """The cells to walk, the start excluded: the declared path, else the cheapest one."""
    combatant = state.table.combatant(cid)
    grid = state.table.map
    if grid is None or combatant.position is None or intention.to is None:
        return []
    if intention.path:
        # From where the mover stands on it: a move walked in parts (incremental movement, a
        # spell released at its midpoint) goes on from there.
        cells = list(intention.path)
        here = combatant.position
        return cells[cells.index(here) + 1 :] if here in cells else cells
    found = find_path(
        grid,
        combatant.position,
        intention.to,
        occupancy(state, cid),
        combatant.side,
        straight=state.table.straight_paths,
    )
    return list(found.cells[1:]) if found is not None else []


def entered(
    run: Run,
    cid: str,
    walked: list[Cell],
    offset: int | None,
    mode: str = "normal",
    spare: str | None = None,
) -> bool:
    """A mover entering a set weapon's reach or a covered area is struck at once (§2 D
    Setting Weapons: "as soon as he moves into a defended area if he is accelerated, caught
    unaware, or unable to respond"; an ambush strikes any mover). A covered area's target
    shoots back if it has a missile ready, and goes on only if it passes a surprise check;
    an ambush's may counterattack only if it passes one. False when the mover stops. The path
    walked so far is emitted (as `mode`) before the shot; `spare` is a charge's target, whose
    set weapon answers the charge's own blow instead."""
    state = run.state
    mover = state.table.combatant(cid)
    cell = walked[-1]
    exposed = _exposed(state, cid)
    number = numbered(state, offset if offset is not None else MOVEMENT_HALF_SEGMENT)
    for foe_id in sorted(state.fighters):
        foe = state.table.combatants.get(foe_id)
        foe_fighter = fighter(state, foe_id)
        if foe is None or foe.side == mover.side or foe_fighter.ready is None:
            continue
        if foe_id == spare and not foe_fighter.covering:
            continue
        if foe.out_of_fight or foe.position is None:
            continue
        weapon = stats_of(foe).weapon(foe_fighter.ready)
        if weapon is None:
            continue
        covering = cell in foe_fighter.covering
        reach = squares(state, foe.position, cell) <= weapon.reach and not foe_fighter.covering
        if not (covering or (reach and (exposed or foe_fighter.ambush))):
            continue
        ambush = foe_fighter.ambush and not covering
        if len(walked) > 1:
            run.emit(
                [
                    run.ctx.emit(
                        Moved(combatant_id=cid, path=tuple(walked), mode=mode, half_segment=number)
                    )
                ]
            )
            del walked[:-1]
        kind = "cover" if covering else "set"
        exchange(run, Exchange([Strike(foe_id, cid, weapon.name, number, 0, kind=kind)]), number)
        if run.state.table.combatant(cid).out_of_fight:
            return False
        if covering:
            _answer(run, cid, foe_id, number, missile=True)
            rolled = surprise_roll(run.ctx, 0, "caught in a covered area", roller=cid)
            run.emit([run.ctx.emit(CheckRolled(combatant_id=cid, check=rolled))])
            if not rolled.passed:
                return False
        elif ambush:
            rolled = surprise_roll(run.ctx, 0, "counterattack an ambush", roller=cid)
            run.emit([run.ctx.emit(CheckRolled(combatant_id=cid, check=rolled))])
            if rolled.passed:
                _answer(run, cid, foe_id, number, missile=False)
    return True


def _exposed(state: CombatIIState, cid: str) -> bool:
    """§2 D Setting Weapons: a set weapon strikes a mover that is "accelerated, caught
    unaware, or unable to respond": at 2x MV or more, surprised, or unable to attack (a
    state that forbids it, or no attack left this round)."""
    mine = fighter(state, cid)
    return (
        mine.factor >= 2
        or mine.effect(SURPRISED) is not None
        or not can_attack(state, cid)
        or attacks_left(state, cid) <= 0
    )


def _answer(run: Run, cid: str, foe_id: str, number: int, missile: bool) -> None:
    """The struck mover's answer (§2 D): to a covered area's shot, only "if he has a missile
    ready also" (in hand, and the foe within its range), after the shot; to an ambush, with
    its ready weapon in reach, once it has passed its surprise check."""
    state = run.state
    mover = state.table.combatants.get(cid)
    foe = state.table.combatants.get(foe_id)
    if mover is None or foe is None or mover.out_of_fight or foe.out_of_fight:
        return
    if not can_attack(state, cid):
        return
    stats = stats_of(mover)
    mine = fighter(state, cid)
    if missile:
        held = [
            w for w in mine.in_hand
            if (weapon := stats.weapon(w)) is not None and weapon.kind == "missile"
            and w not in mine.string_broken
        ]  # fmt: skip
        weapon_name = held[0] if held else None
    else:
        weapon_name = ready_weapon(state, cid)
    weapon = stats.weapon(weapon_name) if weapon_name is not None else None
    if weapon is None or weapon_name is None:
        return
    if weapon.kind != "missile" and not within(state, mover, foe, weapon.reach):
        return
    strike = Strike(cid, foe_id, weapon_name, number, 0, kind="counter")
    exchange(run, Exchange([strike]), number)


def within_cell(state: CombatIIState, cell: Cell, other: Cell) -> bool:
    return squares(state, cell, other) <= 1
