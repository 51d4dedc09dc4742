"""Attacking on the tactical grid: melee and reach, ranged bands, firing into a melee, the
target's response, combat maneuvers, attacks of opportunity, cover and the other actions
(hex-tactical Attacking, Melee Combat, Ranged Combat, Offensive Use of Skills, Traits, and
Abilities, Attacks of Opportunity, Cover)."""

from __future__ import annotations

from typing import Any

from service.domain import reactions
from service.domain.common import ConditionApplied
from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.grid import Cell, distance, on_map, terrain_at
from service.domain.messages import Event
from service.domain.reactions import ReactionWindowClosed
from service.rules.hex_tactical import base
from service.rules.hex_tactical.base import Difficulty
from service.rules.hex_tactical.commands import (
    Attack,
    CallCheck,
    PlaceCover,
    UseItem,
    UseManeuver,
    UseSkill,
)
from service.rules.hex_tactical.events import (
    AttackRolled,
    AwarenessSet,
    CheckCalled,
    CoverPlaced,
    CoverRemoved,
    CoverTaken,
    Defended,
    ItemUsed,
    ManeuverLanded,
    MeleeJoined,
    MoveReserved,
    ObjectStruck,
    OpportunityChecked,
    OpportunityRaised,
    SkillUsed,
    StrayHit,
    Surrendered,
    Wielded,
)
from service.rules.hex_tactical.evolve import evolve
from service.rules.hex_tactical.geometry import (
    COVER,
    MELEE,
    RANGED,
    band,
    between,
    cover_against,
    cover_at,
    cover_cells_next_to,
    enemies,
    feet_between,
    fighting,
    in_melee,
    pair,
    partners,
    position,
    threateners,
    wielded,
)
from service.rules.hex_tactical.hazards import GRAPPLED, PRONE, end_melees, hurt
from service.rules.hex_tactical.state import (
    MANEUVER_OPPORTUNIST,
    MANEUVERS,
    AttackInfo,
    CoverObject,
    HexState,
    Maneuver,
    Paused,
    Pending,
    Reservation,
    Weapon,
    cell_key,
    stats_of,
)
from service.rules.hex_tactical.turns import ActionKind, acting, begin_action

ATTACKING = "hex-tactical Attacking"
OFFENSIVE = "hex-tactical Offensive Use of Skills, Traits, and Abilities"
AOO = "hex-tactical Attacks of Opportunity"
DIFFICULT = "hex-tactical Terrain Effects"
OBJECT = "hex-tactical Cover (Target Inanimate Object)"
UNARMED = Weapon(name="unarmed", kind="melee", skill="unarmed", damage="1d3")
"""Fists: a melee attack (hex-tactical Melee Combat) that threatens no cells."""
MANEUVER_SKILL: dict[Maneuver, str] = {"grapple": "athletics", "trip": "athletics"}
"""The skill each maneuver rolls; a disarm rolls the wielded melee weapon's skill, or
`unarmed` with no melee weapon in hand (interpretation)."""


def _weapon(state: HexState, cid: str, name: str | None, picking_up: bool = False) -> Weapon:
    if name is None:
        return wielded(state, cid) or UNARMED
    combatant = state.table.combatants[cid]
    weapon = stats_of(combatant).weapon(name)
    if weapon is None:
        if name == UNARMED.name:
            return UNARMED
        raise RuleViolation(
            "attack/unknown-weapon", f"{combatant.name} has no weapon '{name}'", rule=ATTACKING
        )
    if name in state.dropped.get(cid, ()) and not picking_up:
        raise RuleViolation(
            "attack/weapon-dropped",
            f"{combatant.name}'s {name} was knocked away: picking it up (wield) takes an action",
            rule=OFFENSIVE,
        )
    return weapon


def _wield(state: HexState, cid: str, weapon: Weapon, ctx: DecideContext) -> list[Event]:
    """Attacking with another of one's weapons takes it in hand first (free)."""
    if weapon is UNARMED or state.wielding.get(cid) == weapon.name:
        return []
    return [ctx.emit(Wielded(combatant_id=cid, weapon=weapon.name))]


