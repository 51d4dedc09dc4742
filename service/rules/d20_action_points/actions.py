"""The actions of a turn, each paid for first (d20-action-points Action Points; without
them, the one action of Combat Round 3): moving, crawling, standing, dropping prone or an
item, equipping, talking, attacks, throws, the full attack, casting, readying, and the
Special Combat Moves and Actions (charge, disarm, grapple, breaking free)."""

from __future__ import annotations

from typing import Any

from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.grid import Cell, distance, on_map, terrain_at
from service.domain.grid_paths import find_path
from service.domain.messages import Event
from service.domain.table import Combatant
from service.domain.table_rules import adjust_pool
from service.rules.d20_action_points import action_points, attacks, spells
from service.rules.d20_action_points.action_points import ACTIONS, ActionName
from service.rules.d20_action_points.combat import (
    BY_NAME,
    UNARMED,
    check_reach,
    engaged_foes,
    hurt,
    strike,
    surroundings,
    throw,
    weapon_for,
)
from service.rules.d20_action_points.commands import (
    Attack,
    CastSpell,
    Charge,
    EquipItem,
    FullAttack,
    Move,
    Ready,
    SetEnvironment,
    Throw,
)
from service.rules.d20_action_points.events import (
    ActionReadied,
    ActionTaken,
    BreakFreeRolled,
    Charged,
    DisarmRolled,
    DroppedProne,
    EnvironmentSet,
    GrappleRolled,
    ItemDropped,
    ItemEquipped,
    Moved,
    ReadiedTriggered,
    Released,
    SpellCast,
    StoodUp,
    Talked,
)
from service.rules.d20_action_points.evolve import CELL_FEET, evolve
from service.rules.d20_action_points.state import D20State, Readied
from service.rules.d20_action_points.turns import current_turn, stats_of

SPECIAL_MOVES = action_points.SPECIAL_MOVES
# Grapple: "If the one initiating the grapple beats the opposed roll by 5 or more, then the
# person being grappled becomes PINNED."
PIN_MARGIN = 5
# Disarm: "The wielder of a two-handed weapon on a disarm attempt gets a +4 bonus".
TWO_HANDED_BONUS = 4
SLOWING = frozenset({"mud", "dense-foliage"})
FREE_WHILE_GRAPPLED = frozenset({"break-free", "talk", "drop-item"})
STANDING = frozenset({"move", "run", "charge"})


def applied(state: D20State, events: list[Event]) -> D20State:
    for event in events:
        state = evolve(state, event)
    return state


def begin_action(state: D20State, cid: str, action: ActionName, ctx: DecideContext) -> list[Event]:
    """The guard every action passes, and its price: action points, or the turn's one
    action (a Heroic Point buys a second)."""
    turn = current_turn(state, cid, ctx, ACTIONS[action].rule)
    combatant = state.table.combatants[cid]
    if cid in state.grappled and action not in FREE_WHILE_GRAPPLED:
        raise RuleViolation(
            "grapple/must-break-free",
            f"{combatant.name} is grappled: the only action left is to try to break free "
            "(break-free)",
            rule=SPECIAL_MOVES,
        )
    if action in STANDING and combatant.has_condition("prone"):
        raise RuleViolation(
            "prone/stand-up-first",
            f"{combatant.name} is prone: stand up (a move action) or crawl five feet",
            rule=action_points.ACTION_POINTS,
        )
    if state.options.action_points:
        left = action_points.spend(turn.points, action)
        return [ctx.emit(ActionTaken(combatant_id=cid, action=action, points=turn.points - left))]
    taken = action_points.take_action(turn.actions, action, heroic_point=turn.allowed > 1)
    return [ctx.emit(ActionTaken(combatant_id=cid, action=action, counts=taken > turn.actions))]


# --- movement ---------------------------------------------------------------------------


