"""combat-ii §4: Critical Hit and Miss Tables I, and Critical Hit and Miss II (Severity
Rules). Which system applies is the encounter option `criticals`."""

from __future__ import annotations

from dataclasses import dataclass, field

from service.domain import dice
from service.domain.context import DecideContext
from service.domain.grid import Cell, on_map, terrain_at
from service.domain.messages import Event
from service.rules.combat_ii.abilities import check
from service.rules.combat_ii.combatants import (
    DAZED,
    DEFENCELESS,
    KNEES,
    MISSTEP,
    NO_AGILITY,
    NO_MOVE,
    PRONE,
    SEVERE_MISS,
    SPRAWLED,
    STUNNED,
    base_sf,
    dex_score,
)
from service.rules.combat_ii.events import CheckRolled, CriticalRolled, EffectApplied, WeaponDropped
from service.rules.combat_ii.evolve import fighter
from service.rules.combat_ii.state import CombatIIState, Effect
from service.rules.combat_ii.stats import Weapon, stats_of

SEVERE_MARGIN = 10
"""§4 Severe Hit: "exceeds the roll needed by 10 OR MORE"."""
SEVERE_MISS_MARGIN = 5
PENALTY_PHASES = 3
TUMBLE_DIE, SQUARE_FEET = 12, 10
"""§4 Critical Miss 10: items "tumble away 1d12 feet"; a square is 10 ft (§2 A: "max. 10'")."""
EIGHT_WAYS: tuple[tuple[int, int], ...] = (
    (0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1),
)  # fmt: skip
"""The tumble's d8 on a square map: 1 north (y - 1), then clockwise: 2 north-east, 3 east,
4 south-east, 5 south, 6 south-west, 7 west, 8 north-west."""
SIX_WAYS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
"""On a hex map a d6 instead (axial q, r): 1 east, 2 north-east, 3 north-west, 4 west,
5 south-west, 6 south-east."""


@dataclass
class HitOutcome:
    """How a hit's damage is rolled and what it does beyond damage."""

    mode: str = "normal"
    margin: int = 0
    target_effects: list[Effect] = field(default_factory=list)
    extra_attack: bool = False
    free_next: bool = False


def on_hit(
    state: CombatIIState, ctx: DecideContext, attacker: str, target: str, roll: int, needed: int
) -> tuple[HitOutcome, list[Event]]:
    option, tick = state.options.criticals, state.tick
    if option == "severity":
        # §4 Severity: +1 damage per point over the number needed; on a natural 20 the base
        # damage is its maximum as well.
        mode = "max-base" if roll == 20 else "normal"
        return HitOutcome(mode=mode, margin=max(0, roll - needed)), []
    if option != "tables":
        return HitOutcome(), []
    if roll == 20:
        return _critical_hit(ctx, attacker, target, tick)
    if roll - needed >= SEVERE_MARGIN:
        # §4 Severe Hit: best of two damage rolls, dazed for the rest of the phase.
        return HitOutcome(mode="best", target_effects=[Effect(name=DAZED, until=tick)]), []
    return HitOutcome(), []


def _critical_hit(
    ctx: DecideContext, attacker: str, target: str, tick: int
) -> tuple[HitOutcome, list[Event]]:
    """§4 Critical Hit: the d10 table on a natural 20."""
    d10 = ctx.die(10, "critical hit table", roller=attacker)
    if d10 <= 4:
        outcome = HitOutcome("double-reroll-min", target_effects=[Effect(name=DAZED, until=tick)])
        text = "double base damage, minimum rolls rerolled; dazed until the end of the phase"
    elif d10 <= 6:
        outcome = HitOutcome("double-best", target_effects=[Effect(name=DAZED, until=tick + 1)])
        text = "double base damage, best of two rolls; dazed until the end of the next phase"
    elif d10 <= 8:
        outcome = HitOutcome("double-max-base", target_effects=[_stun(tick + 1)])
        text = "double maximum base damage; stunned through the next phase"
    elif d10 == 9:
        outcome = HitOutcome("double-max-total", target_effects=[_stun(tick + 1)])
        outcome.extra_attack = True
        text = "double maximum total damage; stunned through the next phase; another attack now"
    else:
        outcome = HitOutcome("double-max-total", target_effects=[_stun(tick + 2)])
        outcome.extra_attack = outcome.free_next = True
        text = (
            "double maximum total damage; stunned through the next 2 phases; another attack "
            "now and a free attack next phase"
        )
    return outcome, [
        ctx.emit(CriticalRolled(combatant_id=attacker, kind="hit", d10=d10, result=text))
    ]


