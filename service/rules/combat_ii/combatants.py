"""What the rules read off a combatant: adjusted speed factor, armor class as the attacker
sees it, to-hit and damage bonuses, and who can still act (combat-ii §1 E, §2 C, §4)."""

from __future__ import annotations

from service.domain.grid import Cell, distance
from service.domain.table import Combatant
from service.rules.combat_ii.abilities import ThiefSkill, skill_adjustment
from service.rules.combat_ii.evolve import fighter
from service.rules.combat_ii.state import CombatIIState, Effect
from service.rules.combat_ii.stats import (
    NATURAL_SF,
    WEAPON_SF_ADJUSTMENT,
    CombatIIStats,
    Weapon,
    stats_of,
)

DAZED, STUNNED, KNEES, PRONE, SPRAWLED = "dazed", "stunned", "knees", "prone", "sprawled"
FALLEN, DEFENCELESS, MISSTEP, SEVERE_MISS, NO_AGILITY = (
    "fallen", "defenceless", "misstep", "severe-miss", "no-agility",
)  # fmt: skip
NO_MOVE, SURPRISED, CHARGING = "no-move", "surprised", "charging"
HELD, ASLEEP, ENHANCED_BLOWS = "held", "asleep", "enhanced-blows"
"""Spell conditions (PH): neither can act; each is a stationary, defenceless target (§2 C)."""
# §4 Critical Hit and Miss Tables I and §2 D: what each state does to armor class.
AC_PENALTY = {
    DAZED: 1, STUNNED: 4, KNEES: 2, PRONE: 4, SPRAWLED: 4, FALLEN: 4, DEFENCELESS: 4,
    HELD: 4, ASLEEP: 4,
}  # fmt: skip
NO_ATTACKS = frozenset({STUNNED, KNEES, PRONE, SPRAWLED, FALLEN, SURPRISED, HELD, ASLEEP})
NO_MOVEMENT = frozenset({STUNNED, PRONE, SPRAWLED, FALLEN, NO_MOVE, SURPRISED, HELD, ASLEEP})


def base_sf(stats: CombatIIStats, weapon: Weapon) -> int:
    """combat-ii §1 E Table 2: natural attacks take the size's SF; weapons their own SF
    adjusted for size."""
    if weapon.kind == "natural" and weapon.speed is None:
        return NATURAL_SF[stats.size]
    own = weapon.speed if weapon.speed is not None else 5
    return own if weapon.kind == "natural" else own + WEAPON_SF_ADJUSTMENT[stats.size]


def adjusted_sf(state: CombatIIState, combatant: Combatant, weapon: Weapon) -> int:
    """combat-ii §1 E: base SF - magic bonus - style specialization; §4 Agility adds the
    DEX Reaction Adjustment; a misstep (+2) and a severe miss add their penalties."""
    stats = stats_of(combatant)
    sf = base_sf(stats, weapon) - weapon.magic - weapon.style
    if state.options.agility:
        sf -= stats.reaction_of(stats.dexterity)
    mine = fighter(state, combatant.id)
    if started(state, mine.effect(MISSTEP)):
        sf += 2
    penalty = mine.effect(SEVERE_MISS)
    if penalty is not None:
        sf += penalty.value
    return sf


def started(state: CombatIIState, effect: Effect | None) -> bool:
    """An effect for "next phase" (a misstep) takes hold when that phase begins."""
    return effect is not None and effect.starts <= state.tick


def dex_score(state: CombatIIState, stats: CombatIIStats) -> int:
    """§4 Agility: AGI gives the Defensive Adjustment when the option is on."""
    if state.options.agility and stats.agility is not None:
        return stats.agility
    return stats.dexterity


def still_casting(state: CombatIIState, cid: str) -> bool:
    """In the midst of an incantation (§1 G): from the phase the casting begins until the
    spell is cast, a spell of rounds throughout; holding it is not casting (§2 A)."""
    casting = fighter(state, cid).casting
    return (
        casting is not None
        and casting.begun_tick <= state.tick
        and (casting.rounds is not None or casting.left > casting.hold)
    )


