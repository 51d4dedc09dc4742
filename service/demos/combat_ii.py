"""`fray demo combat-ii`: the seed's archer and orc and its paladin charging a troll, played
from examples/combat-ii/encounter.json, with each phase's half-segment timeline drawn before
the phase resolves.

A combat-ii phase resolves inside the command that declares its last intention, so no step
ever sees a phase declared but unresolved; the timeline is drawn from the stored stream, as
the state stood just before the phase's first half-segment: every intention declared and
every casting begun, nothing struck or moved yet.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from service.demos.runner import Demo, Picture
from service.demos.scripts import examples, read_script
from service.domain.envelope import Envelope
from service.domain.narration import Names, namer
from service.domain.ruleset import EncounterState

# The timeline is the rules' own reading of the declared phase: which half-segment each
# strike and spell lands in, the order the movers go in, the casting still to come. No public
# view carries all of it (the summary has the half-segments only while intentions are being
# declared), so the drawing reads the ruleset's schedule, and this is the one demo module
# that imports combat-ii's own modules.
from service.rules.combat_ii.movement import order
from service.rules.combat_ii.schedule import ENDPHASE, HALF_SEGMENTS, half_segment, phase_label
from service.rules.combat_ii.state import CombatIIState, Intention
from service.rules.combat_ii.views import timeline

EXAMPLES = examples("combat-ii")

RESOLVING = frozenset({"moved", "casting-progressed", "phase-ended"})
"""Events that belong to a phase's resolution even without a half-segment of their own."""


def pictures(stream: Sequence[Envelope]) -> list[Picture]:
    return [Picture(stream[i].version, _timeline) for i in resolution_starts(stream)]


def _timeline(state: EncounterState) -> list[str]:
    assert isinstance(state, CombatIIState)
    return render_timeline(state)


DEMO = Demo(
    about="the seed's archer and orc, and a paladin charging a troll, with each phase's timeline",
    script=partial(read_script, EXAMPLES),
    pictures=pictures,
)


def resolution_starts(stream: Sequence[Envelope]) -> list[int]:
    """For each action phase (not the endphase) that resolved, the index in `stream` of its
    first event that strikes, casts off, moves or ends it."""
    starts: list[int] = []
    open_phase = False
    for index, event in enumerate(stream):
        if event.type == "phase-began":
            open_phase = event.data["phase"] != ENDPHASE
        elif open_phase and (event.type in RESOLVING or "half_segment" in event.data):
            starts.append(index)
            open_phase = False
    return starts


def render_timeline(state: CombatIIState) -> list[str]:
    """The phase's half-segments as the declared intentions fill them (§1 Table 1), then
    the movement that follows them, winners first, and the spells still being cast."""
    names = namer(state.table.combatants)
    system = state.options.phase_system
    first = half_segment(state.phase, 1, system)
    last = half_segment(state.phase, HALF_SEGMENTS, system)
    where = (
        f"phase {phase_label(system, state.phase)} of cycle {state.round}"
        if system == "II"
        else f"round {state.round}, phase {state.phase}"
    )
    lines = [f"Timeline of {where}, half-segments {first}-{last}, before it resolves:"]
    rows = timeline(state)
    for row in rows:
        actions = "; ".join(_action(a, names) for a in row["actions"]) or "-"
        lines.append(f"  {row['half_segment']:>2}: {actions}")
    movers = [_mover(cid, intention, state, names) for cid, intention in order(state)]
    lines.append("  then movement, winners first: " + (", ".join(movers) or "none"))
    going_off = {a["combatant_id"] for row in rows for a in row["actions"] if a["kind"] == "spell"}
    for cid, fighter in sorted(state.fighters.items()):
        casting = fighter.casting
        if casting is None or cid in going_off:
            continue
        unit = "rounds" if system == "I" else "phases"
        left = f"{casting.rounds} {unit}" if casting.rounds else f"{casting.left} CT units"
        lines.append(f"  still casting: {names(cid)}, {casting.spell} ({left} to go)")
    return lines


def _action(action: dict[str, Any], names: Names) -> str:
    who = names(action["combatant_id"])
    if action["kind"] == "spell":
        at = f" at {names(action['target'])}" if action["target"] else ""
        return f"{who}'s {action['spell']} goes off{at}"
    return (
        f"{who}'s {action['weapon']} at {names(action['target'])} "
        f"(SF {action['sf']}, {action['track']})"
    )


def _mover(cid: str, intention: Intention, state: CombatIIState, names: Names) -> str:
    track = state.tracks.get(cid, "loser")
    if intention.kind == "charge" and intention.targets:
        return f"{names(cid)} charges {names(intention.targets[0])} ({track})"
    how = {"normal": "moves", "withdraw": "withdraws", "flee": "flees"}[intention.mode]
    return f"{names(cid)} {how} ({track})"