def travel(
    state: D20State, cid: str, action: ActionName, to: Cell | None, feet: int | None
) -> tuple[tuple[Cell, ...] | None, int, int]:
    """Where a move, run or charge takes a combatant: the path on a map, the feet walked and
    the feet allowed: the movement rate less 10 feet for each kind of difficult terrain on
    the way (Environment Modifiers: "costing you 10 feet"), doubled for a run or charge."""
    combatant = state.table.combatants[cid]
    speed = stats_of(combatant).speed
    around = set(surroundings(state, cid))
    grid = state.table.map
    if to is None:
        allowed = action_points.feet(action, attacks.movement_rate(speed, around))
        walked = allowed if feet is None else feet
        if walked > allowed:
            raise RuleViolation(
                "move/too-far",
                f"{combatant.name} can cover {allowed} feet with that action, not {walked}",
                rule=action_points.ACTION_POINTS,
                details={"allowed": allowed},
            )
        return None, walked, allowed
    if grid is None or combatant.position is None:
        raise RuleViolation("move/no-map", "without a map (or a token) give feet, not a cell")
    if not on_map(grid, to):
        raise RuleViolation("map/off-map", f"cell {to} is not on the map")
    occupied = {
        c.position: c.side
        for c in state.table.combatants.values()
        if c.position is not None and c.id != cid and not c.out_of_fight
    }
    if to in occupied:
        raise RuleViolation("map/occupied", f"someone already stands at {to}")
    found = find_path(grid, combatant.position, to, occupied, combatant.side)
    if found is None:
        raise RuleViolation("map/no-path", f"{combatant.name} has no path to {to}")
    if state.options.environment:
        for cell in found.cells:
            around |= {BY_NAME[t] for t in terrain_at(grid, cell).tags if t in SLOWING}
    allowed = action_points.feet(action, attacks.movement_rate(speed, around))
    walked = found.cost * CELL_FEET
    if walked > allowed:
        raise RuleViolation(
            "move/too-far",
            f"{combatant.name} needs {walked} feet to reach {to} and can cover {allowed}",
            rule=action_points.ACTION_POINTS,
            details={"allowed": allowed, "needed": walked},
        )
    return tuple(found.cells), walked, allowed


def move(state: D20State, command: Move, ctx: DecideContext) -> list[Event]:
    action: ActionName = "run" if command.run else "move"
    paid = begin_action(state, command.combatant_id, action, ctx)
    path, walked, allowed = travel(state, command.combatant_id, action, command.to, command.feet)
    moved = ctx.emit(
        Moved(
            combatant_id=command.combatant_id, how=action, feet=walked, allowed=allowed, path=path
        )
    )
    return [*paid, moved]


def crawl(state: D20State, cid: str, to: Cell | None, ctx: DecideContext) -> list[Event]:
    """Action Points, Crawl: "Allows prone character to move five feet"."""
    combatant = state.table.combatant(cid)
    if not combatant.has_condition("prone"):
        raise RuleViolation(
            "crawl/not-prone",
            f"{combatant.name} is standing; crawling is for the prone",
            rule=action_points.ACTION_POINTS,
        )
    paid = begin_action(state, cid, "crawl", ctx)
    path = None
    grid = state.table.map
    if to is not None:
        if grid is None or combatant.position is None:
            raise RuleViolation("move/no-map", "without a map (or a token) crawl without a cell")
        if not on_map(grid, to) or distance(grid, combatant.position, to) != 1:
            raise RuleViolation(
                "move/too-far",
                "a crawl goes five feet: one cell",
                rule=action_points.ACTION_POINTS,
            )
        if any(c.position == to and not c.out_of_fight for c in state.table.combatants.values()):
            raise RuleViolation("map/occupied", f"someone already stands at {to}")
        path = (combatant.position, to)
    feet = action_points.CRAWL_FEET
    return [
        *paid,
        ctx.emit(Moved(combatant_id=cid, how="crawl", feet=feet, allowed=feet, path=path)),
    ]


def stand_up(state: D20State, cid: str, ctx: DecideContext) -> list[Event]:
    combatant = state.table.combatant(cid)
    if not combatant.has_condition("prone"):
        raise RuleViolation(
            "stand/not-prone",
            f"{combatant.name} is already standing",
            rule=action_points.ACTION_POINTS,
        )
    return [*begin_action(state, cid, "stand-up", ctx), ctx.emit(StoodUp(combatant_id=cid))]


def drop_prone(state: D20State, cid: str, ctx: DecideContext) -> list[Event]:
    combatant = state.table.combatant(cid)
    if combatant.has_condition("prone"):
        raise RuleViolation(
            "prone/already", f"{combatant.name} is already prone", rule=action_points.ACTION_POINTS
        )
    return [*begin_action(state, cid, "drop-prone", ctx), ctx.emit(DroppedProne(combatant_id=cid))]


