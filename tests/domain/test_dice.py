"""Dice expressions: grammar, totals, breakdowns, errors, limits and generated properties."""

from __future__ import annotations

import pickle
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain.dice import (
    MAX_DICE_PER_ROLL,
    MAX_EXPRESSION_LENGTH,
    MAX_NESTING,
    MAX_VALUE,
    TOO_LARGE,
    BinaryOp,
    BinOp,
    Const,
    Dice,
    DiceError,
    DieRoll,
    Expr,
    KeepMode,
    KeepRule,
    Neg,
    Repeat,
    bounds,
    count_dice_upper_bound,
    evaluate,
    parse,
    reach,
    roll,
)

TIMES = "\N{MULTIPLICATION SIGN}"


class ScriptedDie:
    """A die source that hands out scripted (sides, face) pairs in order.

    It fails the test if asked for a die with other sides than the script says, or for more
    dice than were scripted.
    """

    def __init__(self, script: list[tuple[int, int]]) -> None:
        self._script = script
        self.calls = 0

    def __call__(self, sides: int) -> int:
        assert self.calls < len(self._script), f"unscripted extra d{sides}"
        expected_sides, face = self._script[self.calls]
        assert sides == expected_sides, f"die #{self.calls + 1}: asked for d{sides}"
        self.calls += 1
        return face

    def assert_exhausted(self) -> None:
        assert self.calls == len(self._script), "not every scripted die was rolled"


def faces(sides: int, *values: int) -> list[tuple[int, int]]:
    """A script of dice of the same kind: ``faces(6, 3, 4)`` is two d6 showing 3 and 4."""
    return [(sides, value) for value in values]


def scripted_roll(expression: str, script: list[tuple[int, int]]) -> int:
    die = ScriptedDie(script)
    total = roll(expression, die).total
    die.assert_exhausted()
    return total


# --- Totals for each grammar feature ----------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "script", "total"),
    [
        pytest.param("5", [], 5, id="constant"),
        pytest.param("007", [], 7, id="leading-zeros"),
        pytest.param("d6", faces(6, 4), 4, id="single-die"),
        pytest.param("3d6", faces(6, 1, 2, 6), 9, id="several-dice"),
        pytest.param("D20", faces(20, 17), 17, id="upper-case-d"),
        pytest.param("d%", faces(100, 42), 42, id="percentile"),
        pytest.param("2d%", faces(100, 42, 58), 100, id="several-percentile"),
        pytest.param("d1", faces(1, 1), 1, id="one-sided"),
        pytest.param("4d6kh3", faces(6, 6, 5, 3, 1), 14, id="keep-highest"),
        pytest.param("4d6kl1", faces(6, 3, 1, 5, 2), 1, id="keep-lowest"),
        pytest.param("4d6dh1", faces(6, 6, 5, 3, 1), 9, id="drop-highest"),
        pytest.param("4d6dl1", faces(6, 6, 5, 3, 1), 14, id="drop-lowest"),
        pytest.param("4D6KH3", faces(6, 6, 5, 3, 1), 14, id="upper-case-keep"),
        pytest.param("2d20kh1", faces(20, 7, 15), 15, id="advantage"),
        pytest.param("2d20kl1", faces(20, 7, 15), 7, id="disadvantage"),
        pytest.param("2d20kh", faces(20, 7, 15), 15, id="kh-alone-is-kh1"),
        pytest.param("2d20dl", faces(20, 7, 15), 15, id="dl-alone-is-dl1"),
        pytest.param(" 4 d 6 kh 3 ", faces(6, 6, 5, 3, 1), 14, id="whitespace-between-tokens"),
        pytest.param("1 + 2 - 3", [], 0, id="add-subtract"),
        pytest.param("10 - 2 - 3", [], 5, id="subtraction-is-left-associative"),
        pytest.param("d6 + d8", faces(6, 2) + faces(8, 7), 9, id="dice-plus-dice"),
        pytest.param("-d6 + 10", faces(6, 4), 6, id="unary-minus"),
        pytest.param("-(2 + 3)", [], -5, id="unary-minus-on-group"),
        pytest.param("--5", [], 5, id="double-negation"),
        pytest.param("3 - -2", [], 5, id="minus-negative"),
        pytest.param("(d6+2)*2", faces(6, 3), 10, id="multiply-doubles-one-roll"),
        pytest.param("2 + 3 * 4", [], 14, id="multiply-binds-tighter"),
        pytest.param("(2 + 3) * 4", [], 20, id="parentheses-group"),
        pytest.param("2 * 3 * 4", [], 24, id="multiply-chain"),
        pytest.param("((((7))))", [], 7, id="deep-parentheses"),
        pytest.param("(2 x d6) + 10", faces(6, 3, 4), 17, id="critical-2x-d6"),
        pytest.param("(3 x d8) +21", faces(8, 5, 6, 7), 39, id="critical-3x-d8"),
        pytest.param("(2 x 2d6)+20", faces(6, 1, 2, 5, 6), 34, id="critical-2x-2d6"),
        pytest.param("2x d6", faces(6, 3, 4), 7, id="repeat-no-space-before-x"),
        pytest.param("2xd6", faces(6, 3, 4), 7, id="repeat-no-spaces"),
        pytest.param(f"2{TIMES}d6", faces(6, 3, 4), 7, id="repeat-multiplication-sign"),
        pytest.param("2 X d6", faces(6, 3, 4), 7, id="repeat-upper-case"),
        pytest.param("2 x d6 + 10", faces(6, 3, 4), 17, id="repeat-binds-tighter-than-plus"),
        pytest.param("2 x d6 * 2", faces(6, 3, 4), 14, id="repeat-binds-tighter-than-times"),
        pytest.param("2 x (d6 + 1)", faces(6, 3, 4), 9, id="repeat-a-group"),
        pytest.param("3 x 2 x d4", faces(4, 1, 2, 3, 4, 1, 2), 13, id="nested-repeat"),
        pytest.param("2 x 5", [], 10, id="repeat-a-constant"),
        pytest.param("2 x -d6", faces(6, 3, 4), -7, id="repeat-a-negation"),
        pytest.param("-2 x d6", faces(6, 3, 4), -7, id="negate-a-repeat"),
        pytest.param("2d20kh1 + 5 - d4", faces(20, 3, 18) + faces(4, 2), 21, id="attack-roll"),
    ],
)
def test_total_of_each_grammar_feature(
    expression: str, script: list[tuple[int, int]], total: int
) -> None:
    assert scripted_roll(expression, script) == total


