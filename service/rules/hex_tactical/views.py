"""What hex-tactical shows: legal actions with what a VTT needs to draw its overlays
(reachable cells and their cost, threatened cells per side, targets with their range band
and cover), the phase, and one sentence per event."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from typing import Any

from service.domain.context import Actor
from service.domain.grid import Cell, terrain_at
from service.domain.legal import common_actions
from service.domain.narration import Names
from service.domain.views import ActionOption
from service.rules.hex_tactical.geometry import (
    MIRED,
    SLIPPERY,
    band,
    budget_of,
    cover_against,
    cover_cells_next_to,
    enemies,
    feet_between,
    fighting,
    in_melee,
    partners,
    position,
    reachable,
    threatened_cells,
    threateners,
    threatens,
    wielded,
)
from service.rules.hex_tactical.hazards import PRONE
from service.rules.hex_tactical.state import HexState, Weapon, stats_of
from service.rules.hex_tactical.weapons import UNARMED


def phase_label(state: HexState) -> str:
    if state.phase != "running" or state.round == 0:
        return state.phase
    if state.current is None:
        return f"round {state.round}"
    name = state.table.combatants[state.current].name
    return f"round {state.round}: {name}'s turn"


def legal_actions(state: HexState, viewer: Actor) -> list[ActionOption]:
    actions = common_actions(state.table, viewer)
    if viewer.role in ("observer", "auditor") or state.phase == "ended":
        return actions
    if viewer.is_gm:
        actions += _gm_actions(state)
    if state.phase != "running" or state.pending or state.table.open_windows():
        return actions
    cid = state.current
    if cid is not None and viewer.controls(cid):
        actions += turn_actions(state, cid)
    return actions


def _gm_actions(state: HexState) -> list[ActionOption]:
    ids = list(state.table.combatants)
    out = [
        ActionOption(type="place-cover", label="Place cover"),
        ActionOption(type="set-awareness", label="Rule on awareness", targets=ids),
        ActionOption(type="call-check", label="Call for a check", targets=ids),
    ]
    if state.cover:
        cells = [c.cell.model_dump() for c in state.cover.values()]
        out.append(ActionOption(type="remove-cover", label="Remove cover", params={"cells": cells}))
    if state.current is not None and state.turn.actions < 2 and not state.pending:
        foes = [c for c in ids if enemies(state, c, state.current) and fighting(state, c)]
        if foes:
            out.append(
                ActionOption(
                    type="pass-enemy",
                    label="Approve moving past an enemy",
                    actor=state.current,
                    targets=foes,
                )
            )
    return out


def turn_actions(state: HexState, cid: str) -> list[ActionOption]:
    combatant = state.table.combatants[cid]
    stats = stats_of(combatant)
    out = [
        ActionOption(type="end-turn", label=f"End {combatant.name}'s turn", actor=cid),
        ActionOption(type="surrender", label=f"{combatant.name} surrenders", actor=cid),
    ]
    held = state.wielding.get(cid)
    dropped = state.dropped.get(cid, ())
    for weapon in stats.weapons:
        if weapon.name in dropped and (state.turn.other or state.turn.actions >= 2):
            continue
        if weapon.name != held:
            out.append(
                ActionOption(
                    type="wield", label=f"Wield the {weapon.name}", actor=cid,
                    params={"weapon": weapon.name},
                )
            )  # fmt: skip
    if state.turn.actions >= 2:
        return out
    action = {"actions": 1}
    out.append(
        ActionOption(
            type="move", label="Move", actor=cid, cost=action, params=move_overlay(state, cid)
        )
    )
    out.append(ActionOption(type="reserve-move", label="Reserve a move", actor=cid, cost=action))
    here = position(state, cid)
    if here is not None and cover_cells_next_to(state, here, "partial"):
        # hex-tactical Cover: "and has an action left": any action (cover.take_cover).
        out.append(ActionOption(type="take-cover", label="Take cover", actor=cid, cost=action))
    if state.turn.other:
        return out
    for weapon in _weapons(state, cid):
        targets = attack_targets(state, cid, weapon)
        if targets:
            out.append(
                ActionOption(
                    type="attack",
                    label=f"Attack with the {weapon.name}",
                    actor=cid,
                    cost=action,
                    targets=[t["id"] for t in targets],
                    params={"weapon": weapon.name, "targets": targets},
                )
            )
        if weapon.kind == "ranged":
            out.append(
                ActionOption(
                    type="overwatch", label=f"Overwatch with the {weapon.name}", actor=cid,
                    cost=action, params={"weapon": weapon.name},
                )
            )  # fmt: skip
    close = _in_reach(state, cid)
    if close:
        out.append(
            ActionOption(
                type="maneuver", label="Grapple, trip or disarm", actor=cid, cost=action,
                targets=close, params={"maneuvers": ["grapple", "trip", "disarm"]},
            )
        )  # fmt: skip

    threatened = here is not None and any(
        here in threatens(state, c) for c in state.table.combatants if enemies(state, c, cid)
    )
    provokes = {"provokes": threatened}
    out.append(
        ActionOption(type="use-skill", label="Use a skill", actor=cid, cost=action, params=provokes)
    )
    out.append(
        ActionOption(type="use-item", label="Use an item", actor=cid, cost=action, params=provokes)
    )
    objects = [c.cell.model_dump() for c in state.cover.values() if c.durability is not None]
    if objects:
        out.append(
            ActionOption(
                type="target-object", label="Target an object", actor=cid, cost=action,
                params={"cells": objects},
            )
        )  # fmt: skip
    return out


def _weapons(state: HexState, cid: str) -> list[Weapon]:
    held = wielded(state, cid)
    dropped = state.dropped.get(cid, ())
    weapons = stats_of(state.table.combatants[cid]).weapons
    rest = [w for w in weapons if w != held and w.name not in dropped]
    return [held or UNARMED, *rest]


def _in_reach(state: HexState, cid: str) -> list[str]:
    weapon = wielded(state, cid)
    reach = weapon.reach if weapon is not None and weapon.kind == "melee" else 1
    here = position(state, cid)
    if here is None or state.table.map is None:
        return []
    out = []
    for other in state.table.combatants:
        there = position(state, other)
        if other == cid or there is None or not fighting(state, other):
            continue
        if (
            enemies(state, cid, other)
            and feet_between(state, here, there) <= reach * state.options.cell_feet
        ):
            out.append(other)
    return out


def attack_targets(state: HexState, cid: str, weapon: Weapon) -> list[dict[str, Any]]:
    """Enemies the weapon can attack now, with the band, cover and banes of the attack."""
    here = position(state, cid)
    if here is None or state.table.map is None:
        return []
    out = []
    for other, combatant in state.table.combatants.items():
        there = combatant.position
        if not enemies(state, cid, other) or there is None or not fighting(state, other):
            continue
        feet = feet_between(state, here, there)
        entry: dict[str, Any] = {"id": other, "distance_feet": feet}
        if weapon.kind == "melee":
            if feet > weapon.reach * state.options.cell_feet:
                continue
            entry["boons"] = int(combatant.has_condition(PRONE))
        else:
            shot = band(weapon, feet)
            cover, _ = cover_against(state, cid, other)
            if shot is None or cover == "total":
                continue
            into = in_melee(state, other) and any(p != cid for p in partners(state, other))
            entry |= {
                "band": shot,
                "cover": cover,
                "banes": shot
                + (cover == "partial")
                + (into and state.options.into_melee == "bane"),
                "in_melee": into,
                # A shot at an adjacent target puts the two in melee before it can dodge.
                "can_dodge": not in_melee(state, other)
                and feet > state.options.cell_feet
                and cid not in state.unaware.get(other, ()),
            }
        out.append(entry)
    return out


def move_overlay(state: HexState, cid: str) -> dict[str, Any]:
    """Reachable cells with their cost and what waits on the way, and threatened cells."""
    here = position(state, cid)
    grid = state.table.map
    if here is None or grid is None:
        return {}
    budget = budget_of(state, cid)
    if state.table.combatants[cid].has_condition(PRONE):
        budget -= budget // 2
    cells = []
    steps: dict[tuple[Cell, Cell], tuple[str, ...]] = {}
    zones = {c: threatens(state, c) for c in state.table.combatants}
    for cell, (cost, path) in reachable(state, cid, here, budget).items():
        if cell == here:
            continue
        # A hint: judged from where everyone stands now, step by step along the path.
        for step in pairwise(path):
            if step not in steps:
                steps[step] = threateners(state, cid, *step, zones=zones)
        provokes = sorted({t for step in pairwise(path) for t in steps[step]})
        hazards = sorted({tag for step in path[1:] for tag in _hazards(state, step)})
        cells.append(
            {"cell": cell.model_dump(), "cost": cost, "provokes": provokes, "hazards": hazards}
        )
    return {"budget": budget, "reachable": cells, "threatened": _threat_json(state)}


def _hazards(state: HexState, cell: Cell) -> list[str]:
    grid = state.table.map
    assert grid is not None
    terrain = terrain_at(grid, cell)
    found = [tag for tag in (SLIPPERY, MIRED) if tag in terrain.tags]
    if terrain.kind == "difficult":
        found.append("difficult")
    if terrain.damage is not None:
        found.append("damaging")
    return found


def _threat_json(state: HexState) -> dict[str, list[dict[str, int]]]:
    return {
        side: [c.model_dump() for c in cells] for side, cells in threatened_cells(state).items()
    }


# --- narration ------------------------------------------------------------------------------


def _check(d: dict[str, Any]) -> str:
    c = d["check"]
    word = "success" if c["success"] else "failure"
    extra = "" if c["difficulty"] == "normal" else f" {c['difficulty']}"
    return f"{c['roll']} vs {c['target']}{extra}: {word}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _a(noun: str, capital: bool = False) -> str:
    article = "an" if noun[:1].lower() in "aeiou" else "a"
    return f"{article.capitalize() if capital else article} {noun}"


def _cells(path: list[dict[str, int]]) -> str:
    return f"({path[-1]['x']}, {path[-1]['y']})"


def _attack(d: dict[str, Any], n: Names) -> str:
    how = " (attack of opportunity)" if d["opportunity"] else ""
    how = " (overwatch)" if d["overwatch"] else how
    band_text = "" if d.get("band") is None else f", band {d['band']}"
    if d["maneuver"]:
        result = "it works" if d["hit"] else "it fails"
        return (
            f"{n(d['attacker'])} tries to {d['maneuver']} {n(d['target'])}{how}: "
            f"{_check(d)}; {result}."
        )
    result = "hits" if d["hit"] else "misses"
    return (
        f"{n(d['attacker'])} tries the {d['weapon']} on {n(d['target'])}{how}{band_text}: "
        f"{_check(d)}; {result}."
    )


NARRATION: dict[str, Callable[[dict[str, Any], Names], str]] = {
    "action-begun": lambda d, n: f"{n(d['combatant_id'])} acts: {d['what']}.",
    "initiative-rolled": lambda d, n: f"{n(d['combatant_id'])} rolls initiative: {_check(d)}.",
    "order-set": lambda d, n: "Initiative order: " + ", ".join(n(c) for c in d["order"]) + ".",
    "round-started": lambda d, n: f"Round {d['round']} begins.",
    "turn-started": lambda d, n: f"{n(d['combatant_id'])}'s turn.",
    "turn-ended": lambda d, n: f"{n(d['combatant_id'])}'s turn ends ({d['reason']}).",
    "moved": lambda d, n: (
        f"{n(d['combatant_id'])} {'runs' if d['reserved'] else 'moves'} "
        f"{_count(len(d['path']) - 1, 'cell')} to {_cells(d['path'])} (cost {d['cost']})."
    ),
    "terrain-checked": lambda d, n: (
        f"{n(d['combatant_id'])} crosses {d['terrain']} ground: {_check(d)}."
    ),
    "broke-free": lambda d, n: (
        f"{n(d['combatant_id'])} struggles to break free ({d['held']}): {_check(d)}."
    ),
    "stood-up": lambda d, n: f"{n(d['combatant_id'])} stands up.",
    "terrain-damaged": lambda d, n: (
        f"The ground hurts {n(d['combatant_id'])} ({d['kind']}, {d['expression']}): "
        f"{d['taken']} damage."
    ),
    "pass-attempted": lambda d, n: (
        f"{n(d['combatant_id'])} tries to slip past {n(d['enemy'])}: {_check(d)}."
    ),
    "opportunity-raised": lambda d, n: (
        f"{n(d['combatant_id'])} gives "
        + ", ".join(n(c) for c in d["threateners"])
        + " an opening; everything pauses."
    ),
    "opportunity-checked": lambda d, n: (
        f"{n(d['combatant_id'])} tries to seize the opening on {n(d['target'])}: {_check(d)}."
    ),
    "attack-rolled": _attack,
    "stray-hit": lambda d, n: (
        f"The shot meant for {n(d['intended'])} strikes {n(d['struck'])} instead."
    ),
    "melee-joined": lambda d, n: (
        f"{n(d['combatants'][0])} and {n(d['combatants'][1])} are in melee."
    ),
    "melee-ended": lambda d, n: (
        f"{n(d['combatants'][0])} and {n(d['combatants'][1])} are no longer in melee "
        f"({d['reason']})."
    ),
    "defended": lambda d, n: f"{n(d['combatant_id'])} tries to {d['response']}: {_check(d)}.",
    "damage-dealt": lambda d, n: (
        f"{n(d['combatant_id'])} takes {d['taken']} damage"
        + (f" ({d['rolled']} less {d['armor']} armor)." if d["armor"] else ".")
    ),
    "maneuver-landed": lambda d, n: (
        f"{n(d['attacker'])}'s {d['maneuver']} lands on {n(d['target'])}."
    ),
    "cover-taken": lambda d, n: (
        f"{n(d['combatant_id'])} takes cover: {_check(d)}"
        + ("; the cover is total until their next turn." if d["check"]["success"] else ".")
    ),
    "skill-used": lambda d, n: (
        f"{n(d['combatant_id'])} uses {d['skill']} ({d['description']}): {_check(d)}."
    ),
    "item-used": lambda d, n: f"{n(d['combatant_id'])} uses the {d['item']}.",
    "object-struck": lambda d, n: (
        f"{n(d['combatant_id'])} strikes the {d['name']}: {_check(d)}"
        + ("; it is destroyed." if d["destroyed"] else f"; durability {d['durability']}.")
    ),
    "cover-placed": lambda d, n: (
        f"{_a(d['cover']['name'], capital=True)} ({d['cover']['kind']} cover) stands at "
        f"({d['cover']['cell']['x']}, {d['cover']['cell']['y']})."
    ),
    "cover-removed": lambda d, n: f"The cover at ({d['cell']['x']}, {d['cell']['y']}) is gone.",
    "awareness-set": lambda d, n: (
        f"{n(d['combatant_id'])} is {'aware' if d['aware'] else 'unaware'} of {n(d['of'])}."
    ),
    "wielded": lambda d, n: (
        f"{n(d['combatant_id'])} "
        + (
            "is disarmed."
            if d["dropped"]
            else (f"wields the {d['weapon']}." if d["weapon"] else "puts the weapon away.")
        )
    ),
    "move-reserved": lambda d, n: (
        f"{n(d['combatant_id'])} "
        + (
            "watches over the field."
            if d["reservation"]["kind"] == "overwatch"
            else "holds a move in reserve."
        )
    ),
    "reservation-triggered": lambda d, n: (
        f"{n(d['mover'])}'s move sets off {n(d['combatant_id'])}'s "
        + ("overwatch." if d["kind"] == "overwatch" else "reserved move.")
    ),
    "action-resumed": lambda d, n: f"{n(d['combatant_id'])} carries on.",
    "action-cut": lambda d, n: f"{n(d['combatant_id'])} {d['reason']}; the {d['action']} ends.",
    "surrendered": lambda d, n: f"{n(d['combatant_id'])} surrenders.",
    "check-called": lambda d, n: (
        f"{n(d['combatant_id'])} makes {_a(d['check']['skill'])} check: {_check(d)}."
    ),
}
