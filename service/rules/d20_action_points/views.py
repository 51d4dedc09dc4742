"""What d20-action-points shows: the phase, legal actions with their action point costs,
the redaction of damage when enemy health is hidden, and one sentence per event."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.domain.context import Actor
from service.domain.errors import RuleViolation
from service.domain.grid import Cell, distance
from service.domain.grid_paths import costs_within
from service.domain.legal import common_actions
from service.domain.narration import Names
from service.domain.views import ActionOption
from service.rules.d20_action_points import action_points
from service.rules.d20_action_points.action_points import ACTIONS, ActionName
from service.rules.d20_action_points.attacks import movement_rate
from service.rules.d20_action_points.battlefield import BY_NAME, engaged_foes, surroundings
from service.rules.d20_action_points.combatants import CELL_FEET, party_sides, stats_of
from service.rules.d20_action_points.initiative import acts_this_round
from service.rules.d20_action_points.movement import SLOWING, travel
from service.rules.d20_action_points.state import D20State


def reachable(state: D20State, cid: str, action: ActionName, feet: int) -> dict[str, Any]:
    """On a map, the cells a move or run of `feet` can end on and what each costs in cells
    (5 feet each), found as the move finds its path (`movement.travel`: past allies but not
    foes, not onto an occupied cell, difficult terrain costing more; with the Environment
    Modifiers, mud or dense foliage on the way shortening it): what a front end draws and
    lets a player click. Off the map, nothing."""
    table = state.table
    me = table.combatants[cid]
    here = me.position
    if table.map is None or here is None:
        return {}
    costs = costs_within(table.map, here, table.occupancy(cid), me.side, feet // CELL_FEET)
    if state.options.environment:
        # Mud or dense foliage on the way may cut `feet`; where it can (past `least`, the
        # feet left with every kind on the map met, and a slowing cell no farther off than
        # the path's cost allows), the move itself says, along the path it would take.
        grid = table.map
        slowing = [e.cell for e in grid.terrain if SLOWING.intersection(e.terrain.tags)]
        kinds = {BY_NAME[t] for e in grid.terrain for t in SLOWING.intersection(e.terrain.tags)}
        around = {*surroundings(state, cid), *kinds}
        least = action_points.feet(action, movement_rate(stats_of(me).speed, around))

        def slowed(cell: Cell, cost: int) -> bool:
            # A path of `cost` can pass through m only if the two legs' open-ground
            # distances fit in it.
            return any(distance(grid, here, m) + distance(grid, m, cell) <= cost for m in slowing)

        costs = {
            cell: cost
            for cell, cost in costs.items()
            if cost * CELL_FEET <= least
            or not slowed(cell, cost)
            or _travels(state, cid, action, cell)
        }
    return {
        "reachable": [{"cell": cell.model_dump(), "cost": cost} for cell, cost in costs.items()]
    }


def _travels(state: D20State, cid: str, action: ActionName, cell: Cell) -> bool:
    try:
        travel(state, cid, action, cell, None)
    except RuleViolation:
        return False
    return True


def phase_label(state: D20State) -> str:
    table = state.table
    match state.phase:
        case "before":
            return {
                None: "before combat: marching order and the surprise check",
                "monsters": "before combat: the monsters noticed the party first",
                "party": "before combat: the party noticed the monsters first",
                "neither": "before combat: both sides are aware",
            }[state.surprise]
        case "declaring":
            ambush = " (ambush)" if state.ambush else ""
            return f"round {state.round}{ambush}: declaring actions"
        case "acting":
            if state.current is not None:
                name = table.combatants[state.current].name
                return f"round {state.round}: {name}'s turn"
            return f"round {state.round}"
        case phase:
            return phase


def legal_actions(state: D20State, viewer: Actor) -> list[ActionOption]:
    actions = common_actions(state.table, viewer)
    if viewer.role in ("observer", "auditor") or state.phase == "ended":
        return actions
    table = state.table
    gm = viewer.is_gm
    if gm:
        actions.append(ActionOption(type="set-environment", label="Set the environment"))
        for side in sorted({c.side for c in table.combatants.values()}):
            actions.append(
                ActionOption(
                    type="set-marching-order",
                    label=f"Set the marching order of {side}",
                    params={"side": side},
                    targets=[c.id for c in table.combatants.values() if c.side == side],
                )
            )
    match state.phase:
        case "before":
            actions += _before(state, viewer)
        case "negotiating" | "paused":
            if gm:
                actions.append(ActionOption(type="rule-negotiation", label="Rule on the talks"))
                actions.append(ActionOption(type="begin-combat", label="Begin the combat"))
        case "evading":
            if gm:
                actions.append(ActionOption(type="resolve-evasion", label="Rule on the evasion"))
        case "declaring":
            actions += _declaring(state, viewer)
        case "acting":
            actions += _acting(state, viewer)
    return actions


def _before(state: D20State, viewer: Actor) -> list[ActionOption]:
    out: list[ActionOption] = []
    party = [c.id for c in state.table.combatants.values() if c.side in party_sides(state)]
    if viewer.is_gm:
        if state.surprise is None:
            out.append(ActionOption(type="surprise-check", label="Make the surprise check"))
        if state.surprise == "monsters":
            out.append(
                ActionOption(
                    type="record-monster-reaction", label="Record the Monster Reaction Chart"
                )
            )
        out.append(ActionOption(type="begin-combat", label="Begin the combat"))
    if state.surprise == "party" and (viewer.is_gm or any(viewer.controls(c) for c in party)):
        out.append(
            ActionOption(
                type="choose-approach",
                label="Ambush, evade or negotiate",
                params={"approaches": ["ambush", "evade", "negotiate", "fight"]},
            )
        )
    return out


def _declaring(state: D20State, viewer: Actor) -> list[ActionOption]:
    out: list[ActionOption] = []
    for combatant in state.table.combatants.values():
        if viewer.controls(combatant.id) and acts_this_round(state, combatant):
            stats = stats_of(combatant)
            out.append(
                ActionOption(
                    type="declare",
                    label=f"Declare {combatant.name}'s action",
                    actor=combatant.id,
                    params={
                        "spells": [s.name for s in stats.spells],
                        "weapons": [w.name for w in state.arms[combatant.id].carried],
                    },
                )
            )
    if viewer.is_gm:
        out.append(ActionOption(type="roll-initiative", label="Roll initiative"))
    return out


def _acting(state: D20State, viewer: Actor) -> list[ActionOption]:
    out: list[ActionOption] = []
    table = state.table
    if viewer.is_gm:
        for cid, readied in state.readied.items():
            out.append(
                ActionOption(
                    type="trigger-readied",
                    label=f"{table.combatants[cid].name}'s trigger: {readied.description}",
                    actor=cid,
                    targets=[c.id for c in table.combatants.values() if not c.out_of_fight],
                )
            )
    for giver in (*state.acted, *([state.current] if state.current else [])):
        if viewer.controls(giver) and state.options.action_points and giver not in state.givers:
            if giver == state.current:
                left = state.turn.points if state.turn is not None else 0
            else:
                left = state.leftover.get(giver, 0)
            me = table.combatants[giver]
            allies = [
                c.id
                for c in table.combatants.values()
                if c.side == me.side
                and c.id != giver
                and not c.out_of_fight
                and c.id not in state.acted
                and c.id != state.current
            ]
            if left >= 1 and allies:
                out.append(
                    ActionOption(
                        type="gift-point",
                        label="Gift an action point",
                        actor=giver,
                        cost={"ap": 1},
                        targets=allies,
                    )
                )
    if table.open_windows() or state.pending or state.current is None:
        return out
    if viewer.controls(state.current):
        out += turn_actions(state, state.current)
    return out


def turn_actions(state: D20State, cid: str) -> list[ActionOption]:
    """What the combatant whose turn it is may do, with what each costs."""
    table = state.table
    me = table.combatants[cid]
    turn = state.turn
    assert turn is not None
    out = [ActionOption(type="end-turn", label=f"End {me.name}'s turn", actor=cid)]
    if not turn.spent and state.queue and cid not in state.grappled:
        out.append(
            ActionOption(
                type="delay",
                label="Delay: act later this round",
                actor=cid,
                targets=list(state.queue),
            )
        )
    heroic = me.pools.get("heroic")
    if heroic is not None and heroic.current >= 1 and cid not in state.heroic_used:
        out.append(
            ActionOption(
                type="spend-heroic-point",
                label="Spend a Heroic Point",
                actor=cid,
                cost={"heroic": 1},
            )
        )
    stats = stats_of(me)
    arms = state.arms.get(cid)
    held = arms.in_hand if arms is not None else None
    foes = [c.id for c in table.combatants.values() if c.side != me.side and not c.out_of_fight]
    prone = me.has_condition("prone")
    grappled = cid in state.grappled

    def offer(kind: str, action: ActionName, label: str, **extra: Any) -> None:
        if grappled and action not in ("break-free", "talk", "drop-item"):
            return
        cost = ACTIONS[action].cost
        if state.options.action_points:
            if cost > turn.points:
                return
            price = {"ap": cost}
        else:
            if cost and turn.actions >= turn.allowed:
                return
            price = {"action": 1} if cost else {}
        out.append(ActionOption(type=kind, label=label, actor=cid, cost=price, **extra))

    def budget(action: ActionName) -> int:
        # Environment Modifiers: the terrain around the mover now; a path on a map may
        # cross more (the move itself checks that).
        return action_points.feet(action, movement_rate(stats.speed, surroundings(state, cid)))

    if grappled:
        offer("break-free", "break-free", "Try to break the grapple")
    if prone:
        offer("stand-up", "stand-up", "Stand up")
        offer("crawl", "crawl", "Crawl 5 feet", params={"max_feet": budget("crawl")})
    else:
        walk, run = budget("move"), budget("run")
        offer(
            "move", "move", f"Move {walk} feet",
            params={"run": False, "max_feet": walk, **reachable(state, cid, "move", walk)},
        )  # fmt: skip
        offer(
            "move", "run", f"Run {run} feet",
            params={"run": True, "max_feet": run, **reachable(state, cid, "run", run)},
        )  # fmt: skip
        offer("drop-prone", "drop-prone", "Drop prone")
        if foes and not engaged_foes(state, cid) and (held is None or held.kind == "melee"):
            offer(
                "charge", "charge", "Charge!", targets=foes, params={"max_feet": budget("charge")}
            )
    if foes:
        weapon = held.name if held is not None else "unarmed strike"
        kind: ActionName = (
            "melee-attack" if held is None or held.kind == "melee" else "ranged-attack"
        )
        offer("attack", kind, f"Attack with the {weapon}", targets=foes, params={"weapon": weapon})
        if stats.attacks > 1:
            offer(
                "full-attack", "full-attack", f"Full attack ({stats.attacks} attacks)", targets=foes
            )
        offer("throw", "ranged-attack", "Throw an object", targets=foes)
        armed = [f for f in foes if (a := state.arms.get(f)) is not None and a.in_hand]
        if armed:
            offer("disarm", "disarm", "Disarm", targets=armed)
        if held is None:
            free = [f for f in foes if f not in state.grappled]
            if free:
                offer("grapple", "grapple", "Grapple", targets=free)
    declared = state.declared.get(cid)
    if declared is not None and declared.spell is not None:
        offer(
            "cast-spell",
            "cast-spell",
            f"Cast {declared.spell}",
            targets=list(table.combatants),
            params={"spell": declared.spell},
        )
    offer(
        "ready",
        "ready",
        "Ready an action",
        params={"triggers": ["moves", "attacks", "casts", "gm"]},
    )
    carried = [w.name for w in arms.carried if w.name != arms.wielding] if arms else []
    lying = [g.weapon.name for g in state.ground]
    if carried or lying:
        offer(
            "equip-item",
            "equip-item",
            "Draw or pick up a weapon",
            params={"carried": carried, "on_the_ground": lying},
        )
    offer("equip-item", "equip-item", "Use an item", params={"description": True})
    if held is not None:
        offer("drop-item", "drop-item", f"Drop the {held.name}")
    if any(g == cid for g in state.grappled.values()):
        offer("release", "release", "Let go")
    offer("talk", "talk", "Talk")
    return out


# --- narration --------------------------------------------------------------------------


def _signed(n: int) -> str:
    return f"{n:+d}"


def _attack(d: dict[str, Any], n: Names) -> str:
    reaction = {
        "parting-shot": " as it flees",
        "counter": " in answer to the disarm",
        "readied": " (readied)",
    }.get(d.get("reaction") or "", "")
    dice = "/".join(str(x) for x in d["dice"])
    edge = f" with {d['edge']}" if d.get("edge", "normal") != "normal" else ""
    roll = f"d20 {dice}{edge} {_signed(d['modifier'])} = {d['total']} against AC {d['ac']}"
    if not d["hit"]:
        outcome = "a critical fail" if d.get("critical_fail") else "a miss"
    else:
        crit = "a critical hit" if d.get("critical_hit") else "a hit"
        stab = f", backstab x{d['backstab']}" if d.get("backstab") else ""
        outcome = f"{crit}{stab}" + (f" for {d['damage']}" if d.get("damage") is not None else "")
    if d.get("how") == "object":
        return f"{n(d['attacker'])} throws {d['weapon']} at {n(d['target'])}: {roll}, {outcome}."
    return (
        f"{n(d['attacker'])} attacks {n(d['target'])} with the {d['weapon']}{reaction}: "
        f"{roll}, {outcome}."
    )


def _spell(d: dict[str, Any], n: Names) -> str:
    at = f" at {n(d['target'])}" if d.get("target") else ""
    roll = f"d20 {d['natural']} {_signed(d['modifier'])} = {d['total']} against DC {d['dc']}"
    result = "it works" if d["outcome"] == "cast" else "it fails and the mana is spent"
    damage = f", {d['damage']} damage" if d.get("damage") else ""
    return f"{n(d['combatant_id'])} casts {d['spell']}{at}: {roll}, {result}{damage}."


def _opposed(verb: str) -> Callable[[dict[str, Any], Names], str]:
    def text(d: dict[str, Any], n: Names) -> str:
        outcome = d.get("outcome")
        if outcome is None:
            outcome = "succeeds" if d.get("success") else "fails"
        return (
            f"{n(d['combatant_id'])} {verb} {n(d['target'])}: {d['total']} against "
            f"{d['target_total']}, {outcome}."
        )

    return text


def _initiative(d: dict[str, Any], n: Names) -> str:
    order = ", ".join(n(c) for c in d["order"])
    ambush = " (the ambush round: only the party acts)" if d.get("ambush") else ""
    return f"Initiative{ambush}: {order}."


def _surprise(d: dict[str, Any], n: Names) -> str:
    result = {
        "monsters": "the monsters have the upper hand",
        "party": "the party noticed the monsters first",
        "neither": "both sides are aware",
    }[d["result"]]
    return (
        f"Surprise check: {n(d['sneaker'])} {d['total']} against {n(d['noticer'])}'s Notice "
        f"{d['notice']}: {result}."
    )


def _death(d: dict[str, Any], n: Names) -> str:
    roll = f" ({d['total']} against {d['dc']})" if d.get("total") is not None else ""
    word = {"unconscious": "survives, unconscious", "dead": "dies", "dying": "is dying"}
    return f"{n(d['combatant_id'])} makes a death check{roll} and {word[d['outcome']]}."


NARRATION: dict[str, Callable[[dict[str, Any], Names], str]] = {
    "marching-order-set": lambda d, n: (
        f"Marching order of {d['side']}: "
        + " / ".join(", ".join(n(c) for c in rank) for rank in d["ranks"])
        + "."
    ),
    "environment-set": lambda d, n: (
        f"Around {n(d['combatant_id']) if d.get('combatant_id') else 'everyone'}: "
        + (", ".join(d["circumstances"]) or "nothing special")
        + "."
    ),
    "surprise-checked": _surprise,
    "monster-reaction-recorded": lambda d, n: (
        f"The monsters react: {d['result']} ({d['outcome']})."
    ),
    "approach-chosen": lambda d, n: f"The party chooses to {d['approach']}.",
    "ambush-rolled": lambda d, n: (
        f"Ambush: hide DC {d['dc']}, the monsters roll {d['gm_total']}: "
        + ("the ambush succeeds." if d["success"] else "the ambush fails.")
    ),
    "evading": lambda d, n: "The party tries to slip past at a tenth of its speed.",
    "evasion-resolved": lambda d, n: (
        "The party slips away." if d["outcome"] == "evaded" else "The monsters notice them."
    ),
    "negotiation-ruled": lambda d, n: (
        {
            "agreement": "They come to an agreement",
            "pause": "The talks pause",
            "fight": "The talks break down",
        }[d["outcome"]]
        + (f": {d['terms']}." if d.get("terms") else ".")
    ),
    "combat-began": lambda d, n: "Combat begins" + (" with an ambush." if d.get("ambush") else "."),
    "round-started": lambda d, n: f"Round {d['round']}: declare actions.",
    "action-declared": lambda d, n: (
        f"{n(d['combatant_id'])} declares: {d['spell'] or d['action']}"
        + (f" (initiative {_signed(d['initiative'])})" if d.get("initiative") else "")
        + "."
    ),
    "initiative-rolled": _initiative,
    "turn-started": lambda d, n: (
        f"{n(d['combatant_id'])}'s turn"
        + (f": {d['points']} action points." if d["points"] else ".")
    ),
    "turn-ended": lambda d, n: (
        f"{n(d['combatant_id'])}'s turn ends"
        + (": time is up." if d.get("reason") == "timeout" else ".")
    ),
    "turn-skipped": lambda d, n: f"{n(d['combatant_id'])} loses the turn: {d['reason']}.",
    "turn-delayed": lambda d, n: (
        f"{n(d['combatant_id'])} delays"
        + (f" until after {n(d['until'])}." if d.get("until") else " to the end of the round.")
    ),
    "action-taken": lambda d, n: (
        f"{n(d['combatant_id'])}: {d['action'].replace('-', ' ')}"
        + (f" ({d['points']} AP)." if d.get("points") else ".")
    ),
    "point-gifted": lambda d, n: f"{n(d['combatant_id'])} gifts an action point to {n(d['to'])}.",
    "heroic-point-spent": lambda d, n: (
        f"{n(d['combatant_id'])} spends a Heroic Point for another action."
    ),
    "moved": lambda d, n: f"{n(d['combatant_id'])} {d['how']}s {d['feet']} feet.",
    "stood-up": lambda d, n: f"{n(d['combatant_id'])} stands up.",
    "dropped-prone": lambda d, n: f"{n(d['combatant_id'])} drops prone.",
    "item-dropped": lambda d, n: f"{n(d['combatant_id'])} drops the {d['weapon']['name']}.",
    "item-equipped": lambda d, n: (
        f"{n(d['combatant_id'])} "
        + (
            ("picks up" if d.get("picked_up") else "draws") + f" the {d['weapon']['name']}."
            if d.get("weapon")
            else f"{d.get('description')}."
        )
    ),
    "talked": lambda d, n: f"{n(d['combatant_id'])}: \u201c{d['text']}\u201d",
    "attack-rolled": _attack,
    "spell-cast": _spell,
    "spell-interrupted": lambda d, n: (
        f"{n(d['combatant_id'])}'s {d['spell']} is interrupted; {d['mana']} mana is lost."
    ),
    "action-readied": lambda d, n: (
        f"{n(d['combatant_id'])} readies: {d['readied']['description']}."
    ),
    "readied-triggered": lambda d, n: (
        f"{n(d['target'])} sets off {n(d['combatant_id'])}'s readied action."
    ),
    "charged": lambda d, n: f"{n(d['combatant_id'])} charges {n(d['target'])}!",
    "disarm-rolled": _opposed("tries to disarm"),
    "grapple-rolled": _opposed("grapples"),
    "break-free-rolled": lambda d, n: (
        f"{n(d['combatant_id'])} tries to break free of {n(d['target'])}: {d['total']} against "
        f"{d['target_total']}, " + ("free." if d["success"] else "still held.")
    ),
    "released": lambda d, n: f"{n(d['combatant_id'])} lets go of {n(d['target'])}.",
    "morale-checked": lambda d, n: (
        f"{n(d['combatant_id'])} checks morale: d20 {d['natural']} {_signed(d['bonus'])} = "
        f"{d['total']} against DC {d['dc']}"
        + (" (disadvantage)" if d.get("disadvantage") else "")
        + (": broken!" if d["broken"] else ": holds.")
    ),
    "fled": lambda d, n: f"{n(d['combatant_id'])} flees at {d['feet']} feet a move!",
    "surrendered": lambda d, n: f"{n(d['combatant_id'])} throws down its arms and surrenders.",
    "defeated": lambda d, n: f"{n(d['combatant_id'])} is defeated.",
    "death-checked": _death,
    "killed": lambda d, n: f"{n(d['combatant_id'])} is killed by {d['cause']}.",
    "level-drained": lambda d, n: (
        f"{n(d['attacker'])} drains a level from {n(d['combatant_id'])}: now level "
        f"{d['level']}, {d['max_hp']} hp at most."
    ),
    "poison-saved": lambda d, n: (
        f"{n(d['combatant_id'])} saves against poison: {d['total']} against DC {d['dc']}, "
        + ("resisted." if d["saved"] else "poisoned!")
    ),
}
