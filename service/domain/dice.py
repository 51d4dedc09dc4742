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
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import TypeAlias, assert_never

__all__ = [
    "MAX_DICE_PER_ROLL",
    "MAX_DICE_PER_TERM",
    "MAX_EXPANDED_TERMS",
    "MAX_EXPRESSION_LENGTH",
    "MAX_NESTING",
    "MAX_SIDES",
    "MAX_VALUE",
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
    "count_dice_upper_bound",
    "evaluate",
    "parse",
    "reach",
    "roll",
]

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
        _raise(_constant_problem(self.value))

    def __str__(self) -> str:
        return _format(self)


@dataclass(frozen=True, slots=True)
class Dice:
    """``count`` dice of ``sides`` sides, optionally filtered by a keep/drop rule."""

    count: int
    sides: int
    keep: KeepRule | None = None

    def __post_init__(self) -> None:
        problem = _count_problem(self.count) or _sides_problem(self.sides)
        if problem is None and self.keep is not None:
            problem = _keep_problem(self.keep, self.count)
        _raise(problem)

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
        _raise(_repeat_problem(self.times))

    def __str__(self) -> str:
        return _format(self)


Expr: TypeAlias = Const | Dice | Neg | BinOp | Repeat


@dataclass(frozen=True, slots=True)
class _Problem:
    reason: str
    code: str = BAD_EXPRESSION


def _too_large(reason: str) -> _Problem:
    return _Problem(reason, TOO_LARGE)


def _raise(problem: _Problem | None) -> None:
    if problem is not None:
        raise DiceError(problem.reason, code=problem.code)


def _count_problem(count: int) -> _Problem | None:
    if count < 1:
        return _Problem(f"a dice term needs at least 1 die (got {count})")
    if count > MAX_DICE_PER_TERM:
        return _too_large(f"too many dice in one term ({count}); the limit is {MAX_DICE_PER_TERM}")
    return None


def _sides_problem(sides: int) -> _Problem | None:
    if sides < 1:
        return _Problem(f"a die needs at least 1 side (got d{sides})")
    if sides > MAX_SIDES:
        return _too_large(f"too many sides (d{sides}); the limit is d{MAX_SIDES}")
    return None


def _keep_problem(rule: KeepRule, count: int) -> _Problem | None:
    if rule.count < 1:
        return _Problem(f"'{rule}' must name at least 1 die")
    if rule.kept(count) > count:
        return _Problem(f"cannot keep {rule.count} of {count} dice")
    if rule.kept(count) < 1:
        return _Problem(f"cannot drop {rule.count} of {count} dice; at least one die must be kept")
    return None


def _repeat_problem(times: int) -> _Problem | None:
    if times < 1:
        return _Problem(f"a repeat count must be at least 1 (got {times})")
    return _constant_problem(times)


def _constant_problem(value: int) -> _Problem | None:
    if value > MAX_VALUE:
        return _too_large(f"the number {value} is too large; the limit is {MAX_VALUE}")
    return None


# --- Normalised text ----------------------------------------------------------------------

# Binding strength used when printing. A repeat gets the lowest so that a nested one is always
# parenthesised, ``(2 x 1d6) + 10``, as the rules write it.
_REPEAT, _ADDITIVE, _MULTIPLICATIVE, _UNARY, _ATOM = range(5)


def _precedence(expr: Expr) -> int:
    match expr:
        case Const() | Dice():
            return _ATOM
        case Neg():
            return _UNARY
        case BinOp(op=BinaryOp.MUL):
            return _MULTIPLICATIVE
        case BinOp():
            return _ADDITIVE
        case Repeat():
            return _REPEAT
        case _:
            assert_never(expr)


def _operand_text(child: Expr, text: str, level: int) -> str:
    """``text`` (the rendering of ``child``), parenthesised if it binds looser than ``level``."""
    return f"({text})" if _precedence(child) < level else text


def _binary_text(expr: BinOp, left_text: str, right_text: str) -> str:
    level = _precedence(expr)
    left = _operand_text(expr.left, left_text, level)
    right = _operand_text(expr.right, right_text, level + 1)  # left-associative
    return f"{left} {expr.op} {right}"


def _format(expr: Expr) -> str:
    match expr:
        case Const(value):
            return str(value)
        case Dice(count, sides, keep):
            return f"{count}d{sides}{keep or ''}"
        case Neg(operand):
            return "-" + _operand_text(operand, _format(operand), _UNARY)
        case BinOp(_, left, right):
            return _binary_text(expr, _format(left), _format(right))
        case Repeat(times, operand):
            return f"{times} x {_operand_text(operand, _format(operand), _UNARY)}"
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


