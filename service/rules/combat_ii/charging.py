"""§2 D Charging: the run at the target along a straight line, the blow on reaching it (a
thief's backstab among them), the defender's answer, and the overrun or the collision."""

from __future__ import annotations

from service.domain.grid import Cell, GridMap, on_map
from service.domain.grid_lines import line
from service.domain.messages import Event
from service.rules.combat_ii.abilities import check, skill_roll
from service.rules.combat_ii.allowance import default_weapons, may_respond
from service.rules.combat_ii.attacks import Exchange, Strike, exchange
from service.rules.combat_ii.combatants import (
    FALLEN,
    can_attack,
    ready_weapon,
    skill_modifier,
)
from service.rules.combat_ii.events import (
    CheckRolled,
    EffectApplied,
    Moved,
)
from service.rules.combat_ii.evolve import fighter
from service.rules.combat_ii.paths import (
    MOVEMENT_HALF_SEGMENT,
    allowance,
    entered,
    numbered,
    occupancy,
    stop_short,
    within_cell,
)
from service.rules.combat_ii.run import Run
from service.rules.combat_ii.state import Effect, Intention
from service.rules.combat_ii.stats import stats_of


def charge(run: Run, cid: str, intention: Intention) -> None:
    """§2 D Charging: close on the target along a straight line, strike on reaching it,
    then overrun it by the rest of the phase's movement (or barrel into it)."""
    state = run.state
    charger = state.table.combatant(cid)
    target = state.table.combatants.get(intention.targets[0]) if intention.targets else None
    grid = state.table.map
    if target is None or target.out_of_fight or grid is None:
        return
    if charger.position is None or target.position is None:
        return
    budget = allowance(state, cid, intention)
    lane = _lane(grid, charger.position, target.position, budget)
    reach = next((i for i, c in enumerate(lane) if within_cell(state, c, target.position)), None)
    if reach is not None and reach > budget:
        reach = None  # beyond this phase's movement: the charge falls short
    closing = lane[: (budget if reach is None else reach) + 1]
    if not _rush(run, cid, closing, "charge", target.id) or reach is None:
        return
    _charge_blow(run, cid, target.id, intention)
    if run.state.table.combatant(cid).out_of_fight or intention.barrel:
        if intention.barrel:
            _barrel(run, cid, target.id)
        return
    # "The charger may also attempt a rapid slowdown with the chances described above under
    # 'Deceleration'": after the blow; a failed check is a fall where the charger struck.
    if intention.stop_short and not stop_short(run, cid, intention):
        return
    rest = [c for c in lane[reach + 1 : budget + 1] if c != target.position]
    if intention.stop_short:
        rest = rest[: max(0, len(rest) - intention.stop_short)]
    occupied = occupancy(run.state, cid)
    walked = [lane[reach]]
    for cell in rest:
        if cell in occupied and cell != target.position:
            break
        walked.append(cell)
    while len(walked) > 1 and walked[-1] in occupied:
        walked.pop()
    _rush(run, cid, walked, "overrun", target.id)


def _rush(run: Run, cid: str, lane: list[Cell], mode: str, target: str) -> bool:
    """A charger's run along `lane` (its start first): every square entered passes the set
    weapons and covered areas of others on the way (§2 D Setting Weapons: "subject to
    attack as soon as he moves into a defended area if he is accelerated"). False when the
    charger is stopped or downed on the way."""
    walked = lane[:1]
    for cell in lane[1:]:
        walked.append(cell)
        if not entered(run, cid, walked, None, mode, spare=target):
            _emit_path(run, cid, walked, mode)
            return False
    _emit_path(run, cid, walked, mode)
    return True


def _lane(grid: GridMap, start: Cell, target: Cell, budget: int) -> list[Cell]:
    """The straight run from start through the target and on, `budget` squares long."""
    dx, dy = target.x - start.x, target.y - start.y
    span = max(abs(dx), abs(dy), 1)
    scale = max(budget + 1, span) / span
    far = Cell(x=start.x + round(dx * scale), y=start.y + round(dy * scale))
    far = Cell(x=min(max(far.x, 0), grid.width - 1), y=min(max(far.y, 0), grid.height - 1))
    return [c for c in line(grid, start, far) if on_map(grid, c)]


