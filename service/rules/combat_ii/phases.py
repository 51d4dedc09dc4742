"""The round and its phases (combat-ii §1 C-I, §3): intentions declared losers first, the
six half-segments of a phase counted off, movement after attacks and spells, the System I
endphase, and the continuous A/B/C phases of System II."""

from __future__ import annotations

from service.domain.clocks import start_clock, stop_clock
from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Event
from service.rules.combat_ii import attacks, casting, delays, initiative, movement
from service.rules.combat_ii.abilities import check
from service.rules.combat_ii.attacks import Exchange, Strike
from service.rules.combat_ii.combatants import SURPRISED, can_attack, can_move
from service.rules.combat_ii.criticals import agility_check
from service.rules.combat_ii.events import (
    CheckRolled,
    EffectApplied,
    EffectEnded,
    IntentionDeclared,
    PhaseBegan,
    PhaseEnded,
    ReadyEnded,
    RoundBegan,
    SpeedChanged,
    WeaponReadied,
)
from service.rules.combat_ii.evolve import fighter
from service.rules.combat_ii.run import Run
from service.rules.combat_ii.schedule import (
    ENDPHASE,
    HALF_SEGMENTS,
    endphase_offset,
    half_segment,
    phase_label,
)
from service.rules.combat_ii.state import CombatIIState, Effect, Intention
from service.rules.combat_ii.stats import stats_of

SECTION = "combat-ii §1 C State Intentions"
CLOCK = "intentions"


def begin(state: CombatIIState, ctx: DecideContext) -> list[Event]:
    run = Run(state, ctx)
    _new_round(run)
    return run.events


def _new_round(run: Run) -> None:
    if run.state.round:
        run.emit(_winded(run))
    run.emit([run.ctx.emit(RoundBegan(round=run.state.round + 1))])
    run.emit(initiative.roll(run.state, run.ctx))
    _open_phase(run, 1)


def _winded(run: Run) -> list[Event]:
    """§2 D Acceleration: "Constitution checks are made each round, based on top speed
    attained during the round". Fray: a CON check at -1 per multiple of MV above 2x for
    whoever ran (3x or more); a failure drops the runner to walking speed."""
    events: list[Event] = []
    for cid in sorted(run.state.fighters):
        mine = fighter(run.state, cid)
        combatant = run.state.table.combatants.get(cid)
        if mine.top_factor < 3 or combatant is None or combatant.out_of_fight:
            continue
        con = stats_of(combatant).constitution
        modifier = 2 - mine.top_factor
        rolled = check(run.ctx, "constitution", con, modifier, "keep running", roller=cid)
        events.append(run.ctx.emit(CheckRolled(combatant_id=cid, check=rolled)))
        if not rolled.passed and mine.factor > 1:
            events.append(run.ctx.emit(SpeedChanged(combatant_id=cid, factor=1)))
    return events


def _open_phase(run: Run, phase: int) -> None:
    state = run.state
    system = state.options.phase_system
    tick = state.tick + (0 if phase == ENDPHASE else 1)
    label = phase_label(system, phase)
    run.emit([run.ctx.emit(PhaseBegan(round=state.round, phase=phase, label=label, tick=tick))])
    if phase == ENDPHASE:
        _endphase(run)
        return
    for cid, intention in sorted(automatic(run.state).items()):
        run.emit(
            [run.ctx.emit(IntentionDeclared(combatant_id=cid, intention=intention, automatic=True))]
        )
    seconds = run.state.options.intention_seconds
    if seconds is not None and waiting(run.state):
        clocks = run.state.table.clocks
        clock = start_clock(clocks, CLOCK, seconds, run.ctx, label=f"phase {label} intentions")
        run.emit([clock])
    _resolve_when_ready(run)


def timed_out(state: CombatIIState, ctx: DecideContext) -> list[Event]:
    """The intentions clock ran out: whoever has not declared stands and defends, losers
    first, and the phase resolves."""
    run = Run(state, ctx)
    while run.state.stage == "intentions" and waiting(run.state):
        cid = waiting(run.state)[0]
        stand = Intention(kind="stand")
        run.emit([ctx.emit(IntentionDeclared(combatant_id=cid, intention=stand, automatic=True))])
    _resolve_when_ready(run)
    return run.events