def _target(state: HexState, attacker: str, target: str) -> None:
    victim = state.table.combatant(target)
    if target == attacker:
        raise RuleViolation("attack/self", "a combatant cannot attack itself", rule=ATTACKING)
    if not fighting(state, target):
        raise RuleViolation(
            "attack/target-down", f"{victim.name} is out of the fight", rule=ATTACKING
        )
    if position(state, attacker) is None or victim.position is None:
        raise RuleViolation(
            "attack/no-map", "the tactical variant needs both tokens on the map", rule=ATTACKING
        )


def attack(state: HexState, command: Attack, ctx: DecideContext) -> list[Event]:
    cid = command.combatant_id
    begun = begin_action(state, cid, "other", "attack", ctx, ATTACKING)
    weapon = _weapon(state, cid, command.weapon)
    _target(state, cid, command.target)
    events: list[Event] = [begun, *_wield(state, cid, weapon, ctx)]
    for event in events:
        state = evolve(state, event)
    return events + strike(state, cid, command.target, weapon, ctx, into_melee=command.into_melee)


def strike(
    state: HexState,
    cid: str,
    target: str,
    weapon: Weapon,
    ctx: DecideContext,
    *,
    into_melee: str | None = None,
    opportunity: bool = False,
    overwatch: bool = False,
) -> list[Event]:
    """One weapon attack roll, and what follows it: a hit waits for the target's response;
    a melee attack, or a ranged one at an adjacent target, puts the two in melee."""
    grid = state.table.map
    here, there = position(state, cid), position(state, target)
    assert grid is not None and here is not None and there is not None
    attacker, victim = state.table.combatants[cid], state.table.combatants[target]
    cells = distance(grid, here, there)
    feet = cells * state.options.cell_feet
    boons = banes = 0
    shot_band: int | None = None
    mode = None
    cover = None
    others = [c for c in partners(state, target) if c != cid]
    if weapon.kind == "melee":
        if cells > weapon.reach:
            raise RuleViolation(
                "attack/out-of-reach",
                f"{victim.name} is {cells} cells away; the {weapon.name} reaches {weapon.reach}",
                rule=MELEE,
            )
        boons += victim.has_condition(PRONE)
    else:
        shot_band = band(weapon, feet)
        if shot_band is None:
            raise RuleViolation(
                "attack/out-of-range",
                f"{victim.name} is {feet} ft away, beyond the {weapon.name}'s maximum "
                f"range of {weapon.maximum} ft",
                rule=RANGED,
            )
        cover, _ = cover_against(state, cid, target)
        if cover == "total":
            raise RuleViolation(
                "attack/total-cover",
                f"{victim.name} is behind total cover: no ranged attack passes through it",
                rule=COVER,
            )
        banes += shot_band + (cover == "partial")
        if others:
            mode = into_melee or state.options.into_melee
            banes += mode == "bane"
    result = base.check(
        ctx,
        weapon.skill_name,
        stats_of(attacker).score(weapon.skill_name),
        f"{attacker.name}'s {weapon.name} at {victim.name}",
        boons=boons,
        banes=banes,
    )
    # The melee is joined before the response is judged, but listed (and emitted) after the
    # roll, which lists the check's dice.
    events: list[Event] = []
    joined = weapon.kind == "melee" or cells == 1
    if joined and pair(cid, target) not in state.melee:
        events.append(MeleeJoined(combatants=pair(cid, target)))
    after = state
    for event in events:
        after = evolve(after, event)
    response = _response(after, cid, target, weapon, feet, cover) if result.success else None
    rolled = ctx.emit(
        AttackRolled(
            attacker=cid,
            target=target,
            weapon=weapon.name,
            ranged=weapon.kind == "ranged",
            check=result,
            hit=result.success,
            band=shot_band,
            distance_feet=feet,
            into_melee=mode,
            opportunity=opportunity,
            overwatch=overwatch,
            response=response,
        )
    )
    events = [rolled, *(ctx.emit(event) for event in events)]
    if mode == "risk" and base.within_half(result):
        events += _stray(state, cid, target, others, weapon, ctx)
    return events


