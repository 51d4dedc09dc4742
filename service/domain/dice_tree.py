"""Dice expressions as trees: the limits, the error, the tree's nodes, their normalised
text and what can be known of an expression without rolling it (how many dice, the range
of its values). The grammar and the evaluation are in `service.domain.dice`; the parser is
`service.domain.dice_parser`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeAlias, assert_never

MAX_EXPRESSION_LENGTH = 500
MAX_DICE_PER_TERM = 100
MAX_DICE_PER_ROLL = 1000
MAX_SIDES = 10_000
MAX_NESTING = 50
"""Deepest nesting of parentheses, unary minus and repeat operands."""
MAX_EXPANDED_TERMS = 10_000
"""Most constants and dice terms one evaluation may visit once repeats are expanded."""
MAX_VALUE = 2**31 - 1
"""Largest magnitude of a constant, a repeat count, and every value an evaluation can reach
(intermediate and final): GraphQL's `Int`, the widest integer the API carries, so a roll's
total always fits the event that records it."""

BAD_EXPRESSION = "dice/bad-expression"
TOO_LARGE = "dice/too-large"

DieSource: TypeAlias = Callable[[int], int]
"""``die(sides)`` returns a face in ``1..sides``."""


class DiceError(ValueError):
    """A dice expression that cannot be parsed, or that would exceed a limit.

    ``position`` is the 0-based index of the offending character in ``expression``, or
    ``None`` when the problem is the expression as a whole (too long, too many dice). The
    message counts positions from 1, as people do: ``unexpected ')' at position 7 in
    '2d6 + )'`` has ``position == 6``. ``code`` is ``dice/too-large`` when the expression is
    well formed but exceeds a limit, ``dice/bad-expression`` otherwise.
    """

    def __init__(
        self,
        reason: str,
        *,
        expression: str = "",
        position: int | None = None,
        code: str = BAD_EXPRESSION,
    ) -> None:
        self.reason = reason
        self.expression = expression
        self.position = position
        self.code = code
        if position is not None:
            reason = f"{reason} at position {position + 1} in '{expression}'"
        super().__init__(reason)


# --- The expression tree ----------------------------------------------------------------------


class KeepMode(StrEnum):
    KEEP_HIGHEST = "kh"
    KEEP_LOWEST = "kl"
    DROP_HIGHEST = "dh"
    DROP_LOWEST = "dl"


class BinaryOp(StrEnum):
    ADD = "+"
    SUB = "-"
    MUL = "*"


@dataclass(frozen=True, slots=True)
class KeepRule:
    """``kh3``, ``dl1`` and so on: which of a term's dice count toward its value."""

    mode: KeepMode
    count: int = 1

    @property
    def keeps_highest(self) -> bool:
        return self.mode in (KeepMode.KEEP_HIGHEST, KeepMode.DROP_LOWEST)

    def kept(self, rolled: int) -> int:
        """How many of ``rolled`` dice this rule keeps."""
        if self.mode in (KeepMode.KEEP_HIGHEST, KeepMode.KEEP_LOWEST):
            return self.count
        return rolled - self.count

    def __str__(self) -> str:
        return f"{self.mode}{self.count}"


@dataclass(frozen=True, slots=True)
class Const:
    value: int

    def __post_init__(self) -> None:
        if self.value < 0:
            raise DiceError(f"a constant cannot be negative (got {self.value}); use Neg")
        raise_problem(constant_problem(self.value))

    def __str__(self) -> str:
        return _format(self)


@dataclass(frozen=True, slots=True)
class Dice:
    """``count`` dice of ``sides`` sides, optionally filtered by a keep/drop rule."""

    count: int
    sides: int
    keep: KeepRule | None = None

    def __post_init__(self) -> None:
        problem = count_problem(self.count) or sides_problem(self.sides)
        if problem is None and self.keep is not None:
            problem = keep_problem(self.keep, self.count)
        raise_problem(problem)

    def __str__(self) -> str:
        return _format(self)


