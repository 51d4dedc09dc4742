"""The other actions of a turn: recovery, movement, spells, improvising, interacting and
the four stances (delvers-deep 4.1 Recovery Phase, Movement, Cast a Spell, Improvise,
Interact, Brace, Defend, Focus, Encourage), and checks the GM calls."""

from __future__ import annotations

from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.grid import Cell, distance, on_map
from service.domain.grid_paths import find_path
from service.domain.messages import Event
from service.rules.delvers_deep.commands import Move, Recover
from service.rules.delvers_deep.events import (
    Braced,
    CheckRolled,
    Defended,
    Encouraged,
    Focused,
    Improvised,
    Interacted,
    Moved,
    SpellCast,
)
from service.rules.delvers_deep.points import (
    RECOVERY,
    acting_turn,
    current,
    dc,
    once_per_turn,
    pay,
    recovery,
    spell_dc,
    stats_of,
)
from service.rules.delvers_deep.state import Check, DelversState

MOVEMENT = "delvers-deep 4.1 Movement"
SPELLS = "delvers-deep 4.1 Cast a Spell"
IMPROVISE = "delvers-deep 4.1 Improvise"
INTERACT = "delvers-deep 4.1 Interact"
BRACE = "delvers-deep 4.1 Brace"
DEFEND = "delvers-deep 4.1 Defend"
FOCUS = "delvers-deep 4.1 Focus"
ENCOURAGE = "delvers-deep 4.1 Encourage"
OPPORTUNITY = "delvers-deep 4.1 Opportunity Attack"


def recover(state: DelversState, command: Recover, ctx: DecideContext) -> list[Event]:
    cid = command.combatant_id
    turn = acting_turn(state, cid, ctx, RECOVERY)
    name = state.table.combatants[cid].name
    if turn.recovered or turn.actions_used:
        raise RuleViolation(
            "recovery/too-late",
            f"{name}'s recovery phase is over: it comes once, before the first action",
            rule=RECOVERY,
        )
    points = stats_of(state.table.combatants[cid]).recovery
    wanted = {"fort": command.fort, "ref": command.ref, "will": command.will}
    if sum(wanted.values()) > points:
        raise RuleViolation(
            "recovery/too-many",
            f"{name} recovers {points} points a turn, not {sum(wanted.values())}",
            rule=RECOVERY,
        )
    return recovery(state, cid, wanted, ctx)


def move(state: DelversState, command: Move, ctx: DecideContext) -> list[Event]:
    """Speed, +2" per FORT for a jog and again for a sprint (4.1 Movement)."""
    cid = command.combatant_id
    combatant = state.table.combatants[cid]
    allowed = stats_of(combatant).speed + 2 * command.sprint
    table = state.table
    path: tuple[Cell, ...] | None = None
    if command.to is not None:
        if table.map is None or combatant.position is None:
            raise RuleViolation(
                "move/no-map",
                "without a map (or a token) give a distance, not a cell",
                rule=MOVEMENT,
            )
        if not on_map(table.map, command.to):
            raise RuleViolation("map/off-map", f"cell {command.to} is not on the map")
        occupancy = table.occupancy(cid)
        found = find_path(
            table.map,
            combatant.position,
            command.to,
            occupancy,
            combatant.side,
            max_cost=allowed,
            straight=table.straight_paths,
        )
        if found is None:
            raise RuleViolation(
                "move/too-far",
                f'{combatant.name} cannot reach {command.to} with {allowed}" of movement',
                rule=MOVEMENT,
            )
        path, walked = found.cells, found.cost
    else:
        walked = allowed if command.distance is None else command.distance
        if walked > allowed:
            raise RuleViolation(
                "move/too-far",
                f'{combatant.name} moves at most {allowed}" with that effort',
                rule=MOVEMENT,
            )
    cost = {"fort": command.sprint}
    paid = pay(state, cid, cost, ctx, rule=MOVEMENT)
    provokes = _provoked(state, cid, path, command.enters_reach_of)
    moved = ctx.emit_ahead(
        Moved(
            combatant_id=cid,
            path=path,
            distance=walked,
            sprint=command.sprint,
            cost=cost if command.sprint else {},
            provokes=provokes,
        ),
        of=paid,
    )
    return [moved, *paid]


def _provoked(
    state: DelversState, mover: str, path: tuple[Cell, ...] | None, declared: list[str]
) -> tuple[str, ...]:
    """Enemies with FORT whose melee reach the move ends in and did not start in, longest
    reach first, ties by id (interpretation: judged at the destination, not cell by cell)."""
    table = state.table
    side = table.combatants[mover].side
    reaches: dict[str, int] = {}
    for enemy in table.combatants.values():
        weapon = stats_of(enemy).opportunity_weapon()
        if enemy.side == side or enemy.out_of_fight or weapon is None:
            continue
        if current(enemy, weapon.pool) < 1:
            continue  # FORT, or REF for a melee weapon that `uses` it
        reach = weapon.reach
        if path is not None and table.map is not None and enemy.position is not None:
            before = distance(table.map, enemy.position, path[0])
            after = distance(table.map, enemy.position, path[-1])
            if after <= reach < before:
                reaches[enemy.id] = reach
        elif path is None and enemy.id in declared:
            reaches[enemy.id] = reach
    return tuple(sorted(reaches, key=lambda c: (-reaches[c], c)))


