"""The base resolution system under hex-tactical (base.py, Fray's choice: the seed never states
one): d100 roll-under, hard a half and very hard a fifth of the score, boons and banes that
cancel one for one and add tens dice (boons keep the lowest, banes the highest), 1 always
succeeds, 100 always fails, and a miss margin compared with half the skill score."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from service.domain.context import GM, DecideContext
from service.domain.draws import Roller
from service.domain.errors import RuleViolation
from service.rules.hex_tactical import base
from service.rules.hex_tactical.base import CheckResult


def table_dice(*faces: int) -> DecideContext:
    """A context whose every die comes from `faces`, in order (the table's dice)."""
    roller = Roller(seed=b"\x07" * 32, version=1, mode="table", table_dice=list(faces))
    return DecideContext(GM, datetime(2026, 1, 1, tzinfo=UTC), roller)


def check(
    *faces: int,
    score: int = 50,
    difficulty: base.Difficulty = "normal",
    boons: int = 0,
    banes: int = 0,
) -> CheckResult:
    ctx = table_dice(*faces)
    result = base.check(ctx, "dodge", score, "test", difficulty, boons, banes, roller="hero")
    ctx.roller.finish()  # every face given was rolled
    return result


# --- targets --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("score", "difficulty", "target"),
    [
        (50, "normal", 50),
        (50, "hard", 25),
        (50, "very-hard", 10),
        (47, "hard", 23),
        (47, "very-hard", 9),
        (4, "very-hard", 0),
        (0, "normal", 0),
        (100, "very-hard", 20),
    ],
)
def test_the_target_is_the_score_half_of_it_when_hard_and_a_fifth_when_very_hard(
    score: int, difficulty: base.Difficulty, target: int
) -> None:
    assert base.target_for(score, difficulty) == target


def test_a_check_succeeds_at_or_under_its_target_and_fails_above_it() -> None:
    assert check(50).success
    assert not check(51).success
    assert check(25, difficulty="hard").success
    assert not check(26, difficulty="hard").success
    assert check(10, difficulty="very-hard").success
    assert not check(11, difficulty="very-hard").success


def test_a_check_records_its_target_difficulty_and_the_die_it_kept() -> None:
    result = check(37, score=60, difficulty="hard")

    assert (result.target, result.difficulty, result.dice, result.roll) == (30, "hard", (37,), 37)
    assert not result.success


# --- boons and banes ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("boons", "banes", "left"),
    [(0, 0, 0), (1, 0, 1), (0, 2, -2), (2, 1, 1), (1, 3, -2), (3, 3, 0), (9, 0, 5), (0, 8, -5)],
)
def test_boons_and_banes_cancel_one_for_one(boons: int, banes: int, left: int) -> None:
    assert base.net(boons, banes) == left


def test_a_boon_and_a_bane_cancel_so_the_check_rolls_one_die() -> None:
    result = check(62, boons=1, banes=1)

    assert result.dice == (62,)
    assert result.roll == 62


def test_a_boon_rolls_one_more_tens_die_and_keeps_the_lowest_result() -> None:
    result = check(62, 3, boons=1)

    assert result.dice == (62, 3)
    assert result.roll == 32
    assert result.success


def test_a_bane_rolls_one_more_tens_die_and_keeps_the_highest_result() -> None:
    result = check(32, 6, banes=1)

    assert result.dice == (32, 6)
    assert result.roll == 62
    assert not result.success


def test_two_banes_left_after_a_boon_roll_two_tens_dice() -> None:
    result = check(12, 4, 2, boons=1, banes=3)

    assert result.dice == (12, 4, 2)
    assert result.roll == 42


def test_a_tens_die_that_keeps_nothing_better_leaves_the_first_roll() -> None:
    assert check(22, 7, boons=1).roll == 22
    assert check(72, 2, banes=1).roll == 72


@pytest.mark.parametrize(
    ("first", "extra", "boons_left", "kept"),
    [
        (37, [5], 1, 37),
        (37, [5], -1, 57),
        (37, [1, 9], 2, 17),
        (37, [1, 9], -2, 97),
        # A d10 showing 10 is a tens digit of 0.
        (45, [10], 1, 5),
        (5, [10], -1, 5),
        # 00 reads 100: the first roll of 100, or a tens die of 10 over a units 0.
        (100, [3], 1, 30),
        (100, [3], -1, 100),
        (40, [10], -1, 100),
        (40, [10], 1, 40),
        (90, [10], 1, 90),
    ],
)
def test_kept_roll_combines_the_units_with_the_best_or_worst_tens(
    first: int, extra: list[int], boons_left: int, kept: int
) -> None:
    assert base.kept_roll(first, extra, boons_left) == kept


def test_a_bane_that_turns_a_units_0_into_00_reads_100_and_fails() -> None:
    result = check(40, 10, score=100, banes=1)

    assert result.roll == 100
    assert not result.success


def test_more_than_five_boons_roll_no_more_than_five_tens_dice() -> None:
    result = check(99, 9, 9, 9, 9, 1, boons=7)

    assert len(result.dice) == 6
    assert result.roll == 19


def test_a_check_without_its_tens_die_is_refused() -> None:
    ctx = table_dice(40)

    with pytest.raises(RuleViolation) as caught:
        base.check(ctx, "dodge", 50, "test", banes=1, roller="hero")

    assert caught.value.code == "dice/table-dice-missing"


# --- 1 and 100 ------------------------------------------------------------------------------------


def test_a_roll_of_1_always_succeeds() -> None:
    assert check(1, score=0).success
    assert check(1, score=3, difficulty="very-hard").success


def test_a_kept_roll_of_1_succeeds_too() -> None:
    result = check(91, 10, score=0, boons=1)

    assert result.roll == 1
    assert result.success


def test_a_roll_of_100_always_fails() -> None:
    result = check(100, score=100)

    assert result.target == 100
    assert not result.success


# --- margins and degrees --------------------------------------------------------------------------


def test_missed_by_is_how_far_over_the_target_a_failure_landed() -> None:
    assert check(74).missed_by == 24
    assert check(40, difficulty="hard").missed_by == 15
    assert check(30).missed_by == 0


@pytest.mark.parametrize(
    ("roll", "score", "within"),
    [
        (74, 50, True),  # missed by 24: less than 25
        (75, 50, False),  # missed by 25: not less than half of 50
        (90, 50, False),
        (50, 50, False),  # a hit is no miss at all
        (61, 41, True),  # missed by 20: less than 20.5
        (62, 41, False),  # missed by 21
    ],
)
def test_within_half_is_a_miss_by_less_than_half_the_skill_score(
    roll: int, score: int, within: bool
) -> None:
    assert base.within_half(check(roll, score=score)) is within


@pytest.mark.parametrize(
    ("roll", "score", "degree"),
    [
        (1, 50, 3),
        (10, 50, 3),
        (11, 50, 2),
        (25, 50, 2),
        (26, 50, 1),
        (50, 50, 1),
        (51, 50, 0),
        (100, 100, 0),
        (1, 0, 1),  # 1 succeeds, but beats no fifth of a score of 0
    ],
)
def test_degree_of_success_is_3_under_a_fifth_2_under_half_1_a_success_0_a_failure(
    roll: int, score: int, degree: int
) -> None:
    assert base.degree(check(roll, score=score)) == degree


def test_harder_steps_normal_to_hard_to_very_hard_and_no_further() -> None:
    assert base.harder("normal") == "hard"
    assert base.harder("hard") == "very-hard"
    assert base.harder("very-hard") == "very-hard"
