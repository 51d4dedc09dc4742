"""What surrounds an attack in d20-action-points: the optional Environment Modifiers (set by
the GM, or the map's terrain), the marching order's ranks, Armor Class with cover, prone
and a charge, fog and darkness, who is toe-to-toe, the weapon in hand, and reach and range
(d20-action-points Environment Modifiers, Marching Order, Melee Attack, Ranged Attacks)."""

from __future__ import annotations

from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.grid import distance, terrain_at
from service.domain.messages import Event
from service.domain.table import Combatant
from service.rules.d20_action_points import attacks
from service.rules.d20_action_points.attacks import Circumstance, Reach
from service.rules.d20_action_points.before_combat import MARCHING
from service.rules.d20_action_points.combatants import CELL_FEET, feet_between, stats_of
from service.rules.d20_action_points.commands import SetEnvironment
from service.rules.d20_action_points.events import EnvironmentSet
from service.rules.d20_action_points.state import D20State, Weapon

# Charge!: "attack with a +2 but suffer a -2 to their Armor Class in the following round".
CHARGE_BONUS = 2
CHARGE_AC = -2
UNARMED = Weapon(name="unarmed strike", kind="melee", damage="1d2")
BY_NAME: dict[str, Circumstance] = {
    "fog": attacks.FOG,
    "darkness": attacks.DARKNESS,
    "mud": attacks.MUD,
    "dense-foliage": attacks.DENSE_FOLIAGE,
    "half-cover": attacks.HALF_COVER,
    "mostly-covered": attacks.MOSTLY_COVERED,
}
COVERS = (attacks.HALF_COVER, attacks.MOSTLY_COVERED)


def surroundings(state: D20State, cid: str) -> list[Circumstance]:
    """The optional Environment Modifiers around a combatant: the GM's, for it or for
    everyone, and the terrain tags of its cell on the map."""
    if not state.options.environment:
        return []
    names: set[str] = {*state.environment.get("*", ()), *state.environment.get(cid, ())}
    combatant = state.table.combatants.get(cid)
    grid = state.table.map
    if grid is not None and combatant is not None and combatant.position is not None:
        names |= set(terrain_at(grid, combatant.position).tags) & BY_NAME.keys()
    return [BY_NAME[name] for name in sorted(names)]


def rank_of(state: D20State, cid: str) -> int | None:
    """A combatant's rank in its side's marching order, counting only ranks with someone
    still in the fight (the rank behind steps up); None off the order or on a map."""
    table = state.table
    combatant = table.combatants.get(cid)
    marching = state.marching.get(combatant.side) if combatant is not None else None
    if marching is None or table.map is not None:
        return None
    live = [
        rank
        for rank in (
            tuple(c for c in r if c in table.combatants and not table.combatants[c].out_of_fight)
            for r in marching.ranks
        )
        if rank
    ]
    return next((number for number, rank in enumerate(live) if cid in rank), None)


def armor_class(state: D20State, target: Combatant, reach: Reach) -> int:
    """AC against this attack: the base, the best cover (environment or the
    marching order), prone against ranged attacks, a charge's -2."""
    around = surroundings(state, target.id)
    covers = [c for c in around if c in COVERS]
    if (rank_of(state, target.id) or 0) > 0:
        # Marching Order: "a middle of the party player ... 0-50% coverage ... +2 AC".
        covers.append(attacks.HALF_COVER)
    applied = [max(covers, key=lambda c: c.ac)] if covers else []
    if state.options.environment and target.has_condition("prone"):
        applied.append(attacks.PRONE)
    ac = attacks.armor_class(stats_of(target).ac, reach, applied)
    if state.charged.get(target.id, 0) >= state.round:
        ac += CHARGE_AC
    return ac


def vision(state: D20State, attacker: Combatant, target: Combatant) -> list[Circumstance]:
    """Fog and darkness around either end of the attack; darkvision sees through darkness."""
    around = {*surroundings(state, attacker.id), *surroundings(state, target.id)}
    out = [c for c in around if c is attacks.FOG]
    if attacks.DARKNESS in around:
        out.append(attacks.darkness(stats_of(attacker).darkvision))
    return out


def engaged_foes(state: D20State, cid: str) -> list[str]:
    """Foes toe-to-toe with a combatant: adjacent on a map; without one, those it has
    exchanged melee blows with and neither has moved away since (interpretation)."""
    table = state.table
    me = table.combatants[cid]
    if table.map is not None and me.position is not None:
        return [
            c.id
            for c in table.combatants.values()
            if c.side != me.side
            and not c.out_of_fight
            and c.position is not None
            and distance(table.map, me.position, c.position) <= 1
        ]
    return [c for c in state.engaged.get(cid, ()) if not table.combatants[c].out_of_fight]


def weapon_for(state: D20State, cid: str, name: str | None, rule: str) -> Weapon:
    """The named weapon, which must be in hand, or the one in hand, or bare hands."""
    arms = state.arms.get(cid)
    combatant = state.table.combatants[cid]
    if name is None:
        return arms.in_hand if arms is not None and arms.in_hand is not None else UNARMED
    if name == UNARMED.name:
        return UNARMED
    weapon = arms.weapon(name) if arms is not None else None
    if weapon is None:
        raise RuleViolation(
            "attack/unknown-weapon", f"{combatant.name} carries no '{name}'", rule=rule
        )
    if arms is not None and arms.wielding != name:
        raise RuleViolation(
            "attack/not-in-hand",
            f"{combatant.name} must draw the {name} first (equip-item, a standard action)",
            rule=rule,
        )
    return weapon


def check_reach(
    state: D20State, attacker: Combatant, target: Combatant, weapon: Weapon, feet: int | None
) -> int:
    """Melee needs the target within reach (a map's adjacent cell, two with a reach weapon)
    and, on a marching order, the front rank (the second with a reach weapon). Ranged and
    thrown weapons: the range bands. Returns the range penalty."""
    if weapon.kind == "melee":
        grid = state.table.map
        if grid is not None and attacker.position is not None and target.position is not None:
            cells = distance(grid, attacker.position, target.position)
            if cells > (2 if weapon.reach else 1):
                raise RuleViolation(
                    "attack/out-of-reach",
                    f"{target.name} is {cells * CELL_FEET} feet away, "
                    f"beyond the {weapon.name}'s reach",
                    rule=attacks.MELEE,
                )
        rank = rank_of(state, attacker.id)
        if rank is not None and rank > (1 if weapon.reach else 0):
            raise RuleViolation(
                "marching/not-in-front",
                f"{attacker.name} is in rank {rank + 1}; only the front rank fights in melee "
                "(a reach weapon from the second)",
                rule=MARCHING,
            )
        return 0
    short, long = weapon.bands
    return attacks.range_penalty(feet_between(state, attacker, target, feet), short, long)


def set_environment(state: D20State, command: SetEnvironment, ctx: DecideContext) -> list[Event]:
    ctx.require_gm("set the environment")
    if command.combatant_id is not None:
        state.table.combatant(command.combatant_id)
    circumstances = tuple(dict.fromkeys(command.circumstances))
    return [
        ctx.emit(EnvironmentSet(combatant_id=command.combatant_id, circumstances=circumstances))
    ]
