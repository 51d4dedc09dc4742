"""Spellcasting (combat-ii §1 G, §2 A-B, §3 B): beginning a spell, the CT units that pass
on the caster's track each phase, completion, holding, and what casting forbids."""

from __future__ import annotations

from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Event
from service.domain.table_rules import adjust_pool
from service.rules.combat_ii import mana, spells
from service.rules.combat_ii.abilities import check
from service.rules.combat_ii.attacks import Completion, Exchange, exchange
from service.rules.combat_ii.events import (
    CastingDelayed,
    CastingProgressed,
    CheckRolled,
    SpellBegun,
)
from service.rules.combat_ii.evolve import fighter
from service.rules.combat_ii.run import Run
from service.rules.combat_ii.schedule import (
    CT_PER_PHASE,
    ENDPHASE,
    casting_offsets,
    max_ct,
    unit_offset,
)
from service.rules.combat_ii.state import Casting, CombatIIState, Intention
from service.rules.combat_ii.stats import Spell, stats_of

SECTION = "combat-ii §2 A Spellcasting"
MAX_HOLD = 6


def spell_of(state: CombatIIState, cid: str, name: str) -> Spell:
    stats = stats_of(state.table.combatant(cid))
    spell = stats.spell(name)
    if spell is None:
        known = ", ".join(s.name for s in stats.spells) or "none"
        raise RuleViolation(
            "cast/unknown-spell",
            f"{state.table.combatant(cid).name} does not know '{name}' (knows: {known})",
            rule=SECTION,
        )
    return spell


def check_cast(state: CombatIIState, cid: str, intention: Intention) -> Spell:
    """Refuse a casting the rules forbid, with the rule's words."""
    assert intention.spell is not None
    spell = spell_of(state, cid, intention.spell)
    mine = fighter(state, cid)
    system_one = state.options.phase_system == "I"
    if mine.casting is not None:
        raise RuleViolation(
            "cast/casting",
            f"'{mine.casting.spell}' is still being cast or held: one spell at a time (§2 A)",
            rule=SECTION,
        )
    if intention.hold and not state.options.hold_spells:
        raise RuleViolation("cast/no-holding", "holding spells is off in this encounter")
    if system_one:
        if mine.ruined_round == state.round:
            raise RuleViolation(
                "cast/ruined-this-round",
                "a caster whose spell was ruined may not begin another this round (§2 A)",
                rule=SECTION,
            )
        if spell.tangent:
            _tangent_allowed(state, cid, spell)
        elif mine.completed_round == state.round or mine.cast_round == state.round:
            raise RuleViolation(
                "cast/one-per-round",
                "only one spell may be cast each round (§2 A)",
                rule=SECTION,
            )
        if mine.attacked_round == state.round and not spell.touch:
            raise RuleViolation(
                "cast/attacked-this-round",
                "a caster who attacked this round cannot cast in it (§2 A), except a touch spell",
                rule=SECTION,
            )
        _fits_the_round(state, spell, intention)
    elif spell.tangent:
        _tangent_allowed(state, cid, spell)
    elif state.tick <= mine.cast_rest_until:
        raise RuleViolation(
            "cast/delay",
            f"still recovering from the last spell or attack: no casting until phase tick "
            f"{mine.cast_rest_until + 1} (§3 B Casting Delay)",
            rule="combat-ii §3 B",
        )
    if spell.material and not mine.components:
        raise RuleViolation(
            "cast/no-components",
            "material components must be in hand at the start of the casting phase: spend a "
            "phase readying them (`prepare` with what=components, §2 A)",
            rule=SECTION,
        )
    spells.check_aim(
        state, cid, spell, intention.targets[0] if intention.targets else None, intention.at
    )
    _can_pay(state, cid, spell)
    return spell


