"""Physical attacks (combat-ii §1 E, §2 C): routines scheduled by speed factor, and the
simultaneous exchange of one half-segment: every to-hit roll, then every damage roll, then
the damage and its incapacitation applied together (§1 E Simultaneous Actions, Overkill)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from service.domain.grid import Cell
from service.domain.messages import Event
from service.domain.table_rules import adjust_pool
from service.rules.combat_ii import criticals, spells
from service.rules.combat_ii.allowance import left_with, may_respond
from service.rules.combat_ii.combatants import (
    ASLEEP,
    adjusted_sf,
    can_attack,
    damage_bonus,
    engaged_with,
    needed,
    ready_weapon,
    within,
)
from service.rules.combat_ii.events import (
    AttackRolled,
    DamageRolled,
    EffectApplied,
    EffectEnded,
    ShotIntoMelee,
    SpellCompleted,
    SpellRuined,
)
from service.rules.combat_ii.evolve import fighter
from service.rules.combat_ii.run import Run
from service.rules.combat_ii.schedule import HALF_SEGMENTS, strike_offset
from service.rules.combat_ii.state import Casting, CombatIIState, Effect, Intention
from service.rules.combat_ii.stats import MELEE_SHARE, Weapon, stats_of

RETARGET_SF = 3
"""§2 C Retargeting: a new target in the same phase costs +3 SF."""
STEP_SF = 2
"""§2 C Repositioning Movement: a step of up to 10 ft before an attack costs +2 SF."""
DRAW_SF = 3
"""§2 E: dropping one weapon and drawing another as part of an attack costs +3 SF."""


_SCHEDULED = frozenset({"attack", "touch", "extra", "free"})


@dataclass(frozen=True)
class Strike:
    """One attack component due in a half-segment of the current phase."""

    attacker: str
    target: str
    weapon: str
    offset: int
    sf: int
    routine: int = 0
    order: int = 0
    kind: str = "attack"
    fallback: str | None = None
    multiplier: int = 1
    spell: str | None = None
    hit_bonus: int = 0
    placed: bool = True
    """Placed in its half-segment by a speed factor; False for a blow of the movement portion
    (a move's attack on a surprised foe, a free attack on a fleer), whose `sf` is 0."""


@dataclass
class Completion:
    """A spell that goes off in a half-segment."""

    caster: str
    spell: str
    target: str | None
    touch: bool = False
    at: Cell | None = None

    @classmethod
    def of(cls, cid: str, casting: Casting) -> Completion:
        return cls(cid, casting.spell, casting.target, casting.touch, casting.at)


@dataclass
class Exchange:
    strikes: list[Strike] = field(default_factory=list)
    completions: list[Completion] = field(default_factory=list)


def weapon_named(state: CombatIIState, cid: str, name: str) -> Weapon:
    found = stats_of(state.table.combatant(cid)).weapon(name)
    assert found is not None, name
    return found


def routine_sf(state: CombatIIState, cid: str, intention: Intention) -> int:
    """§2 C Multi-Part Attack Routine: the slowest component's SF, plus a step (+2) or a
    drop-and-draw (+3)."""
    combatant = state.table.combatant(cid)
    sf = max(adjusted_sf(state, combatant, weapon_named(state, cid, w)) for w in intention.weapons)
    if intention.step is not None:
        sf += STEP_SF
    if intention.draw is not None:
        sf += DRAW_SF
    return sf


def plan(state: CombatIIState, cid: str, intention: Intention, routine: int) -> list[Strike]:
    """The strikes an attack intention makes this phase: each component at the routine's
    SF on the combatant's track; a double attack's second routine lands its SF later (§2 C
    Multiple Attacks: "adding his weapon's SF to the half-segment of the first attack")."""
    track = state.tracks.get(cid, "loser")
    sf = 1 if cid in state.ambushers and state.round == 1 and state.phase == 1 else None
    sf = sf if sf is not None else routine_sf(state, cid, intention)
    offset = strike_offset(sf, track)
    strikes = _components(cid, intention, offset, sf, routine)
    if intention.twice:
        later = min(HALF_SEGMENTS, offset + max(sf, 1))
        strikes += _components(cid, intention, later, sf, routine + 1)
    if fighter(state, cid).effect("free-attack") is not None:
        # §4 Critical Hit 10: "one free attack next phase (in addition to regular attacks)".
        stats = stats_of(state.table.combatant(cid))
        spent = all(left_with(state, cid, stats, w) <= 0 for w in intention.weapons)
        if spent:
            return [replace(s, kind="free") for s in strikes]
        later = min(HALF_SEGMENTS, offset + max(sf, 1))
        extra = _components(cid, intention, later, sf, routine + 2)
        strikes += [replace(s, kind="free") for s in extra]
    return strikes


def _components(cid: str, intention: Intention, offset: int, sf: int, routine: int) -> list[Strike]:
    targets = intention.targets
    return [
        Strike(
            attacker=cid,
            target=targets[i] if len(targets) > 1 else targets[0],
            weapon=weapon,
            offset=offset,
            sf=sf,
            routine=routine,
            order=i,
            kind="touch" if intention.kind == "touch" else "attack",
            fallback=intention.fallback,
            spell=intention.spell if intention.kind == "touch" else None,
        )
        for i, weapon in enumerate(intention.weapons)
    ]


def retarget(state: CombatIIState, strike: Strike) -> Strike | None:
    """§2 C Retargeting: a target that fell in an earlier half-segment is replaced by the
    declared fallback (within striking distance) at +3 SF, or the attack waits (None)."""
    if strike.fallback is None:
        return None
    fallback = state.table.combatants.get(strike.fallback)
    attacker = state.table.combatant(strike.attacker)
    weapon = weapon_named(state, strike.attacker, strike.weapon)
    if fallback is None or fallback.out_of_fight:
        return None
    if weapon.kind != "missile" and not within(state, attacker, fallback, weapon.reach):
        return None
    sf = strike.sf + RETARGET_SF
    offset = max(strike.offset, strike_offset(sf, state.tracks.get(strike.attacker, "loser")))
    if offset > HALF_SEGMENTS:
        return None
    return replace(strike, target=strike.fallback, sf=sf, offset=offset, fallback=None)


def exchange(run: Run, batch: Exchange, half_segment: int) -> None:
    """One half-segment: to-hit rolls (grouped by target), damage rolls, spells going off,
    then all damage applied at once; a caster hurt while casting loses the spell."""
    hits: list[tuple[Strike, criticals.HitOutcome]] = []
    lost: set[tuple[str, int]] = set()
    queue = sorted(batch.strikes, key=lambda s: (s.target, s.attacker, s.routine, s.order))
    while queue:
        strike = queue.pop(0)
        if (strike.attacker, strike.routine) in lost or not _able(run.state, strike):
            continue
        strike = _into_melee(run, strike)
        outcome, extra, lose_rest = _roll_to_hit(run, strike, half_segment)
        if outcome is not None:
            hits.append((strike, outcome))
        queue += extra
        if lose_rest:
            lost.add((strike.attacker, strike.routine))
    damage: list[tuple[str, int, list[Effect]]] = []
    for strike, outcome in hits:
        amount = _roll_damage(run, strike, outcome, half_segment)
        if amount or outcome.target_effects:
            damage.append((strike.target, amount, outcome.target_effects))
    for done in batch.completions:
        casting = fighter(run.state, done.caster).casting
        if casting is not None and casting.spell == done.spell:  # not ruined meanwhile
            damage += _complete(run, done, half_segment)
    _apply(run, damage, half_segment)
    _returned(run, batch.strikes, half_segment)


def _returned(run: Run, strikes: list[Strike], half_segment: int) -> None:
    """§2 F: "the bushwhacked combatant must pass a surprise roll in order to return the
    attack": one that passed (`return-ready`) answers an ambusher's strike at once with its
    ready weapon, if it may respond as a charged defender may (§2 D) and is within reach."""
    state = run.state
    answers: list[Strike] = []
    for (attacker, target), offset in {(s.attacker, s.target): s.offset for s in strikes}.items():
        if fighter(state, target).returns.get(attacker, -1) < state.tick:
            continue
        if not may_respond(state, target) or any(a.attacker == target for a in answers):
            continue
        weapon_name = ready_weapon(state, target)
        if weapon_name is None:
            continue
        weapon = weapon_named(state, target, weapon_name)
        foe, me = state.table.combatant(attacker), state.table.combatant(target)
        if weapon.kind != "missile" and not within(state, me, foe, weapon.reach):
            continue
        answers.append(Strike(target, attacker, weapon_name, offset, 0, kind="counter"))
    if answers:
        exchange(run, Exchange(answers), half_segment)


def _able(state: CombatIIState, strike: Strike) -> bool:
    """The attacker can still strike and a melee target is still in reach (with incremental
    movement a target may have walked away earlier in the phase: the blow is not made); a
    missile weapon's target is still within its long range (PH: missile ranges), or the shot
    is not made either."""
    target = state.table.combatants.get(strike.target)
    attacker = state.table.combatants.get(strike.attacker)
    if target is None or target.out_of_fight or attacker is None:
        return False
    weapon = weapon_named(state, strike.attacker, strike.weapon)
    if weapon.kind != "missile" and not within(state, attacker, target, weapon.reach):
        return False
    if weapon.range is not None and not within(state, attacker, target, weapon.range[2]):
        return False
    if fighter(state, strike.attacker).ammunition_left(weapon) == 0:
        return False  # no missile left for a critical's extra or free shot
    return strike.kind in ("counter", "set", "cover", "extra") or can_attack(state, strike.attacker)


def _into_melee(run: Run, strike: Strike) -> Strike:
    """DMG Firing Into a Melee (the seed: "all rules not discussed herein are still viable"):
    with the `random` option, a declared missile attack at a target engaged in melee goes at
    one of the figures in its immediate area (the target and everyone next to it but the
    shooter), each as likely as its size: a die of the shares' total, counted off in the
    order of their ids. The attack is then rolled against that figure."""
    state = run.state
    if state.options.firing_into_melee != "random" or strike.kind != "attack":
        return strike
    target = state.table.combatant(strike.target)
    if weapon_named(state, strike.attacker, strike.weapon).kind != "missile":
        return strike
    if not engaged_with(state, target):
        return strike
    near = sorted(
        (
            c
            for c in state.table.combatants.values()
            if c.id == target.id
            or (
                c.id != strike.attacker
                and not c.out_of_fight
                and c.position is not None
                and within(state, target, c, 1)
            )
        ),
        key=lambda c: c.id,
    )
    shares = {c.id: MELEE_SHARE[stats_of(c).size] for c in near}
    attacker = state.table.combatant(strike.attacker).name
    purpose = f"firing into a melee: {attacker} at {target.name}"
    roll = run.ctx.die(sum(shares.values()), purpose, roller=strike.attacker)
    counted = 0
    chosen = target.id
    for cid, share in shares.items():
        counted += share
        if roll <= counted:
            chosen = cid
            break
    run.emit(
        [
            run.ctx.emit(ShotIntoMelee(
                attacker=strike.attacker, intended=target.id, target=chosen, roll=roll,
                shares=shares,
            ))
        ]
    )  # fmt: skip
    return replace(strike, target=chosen)


def _sf(state: CombatIIState, strike: Strike) -> int | None:
    """The SF that set the strike's half-segment, None where no speed factor placed it (the
    movement portion's blows; before 1.1.0 a move's attack and a free attack on a fleer
    said 0: `state.unplaced_sf_null` is False in streams recorded then)."""
    if strike.kind not in _SCHEDULED:
        return None
    return None if state.unplaced_sf_null and not strike.placed else strike.sf


def _roll_to_hit(
    run: Run, strike: Strike, half_segment: int
) -> tuple[criticals.HitOutcome | None, list[Strike], bool]:
    state, ctx = run.state, run.ctx
    attacker = state.table.combatant(strike.attacker)
    target = state.table.combatant(strike.target)
    weapon = weapon_named(state, strike.attacker, strike.weapon)
    need = needed(state, attacker, target, weapon) - strike.hit_bonus
    purpose = f"to hit: {attacker.name} at {target.name} ({weapon.name})"
    roll = ctx.die(20, purpose, roller=attacker.id)
    hit = roll == 20 or (roll != 1 and roll >= need)
    severe = state.options.criticals == "tables" and hit and roll != 20 and roll - need >= 10
    run.emit(
        [
            ctx.emit(AttackRolled(
                attacker=strike.attacker, target=strike.target, weapon=strike.weapon,
                half_segment=half_segment, roll=roll, needed=need, hit=hit, severe=severe,
                kind=strike.kind, sf=_sf(state, strike),
                track=state.tracks.get(strike.attacker),
            ))
        ]
    )  # fmt: skip
    if not hit:
        run.emit(criticals.on_miss(run.state, ctx, strike.attacker, weapon, roll, need))
        return None, [], roll == 1 and state.options.criticals == "tables"
    outcome, events = criticals.on_hit(run.state, ctx, strike.attacker, strike.target, roll, need)
    run.emit(events)
    extra: list[Strike] = []
    if outcome.extra_attack:
        # §4 Critical Hit 9-10: the additional attack "include[s] opponent's +4 AC penalty":
        # the stun lands before it is rolled.
        stun: list[Event] = [
            ctx.emit(EffectApplied(combatant_id=strike.target, effect=e))
            for e in outcome.target_effects
        ]
        run.emit(stun)
        outcome.target_effects = []
        extra = [replace(strike, kind="extra")]
    if outcome.free_next:
        free = Effect(name="free-attack", until=state.tick + 1)
        run.emit([ctx.emit(EffectApplied(combatant_id=strike.attacker, effect=free))])
    return outcome, extra, False


def _roll_damage(run: Run, strike: Strike, outcome: criticals.HitOutcome, half_segment: int) -> int:
    state = run.state
    attacker = state.table.combatant(strike.attacker)
    weapon = weapon_named(state, strike.attacker, strike.weapon)
    if strike.spell is not None:
        return _touched(run, strike, outcome, half_segment)
    bonus = damage_bonus(state, attacker, weapon)
    expression = weapon.damage
    if strike.multiplier > 1:
        expression = f"{strike.multiplier}*({weapon.damage})"
    faces: list[str] = []
    amount, how = criticals.roll_damage(
        run.ctx,
        expression,
        bonus,
        outcome,
        f"damage: {attacker.name} ({weapon.name})",
        roller=attacker.id,
        faces=faces,
    )
    text = damage_text(state, expression, faces)
    run.emit(
        [
            run.ctx.emit(DamageRolled(
                attacker=strike.attacker, target=strike.target, source=weapon.name,
                half_segment=half_segment, amount=amount, text=text, how=how,
            ))
        ]
    )  # fmt: skip
    return amount


def damage_text(state: CombatIIState, expression: str, faces: list[str]) -> str:
    """`damage-rolled.text`: each roll with its faces (`1d8 (6) = 6`; two for a best of two),
    as a spell's shows them, or the expression where nothing was rolled (a maximum). Before
    1.1.0 (`state.damage_text_faces` False) a weapon's and a touch's said the expression."""
    return "; ".join(faces) if state.damage_text_faces and faces else expression


def _touched(run: Run, strike: Strike, outcome: criticals.HitOutcome, half_segment: int) -> int:
    """§2 A Touch Spells: the touch delivers the spell: its damage (a critical's as a
    weapon's) and, unless the target saves, its condition."""
    attacker = run.state.table.combatant(strike.attacker)
    spell = stats_of(attacker).spell(strike.spell or "")
    if spell is None:
        return 0
    damage = None
    if spell.damage is not None:
        faces: list[str] = []
        amount, how = criticals.roll_damage(
            run.ctx,
            spell.damage,
            0,
            outcome,
            f"damage: {attacker.name} ({spell.name})",
            roller=attacker.id,
            faces=faces,
        )
        damage = spells.Damage(amount, damage_text(run.state, spell.damage, faces), how)
    _, amount, effects = spells.resist(
        run, strike.attacker, strike.target, spell, damage, half_segment
    )
    outcome.target_effects = [*outcome.target_effects, *effects]
    return amount


def _complete(run: Run, done: Completion, half_segment: int) -> list[spells.Hurt]:
    state = run.state
    spell = stats_of(state.table.combatant(done.caster)).spell(done.spell)
    aim = spells.Aim()
    if spell is not None and not done.touch:
        aim = spells.aim(state, done.caster, spell, done.target, done.at)
    run.emit(
        [
            run.ctx.emit(SpellCompleted(
                combatant_id=done.caster, spell=done.spell, target=done.target,
                half_segment=half_segment, touch=done.touch, at=done.at,
                affected=aim.affected, out_of_range=aim.out_of_range,
            ))
        ]
    )  # fmt: skip
    if spell is None or done.touch:
        return []
    return spells.land(run, done.caster, spell, aim, half_segment)


def _apply(run: Run, damage: list[tuple[str, int, list[Effect]]], half_segment: int) -> None:
    """§1 E: dying and other incapacitation occur after the half-segment's actions."""
    hurt: set[str] = set()
    for target, amount, effects in damage:
        if target not in run.state.table.combatants:
            continue
        reason = f"half-segment {half_segment}"
        if amount:
            table = run.state.table
            run.emit(adjust_pool(table, target, "hp", -amount, None, None, reason, run.ctx, False))
            hurt.add(target)
            if fighter(run.state, target).effect(ASLEEP) is not None:
                run.emit(
                    [run.ctx.emit(EffectEnded(combatant_id=target, name=ASLEEP))]
                )  # PH: wounds wake
        run.emit([run.ctx.emit(EffectApplied(combatant_id=target, effect=e)) for e in effects])
    for cid in sorted(hurt):
        ruin(run, cid, half_segment, "hurt while casting")


def ruin(run: Run, cid: str, half_segment: int, reason: str) -> None:
    """§2 A Caster Takes Damage: a spell being cast (or held) is ruined."""
    casting = fighter(run.state, cid).casting
    if casting is not None and casting.begun_tick <= run.state.tick:
        run.emit(
            [
                run.ctx.emit(
                    SpellRuined(
                        combatant_id=cid,
                        spell=casting.spell,
                        half_segment=half_segment,
                        reason=reason,
                    )
                )
            ]
        )
