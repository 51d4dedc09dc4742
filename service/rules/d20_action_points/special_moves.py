"""The Special Combat Moves and Actions of d20-action-points: the charge, and the opposed
Strength checks of disarming, grappling (and pinning), breaking free and letting go."""

from __future__ import annotations

from typing import Any

from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Event
from service.domain.table import Combatant
from service.rules.d20_action_points import action_points
from service.rules.d20_action_points.attack_roll import strike
from service.rules.d20_action_points.battlefield import (
    UNARMED,
    check_reach,
    engaged_foes,
    weapon_for,
)
from service.rules.d20_action_points.combatants import stats_of
from service.rules.d20_action_points.commands import Charge
from service.rules.d20_action_points.events import (
    BreakFreeRolled,
    Charged,
    DisarmRolled,
    GrappleRolled,
    Moved,
    Released,
)
from service.rules.d20_action_points.evolve import applied
from service.rules.d20_action_points.movement import travel
from service.rules.d20_action_points.state import D20State
from service.rules.d20_action_points.turns import begin_action

SPECIAL_MOVES = action_points.SPECIAL_MOVES
# Grapple: "If the one initiating the grapple beats the opposed roll by 5 or more, then the
# person being grappled becomes PINNED."
PIN_MARGIN = 5
# Disarm: "The wielder of a two-handed weapon on a disarm attempt gets a +4 bonus".
TWO_HANDED_BONUS = 4


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

    # Disarm, Grapple: "You and the defender make opposed Strength checks": each rolls.
    roll = ctx.die(20, purpose=f"{purpose}: {a.name}", roller=a.id)
    target_roll = ctx.die(20, purpose=f"{purpose}: {b.name}", roller=b.id)
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
