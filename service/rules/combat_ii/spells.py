"""What a spell does when it goes off: where it is aimed and whom it catches (its range and
area), the saving throws it allows and the condition it leaves for its duration.

The seed leaves spell effects to the Player's Handbook ("all rules not discussed herein are
still viable") and adds three things: range "often requir[es] precision" (§2 D Incremental
Movement), a caster may wait "allowing allies to clear the area or opponents to enter it"
(§2 A Holding a Spell), and durations end with the phase the spell went off in, a round
being three phases (§3 B Spell Duration). §4 Agility: AGI gives the Defensive Adjustment
"for both AC and saves".
"""

from __future__ import annotations

from dataclasses import dataclass

from service.domain.errors import RuleViolation
from service.domain.grid import Cell, distance, on_map
from service.rules.combat_ii.combatants import ENHANCED_BLOWS, dex_score
from service.rules.combat_ii.events import DamageRolled, SaveRolled, TangentEstablished
from service.rules.combat_ii.evolve import fighter
from service.rules.combat_ii.run import Run
from service.rules.combat_ii.schedule import ACTION_PHASES
from service.rules.combat_ii.state import CombatIIState, Effect
from service.rules.combat_ii.stats import Spell, stats_of

SECTION = "combat-ii §2 A Spellcasting"
CONTACT = 3
"""2nd edition psionics: three tangents make contact (§2 B Special Option)."""


@dataclass(frozen=True)
class Aim:
    """Whom a spell going off catches, or that its point is beyond its range."""

    affected: tuple[str, ...] = ()
    out_of_range: bool = False


def check_aim(
    state: CombatIIState, cid: str, spell: Spell, target: str | None, at: Cell | None
) -> None:
    """Refuse, as the spell is declared, an aim its area or range does not allow."""
    if at is not None:
        if spell.area is None:
            raise RuleViolation(
                "cast/no-area",
                f"'{spell.name}' has no area: name the creature it is cast at (`target`)",
                rule=SECTION,
            )
        if target is not None:
            raise RuleViolation(
                "cast/two-aims",
                f"aim '{spell.name}' at a creature (`target`) or at a square (`at`), not both",
                rule=SECTION,
            )
        if state.table.map is None:
            raise RuleViolation("cast/no-map", "there is no map: aim at a creature instead")
        if not on_map(state.table.map, at):
            raise RuleViolation("map/off-map", f"cell ({at.x}, {at.y}) is not on the map")
    if spell.tangent and target is None:
        raise RuleViolation(
            "cast/no-target",
            f"'{spell.name}' makes a tangent on a creature: name its `target` (§2 B)",
            rule="combat-ii §2 B Psionics",
        )
    if target is not None and state.table.combatant(target).out_of_fight:
        raise RuleViolation("cast/target-down", f"{state.table.combatant(target).name} is down")
    apart = _apart(state, cid, _point(state, cid, spell, target, at))
    if spell.range is not None and not spell.touch and apart is not None and apart > spell.range:
        aimed = state.table.combatant(target).name if target else f"({at.x}, {at.y})" if at else ""
        raise RuleViolation(
            "cast/out-of-range",
            f"'{spell.name}' reaches {spell.range} square{'s' * (spell.range != 1)}; "
            f"{aimed} is {apart} away",
            rule=SECTION,
        )


def _point(
    state: CombatIIState, cid: str, spell: Spell, target: str | None, at: Cell | None
) -> Cell | None:
    """The square a spell goes off at: the one aimed at, else where its target stands now,
    else (an area spell cast at no one) the caster's own."""
    if at is not None:
        return at
    if target is not None:
        return state.table.combatant(target).position
    return state.table.combatant(cid).position if spell.area is not None else None


def _apart(state: CombatIIState, cid: str, point: Cell | None) -> int | None:
    origin = state.table.combatant(cid).position
    if state.table.map is None or origin is None or point is None:
        return None
    return distance(state.table.map, origin, point)