@dataclass(frozen=True, slots=True)
class Neg:
    operand: Expr

    def __str__(self) -> str:
        return _format(self)


@dataclass(frozen=True, slots=True)
class BinOp:
    op: BinaryOp
    left: Expr
    right: Expr

    def __str__(self) -> str:
        return _format(self)


@dataclass(frozen=True, slots=True)
class Repeat:
    """``times x operand``: evaluate ``operand`` ``times`` times, fresh dice each time, and sum."""

    times: int
    operand: Expr

    def __post_init__(self) -> None:
        raise_problem(repeat_problem(self.times))

    def __str__(self) -> str:
        return _format(self)


Expr: TypeAlias = Const | Dice | Neg | BinOp | Repeat


@dataclass(frozen=True, slots=True)
class Problem:
    reason: str
    code: str = BAD_EXPRESSION


def too_large(reason: str) -> Problem:
    return Problem(reason, TOO_LARGE)


def raise_problem(problem: Problem | None) -> None:
    if problem is not None:
        raise DiceError(problem.reason, code=problem.code)


def count_problem(count: int) -> Problem | None:
    if count < 1:
        return Problem(f"a dice term needs at least 1 die (got {count})")
    if count > MAX_DICE_PER_TERM:
        return too_large(f"too many dice in one term ({count}); the limit is {MAX_DICE_PER_TERM}")
    return None


def sides_problem(sides: int) -> Problem | None:
    if sides < 1:
        return Problem(f"a die needs at least 1 side (got d{sides})")
    if sides > MAX_SIDES:
        return too_large(f"too many sides (d{sides}); the limit is d{MAX_SIDES}")
    return None


def keep_problem(rule: KeepRule, count: int) -> Problem | None:
    if rule.count < 1:
        return Problem(f"'{rule}' must name at least 1 die")
    if rule.kept(count) > count:
        return Problem(f"cannot keep {rule.count} of {count} dice")
    if rule.kept(count) < 1:
        return Problem(f"cannot drop {rule.count} of {count} dice; at least one die must be kept")
    return None


def repeat_problem(times: int) -> Problem | None:
    if times < 1:
        return Problem(f"a repeat count must be at least 1 (got {times})")
    return constant_problem(times)


def constant_problem(value: int) -> Problem | None:
    if value > MAX_VALUE:
        return too_large(f"the number {value} is too large; the limit is {MAX_VALUE}")
    return None


# --- Normalised text ----------------------------------------------------------------------

# Binding strength used when printing. A repeat gets the lowest so that a nested one is always
# parenthesised, ``(2 x 1d6) + 10``, as the rules write it.
_REPEAT, _ADDITIVE, _MULTIPLICATIVE, UNARY, _ATOM = range(5)


def _precedence(expr: Expr) -> int:
    match expr:
        case Const() | Dice():
            return _ATOM
        case Neg():
            return UNARY
        case BinOp(op=BinaryOp.MUL):
            return _MULTIPLICATIVE
        case BinOp():
            return _ADDITIVE
        case Repeat():
            return _REPEAT
        case _:
            assert_never(expr)


def operand_text(child: Expr, text: str, level: int) -> str:
    """``text`` (the rendering of ``child``), parenthesised if it binds looser than ``level``."""
    return f"({text})" if _precedence(child) < level else text


def binary_text(expr: BinOp, left_text: str, right_text: str) -> str:
    level = _precedence(expr)
    left = operand_text(expr.left, left_text, level)
    right = operand_text(expr.right, right_text, level + 1)  # left-associative
    return f"{left} {expr.op} {right}"


def _format(expr: Expr) -> str:
    match expr:
        case Const(value):
            return str(value)
        case Dice(count, sides, keep):
            return f"{count}d{sides}{keep or ''}"
        case Neg(operand):
            return "-" + operand_text(operand, _format(operand), UNARY)
        case BinOp(_, left, right):
            return binary_text(expr, _format(left), _format(right))
        case Repeat(times, operand):
            return f"{times} x {operand_text(operand, _format(operand), UNARY)}"
        case _:
            assert_never(expr)


