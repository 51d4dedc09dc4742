"""Clocks at an empty table: after `idle_timeouts` clock timeouts in a row with no command
from anyone at the table, the clocks pause until the GM resumes them.

Without this an abandoned encounter with a turn limit plays itself for ever: each timeout
ends a turn and starts the next turn's clock, which times out in its turn.

Who sent which command is not in the state (`evolve` sees events, not their senders), so
the count travels with the deadlines instead. When an append arms a clock's deadline, Fray
writes into its `expire-clock` the encounter's version after the append (`armed_version`)
and the timeouts in a row so far (`idle_streak`: that append's own count, 0 unless it was
a timeout nobody answered). When the worker sends it, the expiry continues the streak only
if nothing at all was appended since: any command in between, a player's or the GM's,
starts the count again. An expiry without `armed_version` (sent by the GM, or armed before
Fray counted) counts nothing, so older streams re-decide exactly as they were recorded.
"""

from __future__ import annotations

from service.domain import clocks
from service.domain.common import ExpireClock
from service.domain.context import Actor, DecideContext
from service.domain.messages import Command, Event
from service.domain.table import Table


def streak(command: Command, events: list[Event], actor: Actor, first_version: int) -> int:
    """The timeouts in a row, this command's own included, that nobody at the table
    answered: 0 unless the command is the system's expiry of a clock that ran out."""
    if actor.role != "system" or not isinstance(command, ExpireClock):
        return 0
    if command.armed_version is None:
        return 0
    if not any(isinstance(event, clocks.ClockExpired) for event in events):
        return 0  # a stale deadline: nothing ran out
    if command.armed_version != first_version - 1:
        return 1  # the encounter moved on after the deadline was armed: someone was there
    return command.idle_streak + 1


def hold(table: Table, limit: int, count: int, ctx: DecideContext) -> list[Event]:
    """What follows a command whose events led to `table`, given the streak it made: the
    clocks pause once the streak reaches `limit` (0: never); while they are on hold, a
    clock that started is paused at once."""
    if table.clocks_on_hold:
        return clocks.pause_all(table.clocks, ctx)
    if limit == 0 or count < limit:
        return []
    paused = clocks.pause_all(table.clocks, ctx)
    if not paused:
        return []  # nothing runs, so nothing more can time out
    return [*paused, ctx.emit(clocks.ClocksPaused(reason="idle", timeouts=count))]
