"""`fray demo hex-tactical`: the barbarians at the town gate (examples/hex-tactical/) through
the real pipeline, narrated event by event, with the hex map drawn before the fight and at
its end.

The script has the same shape as Delver's Deep's (service/demo_delvers.py), whose runner
plays it: `encounter.json` names its ruleset, the stat-block files to add and the steps to
play, each `{actor, command, dice?, note?}`. The map is the `set-map` step's; tokens go on
it with `place-token` steps, since a token needs a map and the runner adds the stat blocks
before the first step.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from service.demo_delvers import Script, StepRefused, run_delvers_demo
from service.demo_delvers import load_script as _load_script
from service.domain.envelope import Envelope
from service.domain.grid import Cell, GridMap, terrain_at
from service.domain.ruleset import EncounterState
from service.engine import Engine

EXAMPLES = Path(__file__).resolve().parent / "demos" / "examples" / "hex-tactical"

__all__ = ["EXAMPLES", "StepRefused", "load_script", "render_map", "run_hex_demo"]

TERRAIN_LEGEND = (
    ". open  ~ difficult  # impassable  % slippery  & mired",
    "[ partial cover  X total cover  * down",
)


def load_script(directory: Path = EXAMPLES) -> tuple[Script, list[dict[str, Any]]]:
    """The script and the `add-combatant` commands for its combatants, in order."""
    return _load_script(directory)


async def run_hex_demo(
    engine: Engine, directory: Path = EXAMPLES, encounter_id: str | None = None
) -> tuple[str, list[str]]:
    """Play the script; return the encounter id and one narration line per event, with the
    map as it stood when the fight began drawn just before the encounter starts and the map
    at the end drawn after the last line."""
    encounter_id, lines = await run_delvers_demo(engine, directory, encounter_id)
    stream = [Envelope.from_body(s.body) for s in await engine.store.read(encounter_id)]
    started = next((e.version for e in stream if e.type == "encounter-started"), None)
    if started is not None:
        before = await engine.load_at(encounter_id, started - 1)
        at = started - 2  # lines[i] narrates stream[i + 1]: encounter-created has none
        picture = ["The field as the fight begins:", *render_map(before.state).splitlines()]
        lines = [*lines[:at], *picture, *lines[at:]]
    final = (await engine.load(encounter_id)).state
    return encounter_id, [*lines, "The field at the end:", *render_map(final).splitlines()]


# --- the map as text -------------------------------------------------------------------------


def render_map(state: EncounterState) -> str:
    """The map as ASCII, one character per cell, and a legend.

    Hex maps (axial cells, the parallelogram 0 <= x < width, 0 <= y < height) shift each row
    half a hex to the right of the one above, so the six neighbours of a cell sit around it
    as they do on the table: two beside it, two above and two below. Square maps draw plain
    rows. Row numbers (y) are on the left, column numbers (x, last digit) above the first row
    and below the last. Tokens are the first letter of the combatant's name: upper case for
    the side of the first combatant added, lower case for everyone else; '*' for a combatant
    who is down. Cover objects the GM placed (`cover` in the state, if the ruleset keeps
    any) are '[' (partial) and 'X' (total)."""
    table = state.table
    grid = table.map
    if grid is None:
        return "(no map)"
    cells = {
        (x, y): _terrain_char(grid, Cell(x=x, y=y))
        for y in range(grid.height)
        for x in range(grid.width)
    }
    for placed in dict(getattr(state, "cover", None) or {}).values():
        cells[(placed.cell.x, placed.cell.y)] = "[" if placed.kind == "partial" else "X"
    combatants = list(table.combatants.values())
    first_side = combatants[0].side if combatants else None
    # The fallen first, so that someone standing over a fallen token shows.
    for combatant in sorted(combatants, key=lambda c: not c.out_of_fight):
        where = combatant.position
        if where is not None and (where.x, where.y) in cells:
            mark = _token(combatant.name, combatant.side == first_side)
            cells[(where.x, where.y)] = "*" if combatant.out_of_fight else mark
    hexes = grid.kind == "hex"
    label = len(str(grid.height - 1)) + 1

    def indent(y: int) -> str:
        return " " * (label + (y if hexes else 0))

    numbers = " ".join(str(x % 10) for x in range(grid.width))
    rows = [indent(0) + numbers]
    for y in range(grid.height):
        row = " ".join(cells[(x, y)] for x in range(grid.width))
        rows.append(f"{y:>{label - 1}} " + indent(y)[label:] + row)
    if hexes and grid.height > 1:
        rows.append(indent(grid.height - 1) + numbers)
    rows += ["  " + text for text in TERRAIN_LEGEND]
    rows.append("  " + _token_key(combatants, first_side))
    return "\n".join(rows)


def _terrain_char(grid: GridMap, cell: Cell) -> str:
    terrain = terrain_at(grid, cell)
    tags = set(terrain.tags)
    if terrain.kind == "impassable":
        return "#"
    if "slippery" in tags:
        return "%"
    if "mired" in tags:
        return "&"
    if "total-cover" in tags:
        return "X"
    if "partial-cover" in tags:
        return "["
    if terrain.kind == "difficult":
        return "~"
    return "."


def _token(name: str, upper: bool) -> str:
    letter = next((ch for ch in name if ch.isalpha()), "?")
    return letter.upper() if upper else letter.lower()


def _token_key(combatants: list[Any], first_side: str | None) -> str:
    sides: dict[str, list[str]] = {}
    for combatant in combatants:
        mark = _token(combatant.name, combatant.side == first_side)
        down = " (down)" if combatant.out_of_fight else ""
        where = "" if combatant.position is not None else " (off the map)"
        sides.setdefault(combatant.side, []).append(f"{mark} {combatant.name}{down}{where}")
    return "   ".join(f"{side}: " + ", ".join(names) for side, names in sides.items())
