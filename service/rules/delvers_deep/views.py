"""What Delver's Deep shows: legal actions with their point costs, and one sentence per
event."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.domain.context import Actor, looking_ahead
from service.domain.frozen import replace
from service.domain.grid_paths import costs_within
from service.domain.legal import common_actions
from service.domain.narration import Names
from service.domain.table import Combatant
from service.domain.views import ActionOption
from service.rules.delvers_deep.attacks import attack_cost, in_reach, reaction_cost
from service.rules.delvers_deep.evolve import evolve
from service.rules.delvers_deep.points import affordable, auto_recovery, current, stats_of
from service.rules.delvers_deep.state import DelversState
from service.rules.delvers_deep.turns import next_side, waiting

MOVES = ((0, "Move"), (1, "Jog"), (2, "Sprint"))


def legal_actions(state: DelversState, viewer: Actor) -> list[ActionOption]:
    actions = [_priced(state, a) for a in common_actions(state.table, viewer)]
    if viewer.role in ("observer", "auditor"):
        return actions
    table = state.table
    if state.phase == "reflex":
        for cid in state.reflex:
            ref = current(table.combatants[cid], "ref")
            if viewer.controls(cid) and ref >= 1:
                actions.append(
                    ActionOption(
                        type="boost-reflex",
                        label="Spend REF on reflex",
                        actor=cid,
                        cost={"ref": 1},
                        params={"max": ref},
                    )
                )
        if viewer.is_gm:
            actions.append(ActionOption(type="fix-order", label="Fix the combat order"))
    if state.phase != "running":
        return actions
    if viewer.is_gm:
        actions.append(
            ActionOption(
                type="call-check", label="Call for a check", targets=list(table.combatants)
            )
        )
    if table.open_windows() or state.pending:
        return actions
    if viewer.is_gm and not state.current and next_side(state) == "gm":
        actions.append(
            ActionOption(
                type="pick", label="Choose who acts in the GM's slot", targets=waiting(state, "gm")
            )
        )
    for cid in state.current:
        if viewer.controls(cid):
            actions += turn_actions(state, cid)
    return actions


def _priced(state: DelversState, option: ActionOption) -> ActionOption:
    """An `answer-reaction` with what each of its options costs (`params.costs`) and, as
    `cost`, the cheapest reaction that is not a pass, as execute-attack shows in fifty-two."""
    if option.type != "answer-reaction" or option.actor is None:
        return option
    cid = option.actor
    costs = {o: reaction_cost(state, cid, o) for o in option.params["options"]}
    paid = [c for o, c in costs.items() if c and o != "pass"]
    cheapest = min(paid, key=lambda c: sum(c.values())) if paid else None
    return replace(option, {"cost": cheapest, "params": {**option.params, "costs": costs}})


def turn_actions(state: DelversState, cid: str) -> list[ActionOption]:
    turn = state.turns[cid]
    name = state.table.combatants[cid].name
    out = [ActionOption(type="end-turn", label=f"End {name}'s turn", actor=cid)]
    stats = stats_of(state.table.combatants[cid])
    if not turn.recovered and not turn.actions_used and stats.recovery:
        out.append(
            ActionOption(
                type="recover",
                label=f"Recover {stats.recovery} points",
                actor=cid,
                params={"points": stats.recovery},
            )
        )
    if turn.actions_used >= 2:
        return out
    # Costs are judged after the recovery that the first action would apply by itself.
    for event in auto_recovery(state, cid, looking_ahead()):
        state = evolve(state, event)
    me = state.table.combatants[cid]

    def offer(kind: str, label: str, cost: dict[str, int], **extra: Any) -> None:
        if affordable(me, cost):
            out.append(
                ActionOption(
                    type=kind,
                    label=label,
                    actor=cid,
                    cost={k: v for k, v in cost.items() if v},
                    **extra,
                )
            )

    for sprint, word in MOVES:
        reach = stats.speed + 2 * sprint
        offer(
            "move",
            f'{word} {reach}"',
            {"fort": sprint},
            params={"sprint": sprint, "distance": reach, **reachable(state, cid, reach)},
        )
    for weapon in stats.weapons:
        if weapon.name in state.unloaded.get(cid, ()):
            offer(
                "reload",
                f"Reload the {weapon.name}",
                {"fort": weapon.reload_fort},
                params={"weapon": weapon.name},
            )
            continue
        targets = [t.id for t in _enemies(state, me) if in_reach(state, cid, t.id, weapon)]
        if targets:
            offer(
                "attack",
                f"Attack with the {weapon.name}",
                attack_cost(weapon, 0),
                targets=targets,
                params={"weapon": weapon.name},
            )
    for spell in stats.spells:
        offer(
            "cast",
            f"Cast {spell.name}",
            {"will": spell.will},
            targets=list(state.table.combatants),
            params={"spell": spell.name, "dc": spell.dc},
        )
    offer("improvise", "Improvise", {})
    offer("interact", "Interact", {}, targets=[c for c in state.table.combatants if c != cid])
    if not turn.braced:
        offer("brace", "Brace", {"fort": 1})
    if not turn.defended:
        offer("defend", "Defend", {"ref": 1})
    if not turn.focused:
        offer("focus", "Focus", {"will": 1})
    allies = [
        c.id
        for c in state.table.combatants.values()
        if c.side == me.side and c.id != cid and c.id not in turn.encouraged
    ]
    if allies:
        offer("encourage", "Encourage an ally", {"will": 1}, targets=allies)
    return out


def reachable(state: DelversState, cid: str, reach: int) -> dict[str, Any]:
    """On a map, the cells a move of `reach` inches can end on and what each costs, found as
    `move` finds its path (delvers-deep 4.1 Movement: 1 cell = 1", past allies but not
    enemies, terrain costs): what a front end draws and lets a player click. Off the map,
    nothing."""
    table = state.table
    here = table.combatants[cid].position
    if table.map is None or here is None:
        return {}
    side = table.combatants[cid].side
    costs = costs_within(table.map, here, table.occupancy(cid), side, reach)
    return {
        "reachable": [{"cell": cell.model_dump(), "cost": cost} for cell, cost in costs.items()]
    }


def _enemies(state: DelversState, me: Combatant) -> list[Combatant]:
    return [c for c in state.table.combatants.values() if c.side != me.side and not c.out_of_fight]


def _dice(faces: Any) -> str:
    return ", ".join(str(f) for f in faces)


def _paid(cost: dict[str, int]) -> str:
    spent = [f"{n} {pool.upper()}" for pool, n in cost.items() if n]
    return f" for {' and '.join(spent)}" if spent else ""


def _attack(d: dict[str, Any], n: Names) -> str:
    verb = "strikes back at" if d.get("reaction") else "attacks"
    # The damage is null for a viewer who may not see the target's health.
    damage = f" for {d['damage']}" if d.get("damage") is not None else ""
    result = f"hits{damage}" if d["hit"] else "misses"
    return (
        f"{n(d['attacker'])} {verb} {n(d['target'])} with the {d['weapon']}{_paid(d['cost'])}:"
        f" rolled {_dice(d['dice'])} against {d['hit_on']}+ and {result}."
    )


def _moved(d: dict[str, Any], n: Names) -> str:
    pace = {0: "moves", 1: "jogs", 2: "sprints"}[d.get("sprint", 0)]
    return f'{n(d["combatant_id"])} {pace} {d["distance"]}"{_paid(d["cost"])}.'


def _recovered(d: dict[str, Any], n: Names) -> str:
    parts = [f"{d[p]} {p.upper()}" for p in ("fort", "ref", "will") if d[p]]
    gained = ", ".join(parts) or "nothing"
    lost = f" ({d['discarded']} discarded)" if d["discarded"] else ""
    how = " automatically" if d.get("auto") else ""
    return f"{n(d['combatant_id'])} recovers {gained}{how}{lost}."


def _spell(d: dict[str, Any], n: Names) -> str:
    roll = f": rolled {d['roll']} against {d['dc']}+" if d.get("roll") is not None else ""
    outcome = "" if d["success"] else " and it fizzles"
    at = f" at {n(d['target'])}" if d.get("target") else ""
    return f"{n(d['combatant_id'])} casts {d['spell']}{at}{roll}{outcome}."


def _improvised(d: dict[str, Any], n: Names) -> str:
    roll = ""
    if d.get("roll") is not None:
        word = "succeeds" if d["success"] else "fails"
        roll = f" and {word} (rolled {d['roll']} against {d['dc']}+)"
    return f"{n(d['combatant_id'])} tries to {d['description']}{_paid(d['cost'])}{roll}."


NARRATION: dict[str, Callable[[dict[str, Any], Names], str]] = {
    "reflex-rolled": lambda d, n: f"{n(d['combatant_id'])} rolls {d['roll']} for reflex.",
    "reflex-boosted": lambda d, n: (
        f"{n(d['combatant_id'])} spends {d['points']} REF: reflex {d['total']}."
    ),
    "order-fixed": lambda d, n: (
        "The PCs act in this order: " + ", ".join(n(c) for c in d["order"]) + "."
        if d["order"]
        else "There are no PCs to order."
    ),
    "round-started": lambda d, n: f"Round {d['round']} begins.",
    "turn-started": lambda d, n: (
        f"It is {' and '.join(n(c) for c in d['combatant_ids'])}'s turn"
        + (" (the PCs' slot)." if d["side"] == "pcs" else " (the GM's slot).")
    ),
    "turn-ended": lambda d, n: (
        f"{n(d['combatant_id'])}'s turn ends"
        + (": time is up." if d.get("reason") == "timeout" else ".")
    ),
    "recovered": _recovered,
    "moved": _moved,
    "attack-rolled": _attack,
    "reloaded": lambda d, n: f"{n(d['combatant_id'])} reloads the {d['weapon']}{_paid(d['cost'])}.",
    "spell-cast": _spell,
    "improvised": _improvised,
    "interacted": lambda d, n: (
        f"{n(d['combatant_id'])}: {d['description']}"
        + (f" (with {n(d['partner'])})." if d.get("partner") else ".")
    ),
    "interaction-answered": lambda d, n: (
        f"{n(d['combatant_id'])} {'joins in' if d['participated'] else 'does not join in'}."
    ),
    "braced": lambda d, n: f"{n(d['combatant_id'])} braces: Health check {d['dc']}+.",
    "defended": lambda d, n: f"{n(d['combatant_id'])} defends: Dodge check {d['dc']}+.",
    "focused": lambda d, n: f"{n(d['combatant_id'])} focuses: Sanity check {d['dc']}+.",
    "encouraged": lambda d, n: (
        f"{n(d['combatant_id'])} encourages {n(d['target'])}: Sanity check {d['dc']}+."
    ),
    "check-rolled": lambda d, n: (
        f"{n(d['combatant_id'])} {'passes' if d['success'] else 'fails'} a {d['check']} check:"
        f" rolled {d['roll']} against {d['dc']}+."
    ),
    "dodged": lambda d, n: (
        f"{n(d['combatant_id'])} dodges {n(d['attacker'])}'s {d['weapon'] or 'attack'}:"
        f" rolled {_dice(d['dice'])} against {d['dc']}+."
    ),
    "dodge-failed": lambda d, n: (
        f"{n(d['combatant_id'])} fails to dodge {n(d['attacker'])}'s {d['weapon'] or 'attack'}:"
        f" rolled {_dice(d['dice'])} against {d['dc']}+."
    ),
    "reaction-refused": lambda d, n: (
        f"{n(d['combatant_id'])} cannot {d['reaction'].replace('-', ' ')}: {d['reason']}."
    ),
    "damage-taken": lambda d, n: (
        f"{n(d['combatant_id'])} takes {d['amount']} damage"
        + (f" from {d['source']}" if d.get("source") else "")
        + (" (halved)" if d.get("halved") else "")
        + "."
    ),
}