def automatic(state: CombatIIState) -> dict[str, Intention]:
    """Intentions nobody chooses: a spell still being cast continues (§1 G), the surprised
    lose the phase (§2 F), the stunned, prone and fallen can do nothing."""
    chosen: dict[str, Intention] = {}
    for combatant in initiative.fighting(state):
        cid = combatant.id
        mine = fighter(state, cid)
        if mine.effect(SURPRISED) or (cid in state.surprised and state.tick == 1):
            chosen[cid] = Intention(kind="surprised")
        elif mine.casting is not None and not holding(state, cid):
            chosen[cid] = Intention(kind="continue", spell=mine.casting.spell)
        elif not can_attack(state, cid) and not can_move(state, cid):
            chosen[cid] = Intention(kind="helpless")
    return chosen


def holding(state: CombatIIState, cid: str) -> bool:
    """§2 A Holding a Spell: once cast, a held spell leaves the caster free to move."""
    casting = fighter(state, cid).casting
    return (
        casting is not None
        and casting.hold > 0
        and casting.begun_tick < state.tick
        and casting.left <= casting.hold
    )


def waiting(state: CombatIIState) -> list[str]:
    """Who must still declare this phase, losers before winners (§1 C)."""
    if state.stage != "intentions" or state.phase == ENDPHASE:
        return []
    undeclared = [c.id for c in initiative.fighting(state) if c.id not in state.intentions]
    losers = [cid for cid in undeclared if state.tracks.get(cid, "loser") == "loser"]
    return losers or undeclared


def declare(
    state: CombatIIState, cid: str, intention: Intention, ctx: DecideContext
) -> list[Event]:
    if state.stage != "intentions":
        raise RuleViolation("encounter/not-running", "the fight has not started", rule=SECTION)
    combatant = state.table.combatant(cid)
    if combatant.out_of_fight:
        raise RuleViolation("intention/out-of-fight", f"{combatant.name} is out of the fight")
    if cid in state.intentions:
        raise RuleViolation(
            "intention/already-declared",
            f"{combatant.name} has already declared this phase: {state.intentions[cid].kind}",
            rule=SECTION,
        )
    if cid not in waiting(state):
        raise RuleViolation(
            "intention/losers-first",
            "initiative losers state their intentions first; the winners answer them (§1 C): "
            f"waiting for {', '.join(state.table.combatant(c).name for c in waiting(state))}",
            rule=SECTION,
        )
    run = Run(state, ctx)
    run.emit([ctx.emit(IntentionDeclared(combatant_id=cid, intention=intention))])
    _resolve_when_ready(run)
    return run.events


def resolve_if_ready(state: CombatIIState, ctx: DecideContext) -> list[Event]:
    run = Run(state, ctx)
    _resolve_when_ready(run)
    return run.events


def _resolve_when_ready(run: Run) -> None:
    while run.state.stage == "intentions" and not waiting(run.state):
        if run.state.table.phase != "running" or not initiative.fighting(run.state):
            return
        _resolve_phase(run)


def _resolve_phase(run: Run) -> None:
    """§1 D-F: begin the declared spells, count the six half-segments (attacks and spells of
    a half-segment together), then move; then the phase ends."""
    run.emit(stop_clock(run.state.table.clocks, CLOCK, run.ctx))
    state = run.state
    for cid, intention in sorted(state.intentions.items()):
        if intention.kind == "cast":
            casting.begin(run, cid, intention)
        elif intention.kind in ("set-weapon", "cover-area"):
            what = "cover" if intention.kind == "cover-area" else intention.what or "set"
            weapon = intention.weapons[0]
            run.emit(
                [
                    run.ctx.emit(
                        WeaponReadied(
                            combatant_id=cid, what=what, ready=weapon, cells=intention.cells
                        )
                    )
                ]
            )
        elif intention.kind == "attack" and intention.draw is not None:
            run.emit(
                [run.ctx.emit(WeaponReadied(combatant_id=cid, what="swap", weapon=intention.draw))]
            )
        elif (
            intention.kind in ("attack", "charge", "move", "cast") and fighter(run.state, cid).ready
        ):
            run.emit([run.ctx.emit(ReadyEnded(combatant_id=cid))])
    movement.start(run)
    movement.reposition(run)
    strikes = _strikes(run.state)
    due = casting.completions(run.state)
    for offset in range(1, HALF_SEGMENTS + 1):
        now = [s for s in strikes if s.offset == offset]
        later = [s for s in strikes if s.offset > offset]
        ready, waiting_strikes = _retargeted(run.state, now)
        strikes = later + waiting_strikes
        number = half_segment(run.state.phase, offset, run.state.options.phase_system)
        if ready or due.get(offset):
            attacks.exchange(run, Exchange(ready, due.get(offset, [])), number)
        if run.state.options.incremental_movement:
            movement.step(run, offset)
    if not run.state.options.incremental_movement:
        movement.resolve(run)
    run.emit(casting.progress(run.state, run.ctx))
    run.emit(_prepared(run.state, run.ctx))
    _end_phase(run)


