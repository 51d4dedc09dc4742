"""Movement (combat-ii §1 F, §2 D): a third of the current MV per phase, after attacks and
spells; speed changes, momentum and the DEX check to stop short; withdrawing and fleeing;
charges; set weapons and covered areas; and the half-segment incremental option (Table 3).

Squares are the seed's 10 ft "squares" (§4: "Each 'square' is the equivalent of 10' of
movement"): a map's cell is one square."""

from __future__ import annotations

from collections.abc import Callable

from service.domain.frozen import replace
from service.domain.grid import Cell
from service.domain.table import Combatant
from service.rules.combat_ii.abilities import check
from service.rules.combat_ii.attacks import Completion, Exchange, Strike, exchange
from service.rules.combat_ii.charging import charge
from service.rules.combat_ii.combatants import (
    CHARGING,
    NO_MOVE,
    can_attack,
    can_move,
    engaged_with,
    ready_weapon,
    within,
)
from service.rules.combat_ii.events import (
    CheckRolled,
    EffectApplied,
    IntentionDeclared,
    Interposed,
    Moved,
    PhaseBegan,
    PhaseEnded,
    SpeedChanged,
)
from service.rules.combat_ii.evolve import fighter
from service.rules.combat_ii.paths import (
    MOVEMENT_HALF_SEGMENT,
    allowance,
    entered,
    numbered,
    occupancy,
    route,
    speeds,
    stop_short,
)
from service.rules.combat_ii.run import Run
from service.rules.combat_ii.schedule import (
    HALF_SEGMENTS,
    least_per_half_segment,
    squares_by_half_segment,
)
from service.rules.combat_ii.state import CombatIIState, Effect, Intention
from service.rules.combat_ii.stats import stats_of

MOVING = frozenset({"move", "charge"})


def start(run: Run) -> None:
    """The beginning of the phase's movement: speed changes announced take effect at once;
    whoever does not move comes to a stop; stopping short needs the DEX check (§2 D)."""
    state = run.state
    for cid, intention in sorted(state.intentions.items()):
        mine = fighter(state, cid)
        if intention.alongside is not None and not _partnered(state, cid, intention):
            intention = _held_back(run, cid, intention.alongside)
        if intention.kind not in MOVING:
            if mine.factor and intention.kind != "continue":
                run.emit([run.ctx.emit(SpeedChanged(combatant_id=cid, factor=0))])
            continue
        intention = _accelerate(run, cid, intention)
        now, _ = speeds(state, cid, intention)
        if now != mine.factor:
            run.emit([run.ctx.emit(SpeedChanged(combatant_id=cid, factor=now))])
        if intention.kind == "charge":
            charging = Effect(name=CHARGING, until=state.tick)
            run.emit([run.ctx.emit(EffectApplied(combatant_id=cid, effect=charging))])


def _partnered(state: CombatIIState, cid: str, intention: Intention) -> bool:
    """§2 D: the parallel-movement exception needs both foes moving side by side: the one
    named `alongside` moves alongside this mover too."""
    partner = state.intentions.get(intention.alongside or "")
    return partner is not None and partner.kind == "move" and partner.alongside == cid


def _held_back(run: Run, cid: str, foe_id: str) -> Intention:
    """A move alongside a foe that does not move alongside is no exception: an engaged
    combatant "may not continue to move away normally" (§2 D), so it stands."""
    foe = run.state.table.combatant(foe_id).name
    standing = Intention(kind="stand")
    reason = f"{foe} did not move alongside: no parallel movement (§2 D)"
    run.emit(
        [
            run.ctx.emit(
                IntentionDeclared(
                    combatant_id=cid, intention=standing, automatic=True, reason=reason
                )
            )
        ]
    )
    return standing


RUNNING = 3
"""The first running speed: 3x MV (2x is jogging)."""


def _accelerate(run: Run, cid: str, intention: Intention) -> Intention:
    """§2 D Acceleration: "Apply the new rate immediately, after using PH rules for chances
    for success based on Strength (p. 120)". Fray's reading: speeding up into a running
    speed (3x or faster) takes a passed STR check; walking and jogging need none. A failure
    holds the mover to jogging (2x), or to the speed it began the phase at if faster, and
    its intention is restated at that speed. Returns the intention the mover moves by."""
    now = speeds(run.state, cid, intention)[0]
    began = fighter(run.state, cid).phase_factor
    if now < RUNNING or now <= began:
        return intention
    strength = stats_of(run.state.table.combatant(cid)).strength
    rolled = check(run.ctx, "strength", strength, 0, f"accelerate to {now}x MV", roller=cid)
    run.emit([run.ctx.emit(CheckRolled(combatant_id=cid, check=rolled))])
    if rolled.passed:
        return intention
    held = replace(intention, {"speed": max(began, RUNNING - 1)})
    run.emit([run.ctx.emit(IntentionDeclared(combatant_id=cid, intention=held, automatic=True))])
    return held