def _response(
    state: HexState,
    attacker: str,
    target: str,
    weapon: Weapon,
    feet: int,
    cover: str | None,
    maneuver: Maneuver | None = None,
) -> AttackInfo:
    """What the target may answer a hit with. Against a ranged attack a Dodge is hard
    inside the interval and very hard beyond it, and only for a target not in melee that is
    aware of the attacker (hex-tactical Ranged Combat); a melee hit may be dodged or
    parried with a wielded melee weapon. Standing in difficult terrain is one bane on Dodge
    (hex-tactical Terrain Effects), partial cover one boon (Cover), prone one bane."""
    victim = state.table.combatants[target]
    grid = state.table.map
    assert grid is not None and victim.position is not None
    dodge: Difficulty | None = "normal"
    if weapon.kind == "ranged":
        aware = attacker not in state.unaware.get(target, ())
        if in_melee(state, target) or not aware:
            dodge = None
        else:
            dodge = "hard" if feet <= weapon.interval else "very-hard"
    held = wielded(state, target)
    parry = weapon.kind == "melee" and held is not None and held.kind == "melee"
    banes = int(terrain_at(grid, victim.position).kind == "difficult")
    banes += victim.has_condition(PRONE)
    return AttackInfo(
        attacker=attacker,
        target=target,
        weapon=weapon.name,
        ranged=weapon.kind == "ranged",
        maneuver=maneuver,
        damage=weapon.damage,
        dodge=dodge,
        dodge_boons=int(cover == "partial"),
        dodge_banes=banes,
        parry=parry,
    )


def _stray(
    state: HexState,
    cid: str,
    target: str,
    others: list[str],
    weapon: Weapon,
    ctx: DecideContext,
) -> list[Event]:
    """hex-tactical Ranged Combat: a risky miss by less than half the skill score strikes
    another in the melee; with several, a die chooses (interpretation: the seed leaves it to
    the Facilitator's discretion; a die keeps the table moving and the record auditable)."""
    struck = others[0] if len(others) == 1 else others[ctx.die(len(others), "stray shot") - 1]
    rolled = max(0, ctx.roll(weapon.damage, f"{weapon.name} damage").total)
    stray = ctx.emit(StrayHit(attacker=cid, intended=target, struck=struck, weapon=weapon.name))
    return [stray, *hurt(evolve(state, stray), struck, rolled, cid, weapon.name, None, ctx)]


def maneuver(state: HexState, command: UseManeuver, ctx: DecideContext) -> list[Event]:
    """hex-tactical Offensive Use of Skills: grapple, trip and disarm are melee attacks that
    provoke no attack of opportunity."""
    cid = command.combatant_id
    begun = begin_action(state, cid, "other", command.maneuver, ctx, OFFENSIVE)
    _target(state, cid, command.target)
    return [begun, *maneuver_roll(evolve(state, begun), cid, command.target, command.maneuver, ctx)]