def cast(
    state: DelversState, cid: str, name: str, target: str | None, ctx: DecideContext
) -> list[Event]:
    combatant = state.table.combatants[cid]
    spell = stats_of(combatant).spell(name)
    if spell is None:
        raise RuleViolation("spell/unknown", f"{combatant.name} knows no spell '{name}'", SPELLS)
    if target is not None:
        state.table.combatant(target)
    cost = {"will": spell.will}
    paid = pay(state, cid, cost, ctx, rule=SPELLS)
    roll, needed, success = None, None, True
    if spell.dc is not None:
        needed = spell_dc(state, cid, spell.dc)
        roll = ctx.die(6, purpose=f"{combatant.name} casts {spell.name}", roller=cid)
        success = roll >= needed
    damage = 0
    if success and spell.damage is not None and target is not None:
        rolled = ctx.roll(spell.damage, purpose=f"{spell.name} damage", roller=cid)
        damage = max(0, rolled.total)
    cast_event = ctx.emit_ahead(
        SpellCast(
            combatant_id=cid,
            spell=spell.name,
            target=target,
            roll=roll,
            dc=needed,
            success=success,
            damage=damage,
            tags=spell.tags,
            cost=cost if spell.will else {},
        ),
        of=paid,
    )
    return [cast_event, *paid]


def improvise(
    state: DelversState,
    cid: str,
    description: str,
    cost: dict[str, int],
    dc_: int | None,
    ctx: DecideContext,
) -> list[Event]:
    """The GM imposes a point cost and/or a DC for anything not on the list (4.1 Improvise)."""
    cost = {pool: n for pool, n in cost.items() if n}
    paid = pay(state, cid, cost, ctx, rule=IMPROVISE)
    roll = success = None
    if dc_ is not None:
        who = state.table.combatants[cid].name
        roll = ctx.die(6, purpose=f"{who}: {description}", roller=cid)
        success = roll >= dc_
    done = ctx.emit_ahead(
        Improvised(
            combatant_id=cid, description=description, roll=roll, dc=dc_, success=success, cost=cost
        ),
        of=paid,
    )
    return [done, *paid]


def interact(
    state: DelversState, cid: str, description: str, partner: str | None, ctx: DecideContext
) -> list[Event]:
    if partner is not None:
        state.table.combatant(partner)
        if partner == cid:
            raise RuleViolation(
                "interact/self", "interacting with a creature means another one", rule=INTERACT
            )
    return [ctx.emit(Interacted(combatant_id=cid, description=description, partner=partner))]


def stance(state: DelversState, cid: str, kind: str, ctx: DecideContext) -> list[Event]:
    """Brace (FORT, Health DC), Defend (REF, Dodge DC), Focus (WILL, Sanity DC): one point,
    once per turn, one better until the start of the next turn."""
    turn = state.turns[cid]
    name = state.table.combatants[cid].name
    match kind:
        case "brace":
            once_per_turn(turn.braced, name, "brace", BRACE)
            paid = pay(state, cid, {"fort": 1}, ctx, rule=BRACE)
            after = dc(state, cid, "health")
            return [
                ctx.emit_ahead(
                    Braced(combatant_id=cid, dc=max(2, after - 1), cost={"fort": 1}), of=paid
                ),
                *paid,
            ]
        case "defend":
            once_per_turn(turn.defended, name, "defend", DEFEND)
            paid = pay(state, cid, {"ref": 1}, ctx, rule=DEFEND)
            after = dc(state, cid, "dodge")
            return [
                ctx.emit_ahead(
                    Defended(combatant_id=cid, dc=max(2, after - 1), cost={"ref": 1}), of=paid
                ),
                *paid,
            ]
        case _:
            once_per_turn(turn.focused, name, "focus", FOCUS)
            paid = pay(state, cid, {"will": 1}, ctx, rule=FOCUS)
            after = dc(state, cid, "sanity")
            return [
                ctx.emit_ahead(
                    Focused(combatant_id=cid, dc=max(2, after - 1), cost={"will": 1}), of=paid
                ),
                *paid,
            ]


def encourage(state: DelversState, cid: str, target: str, ctx: DecideContext) -> list[Event]:
    """One WILL: an ally's Sanity DC one better; once for each target (4.1 Encourage)."""
    ally = state.table.combatant(target)
    me = state.table.combatants[cid]
    if target == cid or ally.side != me.side:
        raise RuleViolation(
            "encourage/not-an-ally",
            f"{me.name} can encourage only an ally, not {ally.name}",
            rule=ENCOURAGE,
        )
    if target in state.turns[cid].encouraged:
        raise RuleViolation(
            "actions/once-per-turn",
            f"{me.name} has already encouraged {ally.name} this turn",
            rule=ENCOURAGE,
        )
    paid = pay(state, cid, {"will": 1}, ctx, rule=ENCOURAGE)
    after = max(2, dc(state, target, "sanity") - 1)
    return [
        ctx.emit_ahead(
            Encouraged(combatant_id=cid, target=target, dc=after, cost={"will": 1}), of=paid
        ),
        *paid,
    ]


def call_check(
    state: DelversState, cid: str, check: Check, reason: str, ctx: DecideContext
) -> list[Event]:
    ctx.require_gm("call for a check")
    if state.phase != "running":
        raise RuleViolation("turn/not-running", "the fight is not under way")
    combatant = state.table.combatant(cid)
    needed = dc(state, cid, check)
    # The GM calls the check; the combatant makes it.
    roll = ctx.die(6, purpose=f"{combatant.name}'s {check} check", roller=cid)
    return [
        ctx.emit(
            CheckRolled(
                combatant_id=cid,
                check=check,
                roll=roll,
                dc=needed,
                success=roll >= needed,
                reason=reason,
            )
        )
    ]