def _stun(until: int) -> Effect:
    return Effect(name=STUNNED, until=until)


def on_miss(
    state: CombatIIState,
    ctx: DecideContext,
    attacker: str,
    weapon: Weapon,
    roll: int,
    needed: int,
) -> list[Event]:
    """What a miss costs the attacker: §4 Critical Miss (Tables I) on a natural 1, or the
    §4 Severity Rules' severe-miss SF penalty."""
    option = state.options.criticals
    if option == "severity":
        return _severe_miss(state, attacker, weapon, roll, needed, ctx)
    if option == "tables" and roll == 1:
        return _critical_miss(state, ctx, attacker, weapon)
    return []


def _severe_miss(
    state: CombatIIState, attacker: str, weapon: Weapon, roll: int, needed: int, ctx: DecideContext
) -> list[Event]:
    """§4 Severe Miss: 5 or more under the number needed adds 1 SF per point beyond ("needs
    17, rolls 10: anything over 12 would have been at no penalty ... 2 points"), at most the
    weapon's base SF, for its next strike within 3 phases. A natural 1 has no maximum and
    costs Agility bonuses through the next attack or 3 phases."""
    combatant = state.table.combatant(attacker)
    penalty = needed - SEVERE_MISS_MARGIN - roll
    events: list[Event] = []
    if roll != 1:
        penalty = min(penalty, base_sf(stats_of(combatant), weapon))
    until = state.tick + PENALTY_PHASES
    if penalty > 0:
        effect = Effect(
            name=SEVERE_MISS, until=until, value=penalty, ends_on_attack=True, starts=state.tick
        )
        events.append(ctx.emit(EffectApplied(combatant_id=attacker, effect=effect)))
    if roll == 1:
        effect = Effect(name=NO_AGILITY, until=until, ends_on_attack=True, starts=state.tick)
        events.append(ctx.emit(EffectApplied(combatant_id=attacker, effect=effect)))
    return events


def _critical_miss(
    state: CombatIIState, ctx: DecideContext, attacker: str, weapon: Weapon
) -> list[Event]:
    if weapon.kind == "missile":
        return _missile_fumble(state, ctx, attacker, weapon)
    d10 = ctx.die(10, "critical miss table", roller=attacker)
    tick = state.tick
    events: list[Event] = []
    result: str
    if d10 <= 4:
        result = "misstep: no movement this phase; AGI check or +2 SF and -1 to hit next phase"
        events += _effect(attacker, NO_MOVE, tick, ctx)
        events += _agility_or_misstep(state, ctx, attacker)
    elif d10 <= 6:
        result = "fumble: no movement this phase; DEX check or the weapon is dropped"
        events += _effect(attacker, NO_MOVE, tick, ctx)
        events += _keep_hold(state, ctx, attacker, (weapon.name,), 0)
        events += _agility_or_misstep(state, ctx, attacker)
    elif d10 <= 8:
        result = "fall to knees: no attacks through the next phase, AC +2"
        events += _effect(attacker, KNEES, tick + 1, ctx)
        events += _keep_hold(state, ctx, attacker, (weapon.name,), -1)
    elif d10 == 9:
        phases = ctx.die(2, "prone: phases", roller=attacker) + 1
        result = f"prone for {phases} phases: no attacks or movement, AC +4"
        events += _effect(attacker, PRONE, tick + phases, ctx, on_end="agility-or-knees")
        events += _effect(attacker, DEFENCELESS, tick + 1, ctx)
        events += _keep_hold(state, ctx, attacker, fighter(state, attacker).in_hand, -2)
    else:
        phases = ctx.die(3, "sprawling: phases", roller=attacker) + 2
        result = f"sprawling weapon fling for {phases} phases: everything held tumbles away"
        events += _effect(attacker, SPRAWLED, tick + phases, ctx, on_end="agility-or-knees")
        events += _effect(attacker, DEFENCELESS, tick + 3, ctx)
        for held in fighter(state, attacker).in_hand:
            events.append(_tumble(state, ctx, attacker, held))
    # The table's roll comes first and lists every die of the miss, its checks' too.
    critical = CriticalRolled(combatant_id=attacker, kind="miss", d10=d10, result=result)
    return [ctx.emit_ahead(critical, of=events), *events]


