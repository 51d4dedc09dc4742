"""Freeform state: the shared table plus initiative, the order and whose turn it is."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from service.domain import dice
from service.domain.hidden import Hidden
from service.domain.options import EncounterOptions
from service.domain.ruleset import EncounterState


class FreeformOptions(EncounterOptions):
    initiative_die: str = Field(default="1d20", max_length=50)
    skip_downed: bool = Field(default=True, description="Downed combatants get no turn.")
    tiebreak_die: int = Field(default=20, ge=2, le=1000)

    @field_validator("initiative_die")
    @classmethod
    def _a_dice_expression(cls, expression: str) -> str:
        dice.parse(expression)  # a DiceError is a ValueError: the options are refused
        return expression


class FreeformStats(BaseModel):
    """A stat block: the initiative modifier, hit points and an optional initiative group."""

    model_config = ConfigDict(extra="allow", frozen=True)

    initiative_modifier: int = Field(default=0, ge=-100, le=100)
    hp: Annotated[int | None, Hidden()] = Field(default=None, ge=0, le=1_000_000)
    group: str | None = Field(default=None, max_length=60)


class Initiative(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    total: int
    modifier: int
    tiebreak: int

    def key(self) -> tuple[int, int, int]:
        return (-self.total, -self.modifier, -self.tiebreak)


class Readied(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    action: str
    trigger: str


class FreeformState(EncounterState):
    options: FreeformOptions
    initiative: dict[str, Initiative] = Field(default_factory=dict)
    order: tuple[str, ...] = ()
    round: int = 0
    current: str | None = None
    delayed: tuple[str, ...] = ()
    resuming: tuple[str, ...] = Field(
        default=(), description="Delayers who rejoined and whose resumed turn has not begun."
    )
    readied: dict[str, Readied] = Field(default_factory=dict)
    status: Literal["setup", "running", "ended"] = "setup"