def _tangent_allowed(state: CombatIIState, cid: str, spell: Spell) -> None:
    """§2 B Special Option: "Tangents may be established at one per phase (our group allows up
    to 3 per round instead of the normal two)": a contact power is not the round's casting
    (nor, in System II, followed by the casting delay), but is limited to
    `tangents_per_round` a round (and needs a target, `spells.check_aim`)."""
    mine = fighter(state, cid)
    made = mine.tangents_in_round if mine.tangent_round == state.round else 0
    limit = state.options.tangents_per_round
    if made >= limit:
        raise RuleViolation(
            "cast/tangents",
            f"{made} tangent{'s' * (made != 1)} already this round: {limit} a round (§2 B)",
            rule="combat-ii §2 B Psionics",
        )


def _fits_the_round(state: CombatIIState, spell: Spell, intention: Intention) -> None:
    """§1 G: begun in phase 2 a spell may not exceed CT 6, in phase 3 CT 3; one-round spells
    begin in phase 1. A held spell may run into the next round (§2 A)."""
    if spell.rounds is not None:
        if state.phase != 1:
            raise RuleViolation(
                "cast/too-late",
                f"'{spell.name}' takes a round: it must begin in phase 1 (§1 Table 1)",
                rule="combat-ii §1 G",
            )
        return
    units = spell.units + (1 if intention.step is not None else 0)
    if units > max_ct(state.phase):
        raise RuleViolation(
            "cast/too-late",
            f"a spell begun in phase {state.phase} may take at most CT {max_ct(state.phase)}; "
            f"'{spell.name}' needs {units} (§1 G)",
            rule="combat-ii §1 G",
        )


def _can_pay(state: CombatIIState, cid: str, spell: Spell) -> dict[str, int]:
    system = state.options.mana
    caster = stats_of(state.table.combatant(cid)).caster
    if system == "none" or spell.psionic or caster is None:
        return {}
    pools = state.table.combatant(cid).resource_values()
    # §5 INNATE SPELLS: powers at will or per hour are accounted for "separately".
    drawn = mana.innate_draw(caster, spell.name, pools)
    if drawn is None:
        drawn = mana.spend(pools, system, spell.level, spell.specialty, mana.highest_of(caster))
    if isinstance(drawn, str):
        raise RuleViolation(
            "cast/no-mana", f"cannot cast '{spell.name}': {drawn}", rule="combat-ii §5"
        )
    return drawn


def begin(run: Run, cid: str, intention: Intention) -> None:
    """A declared casting starts: pay for it (§5: the pool pays when the casting begins, so a
    ruined spell is spent), or delay it a phase after a hit and a failed CON check (§2 A)."""
    state = run.state
    assert intention.spell is not None
    spell = spell_of(state, cid, intention.spell)
    begun = state.tick
    mine = fighter(state, cid)
    if mine.damaged_tick == state.tick - 1 and state.tick > 1:
        con = stats_of(state.table.combatant(cid)).constitution
        rolled = check(run.ctx, "constitution", con, 0, "concentrate after a hit", roller=cid)
        run.emit([run.ctx.emit(CheckRolled(combatant_id=cid, check=rolled))])
        if not rolled.passed:
            run.emit([run.ctx.emit(CastingDelayed(combatant_id=cid, spell=spell.name))])
            begun += 1
    for pool, amount in _can_pay(state, cid, spell).items():
        run.emit(
            adjust_pool(
                run.state.table,
                cid,
                pool,
                -amount,
                None,
                None,
                f"cast {spell.name}",
                run.ctx,
                False,
            )
        )
    units = spell.units + (1 if intention.step is not None else 0) + intention.hold
    rounds = None
    if spell.rounds is not None:
        units = intention.hold
        phases_per_round = 3 if state.options.phase_system == "II" else 1
        rounds = spell.rounds * phases_per_round
    casting = Casting(
        spell=spell.name,
        target=intention.targets[0] if intention.targets else None,
        left=units,
        rounds=rounds,
        begun_tick=begun,
        round=state.round,
        somatic=spell.somatic,
        hold=intention.hold,
        material=spell.material,
        touch=spell.touch,
        shifted=intention.shift is not None,
        at=intention.at,
        enhances=spell.blows is not None,
        tangent=spell.tangent,
    )
    run.emit(
        [
            run.ctx.emit(
                SpellBegun(combatant_id=cid, casting=casting, completes=_when(state, casting))
            )
        ]
    )