def test_critical_hit_rolls_the_die_again_rather_than_doubling_it() -> None:
    result = roll("(2 x d6) + 10", ScriptedDie(faces(6, 3, 4)))

    assert result.total == 17
    assert result.dice == (DieRoll(6, 3, kept=True), DieRoll(6, 4, kept=True))


def test_repeat_of_several_dice_rolls_all_of_them_each_time() -> None:
    result = roll("(2 x 2d6)+20", ScriptedDie(faces(6, 1, 2, 5, 6)))

    assert [d.face for d in result.dice] == [1, 2, 5, 6]
    assert result.total == 34


def test_advantage_picks_the_higher_die_whichever_comes_first() -> None:
    first_higher = roll("2d20kh1", ScriptedDie(faces(20, 18, 4)))
    second_higher = roll("2d20kh1", ScriptedDie(faces(20, 4, 18)))

    assert first_higher.total == second_higher.total == 18
    assert [d.kept for d in first_higher.dice] == [True, False]
    assert [d.kept for d in second_higher.dice] == [False, True]


def test_dropped_dice_are_reported_in_roll_order() -> None:
    result = roll("4d6kh3", ScriptedDie(faces(6, 3, 1, 6, 5)))

    assert result.dice == (
        DieRoll(6, 3, kept=True),
        DieRoll(6, 1, kept=False),
        DieRoll(6, 6, kept=True),
        DieRoll(6, 5, kept=True),
    )


@pytest.mark.parametrize(
    ("expression", "kept"),
    [
        pytest.param("4d6dl1", [True, False, True, True], id="drop-lowest-drops-the-later-tie"),
        pytest.param("4d6kl1", [True, False, False, False], id="keep-lowest-keeps-the-earlier"),
    ],
)
def test_ties_keep_the_earlier_die(expression: str, kept: list[bool]) -> None:
    result = roll(expression, ScriptedDie(faces(6, 1, 1, 5, 6)))

    assert [d.kept for d in result.dice] == kept


def test_dice_are_requested_left_to_right_across_the_expression() -> None:
    script = faces(8, 2) + faces(6, 5, 1) + faces(4, 3) + faces(20, 11)
    die = ScriptedDie(script)

    result = roll("d8 + 2 x d6 - (d4 * d20)", die)

    die.assert_exhausted()
    assert [(d.sides, d.face) for d in result.dice] == script
    assert result.total == 2 + 5 + 1 - 3 * 11


