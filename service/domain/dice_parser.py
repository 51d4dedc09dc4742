"""The dice-expression parser: tokens and recursive descent, every problem named by its
position (the grammar is in `service.domain.dice`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from service.domain.dice_tree import (
    BAD_EXPRESSION,
    MAX_EXPRESSION_LENGTH,
    MAX_NESTING,
    TOO_LARGE,
    BinaryOp,
    BinOp,
    Const,
    Dice,
    DiceError,
    Expr,
    KeepMode,
    KeepRule,
    Neg,
    Problem,
    Repeat,
    constant_problem,
    count_problem,
    keep_problem,
    limits_problem,
    repeat_problem,
    sides_problem,
)

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

    def _check(self, problem: Problem | None, position: int) -> None:
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
                self._check(constant_problem(value), number.start)
                return Const(value)

    def _repeat(self, times: int, times_position: int) -> Repeat:
        self._check(repeat_problem(times), times_position)
        cross = self._advance()
        return Repeat(times, self._nested(cross, self._unary))

    def _dice(self, count: int, count_position: int) -> Dice:
        self._check(count_problem(count), count_position)
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
        self._check(sides_problem(sides), token.start)
        self._advance()
        return sides

    def _keep_rule(self, count: int) -> KeepRule | None:
        if self._token.kind is not _Kind.KEEP:
            return None
        keep = self._advance()
        number = self._peek_number()
        rule = KeepRule(KeepMode(keep.text.lower()), 1 if number is None else number)
        self._check(keep_problem(rule, count), keep.start)
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
    problem = limits_problem(expr)
    if problem is not None:
        raise DiceError(problem.reason, expression=expression, code=problem.code)
    return expr