def maneuver_roll(
    state: HexState,
    cid: str,
    target: str,
    kind: Maneuver,
    ctx: DecideContext,
    opportunity: bool = False,
) -> list[Event]:
    grid = state.table.map
    here, there = position(state, cid), position(state, target)
    assert grid is not None and here is not None and there is not None
    weapon = wielded(state, cid)
    reach = weapon.reach if weapon is not None and weapon.kind == "melee" else 1
    victim = state.table.combatants[target]
    cells = distance(grid, here, there)
    if cells > reach:
        raise RuleViolation(
            "maneuver/out-of-reach", f"{victim.name} is out of reach for a {kind}", rule=OFFENSIVE
        )
    if kind == "disarm" and wielded(state, target) is None:
        raise RuleViolation(
            "maneuver/nothing-to-disarm", f"{victim.name} holds no weapon", rule=OFFENSIVE
        )
    melee = weapon if weapon is not None and weapon.kind == "melee" else None
    skill = MANEUVER_SKILL.get(kind) or (melee.skill_name if melee is not None else "unarmed")
    attacker = state.table.combatants[cid]
    result = base.check(
        ctx,
        skill,
        stats_of(attacker).score(skill),
        f"{attacker.name} tries to {kind} {victim.name}",
        boons=int(victim.has_condition(PRONE)),
    )
    events: list[Event] = []
    if pair(cid, target) not in state.melee:
        events.append(MeleeJoined(combatants=pair(cid, target)))  # emitted after the roll
    after = state
    for event in events:
        after = evolve(after, event)
    used = weapon if weapon is not None and weapon.kind == "melee" else UNARMED
    response = None
    if result.success:
        response = _response(after, cid, target, used, 0, None, maneuver=kind)
    rolled = ctx.emit(
        AttackRolled(
            attacker=cid,
            target=target,
            weapon=used.name,
            maneuver=kind,
            check=result,
            hit=result.success,
            distance_feet=cells * state.options.cell_feet,
            opportunity=opportunity,
            response=response,
        )
    )
    return [rolled, *(ctx.emit(event) for event in events)]


# --- the target's response ------------------------------------------------------------------


def _window(
    state: HexState,
    item: Pending,
    trigger: dict[str, Any],
    eligible: dict[str, tuple[str, ...]],
    ctx: DecideContext,
) -> list[Event]:
    order = [c for c in eligible if c in state.table.combatants]
    return reactions.open_window(
        window_id=f"w{state.table.windows_opened + 1}",
        trigger={"resolves": item.id, "actor": item.actor, "target": item.target, **trigger},
        eligible=eligible,
        order=order,
        ctx=ctx,
        seconds=state.options.reaction_window,
        policies=state.table.policies,
        resources=state.table.resources_of,
    )


def open_defence(state: HexState, item: Pending, ctx: DecideContext) -> list[Event]:
    info = item.attack
    assert info is not None
    options = []
    if fighting(state, info.target):
        if info.dodge is not None:
            options.append("dodge")
        if info.parry:
            options.append("parry")
    if not options:
        return _lands(state, info, ctx, item.id)
    trigger = {"kind": "attack", "attack": info.model_dump(mode="json")}
    return _window(state, item, trigger, {info.target: tuple(options)}, ctx)


def _lands(
    state: HexState, info: AttackInfo, ctx: DecideContext, resolves: int | None
) -> list[Event]:
    """An undefended hit: damage less armor, or the maneuver's effect."""
    target = info.target
    if info.maneuver is not None:
        landed = ctx.emit(
            ManeuverLanded(
                attacker=info.attacker,
                target=target,
                maneuver=info.maneuver,
                weapon=info.weapon,
                resolves=resolves,
            )
        )
        if target not in state.table.combatants:
            return [landed]
        return [landed, *_maneuver_effect(state, info.attacker, target, info.maneuver, ctx)]
    rolled = max(0, ctx.roll(info.damage, f"{info.weapon or 'attack'} damage").total)
    return hurt(state, target, rolled, info.attacker, info.weapon, resolves, ctx)


def _maneuver_effect(
    state: HexState, attacker: str, target: str, kind: Maneuver, ctx: DecideContext
) -> list[Event]:
    if kind == "trip":
        return [
            ctx.emit(
                ConditionApplied(
                    combatant_id=target, condition=PRONE, source=attacker, gm_override=False
                )
            )
        ]
    if kind == "grapple":
        return [
            ctx.emit(
                ConditionApplied(
                    combatant_id=target, condition=GRAPPLED, source=attacker, gm_override=False
                )
            )
        ]
    return [ctx.emit(Wielded(combatant_id=target, weapon=None, dropped=True))]


