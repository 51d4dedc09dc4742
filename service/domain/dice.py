"""Dice expressions: a small, pure parser and evaluator.

Nothing here does I/O, reads a clock or touches ``random``. Randomness comes in through a
``die`` callable: ``die(sides)`` returns a face in ``1..sides``. Every die rolled goes through
exactly one call, in left-to-right order of the expression (dropped dice included), so a
scripted or audited die source reproduces a roll exactly.

Grammar (whitespace is allowed between tokens; letters are case-insensitive)::

    expression := term (("+" | "-") term)*              left-associative
    term       := unary ("*" unary)*                    left-associative
    unary      := "-" unary
                | NUMBER ("x" | MULTIPLICATION SIGN) unary    repeat, see below
                | primary
    primary    := NUMBER
                | dice
                | "(" expression ")"
    dice       := NUMBER? "d" (NUMBER | "%") (("kh" | "kl" | "dh" | "dl") NUMBER?)?

* ``dX`` is ``1dX``; ``d%`` is ``1d100``; ``X`` must be at least 1.
* ``kh``/``kl`` keep the highest/lowest N dice, ``dh``/``dl`` drop them; a missing N means 1,
  so ``2d20kh`` is advantage. At least one die must be kept. Among equal faces the earlier die
  is the one kept.
* ``*`` multiplies values: ``(d6 + 2) * 2`` rolls one d6 and doubles the sum.
* ``N x E`` (also ``Nx E``, ``NxE``, and with U+00D7 MULTIPLICATION SIGN) is the rules'
  repeat-multiplier: evaluate ``E`` N times, with fresh dice each time, and sum. It is how the
  source rules write critical hits: ``(2 x d6) + 10`` rolls d6 twice (faces 3 and 4 deal 17;
  doubling a single die could never give an odd total). ``(2 x 2d6) + 20`` rolls 2d6 twice,
  four dice in all. N must be a literal integer written first; ``x`` binds tighter than ``*``
  and ``+``, so ``2 x d6 + 10`` is ``(2 x d6) + 10``.

Normalised text (``str(expr)``) writes dice as ``NdX`` with an explicit count, keep rules with
an explicit count, single spaces around binary operators and ``x``, only the parentheses the
structure needs, and always parentheses around a nested repeat: ``(2 x 1d6) + 10``.
``parse(str(expr)) == expr`` for every well-formed tree.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import assert_never

from service.domain.dice_parser import parse
from service.domain.dice_tree import (
    MAX_DICE_PER_ROLL,
    MAX_DICE_PER_TERM,
    MAX_EXPANDED_TERMS,
    MAX_EXPRESSION_LENGTH,
    MAX_NESTING,
    MAX_SIDES,
    MAX_VALUE,
    TOO_LARGE,
    UNARY,
    BinaryOp,
    BinOp,
    Const,
    Dice,
    DiceError,
    DieSource,
    Expr,
    KeepMode,
    KeepRule,
    Neg,
    Repeat,
    binary_text,
    bounds,
    count_dice_upper_bound,
    limits_problem,
    operand_text,
    reach,
)

__all__ = [
    "MAX_DICE_PER_ROLL",
    "MAX_DICE_PER_TERM",
    "MAX_EXPANDED_TERMS",
    "MAX_EXPRESSION_LENGTH",
    "MAX_NESTING",
    "MAX_SIDES",
    "MAX_VALUE",
    "TOO_LARGE",
    "BinOp",
    "BinaryOp",
    "Const",
    "Dice",
    "DiceError",
    "DieRoll",
    "DieSource",
    "Expr",
    "KeepMode",
    "KeepRule",
    "Neg",
    "Repeat",
    "RollResult",
    "bounds",
    "checked_limits",
    "count_dice_upper_bound",
    "die_sides",
    "evaluate",
    "parse",
    "reach",
    "roll",
]


# --- Evaluation ---------------------------------------------------------------------------


def checked(expression: str) -> str:
    """The expression itself once it parses: a validator for dice in stat blocks (a
    `DiceError` is a `ValueError`, so pydantic reports it as the field's problem)."""
    parse(expression)
    return expression


def checked_optional(expression: str | None) -> str | None:
    return None if expression is None else checked(expression)


@dataclass(frozen=True, slots=True)
class DieRoll:
    sides: int
    face: int
    kept: bool


@dataclass(frozen=True, slots=True)
class RollResult:
    expression: str
    """The normalised expression."""
    total: int
    dice: tuple[DieRoll, ...]
    """Every die rolled, in roll order, dropped ones included."""
    text: str
    """A breakdown, e.g. ``4d6kh3 (6, 5, 3, ~~1~~) + 2 = 16``; dropped dice are struck out."""


def _kept_flags(faces: list[int], rule: KeepRule | None) -> list[bool]:
    """Which of ``faces`` count; among equal faces the earlier die is kept."""
    if rule is None:
        return [True] * len(faces)
    sign = -1 if rule.keeps_highest else 1
    order = sorted(range(len(faces)), key=lambda i: (sign * faces[i], i))
    chosen = set(order[: rule.kept(len(faces))])
    return [i in chosen for i in range(len(faces))]


def _apply(op: BinaryOp, left: int, right: int) -> int:
    match op:
        case BinaryOp.ADD:
            return left + right
        case BinaryOp.SUB:
            return left - right
        case BinaryOp.MUL:
            return left * right
        case _:
            assert_never(op)


class _Evaluator:
    def __init__(self, die: DieSource) -> None:
        self._die = die
        self.rolls: list[DieRoll] = []

    def run(self, expr: Expr) -> tuple[int, str]:
        """The value of ``expr`` and its rendered breakdown."""
        match expr:
            case Const(value):
                return value, str(value)
            case Dice():
                return self._dice(expr)
            case Neg(operand):
                value, text = self.run(operand)
                return -value, "-" + operand_text(operand, text, UNARY)
            case BinOp(op, left, right):
                left_value, left_text = self.run(left)
                right_value, right_text = self.run(right)
                text = binary_text(expr, left_text, right_text)
                return _apply(op, left_value, right_value), text
            case Repeat(times, operand):
                outcomes = [self.run(operand) for _ in range(times)]
                parts = "; ".join(text for _, text in outcomes)
                return sum(value for value, _ in outcomes), f"{times} x [{parts}]"
            case _:
                assert_never(expr)

    def _roll(self, sides: int) -> int:
        face = operator.index(self._die(sides))
        if not 1 <= face <= sides:
            raise ValueError(f"die source returned {face} for a d{sides}; expected 1..{sides}")
        return face

    def _dice(self, dice: Dice) -> tuple[int, str]:
        faces = [self._roll(dice.sides) for _ in range(dice.count)]
        kept = _kept_flags(faces, dice.keep)
        rolls = [DieRoll(dice.sides, face, k) for face, k in zip(faces, kept, strict=True)]
        self.rolls.extend(rolls)
        shown = ", ".join(str(r.face) if r.kept else f"~~{r.face}~~" for r in rolls)
        return sum(r.face for r in rolls if r.kept), f"{dice} ({shown})"


def die_sides(expr: Expr) -> list[int]:
    """The sides of every die `expr` rolls, in the order `evaluate` rolls them: every die is
    rolled whatever the faces (a keep rule only drops dice already rolled)."""
    match expr:
        case Const():
            return []
        case Dice(count, sides):
            return [sides] * count
        case Neg(operand):
            return die_sides(operand)
        case BinOp(_, left, right):
            return die_sides(left) + die_sides(right)
        case Repeat(times, operand):
            return die_sides(operand) * times
        case _:
            assert_never(expr)


def checked_limits(expr: Expr) -> None:
    """Refuse `expr` if it exceeds a limit, as `evaluate` would before rolling."""
    problem = limits_problem(expr)
    if problem is not None:
        raise DiceError(problem.reason, expression=str(expr), code=problem.code)


def evaluate(expr: Expr, die: DieSource) -> RollResult:
    """Roll ``expr``, calling ``die(sides)`` once per die in left-to-right order."""
    normalised = str(expr)
    checked_limits(expr)
    evaluator = _Evaluator(die)
    total, breakdown = evaluator.run(expr)
    return RollResult(
        expression=normalised,
        total=total,
        dice=tuple(evaluator.rolls),
        text=f"{breakdown} = {total}",
    )


def roll(expression: str, die: DieSource) -> RollResult:
    """Parse and evaluate ``expression``."""
    return evaluate(parse(expression), die)