def drop_item(state: D20State, cid: str, name: str | None, ctx: DecideContext) -> list[Event]:
    combatant = state.table.combatant(cid)
    arms = state.arms.get(cid)
    weapon = None
    if arms is not None:
        weapon = arms.in_hand if name is None else arms.weapon(name)
    if weapon is None:
        what = "nothing in hand" if name is None else f"no '{name}'"
        raise RuleViolation(
            "item/not-carried",
            f"{combatant.name} has {what} to drop",
            rule=action_points.ACTION_POINTS,
        )
    return [
        *begin_action(state, cid, "drop-item", ctx),
        ctx.emit(ItemDropped(combatant_id=cid, weapon=weapon)),
    ]


def equip_item(state: D20State, command: EquipItem, ctx: DecideContext) -> list[Event]:
    """Action Points, Equip Item: "Draw a weapon, Put on a ring, Drink a Potion, Use a
    Device, Open a Door or Pick Something up"."""
    cid = command.combatant_id
    combatant = state.table.combatant(cid)
    if command.weapon is None and command.description is None:
        raise RuleViolation(
            "equip/what",
            "name the weapon to draw or pick up, or describe the item used",
            rule=action_points.ACTION_POINTS,
        )
    if command.weapon is None:
        paid = begin_action(state, cid, "equip-item", ctx)
        return [*paid, ctx.emit(ItemEquipped(combatant_id=cid, description=command.description))]
    arms = state.arms.get(cid)
    carried = arms.weapon(command.weapon) if arms is not None else None
    picked = False
    if carried is None:
        carried = _lying_near(state, combatant, command.weapon)
        picked = True
    elif arms is not None and arms.wielding == command.weapon:
        raise RuleViolation(
            "item/already-in-hand",
            f"{combatant.name} already holds the {command.weapon}",
            rule=action_points.ACTION_POINTS,
        )
    paid = begin_action(state, cid, "equip-item", ctx)
    equipped = ctx.emit(
        ItemEquipped(
            combatant_id=cid, weapon=carried, picked_up=picked, description=command.description
        )
    )
    return [*paid, equipped]


def _lying_near(state: D20State, combatant: Combatant, name: str) -> Any:
    grid = state.table.map
    for item in state.ground:
        if item.weapon.name != name:
            continue
        if grid is None or combatant.position is None or item.cell is None:
            return item.weapon
        if distance(grid, combatant.position, item.cell) <= 1:
            return item.weapon
    raise RuleViolation(
        "item/not-here",
        f"{combatant.name} carries no '{name}' and none lies within reach",
        rule=action_points.ACTION_POINTS,
    )


def talk(state: D20State, cid: str, text: str, ctx: DecideContext) -> list[Event]:
    return [*begin_action(state, cid, "talk", ctx), ctx.emit(Talked(combatant_id=cid, text=text))]


# --- attacks ----------------------------------------------------------------------------


def attack(state: D20State, command: Attack, ctx: DecideContext) -> list[Event]:
    cid = command.combatant_id
    state.table.combatant(cid)
    state.table.combatant(command.target)
    weapon = weapon_for(state, cid, command.weapon, attacks.MELEE)
    action: ActionName = "melee-attack" if weapon.kind == "melee" else "ranged-attack"
    paid = begin_action(state, cid, action, ctx)
    return [
        *paid,
        *strike(
            applied(state, paid),
            cid,
            command.target,
            weapon,
            ctx,
            feet=command.feet,
            backstab=command.backstab,
        ),
    ]


def throw_object(state: D20State, command: Throw, ctx: DecideContext) -> list[Event]:
    cid = command.combatant_id
    state.table.combatant(command.target)
    paid = begin_action(state, cid, "ranged-attack", ctx)
    thrown = throw(
        applied(state, paid), cid, command.target, command.pounds, command.what, command.feet, ctx
    )
    return [*paid, *thrown]