def _emit_path(run: Run, cid: str, path: list[Cell], mode: str) -> None:
    if len(path) > 1:
        run.emit(
            [
                run.ctx.emit(Moved(
                    combatant_id=cid, path=tuple(path), mode=mode,
                    half_segment=numbered(run.state),
                ))
            ]
        )  # fmt: skip


def _charge_blow(run: Run, cid: str, target_id: str, intention: Intention) -> None:
    """The charger's blow: a defender set for it swings at the same moment (double dice with
    a weapon set against a charge); otherwise the charger's damage lands first and the
    defender answers only if it has not attacked this phase and has attacks left."""
    state = run.state
    weapon = intention.weapons[0] if intention.weapons else ready_weapon(state, cid)
    if weapon is None:
        return
    multiplier, bonus = _backstab(run, cid) if intention.backstab else (1, 0)
    blow = Strike(
        cid, target_id, weapon, MOVEMENT_HALF_SEGMENT, 0, kind="charge", multiplier=multiplier,
        hit_bonus=bonus,
    )  # fmt: skip
    defender = fighter(state, target_id)
    set_weapon = defender.ready if not defender.covering else None
    if set_weapon is not None and can_attack(state, target_id):
        doubled = stats_of(state.table.combatant(target_id)).weapon(set_weapon)
        times = 2 if doubled is not None and doubled.set_vs_charge else 1
        answer = Strike(
            target_id, cid, set_weapon, MOVEMENT_HALF_SEGMENT, 0, kind="set", multiplier=times
        )
        exchange(run, Exchange([blow, answer]), numbered(run.state))
        return
    exchange(run, Exchange([blow]), numbered(run.state))
    if may_respond(run.state, target_id):
        # The counter is the defender's whole routine (§2 C: its parts strike together).
        stats = stats_of(run.state.table.combatant(target_id))
        routine = default_weapons(run.state, target_id, stats)
        counters = [
            Strike(target_id, cid, w, MOVEMENT_HALF_SEGMENT, 0, order=i, kind="counter")
            for i, w in enumerate(routine)
        ]
        if counters:
            exchange(run, Exchange(counters), numbered(run.state))


BACKSTAB_TO_HIT = 4
"""PH: "a backstab attack gains a +4 bonus on the attack roll"."""


def _backstab(run: Run, cid: str) -> tuple[int, int]:
    """§2 D: a thief's charging backstab needs a successful move-silently roll; then (PH) +4
    to hit and the damage multiplier. Returns (multiplier, to-hit bonus). §4 Agility "THIEF
    ADJUSTMENTS": `combatants.skill_modifier`."""
    stats = stats_of(run.state.table.combatant(cid))
    chance = stats.skill_chance("move-silently") or 0
    modifier = skill_modifier(run.state, stats, "move-silently")
    rolled = skill_roll(run.ctx, "move-silently", chance, modifier, "backstab", roller=cid)
    run.emit([run.ctx.emit(CheckRolled(combatant_id=cid, check=rolled))])
    return (stats.backstab, BACKSTAB_TO_HIT) if rolled.passed else (1, 0)


def _barrel(run: Run, cid: str, target_id: str) -> None:
    """§2 D: barrelling headlong into the foe: each makes a DEX and a STR check or falls."""
    events: list[Event] = []
    for who in (cid, target_id):
        stats = stats_of(run.state.table.combatant(who))
        fell = False
        for ability, score in (("dexterity", stats.dexterity), ("strength", stats.strength)):
            purpose = "stay standing after the collision"
            rolled = check(run.ctx, ability, score, 0, purpose, roller=who)
            events.append(run.ctx.emit(CheckRolled(combatant_id=who, check=rolled)))
            fell = fell or not rolled.passed
        if fell:
            fallen = Effect(name=FALLEN, until=run.state.tick + 1)
            events.append(run.ctx.emit(EffectApplied(combatant_id=who, effect=fallen)))
    run.emit(events)