def _prepared(state: CombatIIState, ctx: DecideContext) -> list[Event]:
    """§2 E: a phase of preparation readies what was prepared, at the phase's end."""
    events: list[Event] = []
    for cid, intention in sorted(state.intentions.items()):
        if intention.kind not in ("prepare", "move") or intention.what in (None, "survey", "other"):
            continue  # a move's `what` is a preparation on the move (§2 E)
        if cid not in state.table.combatants or state.table.combatants[cid].out_of_fight:
            continue
        weapon = intention.weapons[0] if intention.weapons else None
        events.append(
            ctx.emit(WeaponReadied(combatant_id=cid, what=intention.what or "other", weapon=weapon))
        )
    return events


def _strikes(state: CombatIIState) -> list[Strike]:
    strikes: list[Strike] = []
    routine = 0
    for cid, intention in sorted(state.intentions.items()):
        if intention.kind in ("attack", "touch") and can_attack(state, cid):
            strikes += attacks.plan(state, cid, intention, routine)
            routine += 3
    return strikes


def _retargeted(state: CombatIIState, due: list[Strike]) -> tuple[list[Strike], list[Strike]]:
    """Strikes whose target fell earlier go to the fallback (+3 SF, maybe later) or wait."""
    ready: list[Strike] = []
    later: list[Strike] = []
    for strike in due:
        target = state.table.combatants.get(strike.target)
        if target is not None and not target.out_of_fight:
            ready.append(strike)
            continue
        moved = attacks.retarget(state, strike)
        if moved is None:
            continue
        (ready if moved.offset == strike.offset else later).append(moved)
    return ready, later


def _end_phase(run: Run) -> None:
    state = run.state
    system = state.options.phase_system
    if system == "II":
        casting.finish_round_spells(run)
    run.emit(_expire(run))
    run.emit(delays.after_phase(run.state, run.ctx))
    run.emit([run.ctx.emit(PhaseEnded(round=state.round, phase=state.phase, tick=state.tick))])
    if run.state.table.phase != "running":
        return
    if system == "II":
        if run.state.phase == 3:
            _new_round(run)
        else:
            _open_phase(run, run.state.phase + 1)
        return
    _open_phase(run, run.state.phase + 1)


def _expire(run: Run) -> list[Event]:
    """Effects that last through this phase end; a prone or sprawled fighter then makes the
    AGI check to stand or falls to its knees (§4 Critical Miss 9-10)."""
    state = run.state
    events: list[Event] = []
    for cid in sorted(state.fighters):
        for effect in fighter(state, cid).effects:
            if effect.until > state.tick:
                continue
            events.append(run.ctx.emit(EffectEnded(combatant_id=cid, name=effect.name)))
            if effect.on_end == "agility-or-knees" and cid in state.table.combatants:
                rolled = agility_check(state, run.ctx, cid, "regain footing")
                events.append(rolled)
                if not rolled.check.passed:
                    knees = Effect(name="knees", until=state.tick + 1)
                    events.append(run.ctx.emit(EffectApplied(combatant_id=cid, effect=knees)))
    return events


def _endphase(run: Run) -> None:
    """§1 H: phase 4 completes one-round spells (winners at 19, losers at 20); no movement
    or attacks. Then a new round begins."""
    state = run.state
    for track in ("winner", "loser"):
        for cid in sorted(state.fighters):
            mine = fighter(run.state, cid)
            spell = mine.casting
            if spell is None or spell.rounds is None or run.state.tracks.get(cid) != track:
                continue
            if spell.rounds > 1 or spell.left > 0:
                run.emit(casting.after_round(run.state, cid, run.ctx))
                continue
            number = half_segment(ENDPHASE, endphase_offset(track))
            done = attacks.Completion.of(cid, spell)
            attacks.exchange(run, Exchange([], [done]), number)
    run.emit([run.ctx.emit(PhaseEnded(round=state.round, phase=ENDPHASE, tick=state.tick))])
    if run.state.table.phase == "running":
        _new_round(run)