# --- Normalised text and breakdown --------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "normalised"),
    [
        pytest.param("d6", "1d6", id="explicit-count"),
        pytest.param("D%", "1d100", id="percentile"),
        pytest.param("4d6KH", "4d6kh1", id="explicit-keep-count"),
        pytest.param(" 4 d 6 dl 1 ", "4d6dl1", id="whitespace"),
        pytest.param("(2 x d6) + 10", "(2 x 1d6) + 10", id="critical"),
        pytest.param(f"2{TIMES}d6+10", "(2 x 1d6) + 10", id="repeat-gets-parentheses"),
        pytest.param("3 x 2 x d4", "3 x (2 x 1d4)", id="nested-repeat"),
        pytest.param("((1))", "1", id="redundant-parentheses"),
        pytest.param("(1-2)-3", "1 - 2 - 3", id="left-associative"),
        pytest.param("1-(2-3)", "1 - (2 - 3)", id="right-grouping-kept"),
        pytest.param("2*(3*4)", "2 * (3 * 4)", id="right-product-kept"),
        pytest.param("(d6+2)*2", "(1d6 + 2) * 2", id="sum-times"),
        pytest.param("-(d6+1)", "-(1d6 + 1)", id="negated-group"),
        pytest.param("2 x (d6 + 1)", "2 x (1d6 + 1)", id="repeated-group"),
        pytest.param("007", "7", id="leading-zeros"),
    ],
)
def test_str_normalises_the_expression(expression: str, normalised: str) -> None:
    assert str(parse(expression)) == normalised
    assert str(parse(normalised)) == normalised


@pytest.mark.parametrize(
    ("expression", "script", "text"),
    [
        pytest.param(
            "4d6kh3+2", faces(6, 6, 5, 3, 1), "4d6kh3 (6, 5, 3, ~~1~~) + 2 = 16", id="keep"
        ),
        pytest.param(
            "(2 x d6) + 10", faces(6, 3, 4), "(2 x [1d6 (3); 1d6 (4)]) + 10 = 17", id="repeat"
        ),
        pytest.param("(d6+2)*2", faces(6, 3), "(1d6 (3) + 2) * 2 = 10", id="product"),
        pytest.param("-d4", faces(4, 2), "-1d4 (2) = -2", id="negative"),
        pytest.param("5", [], "5 = 5", id="constant"),
    ],
)
def test_text_breaks_the_roll_down(
    expression: str, script: list[tuple[int, int]], text: str
) -> None:
    result = roll(expression, ScriptedDie(script))

    assert result.text == text


def test_result_carries_the_normalised_expression() -> None:
    result = roll("2D20KH + 5", ScriptedDie(faces(20, 9, 12)))

    assert result.expression == "2d20kh1 + 5"


# --- Parse errors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "position", "message"),
    [
        pytest.param("2d", 1, "expected a number of sides after 'd' at position 2", id="no-sides"),
        pytest.param("d6+", 3, "unexpected end of expression at position 4", id="dangling-plus"),
        pytest.param("2d6 + )", 6, "unexpected ')' at position 7 in '2d6 + )'", id="stray-paren"),
        pytest.param("4d6k", 3, "expected 'h' or 'l' after 'k'", id="k-without-h-or-l"),
        pytest.param("((d6)", 0, "unclosed '(' at position 1", id="unclosed-paren"),
        pytest.param("(2d6 3", 5, "expected ')' but found '3'", id="junk-before-close"),
        pytest.param("3 x", 3, "unexpected end of expression", id="repeat-without-operand"),
        pytest.param("abc", 0, "unexpected character 'a' at position 1", id="letters"),
        pytest.param("", 0, "empty expression", id="empty"),
        pytest.param("   ", 0, "empty expression", id="blank"),
        pytest.param("d0", 1, "a die needs at least 1 side (got d0)", id="d0"),
        pytest.param("2d6 3", 4, "unexpected '3'", id="trailing-number"),
        pytest.param("d6 d6", 3, "unexpected 'd'", id="missing-operator"),
        pytest.param("d6 +* 2", 4, "unexpected '*'", id="two-operators"),
        pytest.param("5%", 1, "unexpected '%'", id="percent-without-d"),
        pytest.param("2d6kh1KL1", 6, "unexpected 'KL'", id="two-keep-rules"),
        pytest.param("d6 x 2", 3, "a repeat is written count first", id="repeat-count-last"),
        pytest.param("(1+1) x d6", 6, "unexpected 'x'", id="repeat-count-not-literal"),
        pytest.param("0d6", 0, "at least 1 die", id="zero-dice"),
        pytest.param("0 x d6", 0, "repeat count must be at least 1", id="zero-repeats"),
        pytest.param("4d6kh5", 3, "cannot keep 5 of 4 dice", id="keep-too-many"),
        pytest.param("4d6kh0", 3, "'kh0' must name at least 1 die", id="keep-none"),
        pytest.param("1d6dl1", 3, "cannot drop 1 of 1 dice", id="drop-every-die"),
        pytest.param("2 + 3)", 5, "unexpected ')'", id="unopened-paren"),
        pytest.param("()", 1, "unexpected ')'", id="empty-parentheses"),
    ],
)
def test_parse_error_names_the_position(expression: str, position: int, message: str) -> None:
    with pytest.raises(DiceError) as caught:
        parse(expression)

    assert caught.value.position == position
    assert caught.value.expression == expression
    assert message in str(caught.value)