def reposition(run: Run) -> None:
    """§2 A and §2 C Repositioning: "a step or two (max. 10')" before the spell (+1 CT) or the
    attack (+2 SF), taken as the phase's counting begins, winners first (§1 F). A step whose
    square another stepper took first is not taken; a step into a covered area draws its
    shot like any other entry (§2 D Setting Weapons)."""
    for cid, intention in order(run.state, lambda i: i.step is not None):
        if can_move(run.state, cid) and intention.step is not None:
            _one_square(run, cid, intention.step, "step", 1)


def _shift(run: Run, cid: str, intention: Intention) -> None:
    """§2 A Movement and Spellcasting: "A caster MAY shift position slightly (up to 10')
    while casting if the spell has no somatic component", in the movement portion of the
    phase its casting is declared."""
    if intention.shift is not None:
        _one_square(run, cid, intention.shift, "shift", MOVEMENT_HALF_SEGMENT)


def _one_square(run: Run, cid: str, cell: Cell, mode: str, offset: int) -> None:
    """A move of one square, not taken if another got there first; entering a covered area
    draws its shot (§2 D Setting Weapons)."""
    mover = run.state.table.combatant(cid)
    if mover.position is None or cell in occupancy(run.state, cid):
        return
    walked = [mover.position, cell]
    number = numbered(run.state, offset)
    run.emit(
        [run.ctx.emit(Moved(combatant_id=cid, path=tuple(walked), mode=mode, half_segment=number))]
    )
    entered(run, cid, walked[-1:], offset)


def _moves(intention: Intention) -> bool:
    return intention.kind in MOVING or intention.shift is not None


def order(
    state: CombatIIState, moving: Callable[[Intention], bool] = _moves
) -> list[tuple[str, Intention]]:
    """§1 F: movement is simultaneous, but initiative winners win a race for the same goal:
    Fray moves winners first (the movers, or the intentions `moving` picks)."""
    movers = [(cid, i) for cid, i in sorted(state.intentions.items()) if moving(i)]
    return sorted(movers, key=lambda m: state.tracks.get(m[0], "loser") != "winner")


def resolve(run: Run) -> None:
    """§1 F: the phase's movement, winners first; held spells let go around it (§2 A:
    "Initiative winners may elect to release a spell before, after, or at midpoint of the
    loser's movement. Losers automatically cast their spells at the end of all movement.
    Winners casting spells at other winners do so at midpoint of winner's movement.")."""
    movers = order(run.state)
    winners = [m for m in movers if run.state.tracks.get(m[0]) == "winner"]
    losers = [m for m in movers if m not in winners]
    stages = releases(run.state)
    _block(run, winners, stages["winners-midpoint"])
    release(run, stages["before"])
    _block(run, losers, stages["midpoint"])
    alongside_blows(run)
    release(run, stages["after"])


def releases(state: CombatIIState) -> dict[str, list[str]]:
    """Who lets a held spell go at each moment of the movement portion."""
    stages: dict[str, list[str]] = {
        "winners-midpoint": [],
        "before": [],
        "midpoint": [],
        "after": [],
    }
    for cid, intention in sorted(state.intentions.items()):
        if intention.kind != "release":
            continue
        target = intention.targets[0] if intention.targets else None
        if state.tracks.get(cid) != "winner":
            stages["after"].append(cid)
        elif target is not None and state.tracks.get(target) == "winner" and target != cid:
            stages["winners-midpoint"].append(cid)
        else:
            stages[intention.timing or "after"].append(cid)
    return stages


def release(run: Run, casters: list[str], offset: int = MOVEMENT_HALF_SEGMENT) -> None:
    """Held spells going off together, as spells completing in one half-segment do."""
    done: list[Completion] = []
    for cid in casters:
        casting = fighter(run.state, cid).casting
        combatant = run.state.table.combatants.get(cid)
        if casting is None or combatant is None or combatant.out_of_fight:
            continue  # ruined or downed while holding it
        done.append(Completion.of(cid, casting))
    if done:
        exchange(run, Exchange([], done), numbered(run.state, offset))


