"""Which of several equally cheap paths a move takes: the one a player would draw, nearest
the straight line from the start to the goal (issue 27).

A search hands over the cheapest paths as a graph of states: each state's predecessors on a
cheapest path to it and its cost. A state is `(x, y, parity)` as the searches keep them
(parity: of the diagonal steps so far, for "alternate" diagonals). The path returned is:

1. among the cheapest, the one whose cells (after the start) lie nearest the straight line
   from the start's centre to the goal's: the least sum of their distances from that line;
2. among those still tied, at each step the next cell nearest the goal's centre, then the
   first in reading order (smaller y, then smaller x), then the smaller parity.

Distances are compared exactly, in integers. The distance of a cell's centre from the line
is |cross(goal - start, cell - start)| divided by the line's length, which is the same for
every cell of one search, so the cross product ranks cells by it. On a hex map the cell
centres are a linear image of the axial coordinates (pointy-top: x = √3(q + r/2), y = 3r/2,
and flat-top alike), which scales every cross product by the same factor, so the axial
cross product ranks them as well; a squared centre distance is q² + qr + r² there (times 3
for the real one) and dx² + dy² on squares.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from service.domain.grid import XY, GridKind

State = tuple[int, int, int]  # x, y, parity of the diagonal steps so far


class Line:
    """The straight segment from a start cell's centre to a goal cell's, on one kind of map."""

    def __init__(self, kind: GridKind, start: XY, goal: XY) -> None:
        self.kind = kind
        self.start = start
        self.goal = goal
        self.direction = (goal[0] - start[0], goal[1] - start[1])

    def offset(self, state: State) -> int:
        """How far the cell's centre lies from the line, in units that rank cells exactly."""
        dx, dy = self.direction
        return abs(dx * (state[1] - self.start[1]) - dy * (state[0] - self.start[0]))

    def to_goal(self, state: State) -> int:
        """The squared distance of the cell's centre from the goal's (up to a fixed factor)."""
        dx, dy = self.goal[0] - state[0], self.goal[1] - state[1]
        if self.kind == "hex":
            return dx * dx + dx * dy + dy * dy
        return dx * dx + dy * dy


def straightest(
    start: State,
    ends: Sequence[State],
    preds: Mapping[State, Sequence[State]],
    cost: Mapping[State, int],
    line: Line,
) -> list[State]:
    """The path from `start` to one of `ends` that the module's rules pick.

    `ends` are the goal's states reached at the least cost, `cost` each state's least cost
    and `preds[v]` the states u with cost[u] + (the step u to v) == cost[v]: every state on a
    cheapest path to an end must be in them (more is harmless). Every step costs at least 1,
    so ordering by cost orders the graph."""
    on_way = _ancestors(ends, preds)
    nearest: dict[State, int] = {}  # state -> least summed offset of a cheapest way to it
    for state in sorted(on_way, key=cost.__getitem__):
        if state == start:
            nearest[state] = 0
        else:
            nearest[state] = line.offset(state) + min(nearest[u] for u in preds[state])
    least = min(nearest[end] for end in ends)
    finals = {end for end in ends if nearest[end] == least}
    after = _straightest_steps(finals, preds, nearest, line)
    path = [start]
    while path[-1] not in finals:
        path.append(min(after[path[-1]], key=lambda v: (line.to_goal(v), v[1], v[0], v[2])))
    return path


def _ancestors(ends: Sequence[State], preds: Mapping[State, Sequence[State]]) -> set[State]:
    found = set(ends)
    stack = list(ends)
    while stack:
        for before in preds.get(stack.pop(), ()):
            if before not in found:
                found.add(before)
                stack.append(before)
    return found


def _straightest_steps(
    finals: set[State],
    preds: Mapping[State, Sequence[State]],
    nearest: Mapping[State, int],
    line: Line,
) -> dict[State, list[State]]:
    """For each state on a straightest cheapest way to `finals`, the next states that keep
    the way straightest."""
    after: dict[State, list[State]] = {}
    seen = set(finals)
    stack = list(finals)
    while stack:
        state = stack.pop()
        for before in preds.get(state, ()):
            if nearest[before] + line.offset(state) != nearest[state]:
                continue
            after.setdefault(before, []).append(state)
            if before not in seen:
                seen.add(before)
                stack.append(before)
    return after
