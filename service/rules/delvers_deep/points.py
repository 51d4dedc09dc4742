"""Stat points and checks: paying costs (4.2 Stat Point Economy), recovery (4.1 Recovery
Phase), check DCs with their improvements, and the guard every action passes first."""

from __future__ import annotations

from collections.abc import Mapping

from service.domain.context import DecideContext
from service.domain.errors import RuleViolation
from service.domain.messages import Event
from service.domain.table import Combatant
from service.domain.table_rules import adjust_pool
from service.rules.delvers_deep.events import Recovered
from service.rules.delvers_deep.state import (
    BEST_DC,
    CHECK_OF,
    POOLS,
    Check,
    DelversState,
    DelversStats,
    Turn,
)

ECONOMY = "delvers-deep 4.2 Stat Point Economy"
RECOVERY = "delvers-deep 4.1 Recovery Phase"
ACTION_PHASE = "delvers-deep 4.1 Action Phase"
NAMES = {"fort": "FORT", "ref": "REF", "will": "WILL"}


def stats_of(combatant: Combatant) -> DelversStats:
    return DelversStats.model_validate(combatant.stats)


def current(combatant: Combatant, pool: str) -> int:
    found = combatant.pools.get(pool)
    return found.current if found is not None else 0


def maximum(combatant: Combatant, pool: str) -> int:
    found = combatant.pools.get(pool)
    return found.max if found is not None and found.max is not None else 0


def affordable(combatant: Combatant, cost: Mapping[str, int]) -> bool:
    return all(current(combatant, pool) >= n for pool, n in cost.items())


def pay(
    state: DelversState, cid: str, cost: Mapping[str, int], ctx: DecideContext, rule: str = ECONOMY
) -> list[Event]:
    """Check every pool first, then spend: no pool goes below zero (4.2)."""
    combatant = state.table.combatant(cid)
    for pool, needed in cost.items():
        had = current(combatant, pool)
        if needed > had:
            raise RuleViolation(
                "points/not-enough",
                f"{combatant.name} needs {needed} {NAMES.get(pool, pool)} and has {had}",
                rule=rule,
                details={"pool": pool, "needed": needed, "had": had},
            )
    events: list[Event] = []
    for pool, needed in cost.items():
        if needed:
            events += adjust_pool(
                state.table, cid, pool, -needed, None, None, "spent", ctx, gm_override=False
            )
    return events


def gain(
    state: DelversState, cid: str, amounts: Mapping[str, int], ctx: DecideContext
) -> list[Event]:
    events: list[Event] = []
    for pool, n in amounts.items():
        if n:
            events += adjust_pool(
                state.table, cid, pool, n, None, None, "recovery", ctx, gm_override=False
            )
    return events


def recovery(
    state: DelversState, cid: str, wanted: Mapping[str, int], ctx: DecideContext, auto: bool = False
) -> list[Event]:
    """delvers-deep 4.1 Recovery Phase: never above a maximum; the excess is discarded."""
    combatant = state.table.combatant(cid)
    applied: dict[str, int] = {
        pool: min(wanted.get(pool, 0), maximum(combatant, pool) - current(combatant, pool))
        for pool in POOLS
    }
    applied = {pool: max(0, n) for pool, n in applied.items()}
    discarded = sum(wanted.values()) - sum(applied.values())
    recovered = ctx.emit(Recovered(combatant_id=cid, discarded=discarded, auto=auto, **applied))
    return [recovered, *gain(state, cid, applied, ctx)]


def auto_recovery(state: DelversState, cid: str, ctx: DecideContext) -> list[Event]:
    """Recovery not allocated before the first action goes in the stat block's order."""
    turn = state.turns.get(cid)
    combatant = state.table.combatant(cid)
    stats = stats_of(combatant)
    if turn is None or turn.recovered or turn.actions_used or stats.recovery == 0:
        return []
    left = stats.recovery
    wanted: dict[str, int] = {pool: 0 for pool in POOLS}
    for pool in stats.recovery_order:
        room = max(0, maximum(combatant, pool) - current(combatant, pool) - wanted[pool])
        wanted[pool] += min(room, left)
        left -= min(room, left)
    wanted[stats.recovery_order[0] if stats.recovery_order else "fort"] += left
    return recovery(state, cid, wanted, ctx, auto=True)


def dc(state: DelversState, cid: str, check: Check) -> int:
    """The check's N+ after the improvements that still last, never better than 2+."""
    stats = stats_of(state.table.combatant(cid))
    base = {"health": stats.health_dc, "dodge": stats.dodge_dc, "sanity": stats.sanity_dc}[check]
    bonus = sum(1 for e in state.effects.get(cid, ()) if CHECK_OF[e.kind] == check)
    return max(BEST_DC, base - bonus) if bonus else base


def spell_dc(state: DelversState, cid: str, base: int) -> int:
    """delvers-deep 4.1 Focus: Ani's example lowers a spell's casting DC too."""
    focus = sum(1 for e in state.effects.get(cid, ()) if e.kind == "focus")
    return max(BEST_DC, base - focus) if focus else base


def acting_turn(state: DelversState, cid: str, ctx: DecideContext, rule: str) -> Turn:
    """The turn of a combatant that may act now, or a violation saying why not."""
    if state.phase != "running":
        raise RuleViolation("turn/not-running", "the fight is not under way", rule=rule)
    combatant = state.table.combatant(cid)
    ctx.require_control(cid, combatant.name)
    turn = state.turns.get(cid)
    if turn is None or cid not in state.current:
        raise RuleViolation(
            "turn/not-your-turn", f"it is not {combatant.name}'s turn", rule=ACTION_PHASE
        )
    if state.table.open_windows() or state.pending:
        raise RuleViolation(
            "reactions/window-open", "wait until the open reactions are resolved", rule=rule
        )
    return turn


def begin_action(state: DelversState, cid: str, ctx: DecideContext, rule: str) -> list[Event]:
    """delvers-deep 4.1 Taking a Turn: two actions; recovery comes first, automatically
    when the player did not allocate it."""
    turn = acting_turn(state, cid, ctx, rule)
    if turn.actions_used >= 2:
        name = state.table.combatants[cid].name
        raise RuleViolation(
            "actions/none-left", f"{name} has used both actions this turn", rule=ACTION_PHASE
        )
    return auto_recovery(state, cid, ctx)


def once_per_turn(done: bool, name: str, action: str, rule: str) -> None:
    if done:
        raise RuleViolation(
            "actions/once-per-turn", f"{name} may {action} only once per turn", rule=rule
        )