def _block(run: Run, movers: list[tuple[str, Intention]], midway: list[str]) -> None:
    """One track's movement; with spells let go at its midpoint, each move is walked in two
    halves around them (charges and shifts, one rush each, come after)."""
    if not midway:
        for cid, intention in movers:
            _move_whole(run, cid, intention)
        return
    rest: dict[str, int | None] = {}
    for cid, intention in movers:
        if intention.kind != "move" or not can_move(run.state, cid):
            continue
        if intention.stop_short and not stop_short(run, cid, intention):
            rest[cid] = None
            continue
        budget = allowance(run.state, cid, intention)
        _walk(run, cid, intention, (budget + 1) // 2)
        rest[cid] = budget - (budget + 1) // 2
    release(run, midway)
    for cid, intention in movers:
        if cid not in rest:
            _move_whole(run, cid, intention)
            continue
        left = rest[cid]
        if left is None or not can_move(run.state, cid):
            continue
        _walk(run, cid, intention, left)
        _attack_after_move(run, cid, intention)
        _settle_speed(run, cid, intention)


def _move_whole(run: Run, cid: str, intention: Intention) -> None:
    if not can_move(run.state, cid):
        return
    if intention.kind == "cast":
        _shift(run, cid, intention)
        return
    if intention.kind == "move" and intention.stop_short and not stop_short(run, cid, intention):
        return
    if intention.kind == "charge":
        charge(run, cid, intention)
    else:
        _walk(run, cid, intention, allowance(run.state, cid, intention))
        _attack_after_move(run, cid, intention)
    _settle_speed(run, cid, intention)


def _attack_after_move(run: Run, cid: str, intention: Intention) -> None:
    """§2 F: a mover that reaches a surprised foe strikes at the end of its move (blows
    between foes moving alongside wait for `alongside_blows`)."""
    blow = _blow_after_move(run.state, cid, intention)
    if blow is not None and intention.alongside is None:
        exchange(run, Exchange([blow]), numbered(run.state))


def alongside_blows(run: Run) -> None:
    """§2 D: "parallel movement coupled with simultaneous attacks": after all movement, the
    blows of foes moving alongside each other, in one exchange."""
    blows = [
        _blow_after_move(run.state, cid, intention)
        for cid, intention in sorted(run.state.intentions.items())
        if intention.kind == "move" and intention.alongside is not None
    ]
    ready = [b for b in blows if b is not None]
    if ready:
        exchange(run, Exchange(ready), numbered(run.state))


def _blow_after_move(state: CombatIIState, cid: str, intention: Intention) -> Strike | None:
    """The mover's blow at its move's target, if it is within its weapon's reach."""
    mover = state.table.combatant(cid)
    if not intention.targets or not intention.weapons or mover.out_of_fight:
        return None
    target = state.table.combatants.get(intention.targets[0])
    weapon = stats_of(mover).weapon(intention.weapons[0])
    if target is None or target.out_of_fight or weapon is None or not can_attack(state, cid):
        return None
    if not within(state, mover, target, weapon.reach):
        return None
    return Strike(cid, target.id, weapon.name, MOVEMENT_HALF_SEGMENT, 0, placed=False)


def step(run: Run, offset: int) -> None:
    """§2 D Half-Segment Incremental Movement: each half-segment moves a mover its share of
    the phase's squares, spread as evenly as Table 3 allows. Charges still close in the
    movement portion (interpretation: a charge is one rush). Held spells are let go before
    the first share, after the third or after the last (§2 A)."""
    stages = releases(run.state)
    if offset == 1:
        release(run, stages["before"], offset)
    for cid, intention in order(run.state):
        if not can_move(run.state, cid) or intention.kind != "move":
            continue
        if offset == 1 and intention.stop_short and not stop_short(run, cid, intention):
            continue
        share = squares_by_half_segment(allowance(run.state, cid, intention))[offset - 1]
        if share:
            _walk(run, cid, intention, share, offset)
        if offset == HALF_SEGMENTS:
            _settle_speed(run, cid, intention)
    if offset == HALF_SEGMENTS // 2:
        release(run, stages["winners-midpoint"] + stages["midpoint"], offset)
    if offset == HALF_SEGMENTS:
        for cid, intention in order(run.state):
            if intention.kind == "move":
                _attack_after_move(run, cid, intention)
            if intention.kind == "cast" and can_move(run.state, cid):
                _shift(run, cid, intention)
            if intention.kind == "charge" and can_move(run.state, cid):
                charge(run, cid, intention)
                _settle_speed(run, cid, intention)
        alongside_blows(run)
        release(run, stages["after"], offset)


def _settle_speed(run: Run, cid: str, intention: Intention) -> None:
    if cid not in run.state.fighters:
        return
    after = speeds(run.state, cid, intention)[1]
    if run.state.options.incremental_movement and intention.kind == "move":
        after = min(after, _kept_speed(run, cid))
    if fighter(run.state, cid).factor not in (after, 0):
        run.emit([run.ctx.emit(SpeedChanged(combatant_id=cid, factor=after))])


def _kept_speed(run: Run, cid: str) -> int:
    """§2 D Table 3 (incremental movement): a mover "must move at least the previously listed
    minimum in order to maintain speed". The fastest speed, up to the one moved at, whose
    minimum over the phase's six half-segments the squares moved this phase met: 1 if the
    mover moved at all, 0 if it did not."""
    walked = _walked(run, cid)
    if walked == 0:
        return 0
    mv = stats_of(run.state.table.combatant(cid)).mv
    kept = (
        factor
        for factor in range(fighter(run.state, cid).factor, 1, -1)
        if walked >= least_per_half_segment(factor * mv) * HALF_SEGMENTS
    )
    return next(kept, 1)


def _walked(run: Run, cid: str) -> int:
    """The squares `cid` has moved in this phase's movement (steps and shifts aside)."""
    walked = 0
    for event in reversed(run.events):
        if isinstance(event, PhaseBegan | PhaseEnded):
            break
        if isinstance(event, Moved) and event.combatant_id == cid:
            walked += 0 if event.mode in ("step", "shift") else len(event.path) - 1
    return walked


def _walk(run: Run, cid: str, intention: Intention, budget: int, offset: int | None = None) -> None:
    state = run.state
    mover = state.table.combatant(cid)
    if mover.position is None:
        return
    if intention.mode == "flee" and engaged_with(state, mover):
        _free_attacks(run, mover, intention.behind)
        mover = run.state.table.combatant(cid)
        if mover.out_of_fight or not can_move(run.state, cid):
            return
    here = mover.position
    assert here is not None
    walked: list[Cell] = [here]
    for cell in route(run.state, cid, intention)[:budget]:
        if occupancy(run.state, cid).get(cell, mover.side) != mover.side:
            break  # a foe's square blocks; an ally's may be passed through
        walked.append(cell)
        if not entered(run, cid, walked, offset):
            break
    taken = occupancy(run.state, cid)
    while len(walked) > 1 and walked[-1] in taken:
        walked.pop()  # but not stopped on
    if len(walked) > 1:
        mode = intention.mode if intention.kind == "move" else "normal"
        number = numbered(state, offset if offset is not None else MOVEMENT_HALF_SEGMENT)
        run.emit(
            [
                run.ctx.emit(
                    Moved(combatant_id=cid, path=tuple(walked), mode=mode, half_segment=number)
                )
            ]
        )


def _free_attacks(run: Run, mover: Combatant, behind: str | None) -> None:
    """§2 D Fleeing: each foe in reach gets a free attack, unless the fleer is an initiative
    winner, the foe already struck this phase and is no faster (the winner's exception), or
    the ally it flees `behind` stands beside that foe ("If another party member can
    interpose himself, a combatant may flee unmolested")."""
    state = run.state
    strikes: list[Strike] = []
    my_mv = stats_of(mover).mv * max(fighter(state, mover.id).factor, 1)
    foes = engaged_with(state, mover)
    blocked = _interposed(state, behind, foes)
    if behind is not None and blocked:
        run.emit(
            [run.ctx.emit(Interposed(combatant_id=behind, fleer=mover.id, foes=tuple(blocked)))]
        )
    for foe in foes:
        if foe.id in blocked:
            continue
        foe_fighter = fighter(state, foe.id)
        foe_mv = stats_of(foe).mv * max(foe_fighter.factor, 1)
        if (
            state.tracks.get(mover.id) == "winner"
            and foe_fighter.attacked_tick == state.tick
            and foe_mv <= my_mv
        ):
            continue
        if foe_fighter.effect(NO_MOVE) is not None:
            continue  # §4 Critical Miss 1-4: "opponent may retreat unhindered"
        weapon = ready_weapon(state, foe.id)
        if weapon is not None and can_attack(state, foe.id):
            strikes.append(
                Strike(
                    foe.id, mover.id, weapon, MOVEMENT_HALF_SEGMENT, 0, kind="free", placed=False
                )
            )
    if strikes:
        exchange(run, Exchange(strikes), numbered(run.state))


def _interposed(state: CombatIIState, ally_id: str | None, foes: list[Combatant]) -> list[str]:
    """The foes an ally interposes itself against: those it stands beside, if it is up and
    free to act (not held, asleep, surprised or otherwise unable to attack or move)."""
    ally = state.table.combatants.get(ally_id or "")
    if ally is None or not can_attack(state, ally.id) or not can_move(state, ally.id):
        return []
    return [foe.id for foe in foes if within(state, ally, foe, 1)]
