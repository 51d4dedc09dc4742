"""`fray demo hex-tactical`: the barbarians at the town gate, played from
examples/hex-tactical/encounter.json, with the hex map drawn as the fight begins and at its end.

The map is the `set-map` step's; tokens go on it with `place-token` steps, since a token needs
a map and the runner adds the stat blocks before the first step. The drawing reads only the
shared table (`service.domain.grid`): the map, the tokens, and the cover objects a ruleset
keeps as `cover` in its state.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from service.demos.runner import Demo, Picture
from service.demos.scripts import examples, read_script
from service.domain.envelope import Envelope
from service.domain.grid import Cell, GridMap, terrain_at
from service.domain.ruleset import EncounterState

EXAMPLES = examples("hex-tactical")

TERRAIN_LEGEND = (
    ". open  ~ difficult  # impassable  % slippery  & mired",
    "[ partial cover  X total cover  * down",
)


def pictures(stream: Sequence[Envelope]) -> list[Picture]:
    """The map as it stood when the fight began, just before `encounter-started` (after
    initiative), and the map at the end, after the last line."""
    started = next((e.version for e in stream if e.type == "encounter-started"), None)
    drawn = [] if started is None else [Picture(started, partial(_titled, "as the fight begins"))]
    return [*drawn, Picture(stream[-1].version + 1, partial(_titled, "at the end"))]


def _titled(when: str, state: EncounterState) -> list[str]:
    return [f"The field {when}:", *render_map(state).splitlines()]


DEMO = Demo(
    about="the barbarians at the town gate on a hex map, drawn in ASCII",
    script=partial(read_script, EXAMPLES),
    pictures=pictures,
)


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
