"""Options every encounter has, whatever its ruleset. Rulesets subclass `EncounterOptions`."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field


class EncounterOptions(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    gm_overrides: Literal["visible", "hidden"] = Field(
        default="visible",
        description="Whether players are told that the GM adjusted hit points or conditions.",
    )
    dice: Literal["server", "table", "mixed", "prompt"] = Field(
        default="server",
        description=(
            "server: Fray rolls every die from the committed seed; table: every die comes "
            "from the table with the command; mixed: table dice when given, else server; "
            "prompt: the table rolls every die, and Fray holds a command and asks the roller "
            "(a player or the GM) for each die the sender did not send."
        ),
    )
    roll_request_window: float = Field(
        default=60.0,
        gt=0,
        le=86_400,
        description=(
            "Seconds a roll request waits for its dice (prompt mode); then Fray rolls the "
            "dice not yet in from the seed."
        ),
    )
    hide_enemy_health: bool = Field(
        default=False, description="Players see other sides' health only as a condition word."
    )
    reaction_window: float = Field(
        default=30.0, ge=0, le=86_400, description="Seconds a reaction window stays open."
    )
    turn_time_limit: float | None = Field(
        default=None, gt=0, le=30 * 86_400, description="Seconds per turn; none for no timer."
    )
    on_turn_timeout: Literal["end-turn", "delay", "record"] = Field(
        default="end-turn", description="What happens when the turn timer runs out."
    )
    idle_timeouts: Annotated[int, Field(ge=0, le=10_000)] | Literal["round"] = Field(
        default="round",
        description=(
            "Clock timeouts in a row, with no command from anyone at the table between them, "
            'after which the clocks pause until the GM resumes them; "round": one full '
            "round's worth (one per combatant still in the fight); 0: never pause."
        ),
    )
