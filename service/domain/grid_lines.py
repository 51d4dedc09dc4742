"""Lines between two cells of a map: the cells a shot or a charge passes through (hex lines
by cube interpolation; square lines by sampling, or cell by cell without diagonals)."""

from __future__ import annotations

from service.domain.grid import Cell, GridMap, hex_distance, require_on_map

# Hex lines sample points between hex centres, and some land exactly on a hex edge. round()
# would settle those ties half-to-even, which can zig-zag; nudging every sample by the same
# tiny offset settles them all one way, in both directions, so line(b, a) reverses line(a, b).
_HEX_NUDGE_Q = 1e-6
_HEX_NUDGE_R = 2e-6


def line(grid: GridMap, a: Cell, b: Cell) -> list[Cell]:
    """Cells from a to b inclusive, each a single legal step from the previous one.

    * hex: cube-coordinate interpolation between centres, rounded to the nearest hex;
    * square with "chebyshev"/"alternate": one cell per column or row along the longer
      axis (centre sampling), so diagonal steps appear;
    * square with "manhattan": every cell the centre-to-centre segment passes through.

    Exact ties are broken by a fixed nudge towards +x/+y, so line(b, a) == line(a, b)[::-1].
    """
    require_on_map(grid, a, b)
    if grid.kind == "hex":
        return _hex_line(a, b)
    if grid.diagonals == "manhattan":
        return _orthogonal_line(a, b)
    return _sampled_square_line(a, b)


def _hex_line(a: Cell, b: Cell) -> list[Cell]:
    steps = hex_distance(b.x - a.x, b.y - a.y)
    if steps == 0:
        return [a]
    return [
        _hex_round(
            a.x + (b.x - a.x) * i / steps + _HEX_NUDGE_Q,
            a.y + (b.y - a.y) * i / steps + _HEX_NUDGE_R,
        )
        for i in range(steps + 1)
    ]


def _hex_round(q: float, r: float) -> Cell:
    s = -q - r
    round_q, round_r, round_s = round(q), round(r), round(s)
    error_q, error_r, error_s = abs(round_q - q), abs(round_r - r), abs(round_s - s)
    # Rounding each coordinate can break q + r + s == 0; rebuild the worst-rounded one.
    if error_q > error_r and error_q > error_s:
        round_q = -round_r - round_s
    elif error_r > error_s:
        round_r = -round_q - round_s
    return Cell(x=round_q, y=round_r)


def _sampled_square_line(a: Cell, b: Cell) -> list[Cell]:
    dx, dy = b.x - a.x, b.y - a.y
    steps = max(abs(dx), abs(dy))
    if steps == 0:
        return [a]
    return [
        Cell(x=a.x + _round_half_up(dx * i, steps), y=a.y + _round_half_up(dy * i, steps))
        for i in range(steps + 1)
    ]


def _round_half_up(numerator: int, denominator: int) -> int:
    """numerator / denominator rounded to the nearest integer, halves towards +infinity."""
    return (2 * numerator + denominator) // (2 * denominator)


def _orthogonal_line(a: Cell, b: Cell) -> list[Cell]:
    dx, dy = b.x - a.x, b.y - a.y
    step_x, step_y = _sign(dx), _sign(dy)
    # A segment through an exact cell corner touches two side cells. Taking it as nudged by
    # (e, 2e) picks the one on the nudge's side, whichever way we walk; the sign of the cross
    # product (dx, dy) x (1, 2) says which side that is.
    x_first_at_corner = _sign(2 * dx - dy) == -step_x * step_y
    x, y, moved_x, moved_y = a.x, a.y, 0, 0
    cells = [a]
    while moved_x < abs(dx) or moved_y < abs(dy):
        if _next_crossing_is_x(moved_x, moved_y, abs(dx), abs(dy), x_first_at_corner):
            x, moved_x = x + step_x, moved_x + 1
        else:
            y, moved_y = y + step_y, moved_y + 1
        cells.append(Cell(x=x, y=y))
    return cells


def _next_crossing_is_x(
    moved_x: int, moved_y: int, total_x: int, total_y: int, x_first_at_corner: bool
) -> bool:
    if moved_x == total_x:
        return False
    if moved_y == total_y:
        return True
    # The segment meets the next column edge at t = (moved_x + 1/2) / total_x and the next
    # row edge at t = (moved_y + 1/2) / total_y; compare them without fractions.
    column_edge = (2 * moved_x + 1) * total_y
    row_edge = (2 * moved_y + 1) * total_x
    return column_edge < row_edge or (column_edge == row_edge and x_first_at_corner)


def _sign(value: int) -> int:
    return (value > 0) - (value < 0)