def test_dice_error_is_a_value_error_that_survives_pickling() -> None:
    with pytest.raises(ValueError, match="unexpected") as caught:
        parse("2d6 + )")

    assert isinstance(caught.value, DiceError)
    copy = pickle.loads(pickle.dumps(caught.value))
    assert (str(copy), copy.position, copy.expression) == (str(caught.value), 6, "2d6 + )")


# --- Limits -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "position", "message"),
    [
        pytest.param(
            "101d6", 0, "too many dice in one term (101); the limit is 100", id="per-term"
        ),
        pytest.param("d10001", 1, "too many sides (d10001); the limit is d10000", id="sides"),
        pytest.param("11 x 100d6", None, "rolls 1100; the limit is 1000", id="per-roll"),
        pytest.param("100 x 100 x d6", None, "rolls 10000", id="nested-repeat-dice"),
        pytest.param("100 x 100 x 2 x 1", None, "expands to 20000 terms", id="expansion"),
        pytest.param(" " * 500 + "1", None, "too long (501 characters)", id="length"),
        pytest.param("(" * 51 + "1" + ")" * 51, 50, "too deeply nested", id="parentheses"),
        pytest.param("-" * 51 + "1", 50, "too deeply nested", id="minus-signs"),
        pytest.param("2147483648", 0, "2147483648 is too large", id="constant"),
        pytest.param("1d6*9999999999*9999999999", 4, "9999999999 is too large", id="factor"),
        pytest.param("-9223372036854775807-2", 1, "is too large", id="64-bit"),
        pytest.param("2147483648 x 1", 0, "2147483648 is too large", id="repeat-count"),
        pytest.param("65536 * 65536", None, "beyond ±2147483647", id="product"),
        pytest.param("2147483647 + 1 - 1", None, "beyond ±2147483647", id="intermediate"),
        pytest.param("-(2147483647 + 1)", None, "beyond ±2147483647", id="negative"),
    ],
)
def test_exceeding_a_limit_is_a_dice_error(
    expression: str, position: int | None, message: str
) -> None:
    with pytest.raises(DiceError) as caught:
        parse(expression)

    assert caught.value.position == position
    assert message in str(caught.value)
    assert caught.value.code == TOO_LARGE


@pytest.mark.parametrize("expression", ["2d6 +", "d0", "2d6kh3", "1d6 ) "])
def test_a_malformed_expression_is_a_bad_expression_not_too_large(expression: str) -> None:
    with pytest.raises(DiceError) as caught:
        parse(expression)

    assert caught.value.code == "dice/bad-expression"


def test_values_at_the_limit_are_accepted() -> None:
    assert roll(f"{MAX_VALUE}", lambda sides: sides).total == MAX_VALUE
    assert roll(f"-{MAX_VALUE}", lambda sides: sides).total == -MAX_VALUE
    assert roll("46340 * 46340", lambda sides: sides).total == 46340**2


@pytest.mark.parametrize(
    "expression",
    [
        pytest.param("100d6", id="dice-per-term"),
        pytest.param("d10000", id="sides"),
        pytest.param("10 x 100d6", id="dice-per-roll"),
        pytest.param(" " * (MAX_EXPRESSION_LENGTH - 1) + "1", id="length"),
        pytest.param("(" * MAX_NESTING + "1" + ")" * MAX_NESTING, id="nesting"),
    ],
)
def test_expressions_at_a_limit_are_accepted(expression: str) -> None:
    result = roll(expression, lambda sides: sides)

    assert len(result.dice) <= MAX_DICE_PER_ROLL