def full_attack(state: D20State, command: FullAttack, ctx: DecideContext) -> list[Event]:
    """Action Points, Full attack: "If the character has multiple attacks then they make a
    full attack to use them all"; the targets are taken in turn, the last repeated."""
    cid = command.combatant_id
    for who in (cid, *command.targets):
        state.table.combatant(who)
    weapon = weapon_for(state, cid, command.weapon, attacks.MELEE)
    events = begin_action(state, cid, "full-attack", ctx)
    now = applied(state, events)
    count = stats_of(state.table.combatants[cid]).attacks
    for number in range(count):
        target = command.targets[min(number, len(command.targets) - 1)]
        if now.table.combatants[target].out_of_fight:
            continue
        arms = now.arms.get(cid)
        if weapon is not UNARMED and (arms is None or arms.wielding != weapon.name):
            break  # a thrown weapon has left the hand
        # Backstab: "the damage multiplier applies only to the first attack made".
        first = number == 0 and command.backstab
        made = strike(now, cid, target, weapon, ctx, feet=command.feet, backstab=first)
        now = applied(now, made)
        events += made
    return events


def cast_spell(state: D20State, command: CastSpell, ctx: DecideContext) -> list[Event]:
    """Casting Spells: d20 + casting modifier (WIS/INT + focus) against DC 10 + the spell's
    level; the mana goes either way. The spell must have been declared this round."""
    cid = command.combatant_id
    combatant = state.table.combatant(cid)
    stats = stats_of(combatant)
    spell = stats.spell(command.spell)
    if spell is None:
        raise RuleViolation(
            "spell/unknown",
            f"{combatant.name} knows no spell '{command.spell}'",
            rule=spells.CASTING,
        )
    declared = state.declared.get(cid)
    if declared is None or declared.spell != spell.name:
        raise RuleViolation(
            "spell/not-declared",
            f"{combatant.name} did not declare {spell.name} this round; spells are declared "
            "before initiative (declare)",
            rule=spells.DECLARING,
        )
    if command.target is not None:
        state.table.combatant(command.target)
    paid = begin_action(state, cid, "cast-spell", ctx)
    mana = combatant.pools.get("mana")
    pool = spells.ManaPool(mana.current, mana.max or 0) if mana else spells.ManaPool(0, 0)
    entry = spells.Spell(spell.name, spell.level, spell.mana)
    spells.spend_mana(pool, entry)
    natural = ctx.die(20, purpose=f"{combatant.name} casts {spell.name}")
    ability = stats.intelligence if stats.casting_ability == "intelligence" else stats.wisdom
    modifier = spells.casting_modifier(ability, stats.focus)
    casting = spells.cast(natural, modifier, entry, pool)
    damage = None
    if casting.outcome == "cast" and spell.damage is not None and command.target is not None:
        damage = max(0, ctx.roll(spell.damage, purpose=f"damage: {spell.name}").total)
    cast = ctx.emit(
        SpellCast(
            combatant_id=cid,
            spell=spell.name,
            target=command.target,
            natural=natural,
            modifier=modifier,
            total=natural + modifier,
            dc=spells.casting_dc(entry),
            outcome="cast" if casting.outcome == "cast" else "failed",
            mana=entry.cost,
            damage=damage,
        )
    )
    events: list[Event] = [*paid, cast]
    if entry.cost:
        events += adjust_pool(
            state.table, cid, "mana", -entry.cost, None, None, spell.name, ctx, gm_override=False
        )
    if damage and command.target is not None:
        events += hurt(applied(state, events), command.target, damage, ctx, spell.name)
    return events


def ready(state: D20State, command: Ready, ctx: DecideContext) -> list[Event]:
    """Action Points, Ready action: "Prepare a specific action to respond to another specific
    future action". The 3 points pay for the response when it goes off (interpretation)."""
    cid = command.combatant_id
    combatant = state.table.combatant(cid)
    for other in (command.by, command.target):
        if other is not None:
            state.table.combatant(other)
    arms = state.arms.get(cid)
    if command.weapon is not None and (arms is None or arms.weapon(command.weapon) is None):
        raise RuleViolation(
            "attack/unknown-weapon",
            f"{combatant.name} carries no '{command.weapon}'",
            rule=action_points.ACTION_POINTS,
        )
    paid = begin_action(state, cid, "ready", ctx)
    readied = Readied(
        trigger=command.trigger,
        by=command.by,
        weapon=command.weapon,
        target=command.target,
        description=command.description,
        round=state.round,
    )
    return [*paid, ctx.emit(ActionReadied(combatant_id=cid, readied=readied))]