def resolve_defence(
    state: HexState, closed: ReactionWindowClosed, ctx: DecideContext
) -> list[Event]:
    info = AttackInfo.model_validate(closed.trigger["attack"])
    choice = next((option for cid, option in closed.reactions if cid == info.target), None)
    victim = state.table.combatants.get(info.target)
    if choice is None or victim is None or not fighting(state, info.target):
        return _lands(state, info, ctx, None)
    stats = stats_of(victim)
    if choice == "parry":
        held = wielded(state, info.target)
        skill = held.skill_name if held is not None else "unarmed"
        result = base.check(ctx, skill, stats.score(skill), f"{victim.name} parries")
    else:
        result = base.check(
            ctx,
            "dodge",
            stats.dodge,
            f"{victim.name} dodges",
            difficulty=info.dodge or "normal",
            boons=info.dodge_boons,
            banes=info.dodge_banes,
        )
    defended = ctx.emit(
        Defended(
            combatant_id=info.target,
            attacker=info.attacker,
            response=choice,
            check=result,
        )
    )
    if result.success:
        return [defended]
    return [defended, *_lands(evolve(state, defended), info, ctx, None)]


# --- attacks of opportunity -----------------------------------------------------------------


def open_opportunity(state: HexState, item: Pending, ctx: DecideContext) -> list[Event]:
    """Everything pauses; each threatener may try to seize the opportunity."""
    eligible: dict[str, tuple[str, ...]] = {}
    for cid in item.threateners:
        if not fighting(state, cid) or not fighting(state, item.target):
            continue
        options = ["attack"]
        if MANEUVER_OPPORTUNIST in stats_of(state.table.combatants[cid]).traits:
            armed = wielded(state, item.target) is not None
            options += [m for m in MANEUVERS if m != "disarm" or armed]
        eligible[cid] = tuple(options)
    trigger = {"kind": "opportunity-attack", "reason": item.reason}
    return _window(state, item, trigger, eligible, ctx)


def resolve_opportunity(
    state: HexState, closed: ReactionWindowClosed, ctx: DecideContext
) -> list[Event]:
    """hex-tactical Attacks of Opportunity: "The Threatener must succeed on an Initiative
    check. If they do, they may make one attack roll as normal against the target" — a
    normal weapon attack, or a maneuver with a trait that allows it."""
    target = str(closed.trigger["target"])
    events: list[Event] = []
    for cid, option in closed.reactions:
        if not fighting(state, cid) or not fighting(state, target):
            continue
        threatener = state.table.combatants[cid]
        result = base.check(
            ctx,
            "initiative",
            stats_of(threatener).initiative,
            f"{threatener.name} seizes the opportunity",
        )
        made: list[Event] = [
            ctx.emit(OpportunityChecked(combatant_id=cid, target=target, check=result))
        ]
        if result.success:
            made += _seize(state, cid, target, option, ctx)
        for event in made:
            state = evolve(state, event)
        events += made
    return events


def _seize(state: HexState, cid: str, target: str, option: str, ctx: DecideContext) -> list[Event]:
    """The attack an opportunity allows, if it can still be made: what was offered at the
    window may have gone out of reach since (a policy answers before anyone looks)."""
    try:
        if option in MANEUVERS:
            return maneuver_roll(state, cid, target, option, ctx, opportunity=True)
        return strike(state, cid, target, wielded(state, cid) or UNARMED, ctx, opportunity=True)
    except RuleViolation:
        return []


# --- reserved moves and overwatch -----------------------------------------------------------


def open_reserved(state: HexState, item: Pending, ctx: DecideContext) -> list[Event]:
    reservation = item.reservation
    if reservation is None or not fighting(state, item.actor):
        return _window(state, item, {"kind": "reserved"}, {}, ctx)
    option = "run" if reservation.kind == "run" else "shoot"
    trigger = {
        "kind": "reserved-move" if reservation.kind == "run" else "overwatch",
        "reservation": reservation.model_dump(mode="json"),
    }
    return _window(state, item, trigger, {item.actor: (option,)}, ctx)