def test_evaluate_enforces_the_dice_limit_on_hand_built_trees() -> None:
    too_many = Repeat(11, Dice(100, 6))

    with pytest.raises(DiceError, match="too many dice") as caught:
        evaluate(too_many, ScriptedDie([]))

    assert caught.value.position is None


@pytest.mark.parametrize(
    "build",
    [
        pytest.param(lambda: Dice(0, 6), id="no-dice"),
        pytest.param(lambda: Dice(1, 0), id="no-sides"),
        pytest.param(lambda: Dice(2, 6, KeepRule(KeepMode.DROP_LOWEST, 2)), id="drop-all"),
        pytest.param(lambda: Repeat(0, Const(1)), id="no-repeats"),
        pytest.param(lambda: Const(-1), id="negative-constant"),
    ],
)
def test_invalid_nodes_cannot_be_built(build: Callable[[], object]) -> None:
    with pytest.raises(DiceError):
        build()


@pytest.mark.parametrize("face", [0, 7])
def test_die_source_out_of_range_is_rejected(face: int) -> None:
    with pytest.raises(ValueError, match=f"returned {face} for a d6"):
        roll("d6", lambda sides: face)


# --- Bounds -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        pytest.param("5", (5, 5), id="constant"),
        pytest.param("4d6kh3", (3, 18), id="keep"),
        pytest.param("(2 x d6) + 10", (12, 22), id="critical"),
        pytest.param("d6 - d4", (-3, 5), id="difference"),
        pytest.param("-d6", (-6, -1), id="negation"),
        pytest.param("(d6 - 3) * (d4 - 2)", (-4, 6), id="product-of-mixed-signs"),
    ],
)
def test_bounds(expression: str, expected: tuple[int, int]) -> None:
    assert bounds(parse(expression)) == expected


def test_count_dice_counts_every_die_rolled() -> None:
    assert count_dice_upper_bound(parse("(2 x 4d6kh3) + d20 - 3")) == 9


# --- Properties over generated expressions ------------------------------------------------------

SIDES = st.sampled_from([1, 2, 4, 6, 8, 10, 12, 20, 100])


@st.composite
def dice_terms(draw: st.DrawFn) -> Dice:
    count = draw(st.integers(1, 4))
    sides = draw(SIDES)
    mode = draw(st.none() | st.sampled_from(KeepMode))
    if mode is None:
        return Dice(count, sides)
    rule = KeepRule(mode, draw(st.integers(1, count)))
    if rule.kept(count) < 1:  # dropping every die is not allowed
        return Dice(count, sides)
    return Dice(count, sides, rule)


def _depth(expr: Expr) -> int:
    match expr:
        case Const() | Dice():
            return 1
        case Neg(operand) | Repeat(_, operand):
            return 1 + _depth(operand)
        case BinOp(_, left, right):
            return 1 + max(_depth(left), _depth(right))
        case _:
            raise AssertionError(expr)


def _compound(children: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
    return (
        st.builds(Neg, children)
        | st.builds(BinOp, st.sampled_from(BinaryOp), children, children)
        | st.builds(Repeat, st.integers(1, 3), children)
    )


expressions: st.SearchStrategy[Expr] = st.recursive(
    st.builds(Const, st.integers(0, 20)) | dice_terms(), _compound, max_leaves=8
).filter(
    lambda e: count_dice_upper_bound(e) <= 200 and _depth(e) <= 20 and reach(e)[2] <= MAX_VALUE
)


class DrawnDie:
    """A die source whose faces Hypothesis chooses, recording the sides asked for."""

    def __init__(self, data: st.DataObject) -> None:
        self._data = data
        self.requested: list[int] = []

    def __call__(self, sides: int) -> int:
        self.requested.append(sides)
        return self._data.draw(st.integers(1, sides))


@settings(max_examples=200)
@given(expr=expressions)
def test_normalised_text_round_trips(expr: Expr) -> None:
    text = str(expr)
    reparsed = parse(text)

    assert str(reparsed) == text
    assert reparsed == expr


@settings(max_examples=200)
@given(expr=expressions, data=st.data())
def test_total_lies_within_bounds(expr: Expr, data: st.DataObject) -> None:
    low, high = bounds(expr)

    result = evaluate(expr, DrawnDie(data))

    assert low <= result.total <= high


@settings(max_examples=200)
@given(expr=expressions, data=st.data())
def test_one_die_call_per_reported_die(expr: Expr, data: st.DataObject) -> None:
    die = DrawnDie(data)

    result = evaluate(expr, die)

    assert len(die.requested) == len(result.dice) == count_dice_upper_bound(expr)
    assert die.requested == [d.sides for d in result.dice]
