"""The base of every ruleset's state: the shared table and the encounter's options.

Its own module so that what reads any encounter's state (redaction, the fold) need not
import the ruleset contract (service/domain/ruleset.py), which imports them."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from service.domain.options import EncounterOptions
from service.domain.table import Table


class EncounterState(BaseModel):
    """Base of every ruleset's state: the shared table and the encounter's options."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    table: Table = Field(default_factory=Table)
    options: EncounterOptions