def aim(state: CombatIIState, cid: str, spell: Spell, target: str | None, at: Cell | None) -> Aim:
    """Where the spell is when it goes off: a target who has moved beyond the range escapes
    it (measured then, since "Spell or Missile Range is ... often requiring precision"); an
    area catches everyone standing in it, friend or foe (§2 A: "allowing allies to clear the
    area"); a spell with neither target nor area that leaves a condition is on the caster.
    Without a map the area is the GM's to judge: only the named target is caught."""
    point = _point(state, cid, spell, target, at)
    apart = _apart(state, cid, point)
    if spell.range is not None and apart is not None and apart > spell.range:
        return Aim(out_of_range=True)
    grid = state.table.map
    if spell.area is not None and grid is not None and point is not None:
        caught = sorted(
            c.id
            for c in state.table.combatants.values()
            if not c.out_of_fight
            and c.position is not None
            and distance(grid, point, c.position) <= spell.area
        )
        return Aim(tuple(caught))
    if target is None:
        return Aim((cid,) if spell.condition is not None or spell.blows is not None else ())
    return Aim(() if state.table.combatant(target).out_of_fight else (target,))


Hurt = tuple[str, int, list[Effect]]
"""Damage and effects for one target, applied with the rest of the half-segment's."""


def land(run: Run, cid: str, spell: Spell, aim: Aim, half_segment: int) -> list[Hurt]:
    """The spell takes effect on everyone it caught: its damage is rolled once for all of
    them (PH), then each saves on its own."""
    caster = run.state.table.combatant(cid)
    damage = None
    if spell.damage is not None and aim.affected:
        purpose = f"spell damage: {caster.name} ({spell.name})"
        rolled = run.ctx.roll(spell.damage, purpose, roller=cid)
        damage = Damage(rolled.total, rolled.text, "spell")
    return [resist(run, cid, target, spell, damage, half_segment) for target in aim.affected]


@dataclass(frozen=True)
class Damage:
    """A spell's damage as rolled, before any save: the amount, the dice and how."""

    amount: int
    text: str
    how: str


def resist(
    run: Run, cid: str, target: str, spell: Spell, damage: Damage | None, half_segment: int
) -> Hurt:
    """One creature's share of a spell: its saving throw for half or none of the damage
    and none of the condition; the condition lasts `duration` rounds of three phases, to
    the end of the phase it went off in (§3 B Spell Duration)."""
    saved = spell.save is not None and saving_throw(run, target, spell)
    dealt = 0
    if damage is not None:
        dealt, how = damage.amount, damage.how
        if saved and spell.save is not None:
            half = spell.save.effect == "half"
            dealt = dealt // 2 if half else 0
            how += ", saved for half" if half else ", negated by a save"
        run.emit(
            [
                run.ctx.emit(DamageRolled(
                    attacker=cid, target=target, source=spell.name, half_segment=half_segment,
                    amount=dealt, text=damage.text, how=how,
                ))
            ]
        )  # fmt: skip
    effects: list[Effect] = []
    if spell.duration is not None and not saved:
        until = run.state.tick + ACTION_PHASES * spell.duration
        if spell.condition is not None:
            effects.append(Effect(name=spell.condition, until=until, source=spell.name))
        if spell.blows is not None:
            enhanced = Effect(
                name=ENHANCED_BLOWS, until=until, value=spell.blows, source=spell.name
            )
            effects.append(enhanced)
    if spell.tangent and not saved and target != cid:
        _tangent(run, cid, target)
    return target, dealt, effects


def _tangent(run: Run, cid: str, target: str) -> None:
    """§2 B: a contact power's tangent; three tangents make contact (2nd edition psionics)."""
    made = min(CONTACT, fighter(run.state, cid).tangents.get(target, 0) + 1)
    run.emit(
        [
            run.ctx.emit(
                TangentEstablished(
                    combatant_id=cid, target=target, tangents=made, contact=made >= CONTACT
                )
            )
        ]
    )


def saving_throw(run: Run, cid: str, spell: Spell) -> bool:
    """PH: d20 at or over the save's number; the Defensive Adjustment (AGI with §4
    Agility, else DEX) adds to saves against what can be dodged, its sign turned (a
    defensive -2 to AC is +2 to the save)."""
    assert spell.save is not None
    state = run.state
    combatant = state.table.combatant(cid)
    stats = stats_of(combatant)
    kind = spell.save.against
    needed = stats.save_against(kind)
    bonus = stats.save_bonus
    if spell.dodged:
        bonus -= stats.defence_of(dex_score(state, stats))
    roll = run.ctx.die(20, f"save vs {kind}: {combatant.name} ({spell.name})", roller=cid)
    saved = roll + bonus >= needed
    run.emit(
        [
            run.ctx.emit(SaveRolled(
                combatant_id=cid, spell=spell.name, against=kind, roll=roll, bonus=bonus,
                needed=needed, saved=saved,
            ))
        ]
    )  # fmt: skip
    return saved
