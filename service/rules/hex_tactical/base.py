"""The base resolution system under the tactical variant: d100 roll-under skill checks.

The hex-tactical seed is a variant of a narrative system it never states. Its words fix
what the base must provide: skill scores, "hard" and "very hard" rolls, boons and banes,
Initiative, Agility and Dodge checks, and a miss margin comparable to "1/2 of their
relevant skill score". Fray reads that as a percentile roll-under system:

* a check rolls d100 (1-100) and succeeds at or under its target;
* the target is the skill score for a normal roll, half of it (rounded down) for a hard
  roll and a fifth for a very hard one;
* boons and banes cancel one for one; each boon left rolls one more tens die and keeps the
  lowest result, each bane left one more tens die and keeps the highest;
* a roll of 1 always succeeds and a roll of 100 always fails;
* a missed check misses by `roll - target`.

Everything about the base system lives in this module, so another base replaces this file.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from service.domain.context import DecideContext

Difficulty = Literal["normal", "hard", "very-hard"]
DIFFICULTIES: tuple[Difficulty, ...] = ("normal", "hard", "very-hard")
DIVISOR: dict[Difficulty, int] = {"normal": 1, "hard": 2, "very-hard": 5}
MAX_EXTRA_DICE = 5
"""More boons or banes than this add nothing (interpretation: a cap keeps rolls finite)."""


class CheckResult(BaseModel):
    """One d100 check: the dice rolled, the one kept, the target and the margin."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    skill: str
    score: int
    difficulty: Difficulty = "normal"
    target: int
    dice: tuple[int, ...]
    roll: int
    boons: int = 0
    banes: int = 0
    success: bool

    @property
    def missed_by(self) -> int:
        """How far over the target a failed roll landed (0 for a success)."""
        return 0 if self.success else self.roll - self.target


def target_for(score: int, difficulty: Difficulty) -> int:
    return max(0, score) // DIVISOR[difficulty]


def net(boons: int, banes: int) -> int:
    """Boons minus banes: they cancel one for one."""
    return max(-MAX_EXTRA_DICE, min(MAX_EXTRA_DICE, boons - banes))


def kept_roll(first: int, extra_tens: list[int], boons_left: int) -> int:
    """The d100 result kept: the first roll's units with the best (boons) or worst (banes)
    of its tens and the extra tens dice. A tens die shows 1-10, 10 reading as 0."""
    units = first % 10
    tens = [(first // 10) % 10, *(t % 10 for t in extra_tens)]
    candidates = [(t * 10 + units) or 100 for t in tens]
    return min(candidates) if boons_left > 0 else max(candidates)


def check(
    ctx: DecideContext,
    skill: str,
    score: int,
    purpose: str,
    difficulty: Difficulty = "normal",
    boons: int = 0,
    banes: int = 0,
    *,
    roller: str,
) -> CheckResult:
    """Roll a check: d100 plus one tens die for each boon or bane left after cancelling;
    `roller` is the combatant making it."""
    first = ctx.die(100, purpose, roller=roller)
    left = net(boons, banes)
    tens = f"{purpose} ({'boon' if left > 0 else 'bane'})"
    extra = [ctx.die(10, tens, roller=roller) for _ in range(abs(left))]
    roll = kept_roll(first, extra, left) if extra else first
    target = target_for(score, difficulty)
    success = roll == 1 or (roll != 100 and roll <= target)
    return CheckResult(
        skill=skill,
        score=score,
        difficulty=difficulty,
        target=target,
        dice=(first, *extra),
        roll=roll,
        boons=boons,
        banes=banes,
        success=success,
    )


def within_half(result: CheckResult) -> bool:
    """hex-tactical Ranged Combat: missed "by less than 1/2 of their relevant skill score"."""
    return not result.success and 2 * result.missed_by < result.score


def harder(difficulty: Difficulty) -> Difficulty:
    index = DIFFICULTIES.index(difficulty)
    return DIFFICULTIES[min(index + 1, len(DIFFICULTIES) - 1)]


def degree(result: CheckResult) -> int:
    """How well a check went: 3 under a fifth of the score, 2 under half, 1 a plain success,
    0 a failure. Orders initiative (interpretation: the base system's initiative)."""
    if not result.success:
        return 0
    if result.roll <= target_for(result.score, "very-hard"):
        return 3
    if result.roll <= target_for(result.score, "hard"):
        return 2
    return 1
