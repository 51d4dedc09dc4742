"""The reaction windows of d20-action-points, opened one at a time and resolved when they
close: a broken combatant's choice to flee or surrender, the parting shots at one who flees,
a failed disarm's counter, and readied actions going off (d20-action-points Check Morale,
Special Combat Moves and Actions, Action Points)."""

from __future__ import annotations

from service.domain import reactions
from service.domain.context import DecideContext
from service.domain.draws import MissingTableDice
from service.domain.errors import RuleViolation
from service.domain.messages import Event
from service.domain.reactions import ReactionWindowClosed
from service.rules.d20_action_points import attacks, morale
from service.rules.d20_action_points.attack_roll import strike
from service.rules.d20_action_points.battlefield import surroundings, weapon_for
from service.rules.d20_action_points.combatants import stats_of
from service.rules.d20_action_points.events import Fled, Surrendered
from service.rules.d20_action_points.evolve import applied
from service.rules.d20_action_points.evolve_casualties import parting_shooters
from service.rules.d20_action_points.state import D20State, Pending


def open_next(state: D20State, item: Pending, ctx: DecideContext) -> list[Event]:
    """Open the window the head of the queue calls for."""
    table = state.table
    trigger: dict[str, object] = {"resolves": item.id, "actor": item.actor, "target": item.target}
    eligible: dict[str, tuple[str, ...]] = {}
    match item.kind:
        case "broken":
            trigger["kind"] = "morale-broken"
            eligible = {item.target: ("flee", "surrender")}
        case "fled":
            trigger["kind"] = "parting-shot"
            eligible = {c: ("shoot",) for c in parting_shooters(state, item.target)}
        case "disarm-counter":
            trigger["kind"] = "disarm-counter"
            defender = table.combatants.get(item.actor)
            if defender is not None and not defender.out_of_fight:
                eligible = {item.actor: ("attack",)}
        case "readied":
            trigger["kind"] = "readied"
            eligible = {
                c: ("fire",)
                for c in item.readied
                if c in state.readied and not table.combatants[c].out_of_fight
            }
    return reactions.open_window(
        window_id=f"w{table.windows_opened + 1}",
        trigger=trigger,
        eligible=eligible,
        order=list(eligible),
        ctx=ctx,
        seconds=state.options.reaction_window,
        policies=table.policies,
        resources=table.resources_of,
    )


def resolve(state: D20State, closed: ReactionWindowClosed, ctx: DecideContext) -> list[Event]:
    trigger = closed.trigger
    actor, target = str(trigger.get("actor")), str(trigger.get("target"))
    chosen = dict(closed.reactions)
    match trigger.get("kind"):
        case "morale-broken":
            return break_off(state, target, chosen.get(target, "flee"), ctx)
        case "parting-shot":
            return _reactions(state, list(chosen), target, ctx, "parting-shot")
        case "disarm-counter":
            if actor in chosen:
                return _reactions(state, [actor], target, ctx, "counter", advantage=True)
        case "readied":
            return _reactions(state, list(chosen), actor, ctx, "readied")
    return []


def break_off(state: D20State, cid: str, choice: str, ctx: DecideContext) -> list[Event]:
    """Check Morale: a broken combatant flees at double its movement rate or surrenders;
    one who does not choose in time flees (interpretation)."""
    combatant = state.table.combatants.get(cid)
    if combatant is None:
        return []
    if choice == "surrender":
        return [ctx.emit(Surrendered(combatant_id=cid))]
    rate = attacks.movement_rate(stats_of(combatant).speed, surroundings(state, cid))
    return [ctx.emit(Fled(combatant_id=cid, feet=morale.FLIGHT_MULTIPLIER * rate))]


def _reactions(
    state: D20State,
    takers: list[str],
    default_target: str,
    ctx: DecideContext,
    kind: str,
    advantage: bool = False,
) -> list[Event]:
    events: list[Event] = []
    for cid in takers:
        combatant = state.table.combatants.get(cid)
        if combatant is None or combatant.out_of_fight:
            continue
        target = default_target
        weapon_name = None
        if kind == "readied":
            readied = state.readied.get(cid)
            if readied is None:
                continue
            target = readied.target or default_target
            weapon_name = readied.weapon
        victim = state.table.combatants.get(target)
        if victim is None or (victim.out_of_fight and kind != "parting-shot"):
            continue
        try:
            weapon = weapon_for(state, cid, weapon_name, attacks.RANGED)
            made = strike(state, cid, target, weapon, ctx, advantage=advantage, reaction=kind)
        except MissingTableDice:
            raise  # a die the table has yet to roll: the chance is still there
        except RuleViolation:
            # Out of reach or range by now, or the weapon is gone: the chance passes.
            continue
        state = applied(state, made)
        events += made
    return events