def resolve_overwatch(
    state: HexState, closed: ReactionWindowClosed, ctx: DecideContext
) -> list[Event]:
    shooter, mover = str(closed.trigger["actor"]), str(closed.trigger["target"])
    if not closed.reactions or not fighting(state, shooter) or not fighting(state, mover):
        return []
    reservation = Reservation.model_validate(closed.trigger["reservation"])
    try:
        weapon = _weapon(state, shooter, reservation.weapon)
        return [
            *_wield(state, shooter, weapon, ctx),
            *strike(state, shooter, mover, weapon, ctx, overwatch=True),
        ]
    except RuleViolation:
        return []  # out of range or behind total cover by now: the shot is not there


def overwatch(
    state: HexState, cid: str, weapon_name: str | None, ctx: DecideContext
) -> list[Event]:
    """hex-tactical Ranged Combat: a ranged weapon "gains access to the Overwatch (Combat
    Maneuver) action automatically" (its terms are Fray's: see the rules page)."""
    begun = begin_action(state, cid, "other", "overwatch", ctx, RANGED)
    weapon = _weapon(state, cid, weapon_name)
    if weapon.kind != "ranged":
        raise RuleViolation(
            "overwatch/needs-ranged-weapon",
            f"overwatch takes a ranged weapon, and the {weapon.name} is not one",
            rule=RANGED,
        )
    reservation = Reservation(kind="overwatch", weapon=weapon.name)
    return [
        begun,
        *_wield(state, cid, weapon, ctx),
        ctx.emit(MoveReserved(combatant_id=cid, reservation=reservation)),
    ]


# --- cover ------------------------------------------------------------------------------------


def take_cover(state: HexState, cid: str, ctx: DecideContext) -> list[Event]:
    """hex-tactical Cover: next to partial cover with an action left, a successful Dodge
    makes it total cover until the start of this combatant's next turn."""
    # "has an action left": the other action, or else the second move (interpretation).
    kind: ActionKind = "move" if state.turn.other else "other"
    begun = begin_action(state, cid, kind, "take cover", ctx, COVER)
    here = position(state, cid)
    cells = cover_cells_next_to(state, here, "partial") if here is not None else []
    combatant = state.table.combatants[cid]
    if not cells:
        raise RuleViolation(
            "cover/none-adjacent", f"{combatant.name} stands next to no partial cover", rule=COVER
        )
    result = base.check(
        ctx,
        "dodge",
        stats_of(combatant).dodge,
        f"{combatant.name} takes cover",
        difficulty=state.options.take_cover_difficulty,
    )
    return [begun, ctx.emit(CoverTaken(combatant_id=cid, cells=tuple(cells), check=result))]


def place_cover(state: HexState, command: PlaceCover, ctx: DecideContext) -> list[Event]:
    ctx.require_gm("place cover")
    grid = state.table.map
    if grid is None or not on_map(grid, command.cell):
        raise RuleViolation("map/off-map", f"cell {command.cell} is not on the map")
    if cell_key(command.cell) in state.cover:
        raise RuleViolation("cover/occupied", f"cell {command.cell} already holds cover")
    for combatant in state.table.combatants.values():
        if combatant.position == command.cell and not combatant.out_of_fight:
            raise RuleViolation("map/occupied", f"{combatant.name} stands on {command.cell}")
    cover = CoverObject(
        cell=command.cell,
        name=command.name,
        kind=command.kind,
        durability=command.durability,
        armor=command.armor,
    )
    return [ctx.emit(CoverPlaced(cover=cover))]


def remove_cover(state: HexState, cell: Cell, ctx: DecideContext) -> list[Event]:
    ctx.require_gm("remove cover")
    if cell_key(cell) not in state.cover:
        raise RuleViolation("cover/none-there", f"there is no cover object on {cell}")
    return [ctx.emit(CoverRemoved(cell=cell))]