def _when(state: CombatIIState, casting: Casting) -> str:
    if casting.rounds is not None:
        if state.options.phase_system == "II":  # `rounds` counts phases there: 3 a round
            return f"in {casting.rounds + casting.begun_tick - state.tick} phases"
        last = state.round + casting.rounds - 1
        return "at the end of the round" if last == state.round else f"at the end of round {last}"
    phases = -(-casting.left // CT_PER_PHASE) - 1 + (casting.begun_tick - state.tick)
    return "this phase" if phases == 0 else f"in {phases} more phase{'s' * (phases != 1)}"


def completion_offset(state: CombatIIState, cid: str) -> int | None:
    """The half-segment of this phase in which the caster's spell goes off, if it does."""
    casting = fighter(state, cid).casting
    if casting is None or casting.begun_tick > state.tick or casting.rounds is not None:
        return None
    if state.phase == ENDPHASE:
        return None
    intention = state.intentions.get(cid)
    if intention is not None and intention.kind == "release":
        return None  # let go in the movement portion instead (movement.release)
    if 0 < casting.left <= CT_PER_PHASE:
        return unit_offset(casting.left, state.tracks.get(cid, "loser"))
    if casting.left == 0:
        return casting_offsets(state.tracks.get(cid, "loser"))[0]
    return None


def completions(state: CombatIIState) -> dict[int, list[Completion]]:
    due: dict[int, list[Completion]] = {}
    for cid in sorted(state.fighters):
        offset = completion_offset(state, cid)
        casting = fighter(state, cid).casting
        if offset is not None and casting is not None:
            done = Completion.of(cid, casting)
            due.setdefault(offset, []).append(done)
    return due


def progress(state: CombatIIState, ctx: DecideContext) -> list[Event]:
    """At the end of a phase: CT units spent by spells still going; System II one-round
    spells count phases."""
    events: list[Event] = []
    for cid in sorted(state.fighters):
        casting = fighter(state, cid).casting
        if casting is None or casting.begun_tick > state.tick:
            continue
        if casting.rounds is not None:
            if state.options.phase_system == "II":
                events.append(
                    ctx.emit(
                        CastingProgressed(
                            combatant_id=cid, left=casting.left, rounds=casting.rounds - 1
                        )
                    )
                )
            continue
        if casting.left > CT_PER_PHASE:
            left = casting.left - CT_PER_PHASE
            events.append(ctx.emit(CastingProgressed(combatant_id=cid, left=left, rounds=None)))
    return events


def after_round(state: CombatIIState, cid: str, ctx: DecideContext) -> list[Event]:
    """System I endphase: a spell of several rounds has one fewer to go; a one-round spell
    held past its round goes on in CT units (§2 A Holding a Spell)."""
    casting = fighter(state, cid).casting
    if casting is None or casting.rounds is None:
        return []
    if casting.rounds > 1:
        return [
            ctx.emit(
                CastingProgressed(combatant_id=cid, left=casting.left, rounds=casting.rounds - 1)
            )
        ]
    return [ctx.emit(CastingProgressed(combatant_id=cid, left=casting.left, rounds=None))]


def finish_round_spells(run: Run) -> None:
    """§3 B: a one-round spell "goes off after all other actions (including movement) at the
    end of the third phase of casting"."""
    for cid in sorted(run.state.fighters):
        casting = fighter(run.state, cid).casting
        if casting is None or casting.rounds != 0:
            continue
        if casting.left > 0:
            run.emit(
                [run.ctx.emit(CastingProgressed(combatant_id=cid, left=casting.left, rounds=None))]
            )
            continue
        done = Completion.of(cid, casting)
        exchange(run, Exchange([], [done]), 6)