def _limits_problem(expr: Expr) -> _Problem | None:
    dice = count_dice_upper_bound(expr)
    if dice > MAX_DICE_PER_ROLL:
        return _too_large(
            f"too many dice: the expression rolls {dice}; the limit is {MAX_DICE_PER_ROLL}"
        )
    terms = _expanded_terms(expr)
    if terms > MAX_EXPANDED_TERMS:
        return _too_large(
            f"the expression expands to {terms} terms; the limit is {MAX_EXPANDED_TERMS}"
        )
    if reach(expr)[2] > MAX_VALUE:
        return _too_large(
            f"the expression can reach values beyond ±{MAX_VALUE}, the largest Fray records"
        )
    return None


# --- Tokens -------------------------------------------------------------------------------


class _Kind(Enum):
    NUMBER = "a number"
    DICE = "d"
    PERCENT = "%"
    KEEP = "kh/kl/dh/dl"
    REPEAT = "x"
    PLUS = "+"
    MINUS = "-"
    STAR = "*"
    LPAREN = "("
    RPAREN = ")"
    END = "end of expression"


@dataclass(frozen=True, slots=True)
class _Token:
    kind: _Kind
    text: str  # as written in the source
    start: int
    end: int


_DIGITS = "0123456789"
_KEEP_TOKENS = frozenset(mode.value for mode in KeepMode)
_SYMBOLS = {
    "+": _Kind.PLUS,
    "-": _Kind.MINUS,
    "*": _Kind.STAR,
    "(": _Kind.LPAREN,
    ")": _Kind.RPAREN,
    "%": _Kind.PERCENT,
    "x": _Kind.REPEAT,
    "\N{MULTIPLICATION SIGN}": _Kind.REPEAT,
}


def _scan(text: str, start: int) -> _Token:
    """The token starting at or after ``start`` (skipping whitespace)."""
    pos = start
    while pos < len(text) and text[pos].isspace():
        pos += 1
    if pos == len(text):
        return _Token(_Kind.END, "", pos, pos)
    char = text[pos].lower()
    if char in _DIGITS:
        end = pos
        while end < len(text) and text[end] in _DIGITS:
            end += 1
        return _Token(_Kind.NUMBER, text[pos:end], pos, end)
    if text[pos : pos + 2].lower() in _KEEP_TOKENS:
        return _Token(_Kind.KEEP, text[pos : pos + 2], pos, pos + 2)
    if char == "d":
        return _Token(_Kind.DICE, text[pos], pos, pos + 1)
    if char == "k":
        raise DiceError("expected 'h' or 'l' after 'k'", expression=text, position=pos)
    kind = _SYMBOLS.get(char)
    if kind is None:
        raise DiceError(f"unexpected character '{text[pos]}'", expression=text, position=pos)
    return _Token(kind, text[pos], pos, pos + 1)


# --- Parser -------------------------------------------------------------------------------

_ADDITIVE_OPS = {_Kind.PLUS: BinaryOp.ADD, _Kind.MINUS: BinaryOp.SUB}