def trigger_readied(
    state: D20State, cid: str, target: str | None, ctx: DecideContext
) -> list[Event]:
    ctx.require_gm("say that a readied action's trigger happened")
    combatant = state.table.combatant(cid)
    readied = state.readied.get(cid)
    if readied is None:
        raise RuleViolation(
            "ready/nothing-readied",
            f"{combatant.name} has no readied action",
            rule=action_points.ACTION_POINTS,
        )
    chosen = target or readied.target
    if chosen is None:
        raise RuleViolation(
            "ready/which-target",
            "name who set the readied action off (target)",
            rule=action_points.ACTION_POINTS,
        )
    state.table.combatant(chosen)
    return [ctx.emit(ReadiedTriggered(combatant_id=cid, target=chosen))]


# --- Special Combat Moves and Actions ---------------------------------------------------


def charge(state: D20State, command: Charge, ctx: DecideContext) -> list[Event]:
    """Charge!: a full action; up to double the movement rate, then an attack at +2, and -2
    AC "in the following round for all attacks" (interpretation: until the end of the next
    round); not while "engaged in combat (toe-to-toe)"."""
    cid = command.combatant_id
    combatant = state.table.combatant(cid)
    target = state.table.combatant(command.target)
    if target.side == combatant.side or target.out_of_fight:
        raise RuleViolation(
            "charge/not-a-foe", f"{target.name} is not a foe in the fight", rule=SPECIAL_MOVES
        )
    engaged = engaged_foes(state, cid)
    if engaged:
        names = ", ".join(state.table.combatants[c].name for c in engaged)
        raise RuleViolation(
            "charge/engaged",
            f"{combatant.name} is toe-to-toe with {names} and cannot charge",
            rule=SPECIAL_MOVES,
        )
    weapon = weapon_for(state, cid, command.weapon, SPECIAL_MOVES)
    if weapon.kind != "melee":
        raise RuleViolation(
            "charge/melee-only", "a charge ends in a melee attack", rule=SPECIAL_MOVES
        )
    paid = begin_action(state, cid, "charge", ctx)
    path, walked, allowed = travel(state, cid, "charge", command.to, command.feet)
    moved = ctx.emit(Moved(combatant_id=cid, how="charge", feet=walked, allowed=allowed, path=path))
    charged = ctx.emit(
        Charged(combatant_id=cid, target=command.target, until_round=state.round + 1)
    )
    events: list[Event] = [*paid, moved, charged]
    made = strike(applied(state, events), cid, command.target, weapon, ctx, charge=True)
    return [*events, *made]


def _opposed(
    state: D20State, a: Combatant, b: Combatant, purpose: str, ctx: DecideContext, disarm: bool
) -> dict[str, Any]:
    """Opposed Strength checks: d20 + STR each, +4 to the wielder of a two-handed weapon on
    a disarm attempt."""

    def bonus(c: Combatant) -> int:
        arms = state.arms.get(c.id)
        held = arms.in_hand if arms is not None else None
        two = disarm and held is not None and held.two_handed
        return stats_of(c).strength + (TWO_HANDED_BONUS if two else 0)

    roll = ctx.die(20, purpose=f"{purpose}: {a.name}")
    target_roll = ctx.die(20, purpose=f"{purpose}: {b.name}")
    return {
        "combatant_id": a.id,
        "target": b.id,
        "roll": roll,
        "bonus": bonus(a),
        "total": roll + bonus(a),
        "target_roll": target_roll,
        "target_bonus": bonus(b),
        "target_total": target_roll + bonus(b),
    }


def _foe_in_reach(state: D20State, cid: str, target_id: str) -> Combatant:
    """A foe in the fight within melee reach: disarm and grapple are toe-to-toe moves, with
    the melee weapon in hand (a reach weapon reaches farther) or bare hands."""
    me = state.table.combatant(cid)
    target = state.table.combatant(target_id)
    if target.side == me.side or target.out_of_fight:
        raise RuleViolation(
            "move/not-a-foe", f"{target.name} is not a foe in the fight", rule=SPECIAL_MOVES
        )
    arms = state.arms.get(cid)
    held = arms.in_hand if arms is not None else None
    check_reach(
        state, me, target, held if held is not None and held.kind == "melee" else UNARMED, None
    )
    return target