def target_object(
    state: HexState, cid: str, cell: Cell, weapon_name: str | None, ctx: DecideContext
) -> list[Event]:
    """Target Inanimate Object: an attack roll at a cover object (it cannot dodge); damage
    less its armor wears its durability down, and at 0 the cover is destroyed."""
    begun = begin_action(state, cid, "other", "target an object", ctx, OBJECT)
    grid = state.table.map
    cover = state.cover.get(cell_key(cell))
    if cover is None:
        what = "map terrain that cannot be destroyed" if cover_at(state, cell) else "no cover"
        raise RuleViolation("object/not-destructible", f"{cell} holds {what}", rule=OBJECT)
    if cover.durability is None:
        raise RuleViolation(
            "object/not-destructible", f"the {cover.name} cannot be destroyed", rule=OBJECT
        )
    weapon = _weapon(state, cid, weapon_name)
    here = position(state, cid)
    assert grid is not None and here is not None
    cells = distance(grid, here, cell)
    banes = 0
    if weapon.kind == "melee":
        if cells > weapon.reach:
            raise RuleViolation(
                "attack/out-of-reach", f"the {cover.name} is out of reach", rule=OBJECT
            )
    else:
        shot = band(weapon, cells * state.options.cell_feet)
        if shot is None:
            raise RuleViolation(
                "attack/out-of-range", f"the {cover.name} is out of range", rule=OBJECT
            )
        if any(cover_at(state, c) == "total" for c in between(grid, here, cell)):
            raise RuleViolation(
                "attack/total-cover",
                f"total cover stands between {state.table.combatants[cid].name} and the "
                f"{cover.name}",
                rule=OBJECT,
            )
        banes = shot
    attacker = state.table.combatants[cid]
    result = base.check(
        ctx,
        weapon.skill_name,
        stats_of(attacker).score(weapon.skill_name),
        f"{attacker.name} strikes the {cover.name}",
        banes=banes,
    )
    rolled = damage = 0
    left = cover.durability
    if result.success:
        rolled = max(0, ctx.roll(weapon.damage, f"{weapon.name} damage").total)
        damage = max(0, rolled - cover.armor)
        left = max(0, cover.durability - damage)
    wielded = _wield(state, cid, weapon, ctx)  # emitted before the strike, as it is listed
    struck = ctx.emit(
        ObjectStruck(
            combatant_id=cid,
            cell=cell,
            name=cover.name,
            weapon=weapon.name,
            check=result,
            rolled=rolled,
            damage=damage,
            durability=left,
            destroyed=left == 0,
        )
    )
    return [begun, *wielded, struck]


# --- skills, items and the rest ---------------------------------------------------------------


def use_skill(state: HexState, command: UseSkill, ctx: DecideContext) -> list[Event]:
    cid = command.combatant_id
    begun = begin_action(state, cid, "other", f"use {command.skill}", ctx, OFFENSIVE)
    if not command.provokes and not ctx.actor.is_gm:
        raise RuleViolation(
            "skill/provokes-ruling",
            "offensive uses of skills provoke attacks of opportunity unless a ruling or trait "
            "says otherwise: only the GM sends `provokes: false`",
            rule=OFFENSIVE,
        )
    if command.target is not None:
        state.table.combatant(command.target)
    paused = Paused(
        action="skill",
        combatant_id=cid,
        skill=command.skill,
        description=command.description,
        target=command.target,
        difficulty=command.difficulty,
    )
    return [begun, *_provoking(evolve(state, begun), paused, command.provokes, "skill", ctx)]


def use_item(state: HexState, command: UseItem, ctx: DecideContext) -> list[Event]:
    cid = command.combatant_id
    begun = begin_action(state, cid, "other", f"use the {command.item}", ctx, AOO)
    names = {w.name for w in stats_of(state.table.combatants[cid]).weapons}
    if command.item in names:
        raise RuleViolation(
            "item/is-a-weapon", f"the {command.item} is a weapon: attack with it", rule=AOO
        )
    paused = Paused(
        action="item", combatant_id=cid, skill=command.item, description=command.description
    )
    return [begun, *_provoking(evolve(state, begun), paused, True, "item", ctx)]


