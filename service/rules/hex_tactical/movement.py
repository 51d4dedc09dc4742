"""Moving on the tactical grid (hex-tactical Movement on the Tactical Grid, Moving through
Terrain Types, Moving Past an Enemy, Terrain Effects).

A move is walked one step at a time. Leaving a threatened cell for one its threatener does
not threaten raises an attack of opportunity, and stepping toward someone with a reserved
move sets it off: either pauses the move, which resumes once the interruption is resolved.
Slippery and mired cells call for an Agility check on entry; a failure ends the move.
The path itself is planned in paths.py; which step sets a reservation off, in
reservations.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from service.domain.common import ConditionApplied, ConditionRemoved
from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.grid import Cell, distance
from service.domain.messages import Event
from service.rules.hex_tactical import base
from service.rules.hex_tactical.commands import Move, PassEnemy
from service.rules.hex_tactical.events import (
    ActionCut,
    ActionResumed,
    BrokeFree,
    Moved,
    OpportunityRaised,
    PassAttempted,
    ReservationTriggered,
    StoodUp,
)
from service.rules.hex_tactical.evolve import evolve
from service.rules.hex_tactical.geometry import (
    blocked_cells,
    budget_of,
    enemies,
    fighting,
    melee_reach,
    occupied_cells,
    partners,
    threateners,
)
from service.rules.hex_tactical.hazards import (
    GRAPPLED,
    PRONE,
    STUCK,
    end_melee,
    entering,
    passing_damage,
)
from service.rules.hex_tactical.opportunity import perform
from service.rules.hex_tactical.paths import PAST_AN_ENEMY, plan
from service.rules.hex_tactical.reservations import reservation_set_off
from service.rules.hex_tactical.state import HexState, Paused, Reservation, stats_of
from service.rules.hex_tactical.turns import MOVEMENT, begin_action


def _apply(state: HexState, events: Sequence[Event]) -> HexState:
    for event in events:
        state = evolve(state, event)
    return state


def _held(state: HexState, cid: str) -> str | None:
    combatant = state.table.combatants[cid]
    for name in (STUCK, GRAPPLED):
        if combatant.has_condition(name):
            return name
    return None


def _stand_cost(state: HexState, cid: str, budget: int) -> int:
    """A prone combatant stands up at the start of its move for half of it (interpretation:
    the seed's base system is not given)."""
    return budget // 2 if state.table.combatants[cid].has_condition(PRONE) else 0


def move(state: HexState, command: Move, ctx: DecideContext) -> list[Event]:
    cid = command.combatant_id
    begun = begin_action(state, cid, "move", "move", ctx, MOVEMENT)
    budget = budget_of(state, cid)
    stand = _stand_cost(state, cid, budget)
    cells, costs = plan(state, cid, command.to, budget - stand, command.path)
    return [begun, *_set_off(evolve(state, begun), cid, cells, costs, stand, ctx)]


def pass_enemy(state: HexState, command: PassEnemy, ctx: DecideContext) -> list[Event]:
    """hex-tactical Moving Past an Enemy: "attempt an ability or combat maneuver to bypass
    such an obstacle". The GM approves it by sending it; a check lets the move pass through
    the enemy's cell, and that enemy gets no attack of opportunity (a maneuver provokes
    none); others still may."""
    ctx.require_gm("approve moving past an enemy")
    cid = command.combatant_id
    begun = begin_action(state, cid, "move", "move past an enemy", ctx, PAST_AN_ENEMY)
    enemy = state.table.combatant(command.enemy)
    if not enemies(state, cid, enemy.id) or not fighting(state, enemy.id):
        raise RuleViolation(
            "move/not-an-enemy", f"{enemy.name} is not an enemy standing in the way"
        )
    budget = budget_of(state, cid)
    stand = _stand_cost(state, cid, budget)
    cells, costs = plan(state, cid, command.to, budget - stand, passing=enemy.id)
    state = evolve(state, begun)
    mover = state.table.combatants[cid]
    result = base.check(
        ctx,
        command.skill,
        stats_of(mover).score(command.skill),
        f"{mover.name} slips past {enemy.name}",
        difficulty=command.difficulty,
        roller=cid,
    )
    tried = ctx.emit(PassAttempted(combatant_id=cid, enemy=enemy.id, check=result))
    if not result.success:
        return [begun, tried]
    rest = _set_off(evolve(state, tried), cid, cells, costs, stand, ctx, passing=enemy.id)
    return [begun, tried, *rest]


def _set_off(
    state: HexState,
    cid: str,
    cells: tuple[Cell, ...],
    costs: tuple[int, ...],
    stand: int,
    ctx: DecideContext,
    passing: str | None = None,
    reserved: bool = False,
) -> list[Event]:
    """Break free of mire or a grapple, stand up, then walk."""
    events: list[Event] = []
    held = _held(state, cid)
    if held is not None:
        combatant = state.table.combatants[cid]
        result = base.check(
            ctx,
            "agility",
            stats_of(combatant).agility,
            f"{combatant.name} struggles free",
            difficulty=state.options.stuck_difficulty,
            roller=cid,
        )
        events.append(ctx.emit(BrokeFree(combatant_id=cid, held=held, check=result)))
        if not result.success:
            return events
        events.append(
            ctx.emit(ConditionRemoved(combatant_id=cid, condition=held, gm_override=False))
        )
        if _held(_apply(state, events), cid) is not None:
            return events  # stuck and grappled: one check frees one; the move is spent
    if stand:
        events += [
            ctx.emit(StoodUp(combatant_id=cid, cost=stand)),
            ctx.emit(ConditionRemoved(combatant_id=cid, condition=PRONE, gm_override=False)),
        ]
    after = _apply(state, events)
    return events + walk(after, cid, cells, costs, ctx, passing=passing, reserved=reserved)


def walk(
    state: HexState,
    cid: str,
    cells: Sequence[Cell],
    costs: Sequence[int],
    ctx: DecideContext,
    *,
    cleared: bool = False,
    reserved: bool = False,
    passing: str | None = None,
) -> list[Event]:
    """Walk `cells` (from where the mover stands) step by step until the end, a pause or a
    fall. Each stretch walked without incident is one `moved` event."""
    walker = _Walker(state, cid, cells[0], reserved, ctx)
    for i, (here, there) in enumerate(pairwise(cells)):
        if not (cleared and i == 0):
            who = tuple(t for t in threateners(walker.state, cid, here, there) if t != passing)
            if who:
                walker.flush()
                stopped = Paused(
                    action="move",
                    combatant_id=cid,
                    rest=tuple(cells[i + 1 :]),
                    costs=tuple(costs[i:]),
                    cleared=True,
                    reserved=reserved,
                    passing=passing,
                )
                walker.emit(
                    ctx.emit(
                        OpportunityRaised(
                            combatant_id=cid,
                            threateners=who,
                            reason="leaves",
                            cell=here,
                            paused=stopped,
                        )
                    )
                )
                return walker.events
        hurt = passing_damage(walker.state, cid, here, ctx, walker.stretch[1:])
        if hurt:
            walker.flush(ahead_of=hurt)
            walker.emit(*hurt)
            if not fighting(walker.state, cid):
                return walker.events
        walker.step(there, costs[i])
        _break_apart(walker, there)
        if _falls(walker, there, ctx):
            return walker.events
        reserver = reservation_set_off(walker.state, cid, here, there)
        if reserver is not None:
            walker.flush()
            rest = tuple(cells[i + 2 :])
            paused: Paused | None = None
            if rest:
                paused = Paused(
                    action="move",
                    combatant_id=cid,
                    rest=rest,
                    costs=tuple(costs[i + 1 :]),
                    reserved=reserved,
                    passing=passing,
                )
            kind = walker.state.reservations[reserver].kind
            walker.emit(
                ctx.emit(
                    ReservationTriggered(combatant_id=reserver, mover=cid, kind=kind, paused=paused)
                )
            )
            return walker.events
    walker.flush()
    return walker.events


class _Walker:
    """The events of a walk so far, the state they lead to, and the stretch not yet sent."""

    def __init__(
        self, state: HexState, cid: str, start: Cell, reserved: bool, ctx: DecideContext
    ) -> None:
        self.state, self.cid, self.reserved, self.ctx = state, cid, reserved, ctx
        self.events: list[Event] = []
        self.stretch, self.cost = [start], 0

    def emit(self, *events: Event) -> None:
        for event in events:
            self.state = evolve(self.state, event)
            self.events.append(event)

    def step(self, cell: Cell, cost: int) -> None:
        self.stretch.append(cell)
        self.cost += cost

    def flush(self, ahead_of: Sequence[Event] = ()) -> None:
        """Send the stretch walked so far; ahead of `ahead_of`, the events its last step
        set off (a check, damage), when they were emitted first."""
        if len(self.stretch) > 1:
            stretch = tuple(self.stretch)
            moved = Moved(
                combatant_id=self.cid, path=stretch, cost=self.cost, reserved=self.reserved
            )
            self.emit(self.ctx.emit_ahead(moved, of=ahead_of))
        self.stretch, self.cost = [self.stretch[-1]], 0


def _break_apart(walker: _Walker, there: Cell) -> None:
    """hex-tactical Melee Combat: a melee lasts "until the two move apart": past the longer
    melee reach of the two (interpretation). The stretch ends where it happens."""
    state, cid = walker.state, walker.cid
    grid = state.table.map
    assert grid is not None
    apart = []
    for other in partners(state, cid):
        where = state.table.combatants[other].position
        reach = max(melee_reach(state, cid), melee_reach(state, other))
        if where is None or distance(grid, there, where) > reach:
            apart.append(other)
    if apart:
        walker.flush()
        for other in apart:
            walker.emit(*end_melee(walker.state, cid, other, "moved-apart", walker.ctx))


def _falls(walker: _Walker, there: Cell, ctx: DecideContext) -> bool:
    """Slippery or mired ground: on a failed Agility check the move ends here."""
    checks = entering(walker.state, walker.cid, there, ctx)
    if not checks:
        return False
    walker.flush(ahead_of=checks)
    walker.emit(*checks)
    return any(isinstance(event, ConditionApplied) for event in checks)


def reserved_run(
    state: HexState, cid: str, reservation: Reservation, ctx: DecideContext
) -> list[Event]:
    """The reserved move, set off: the cheapest way to the chosen cell, if one is left."""
    if reservation.to is None or not fighting(state, cid):
        return []
    budget = budget_of(state, cid)
    stand = _stand_cost(state, cid, budget)
    try:
        cells, costs = plan(state, cid, reservation.to, budget - stand)
    except RuleViolation:
        reason = f"finds no way to {reservation.to}"
        return [ctx.emit(ActionCut(combatant_id=cid, action="move", reason=reason))]
    return _set_off(state, cid, cells, costs, stand, ctx, reserved=True)


def resume(state: HexState, item_id: int, paused: Paused, ctx: DecideContext) -> list[Event]:
    """Carry on with a paused action, if its doer can: a move resumes along the same path
    while that path is still clear."""
    cid = paused.combatant_id
    combatant = state.table.combatants.get(cid)
    reason = None
    if combatant is None or not fighting(state, cid):
        reason = "is out of the fight"
    elif paused.action == "move":
        reason = _cannot_go_on(state, cid, paused)
    if reason is not None:
        return [
            ctx.emit(
                ActionCut(combatant_id=cid, action=paused.action, reason=reason, resolves=item_id)
            )
        ]
    resumed = ctx.emit(ActionResumed(combatant_id=cid, action=paused.action, resolves=item_id))
    after = evolve(state, resumed)
    if paused.action != "move":
        return [resumed, *perform(after, paused, ctx)]
    assert combatant is not None and combatant.position is not None
    cells = (combatant.position, *paused.rest)
    rest = walk(
        after,
        cid,
        cells,
        paused.costs,
        ctx,
        cleared=paused.cleared,
        reserved=paused.reserved,
        passing=paused.passing,
    )
    return [resumed, *rest]


def _cannot_go_on(state: HexState, cid: str, paused: Paused) -> str | None:
    combatant = state.table.combatants[cid]
    for condition in (PRONE, STUCK, GRAPPLED):
        if combatant.has_condition(condition):
            return f"is {condition}"
    if not paused.rest:
        return None
    blocked = blocked_cells(state, cid, paused.passing)
    if any(cell in blocked for cell in paused.rest):
        return "finds the way blocked"
    if paused.rest[-1] in occupied_cells(state, cid):
        return "finds the destination taken"
    return None