def _tumble(state: CombatIIState, ctx: DecideContext, cid: str, held: str) -> WeaponDropped:
    """§4 Critical Miss 10: "All held items automatically tumble away 1d12 feet in random
    directions": per item a d12 for the feet (10 ft a square, rounded up: 1-10 ft one
    square, 11-12 two) and a d8 for the direction (`EIGHT_WAYS`; a d6 on a hex map). The
    item stops at the map's edge and before impassable terrain. Without a map or a position
    nothing is rolled and the item lies nowhere in particular (the GM places it)."""
    grid, start = state.table.map, state.table.combatant(cid).position
    if grid is None or start is None:
        return ctx.emit(WeaponDropped(combatant_id=cid, weapon=held, how="flung"))
    feet = ctx.die(TUMBLE_DIE, f"tumble: {held} (feet)", roller=cid)
    ways = SIX_WAYS if grid.kind == "hex" else EIGHT_WAYS
    dx, dy = ways[ctx.die(len(ways), f"tumble: {held} (direction)", roller=cid) - 1]
    at = start
    for _ in range(-(-feet // SQUARE_FEET)):
        onward = Cell(x=at.x + dx, y=at.y + dy)
        if not on_map(grid, onward) or terrain_at(grid, onward).kind == "impassable":
            break
        at = onward
    return ctx.emit(WeaponDropped(combatant_id=cid, weapon=held, how="flung", at=at))


def _at_feet(state: CombatIIState, cid: str) -> Cell | None:
    """Where a dropped (not flung) item lies: the holder's own square (§4 "thrown weapons drop
    within 1' of combatant"; a fumbled or let-go weapon falls at the holder's feet)."""
    return state.table.combatant(cid).position if state.table.map is not None else None


def _missile_fumble(
    state: CombatIIState, ctx: DecideContext, attacker: str, weapon: Weapon
) -> list[Event]:
    """§4 Critical Miss "MW": thrown weapons drop within 1 ft; bows and crossbows break
    their string on 50% and the missile on 50% (`missile_broken`: a weapon that counts its
    ammunition counts it broken)."""
    if not weapon.bow:
        result = "missile fumble: the thrown weapon drops within 1 ft"
        at = _at_feet(state, attacker)
        return [
            ctx.emit(CriticalRolled(combatant_id=attacker, kind="miss", d10=0, result=result)),
            ctx.emit(WeaponDropped(combatant_id=attacker, weapon=weapon.name, at=at)),
        ]
    string = ctx.die(100, "string breakage", roller=attacker) <= 50
    missile = ctx.die(100, "missile breakage", roller=attacker) <= 50
    parts = [p for p, broke in (("the string", string), ("the missile", missile)) if broke]
    result = "missile fumble: " + (" and ".join(parts) + " broke" if parts else "nothing broke")
    broken = weapon.name if missile else None
    critical = ctx.emit(
        CriticalRolled(
            combatant_id=attacker, kind="miss", d10=0, result=result, missile_broken=broken
        )
    )
    events: list[Event] = [critical]
    if string:
        events.append(
            ctx.emit(WeaponDropped(combatant_id=attacker, weapon=weapon.name, how="string-broken"))
        )
    return events


def _effect(
    cid: str, name: str, until: int, ctx: DecideContext, on_end: str | None = None
) -> list[EffectApplied]:
    effect = Effect(name=name, until=until, on_end="agility-or-knees" if on_end else None)
    return [ctx.emit(EffectApplied(combatant_id=cid, effect=effect))]


def agility_check(state: CombatIIState, ctx: DecideContext, cid: str, purpose: str) -> CheckRolled:
    stats = stats_of(state.table.combatant(cid))
    score = dex_score(state, stats)
    name = "agility" if state.options.agility and stats.agility is not None else "dexterity"
    rolled = check(ctx, name, score, 0, purpose, roller=cid)
    return ctx.emit(CheckRolled(combatant_id=cid, check=rolled))


def _agility_or_misstep(state: CombatIIState, ctx: DecideContext, cid: str) -> list[Event]:
    rolled = agility_check(state, ctx, cid, "keep footing")
    if rolled.check.passed:
        return [rolled]
    misstep = Effect(name=MISSTEP, until=state.tick + 1, starts=state.tick + 1)
    return [rolled, ctx.emit(EffectApplied(combatant_id=cid, effect=misstep))]


def _keep_hold(
    state: CombatIIState, ctx: DecideContext, cid: str, held: tuple[str, ...], modifier: int
) -> list[Event]:
    dexterity = stats_of(state.table.combatant(cid)).dexterity
    events: list[Event] = []
    for name in held:
        rolled = check(ctx, "dexterity", dexterity, modifier, f"keep hold of {name}", roller=cid)
        events.append(ctx.emit(CheckRolled(combatant_id=cid, check=rolled)))
        if not rolled.passed:
            events.append(
                ctx.emit(WeaponDropped(combatant_id=cid, weapon=name, at=_at_feet(state, cid)))
            )
    return events


def roll_damage(
    ctx: DecideContext,
    expression: str,
    bonus: int,
    outcome: HitOutcome,
    purpose: str,
    *,
    roller: str,
    faces: list[str] | None = None,
) -> tuple[int, str]:
    """A hit's damage, rolled by `roller`: the weapon's dice (its base damage) plus
    bonuses, as the outcome says. A hit deals at least 1 (interpretation: §4 allows less
    than the dice's minimum plus bonuses, never nothing). Each roll's text, its faces
    shown (`1d8 (6) = 6`), is appended to `faces` when given."""
    top = dice.bounds(dice.parse(expression))[1]
    shown = faces if faces is not None else []

    def rolled(reroll_min: bool = False) -> int:
        if not reroll_min:
            result = ctx.roll(expression, purpose, roller=roller)
            shown.append(result.text)
            return result.total

        def die(sides: int) -> int:
            face = ctx.die(sides, purpose, roller=roller)
            if face == 1:
                return ctx.die(sides, purpose + " (reroll)", roller=roller)
            return face

        result = dice.roll(expression, die)
        shown.append(result.text)
        return result.total

    match outcome.mode:
        case "best":
            base, text = max(rolled(), rolled()), "best of two"
        case "double-reroll-min":
            base, text = 2 * rolled(reroll_min=True), "double, minimums rerolled"
        case "double-best":
            base, text = 2 * max(rolled(), rolled()), "double, best of two"
        case "double-max-base":
            base, text = 2 * top, "double maximum base"
        case "double-max-total":
            return max(1, 2 * (top + bonus)), "double maximum total"
        case "max-base":
            base, text = top, "maximum base"
        case _:
            base, text = rolled(), "normal"
    total = base + bonus + outcome.margin
    if outcome.margin:
        text += f", +{outcome.margin} severity"
    return max(1, total), text