def _provoking(
    state: HexState, paused: Paused, provokes: bool, reason: str, ctx: DecideContext
) -> list[Event]:
    """hex-tactical Attacks of Opportunity: using a provoking skill, or an item that is not a
    weapon, inside a threatened cell pauses to let the threateners strike first."""
    cid = paused.combatant_id
    here = position(state, cid)
    who = threateners(state, cid, here) if provokes and here is not None else ()
    if who:
        raised = ctx.emit(
            OpportunityRaised(
                combatant_id=cid,
                threateners=who,
                reason=reason,
                cell=here,
                paused=paused,
            )
        )
        return [raised]
    return perform(state, paused, ctx)


def perform(state: HexState, paused: Paused, ctx: DecideContext) -> list[Event]:
    """A skill or item use, once nothing stands in its way."""
    cid = paused.combatant_id
    combatant = state.table.combatants[cid]
    if paused.action == "item":
        return [
            ctx.emit(
                ItemUsed(
                    combatant_id=cid, item=paused.skill or "item", description=paused.description
                )
            )
        ]
    skill = paused.skill or "skill"
    result = base.check(
        ctx,
        skill,
        stats_of(combatant).score(skill),
        f"{combatant.name}: {paused.description}",
        difficulty=paused.difficulty,
    )
    return [
        ctx.emit(
            SkillUsed(
                combatant_id=cid,
                skill=skill,
                description=paused.description or skill,
                target=paused.target,
                check=result,
            )
        )
    ]


def wield(state: HexState, cid: str, name: str | None, ctx: DecideContext) -> list[Event]:
    """Taking a weapon in hand is free on one's turn; picking up one a disarm knocked away
    takes the turn's other action (interpretation: the seed's base system is not given)."""
    acting(state, cid, ctx, ATTACKING)
    if name is not None:
        weapon = _weapon(state, cid, name, picking_up=True)
        if weapon is UNARMED:
            name = None
    if state.wielding.get(cid) == name:
        what = f"the {name}" if name else "nothing"
        raise RuleViolation(
            "wield/already", f"{state.table.combatants[cid].name} already holds {what}"
        )
    if name in state.dropped.get(cid, ()):
        begun = begin_action(state, cid, "other", f"pick up the {name}", ctx, OFFENSIVE)
        return [begun, ctx.emit(Wielded(combatant_id=cid, weapon=name))]
    return [ctx.emit(Wielded(combatant_id=cid, weapon=name))]


def surrender(state: HexState, cid: str, ctx: DecideContext) -> list[Event]:
    combatant = state.table.combatant(cid)
    ctx.require_control(cid, combatant.name)
    if not fighting(state, cid):
        raise RuleViolation("surrender/not-fighting", f"{combatant.name} is out of the fight")
    return [ctx.emit(Surrendered(combatant_id=cid)), *end_melees(state, cid, "surrendered", ctx)]


def set_awareness(
    state: HexState, cid: str, of: str, aware: bool, ctx: DecideContext
) -> list[Event]:
    ctx.require_gm("rule on who is aware of whom")
    state.table.combatant(cid)
    state.table.combatant(of)
    if cid == of:
        raise RuleViolation("awareness/self", "a combatant is always aware of itself")
    return [ctx.emit(AwarenessSet(combatant_id=cid, of=of, aware=aware))]


def call_check(state: HexState, command: CallCheck, ctx: DecideContext) -> list[Event]:
    ctx.require_gm("call for a check")
    combatant = state.table.combatant(command.combatant_id)
    result = base.check(
        ctx,
        command.skill,
        stats_of(combatant).score(command.skill),
        f"{combatant.name}'s {command.skill} check",
        difficulty=command.difficulty,
        boons=command.boons,
        banes=command.banes,
    )
    return [ctx.emit(CheckCalled(combatant_id=combatant.id, check=result, reason=command.reason))]


def enemies_of(state: HexState, cid: str) -> list[str]:
    return [c for c in state.table.combatants if enemies(state, c, cid)]


def feet_to(state: HexState, a: str, b: str) -> int | None:
    here, there = position(state, a), position(state, b)
    if here is None or there is None or state.table.map is None:
        return None
    return feet_between(state, here, there)