def casting_bars_attack(state: CombatIIState, cid: str) -> bool:
    """System I, §2 A: no physical attack in a round of casting (a spell begun, cast or
    ruined in it, or a tangent made), except the touch of a touch spell. §2 B: a power that
    enhances physical blows "should allow subsequent physical attacks"."""
    mine = fighter(state, cid)
    if state.options.phase_system != "I":
        return False
    enhanced = mine.completed_round == state.round and mine.enhanced_tick == mine.completed_tick
    cast = mine.cast_round == state.round and not enhanced
    return mine.casting is not None or cast or mine.tangent_round == state.round


def casting_somatic(state: CombatIIState, cid: str) -> bool:
    """§2 C: a caster invoking a somatic spell is a stationary, defenceless target: from
    the phase its casting begins until the spell is cast (holding it, the caster moves
    freely, §2 A)."""
    casting = fighter(state, cid).casting
    return casting is not None and casting.somatic and still_casting(state, cid)


def loses_dex_bonus(state: CombatIIState, combatant: Combatant) -> bool:
    """No Dexterity bonus: defenceless, fallen, prone, charging, casting a somatic spell, or
    shifting while casting one without (§2 A: "receives no dexterity bonus towards AC during
    casting (he is NOT considered a stationary target, though)")."""
    mine = fighter(state, combatant.id)
    shifting = mine.casting is not None and mine.casting.shifted and mine.casting.left > 0
    return (
        any(
            mine.effect(name)
            for name in (DEFENCELESS, FALLEN, NO_AGILITY, CHARGING, PRONE, HELD, ASLEEP)
        )
        or casting_somatic(state, combatant.id)
        or shifting
    )


def armor_class(state: CombatIIState, combatant: Combatant) -> int:
    """The target's AC now: the sheet's AC (with its DEX bonus), worse by each state it is
    in, without the DEX bonus when it cannot dodge (§2 C Stationary, Defenceless Target:
    +4 and no DEX bonus, which covers a caster of a somatic spell)."""
    stats = stats_of(combatant)
    mine = fighter(state, combatant.id)
    ac = stats.ac + sum(AC_PENALTY.get(e.name, 0) for e in mine.effects)
    if casting_somatic(state, combatant.id) and not mine.effect(DEFENCELESS):
        ac += AC_PENALTY[DEFENCELESS]
    if loses_dex_bonus(state, combatant):
        ac -= min(0, stats.defence_of(dex_score(state, stats)))
    if mine.effect(CHARGING) and stats.mounted:
        ac -= 2  # §2 D Charging: "gains -2 bonus if mounted"
    return ac


def strength_damage(state: CombatIIState, stats: CombatIIStats) -> int:
    """§4 Severity Rules, Strength: damage column minus to-hit column, keeping +1 or below
    as is (18/99: +2/+5 becomes +2/+3)."""
    if state.options.criticals != "severity" or stats.strength_damage <= 1:
        return stats.strength_damage
    return stats.strength_damage - stats.strength_hit


def listed_split(state: CombatIIState, stats: CombatIIStats) -> tuple[int, int]:
    """§4 Creatures with listed damage bonus only: in full as damage, or (option) half,
    rounded down, to hit and the rest as damage."""
    if state.options.criticals == "severity" and state.options.listed_damage == "half":
        to_hit = stats.listed_damage // 2
        return to_hit, stats.listed_damage - to_hit
    return 0, stats.listed_damage


def hit_bonus(state: CombatIIState, combatant: Combatant, weapon: Weapon) -> int:
    stats = stats_of(combatant)
    severity = state.options.criticals == "severity"
    missile = stats.reaction_of(stats.dexterity)
    if weapon.kind != "missile":
        bonus = stats.strength_hit
    elif severity:
        # §4 Missile Weapons: the greater of STR to-hit and DEX for weapons allowing STR.
        bonus = max(stats.strength_hit, missile) if weapon.uses_strength else missile
    else:
        bonus = missile + (stats.strength_hit if weapon.uses_strength else 0)
    bonus += weapon.magic + listed_split(state, stats)[0]
    if weapon.specialization:
        bonus += weapon.specialization if severity else 1
    mine = fighter(state, combatant.id)
    bonus -= 2 if mine.effect(DAZED) else 0
    bonus -= 1 if started(state, mine.effect(MISSTEP)) else 0
    return bonus + enhancement(state, combatant.id)


