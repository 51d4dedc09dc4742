"""How the shared events change the `Table`. Total: never raises on an event decide produced."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from service.domain import clocks, reactions
from service.domain.common import (
    CombatantAdded,
    CombatantDowned,
    CombatantRemoved,
    CombatantRevived,
    CombatantUpdated,
    ConditionApplied,
    ConditionExpired,
    ConditionRemoved,
    ConditionTicked,
    EncounterEnded,
    EncounterStarted,
    MapSet,
    NoteAdded,
    ReactionPolicySet,
    ResourceAdjusted,
    TokenMoved,
    TokenPlaced,
)
from service.domain.frozen import replace
from service.domain.messages import Event
from service.domain.roll_requests import (
    CommandHeld,
    CommandReleased,
    RollRequested,
    RollSubmitted,
    evolve_held,
)
from service.domain.table import NOTES_KEPT, Combatant, Condition, Note, Pool, Table


def evolve_table(table: Table, event: Event) -> Table:
    match event:
        case CombatantAdded():
            combatant = Combatant(
                id=event.combatant_id,
                name=event.name,
                epithet=event.epithet,
                side=event.side,
                controller=event.controller,
                stats=_block(event.stats),
                pools=event.pools,
                position=event.position,
            )
            return _with(table, combatant)
        case CombatantUpdated():
            changes: dict[str, object] = {
                name: value
                for name in ("name", "epithet", "side", "controller")
                if (value := getattr(event, name)) is not None
            }
            if event.stats is not None:
                changes["stats"] = _block(event.stats)
            return _update(table, event.combatant_id, **changes)
        case CombatantRemoved():
            rest = {k: v for k, v in table.combatants.items() if k != event.combatant_id}
            return replace(table, {"combatants": rest})
        case MapSet():
            return replace(table, {"map": event.map})
        case TokenPlaced():
            return _update(table, event.combatant_id, position=event.cell)
        case TokenMoved():
            return _update(table, event.combatant_id, position=event.path[-1])
        case EncounterStarted():
            return replace(table, {"phase": "running"})
        case EncounterEnded():
            return replace(table, {"phase": "ended", "end_reason": event.reason})
        case ResourceAdjusted():
            old = table.combatants[event.combatant_id].pools.get(event.resource)
            new_max = event.max if event.max is not None else (old.max if old else None)
            pools = {
                **table.combatants[event.combatant_id].pools,
                event.resource: Pool(current=event.after, max=new_max),
            }
            return _update(table, event.combatant_id, pools=pools)
        case ConditionApplied():
            condition = Condition(
                name=event.condition,
                rounds=event.rounds,
                ends=event.ends,
                anchor=event.anchor,
                source=event.source,
                note=event.note,
            )
            kept = _without(table.combatants[event.combatant_id].conditions, event.condition)
            return _update(table, event.combatant_id, conditions=(*kept, condition))
        case ConditionRemoved() | ConditionExpired():
            kept = _without(table.combatants[event.combatant_id].conditions, event.condition)
            return _update(table, event.combatant_id, conditions=kept)
        case ConditionTicked():
            conditions = tuple(
                replace(c, {"rounds": event.rounds_left}) if c.name == event.condition else c
                for c in table.combatants[event.combatant_id].conditions
            )
            return _update(table, event.combatant_id, conditions=conditions)
        case CombatantDowned():
            return _update(table, event.combatant_id, out_of_fight=True)
        case CombatantRevived():
            return _update(table, event.combatant_id, out_of_fight=False)
        case NoteAdded():
            note = Note(text=event.text, hidden=event.hidden, author=event.author)
            # The state keeps the latest notes; the stream keeps them all.
            latest = (*table.notes[-(NOTES_KEPT - 1) :], note)
            return replace(table, {"notes": latest, "notes_total": table.notes_total + 1})
        case ReactionPolicySet():
            return replace(
                table, {"policies": {**table.policies, event.combatant_id: event.policies}}
            )
        case (
            clocks.ClockStarted()
            | clocks.ClockPaused()
            | clocks.ClockResumed()
            | clocks.ClockExpired()
            | clocks.ClockStopped()
        ):
            return replace(table, {"clocks": clocks.evolve_clocks(table.clocks, event)})
        case clocks.ClocksPaused():
            return replace(table, {"clocks_on_hold": True})
        case clocks.ClocksResumed():
            return replace(table, {"clocks_on_hold": False})
        case reactions.ReactionWindowOpened():
            window = reactions.window_from(event)
            return replace(
                table,
                {
                    "windows": {**table.windows, window.id: window},
                    "windows_opened": table.windows_opened + 1,
                },
            )
        case reactions.ReactionAnswered():
            window = reactions.evolve_window(table.windows[event.window_id], event)
            return replace(table, {"windows": {**table.windows, window.id: window}})
        case reactions.ReactionWindowClosed():
            # A closed window lives on in the stream only; the state keeps what is open.
            still_open = {k: w for k, w in table.windows.items() if k != event.window_id}
            return replace(table, {"windows": still_open})
        case CommandHeld() | RollRequested() | RollSubmitted() | CommandReleased():
            return replace(table, {"held": evolve_held(table.held, event)})
    return table


def _block(stats: BaseModel) -> dict[str, Any]:
    """The table keeps a stat block as its event's JSON: the shared view of every ruleset's
    block. The event was validated when it was parsed; this only serialises it."""
    return stats.model_dump(mode="json")


def _with(table: Table, combatant: Combatant) -> Table:
    return replace(table, {"combatants": {**table.combatants, combatant.id: combatant}})


def _update(table: Table, combatant_id: str, **changes: object) -> Table:
    return _with(table, replace(table.combatants[combatant_id], changes))


def _without(conditions: tuple[Condition, ...], name: str) -> tuple[Condition, ...]:
    return tuple(c for c in conditions if c.name != name)