def disarm(state: D20State, cid: str, target_id: str, ctx: DecideContext) -> list[Event]:
    """Disarm: opposed Strength; beaten, the defender is disarmed (into an unarmed
    disarmer's hands, else onto the ground at its feet); failing gives the defender an
    immediate attack with advantage (a reaction window)."""
    target = _foe_in_reach(state, cid, target_id)
    arms = state.arms.get(target_id)
    weapon = arms.in_hand if arms is not None else None
    if weapon is None:
        raise RuleViolation(
            "disarm/nothing-in-hand", f"{target.name} holds no weapon", rule=SPECIAL_MOVES
        )
    paid = begin_action(state, cid, "disarm", ctx)
    me = state.table.combatants[cid]
    rolls = _opposed(state, me, target, "disarm", ctx, disarm=True)
    success = rolls["total"] > rolls["target_total"]
    mine = state.arms.get(cid)
    unarmed = mine is None or mine.wielding is None
    rolled = ctx.emit(
        DisarmRolled(
            **rolls,
            success=success,
            weapon=weapon if success else None,
            taken=success and unarmed,
        )
    )
    return [*paid, rolled]


def grapple(state: D20State, cid: str, target_id: str, ctx: DecideContext) -> list[Event]:
    """Grapple: two free hands, opposed Strength; beaten, the defender is GRAPPLED (it loses
    its next attack and may only try to break free); beaten by 5 or more, PINNED."""
    me = state.table.combatant(cid)
    arms = state.arms.get(cid)
    if arms is not None and arms.wielding is not None:
        raise RuleViolation(
            "grapple/hands-full",
            f"{me.name} needs two free hands; drop the {arms.wielding} first (drop-item, free)",
            rule=SPECIAL_MOVES,
        )
    target = _foe_in_reach(state, cid, target_id)
    if target_id in state.grappled:
        raise RuleViolation(
            "grapple/already", f"{target.name} is already grappled", rule=SPECIAL_MOVES
        )
    paid = begin_action(state, cid, "grapple", ctx)
    rolls = _opposed(state, me, target, "grapple", ctx, disarm=False)
    margin = rolls["total"] - rolls["target_total"]
    outcome = "failed" if margin <= 0 else "pinned" if margin >= PIN_MARGIN else "grappled"
    return [*paid, ctx.emit(GrappleRolled(**rolls, outcome=outcome))]


def break_free(state: D20State, cid: str, ctx: DecideContext) -> list[Event]:
    me = state.table.combatant(cid)
    grappler_id = state.grappled.get(cid)
    if grappler_id is None:
        raise RuleViolation(
            "grapple/not-grappled", f"{me.name} is not grappled", rule=SPECIAL_MOVES
        )
    paid = begin_action(state, cid, "break-free", ctx)
    grappler = state.table.combatants[grappler_id]
    rolls = _opposed(state, me, grappler, "breaking the grapple", ctx, disarm=False)
    return [
        *paid,
        ctx.emit(BreakFreeRolled(**rolls, success=rolls["total"] > rolls["target_total"])),
    ]


def release(state: D20State, cid: str, ctx: DecideContext) -> list[Event]:
    me = state.table.combatant(cid)
    held = [h for h, g in state.grappled.items() if g == cid]
    if not held:
        raise RuleViolation(
            "grapple/holding-nobody", f"{me.name} is grappling nobody", rule=SPECIAL_MOVES
        )
    paid = begin_action(state, cid, "release", ctx)
    return [*paid, *(ctx.emit(Released(combatant_id=cid, target=h)) for h in held)]


def set_environment(state: D20State, command: SetEnvironment, ctx: DecideContext) -> list[Event]:
    ctx.require_gm("set the environment")
    if command.combatant_id is not None:
        state.table.combatant(command.combatant_id)
    circumstances = tuple(dict.fromkeys(command.circumstances))
    return [
        ctx.emit(EnvironmentSet(combatant_id=command.combatant_id, circumstances=circumstances))
    ]