def enhancement(state: CombatIIState, cid: str) -> int:
    """§2 B: "Some psionic abilities enhance physical blows": + to hit and damage."""
    enhanced = fighter(state, cid).effect(ENHANCED_BLOWS)
    return enhanced.value if enhanced is not None else 0


def damage_bonus(state: CombatIIState, combatant: Combatant, weapon: Weapon) -> int:
    """Standard 2nd edition adds STR damage, the magical plus and specialization's +2;
    §4 Severity adds the converted STR damage only ("NOT automatically added in full")."""
    stats = stats_of(combatant)
    severity = state.options.criticals == "severity"
    bonus = listed_split(state, stats)[1]
    if weapon.uses_strength:
        bonus += strength_damage(state, stats)
    if not severity:
        bonus += weapon.magic + (2 if weapon.specialization else 0)
    return bonus + enhancement(state, combatant.id)


def needed(state: CombatIIState, attacker: Combatant, target: Combatant, weapon: Weapon) -> int:
    """The d20 roll that hits: THAC0 - target AC - bonuses. A missile weapon with a range
    adds the PH range modifiers (PH: range modifiers: short 0, medium -2, long -5) for the
    squares between attacker and target now, when the strike is rolled; without a map or
    positions there is none (the GM judges)."""
    ranged = 0
    if weapon.range is not None and attacker.position is not None and target.position is not None:
        ranged = weapon.range_modifier(squares(state, attacker.position, target.position))
    return (
        stats_of(attacker).thac0
        - armor_class(state, target)
        - hit_bonus(state, attacker, weapon)
        - ranged
    )


def can_attack(state: CombatIIState, cid: str) -> bool:
    mine = fighter(state, cid)
    combatant = state.table.combatants.get(cid)
    return (
        combatant is not None
        and not combatant.out_of_fight
        and not any(mine.effect(n) for n in NO_ATTACKS)
    )


def can_move(state: CombatIIState, cid: str) -> bool:
    mine = fighter(state, cid)
    combatant = state.table.combatants.get(cid)
    return (
        combatant is not None
        and not combatant.out_of_fight
        and not any(mine.effect(n) for n in NO_MOVEMENT)
    )


def within(state: CombatIIState, a: Combatant, b: Combatant, reach: int) -> bool:
    """Melee striking distance: within `reach` squares; without a map or positions the GM
    judges distance, so Fray allows it."""
    grid = state.table.map
    if grid is None or a.position is None or b.position is None:
        return True
    return distance(grid, a.position, b.position) <= reach


def squares(state: CombatIIState, a: Cell, b: Cell) -> int:
    grid = state.table.map
    return 0 if grid is None else distance(grid, a, b)


def enemies(state: CombatIIState, combatant: Combatant) -> list[Combatant]:
    return [
        c
        for c in state.table.combatants.values()
        if c.side != combatant.side and not c.out_of_fight
    ]


def engaged_with(state: CombatIIState, combatant: Combatant) -> list[Combatant]:
    """§2 D Closing Movement: foes within melee striking distance (5 ft or so: adjacent)."""
    if combatant.position is None:
        return []
    return [
        e
        for e in enemies(state, combatant)
        if e.position is not None and within(state, combatant, e, 1)
    ]


def ready_weapon(state: CombatIIState, cid: str) -> str | None:
    """The weapon a combatant strikes with out of turn: its set weapon, else the first in
    hand, else its first natural attack."""
    stats = stats_of(state.table.combatant(cid))
    mine = fighter(state, cid)
    if mine.ready is not None:
        return mine.ready
    held = [w for w in mine.in_hand if stats.weapon(w) is not None]
    if held:
        return held[0]
    natural = [w.name for w in stats.weapons if w.kind == "natural"]
    return natural[0] if natural else None


def skill_modifier(state: CombatIIState, stats: CombatIIStats, skill: ThiefSkill) -> int:
    """§4 Agility "THIEF ADJUSTMENTS": without the option a stat block's percentage is the
    sheet's figure, DEX already counted (as its AC is); with it, the figure before the
    ability's adjustment: AGI's list for move silently, hide in shadows and climb walls
    (given an AGI score), else DEX's by PH Table 28."""
    if not state.options.agility:
        return 0
    return skill_adjustment(skill, stats.dexterity, stats.agility)