# --- Static analysis ----------------------------------------------------------------------


def count_dice_upper_bound(expr: Expr) -> int:
    """How many dice evaluating ``expr`` rolls (dropped ones included).

    Exact for this grammar, since no dice count depends on a roll.
    """
    match expr:
        case Const():
            return 0
        case Dice(count=count):
            return count
        case Neg(operand):
            return count_dice_upper_bound(operand)
        case BinOp(_, left, right):
            return count_dice_upper_bound(left) + count_dice_upper_bound(right)
        case Repeat(times, operand):
            return times * count_dice_upper_bound(operand)
        case _:
            assert_never(expr)


def _expanded_terms(expr: Expr) -> int:
    """How many constants and dice terms evaluating ``expr`` visits."""
    match expr:
        case Const() | Dice():
            return 1
        case Neg(operand):
            return _expanded_terms(operand)
        case BinOp(_, left, right):
            return _expanded_terms(left) + _expanded_terms(right)
        case Repeat(times, operand):
            return times * _expanded_terms(operand)
        case _:
            assert_never(expr)


def bounds(expr: Expr) -> tuple[int, int]:
    """The smallest and largest totals ``expr`` can produce."""
    match expr:
        case Const(value):
            return value, value
        case Dice(count, sides, keep):
            kept = count if keep is None else keep.kept(count)
            return kept, kept * sides
        case Neg(operand):
            low, high = bounds(operand)
            return -high, -low
        case BinOp(op, left, right):
            return _binary_bounds(op, bounds(left), bounds(right))
        case Repeat(times, operand):
            low, high = bounds(operand)
            return times * low, times * high
        case _:
            assert_never(expr)


def _binary_bounds(op: BinaryOp, left: tuple[int, int], right: tuple[int, int]) -> tuple[int, int]:
    match op:
        case BinaryOp.ADD:
            return left[0] + right[0], left[1] + right[1]
        case BinaryOp.SUB:
            return left[0] - right[1], left[1] - right[0]
        case BinaryOp.MUL:
            corners = [a * b for a in left for b in right]
            return min(corners), max(corners)
        case _:
            assert_never(op)


def reach(expr: Expr) -> tuple[int, int, int]:
    """``bounds(expr)``, and the largest magnitude any part of it can take on the way
    (intermediate values included)."""
    match expr:
        case Const() | Dice():
            low, high = bounds(expr)
            return low, high, max(-low, high)
        case Neg(operand):
            low, high, widest = reach(operand)
            return -high, -low, widest
        case BinOp(op, left, right):
            left_low, left_high, left_widest = reach(left)
            right_low, right_high, right_widest = reach(right)
            low, high = _binary_bounds(op, (left_low, left_high), (right_low, right_high))
            return low, high, max(left_widest, right_widest, -low, high)
        case Repeat(times, operand):
            low, high, widest = reach(operand)
            return times * low, times * high, max(widest, -times * low, times * high)
        case _:
            assert_never(expr)


def limits_problem(expr: Expr) -> Problem | None:
    dice = count_dice_upper_bound(expr)
    if dice > MAX_DICE_PER_ROLL:
        return too_large(
            f"too many dice: the expression rolls {dice}; the limit is {MAX_DICE_PER_ROLL}"
        )
    terms = _expanded_terms(expr)
    if terms > MAX_EXPANDED_TERMS:
        return too_large(
            f"the expression expands to {terms} terms; the limit is {MAX_EXPANDED_TERMS}"
        )
    if reach(expr)[2] > MAX_VALUE:
        return too_large(
            f"the expression can reach values beyond ±{MAX_VALUE}, the largest Fray records"
        )
    return None