class _Parser:
    """Recursive descent over the grammar in the module docstring, one token of lookahead."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._depth = 0
        self._token = _scan(text, 0)

    def parse(self) -> Expr:
        expr = self._expression()
        if self._token.kind is not _Kind.END:
            raise self._unexpected()
        return expr

    # Helpers

    def _advance(self) -> _Token:
        token = self._token
        self._token = _scan(self._text, token.end)
        return token

    def _error(self, reason: str, position: int, code: str = BAD_EXPRESSION) -> DiceError:
        return DiceError(reason, expression=self._text, position=position, code=code)

    def _check(self, problem: _Problem | None, position: int) -> None:
        if problem is not None:
            raise self._error(problem.reason, position, problem.code)

    def _unexpected(self) -> DiceError:
        token = self._token
        if token.kind is _Kind.END:
            return self._error("unexpected end of expression", token.start)
        if token.kind is _Kind.REPEAT:
            hint = " (a repeat is written count first, e.g. '2 x d6')"
            return self._error(f"unexpected '{token.text}'{hint}", token.start)
        return self._error(f"unexpected '{token.text}'", token.start)

    def _nested(self, opener: _Token, parse: Callable[[], Expr]) -> Expr:
        """Parse the operand of ``opener`` (a '(', '-' or 'x'), guarding the nesting depth."""
        if self._depth == MAX_NESTING:
            raise self._error(
                f"too deeply nested; the limit is {MAX_NESTING} levels", opener.start, TOO_LARGE
            )
        self._depth += 1
        try:
            return parse()
        finally:
            self._depth -= 1

    # Grammar rules

    def _expression(self) -> Expr:
        left = self._term()
        while self._token.kind in _ADDITIVE_OPS:
            op = _ADDITIVE_OPS[self._advance().kind]
            left = BinOp(op, left, self._term())
        return left

    def _term(self) -> Expr:
        left = self._unary()
        while self._token.kind is _Kind.STAR:
            self._advance()
            left = BinOp(BinaryOp.MUL, left, self._unary())
        return left

    def _unary(self) -> Expr:
        if self._token.kind is _Kind.MINUS:
            sign = self._advance()
            return Neg(self._nested(sign, self._unary))
        return self._primary()

    def _primary(self) -> Expr:
        match self._token.kind:
            case _Kind.LPAREN:
                return self._group()
            case _Kind.NUMBER:
                return self._after_number(self._advance())
            case _Kind.DICE:
                return self._dice(count=1, count_position=self._token.start)
            case _:
                raise self._unexpected()

    def _group(self) -> Expr:
        opener = self._advance()
        inner = self._nested(opener, self._expression)
        if self._token.kind is _Kind.RPAREN:
            self._advance()
            return inner
        if self._token.kind is _Kind.END:
            raise self._error("unclosed '('", opener.start)
        raise self._error(f"expected ')' but found '{self._token.text}'", self._token.start)

    def _after_number(self, number: _Token) -> Expr:
        value = int(number.text)
        match self._token.kind:
            case _Kind.DICE:
                return self._dice(count=value, count_position=number.start)
            case _Kind.REPEAT:
                return self._repeat(value, number.start)
            case _:
                self._check(_constant_problem(value), number.start)
                return Const(value)

    def _repeat(self, times: int, times_position: int) -> Repeat:
        self._check(_repeat_problem(times), times_position)
        cross = self._advance()
        return Repeat(times, self._nested(cross, self._unary))

    def _dice(self, count: int, count_position: int) -> Dice:
        self._check(_count_problem(count), count_position)
        sides = self._sides(self._advance())
        return Dice(count, sides, self._keep_rule(count))

    def _sides(self, d: _Token) -> int:
        token = self._token
        if token.kind is _Kind.PERCENT:
            self._advance()
            return 100
        if token.kind is not _Kind.NUMBER:
            raise self._error("expected a number of sides after 'd'", d.start)
        sides = int(token.text)
        self._check(_sides_problem(sides), token.start)
        self._advance()
        return sides

    def _keep_rule(self, count: int) -> KeepRule | None:
        if self._token.kind is not _Kind.KEEP:
            return None
        keep = self._advance()
        number = self._peek_number()
        rule = KeepRule(KeepMode(keep.text.lower()), 1 if number is None else number)
        self._check(_keep_problem(rule, count), keep.start)
        if number is not None:
            self._advance()
        return rule

    def _peek_number(self) -> int | None:
        """The value of the current token if it is a number, without consuming it."""
        return int(self._token.text) if self._token.kind is _Kind.NUMBER else None


def parse(expression: str) -> Expr:
    """Parse a dice expression; raise :class:`DiceError` naming the position of any problem."""
    if len(expression) > MAX_EXPRESSION_LENGTH:
        raise DiceError(
            f"expression is too long ({len(expression)} characters); "
            f"the limit is {MAX_EXPRESSION_LENGTH}",
            expression=expression,
            code=TOO_LARGE,
        )
    if not expression.strip():
        raise DiceError("empty expression", expression=expression, position=0)
    expr = _Parser(expression).parse()
    problem = _limits_problem(expr)
    if problem is not None:
        raise DiceError(problem.reason, expression=expression, code=problem.code)
    return expr


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
                return -value, "-" + _operand_text(operand, text, _UNARY)
            case BinOp(op, left, right):
                left_value, left_text = self.run(left)
                right_value, right_text = self.run(right)
                text = _binary_text(expr, left_text, right_text)
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


def evaluate(expr: Expr, die: DieSource) -> RollResult:
    """Roll ``expr``, calling ``die(sides)`` once per die in left-to-right order."""
    normalised = str(expr)
    problem = _limits_problem(expr)
    if problem is not None:
        raise DiceError(problem.reason, expression=normalised, code=problem.code)
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
