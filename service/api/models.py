"""Request bodies of the REST API (the command envelope is `service.engine.CommandRequest`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from service.domain.ids import ID_PATTERN

MAX_TTL = 30 * 86_400
DEFAULT_TTL = 3600
GM_TOKEN_TTL = 86_400


class CreateEncounter(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    ruleset: str = Field(min_length=1, max_length=100)
    options: dict[str, Any] | None = None
    title: str | None = Field(default=None, max_length=200)
    # Checked by the engine (`request/bad-id`), so the pattern is documented, not enforced here.
    encounter_id: str | None = Field(
        default=None,
        description="Your id for it (per tenant): 1-64 letters, digits, '.', '_', '~' or '-', "
        "starting with a letter or digit. Fray makes one up when none is given.",
        json_schema_extra={"pattern": ID_PATTERN},
    )
    seed: str | None = Field(
        default=None,
        pattern="^[0-9a-fA-F]{64}$",
        description="32 bytes of hex: a client-supplied seed (marked seed_source: client).",
    )


class MintToken(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    role: Literal["gm", "player", "observer", "auditor"]
    combatants: list[str] = Field(default_factory=list, max_length=100)
    subject: str | None = Field(default=None, min_length=1, max_length=100)
    ttl_seconds: int = Field(default=DEFAULT_TTL, ge=1, le=MAX_TTL)
