"""What the REST handlers answer, as pydantic models: the OpenAPI document's response
schemas (the request bodies are `service.api.models` and `service.engine.CommandRequest`;
the views `service.domain.views`; the event envelope `service.api.shapes`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, RootModel

from service.api.shapes import Event
from service.domain.views import ActionOption, Blocked, EncounterSummary


class ErrorDetail(BaseModel):
    code: str = Field(description="Stable and machine-readable: branch on it.")
    message: str = Field(description="For people.")
    rule: str | None = Field(default=None, description="The rules section a violation cites.")
    details: Any = Field(default=None, description="More, by code (e.g. expected and actual).")


class Error(BaseModel):
    """Every error: `{"error": {"code", "message", "rule"?, "details"?}}`."""

    error: ErrorDetail


class RulesetInfo(BaseModel):
    name: str
    version: str = Field(description="The newest version: what new encounters are created with.")
    versions: list[str] = Field(
        description="Every version this Fray decides, oldest first: the newest, and earlier "
        "ones kept for the encounters recorded with them."
    )
    title: str
    commands: list[str] = Field(description="The command types this ruleset accepts.")
    options_schema: dict[str, Any] = Field(description="JSON Schema of the encounter options.")
    stats_schema: dict[str, Any] = Field(description="JSON Schema of a combatant's stats.")


class Rulesets(BaseModel):
    rulesets: list[RulesetInfo]


class RulesetSchemaSet(BaseModel):
    commands: dict[str, Any] = Field(
        description="JSON Schema of its commands: a `oneOf` discriminated by `type`."
    )
    events: dict[str, Any] = Field(
        description="JSON Schema of its events (`type` and the envelope's `data`): a `oneOf` "
        "discriminated by `type`."
    )
    options: dict[str, Any] = Field(description="JSON Schema of the encounter options.")
    stats: dict[str, Any] = Field(description="JSON Schema of a combatant's stats.")


class RulesetSchemas(BaseModel):
    name: str
    version: str = Field(description="The newest version: what the schemas describe.")
    versions: list[str] = Field(description="Every version this Fray decides, oldest first.")
    title: str
    schemas: RulesetSchemaSet = Field(
        description="JSON Schema 2020-12 documents, the same as schema/<name>/*.json."
    )


class EncounterCreated(BaseModel):
    encounter_id: str
    ruleset: str
    version: int
    gm_token: str = Field(description="A GM token for this encounter (24 hours).")
    gm_token_expires_at: str = Field(json_schema_extra={"format": "date-time"})


class Viewer(BaseModel):
    """Who the credential reads as: what a front end needs to know which controls to draw."""

    id: str = Field(description="The actor's id, as events' `actor.id` name it.")
    role: Literal["gm", "player", "observer", "auditor"] = Field(
        description="A tenant key reads as the GM of its encounters."
    )
    combatants: list[str] = Field(
        description="The combatants it acts for (a player's); the GM acts for every one."
    )


class Encounter(BaseModel):
    encounter_id: str
    ruleset: str
    version: int
    summary: EncounterSummary
    state: dict[str, Any] = Field(description="The ruleset's full state, as the viewer may see.")
    viewer: Viewer = Field(description="Who is looking: the credential's role and combatants.")


class EncounterItem(BaseModel):
    """One of a tenant's encounters, as `GET /v1/encounters` lists it."""

    encounter_id: str
    ruleset: str
    ruleset_version: str = Field(description="The ruleset version it is decided with.")
    status: Literal["active", "ended", "archived"] = Field(
        description="`active` until it ends (`ended`); `archived` once deleted: it then takes no "
        "commands."
    )
    title: str | None
    created_at: str = Field(json_schema_extra={"format": "date-time"})
    updated_at: str = Field(
        description="Its last change: an accepted command, or the archive.",
        json_schema_extra={"format": "date-time"},
    )
    version: int = Field(description="The version of its last event.")


class EncounterList(BaseModel):
    """A page of the tenant's encounters, newest updated first."""

    encounters: list[EncounterItem]
    next_cursor: str | None = Field(
        description="Send as `cursor` for the next page; null at the end (a page may hold "
        "fewer than `limit` and still have a cursor)."
    )


class LegalActions(BaseModel):
    version: int
    actions: list[ActionOption]
    blocked: list[Blocked] = Field(
        description="The viewer's combatants that must wait now, and why (combat-ii: a "
        "winner while the initiative losers declare); empty in most rulesets."
    )


class TokenMinted(BaseModel):
    token: str
    role: Literal["gm", "player", "observer", "auditor"]
    subject: str
    combatants: list[str]
    expires_at: str = Field(json_schema_extra={"format": "date-time"})


class StreamTicketMinted(BaseModel):
    ticket: str = Field(
        description="Pass it as `ticket` in the URL of one SSE stream of this encounter "
        "(`GET .../events?follow=true&ticket=...`), in place of the Authorization header."
    )
    expires_at: str = Field(
        description="60 seconds from now, or sooner when the minting token expires sooner.",
        json_schema_extra={"format": "date-time"},
    )


class Seed(BaseModel):
    seed: str = Field(pattern="^[0-9a-f]{64}$", description="32 bytes of hex.")
    commitment: str = Field(description="SHA-256 of the seed, as the stream committed to it.")


class EventPage(BaseModel):
    events: list[Event]
    next_after: int = Field(description="Send as `after` for the next page.")
    has_more: bool


class NarrationLine(BaseModel):
    """One event told as a sentence, as the viewer may see it: no sentence names what the
    viewer may not see (an enemy's health, a hidden note)."""

    version: int = Field(description="The event's version.")
    type: str = Field(description="The event's type, e.g. `attack-rolled`.")
    at: str = Field(description="When it was recorded: the event's `at`.")
    text: str = Field(
        description="The ruleset's sentence, with combatants named as the encounter names "
        "them now (a combatant removed since is named by its id)."
    )


class NarrationPage(BaseModel):
    lines: list[NarrationLine] = Field(
        description="One per event you may see, in version order (the page `listEvents` "
        "answers with the same `after` and `limit`)."
    )
    next_after: int = Field(description="Send as `after` for the next page.")
    has_more: bool


class Receipt(BaseModel):
    """A signed statement that the encounter's stream held the event with `hash` at
    `version`: keep the last one, and any later rewrite of the history before it shows."""

    kid: str = Field(description="The key that signed it: one of `GET /v1/keys`.")
    encounter_id: str = Field(description="The encounter, by the id its clients use.")
    version: int = Field(description="The event's version.")
    hash: str = Field(
        pattern="^[0-9a-f]{64}$",
        description="The hash of the event as stored: for a viewer who sees it redacted, not "
        "the hash of its own copy (an auditor with the whole stream checks it).",
    )
    sig: str = Field(
        description="Ed25519 signature (base64url, no padding) over the canonical JSON of "
        '`{"encounter_id", "hash", "version"}`.'
    )


class SigningKey(BaseModel):
    kid: str = Field(description="The key id receipts name.")
    alg: Literal["Ed25519"]
    public_key: str = Field(description="The 32 raw bytes of the public key, base64url.")


class Keys(BaseModel):
    """The public keys receipts verify with: the signing key first, then older ones."""

    keys: list[SigningKey]


class CommandAccepted(BaseModel):
    command_id: str
    version: int = Field(description="The encounter's version after the command.")
    duplicate: bool = Field(description="True when this command id was already applied.")
    events: list[Event] = Field(description="The events it appended, as the sender may see.")
    receipt: Receipt = Field(
        description="The receipt of its last event (a retry: of the first outcome's last "
        "event; a command that appended nothing: of the version it was decided at)."
    )


class Refusal(ErrorDetail):
    status: int = Field(description="The HTTP status a submit would answer with.")


class PreviewAccepted(BaseModel):
    accepted: Literal[True]
    version: int = Field(
        description="The version it was decided against: send it as `expected_version` to "
        "have the command decided against this very state."
    )
    rolled: bool = Field(
        description="True when dice were drawn: from a throwaway seed, never the encounter's, "
        "so the real command rolls anew. False: exactly what a submit now appends."
    )
    duplicate: bool = Field(description="The command id was already used for this command.")
    events: list[Event] = Field(description="What it would append, as the sender may see.")
    rolls: list[dict[str, Any]] = Field(
        description="The dice it used, in order: every `rolls` entry of `events`."
    )


class NeededDie(BaseModel):
    sides: int
    expression: str = Field(description='The roll it belongs to, e.g. "d20" or "2d6+1".')
    purpose: str = Field(description="What it is for, as the roll's record will say.")
    roller: str = Field(
        description='Whom it is rolled for: a combatant id, or "gm". Only the GM or that '
        "combatant's controller may supply it."
    )


class PreviewRefused(BaseModel):
    accepted: Literal[False]
    error: Refusal = Field(description="The error a submit now would get, and its status.")
    dice_needed: list[NeededDie] | None = Field(
        default=None,
        description="When table dice are missing (`dice/table-dice-missing`): every die still "
        "certainly needed, in order; append their faces to `dice` (docs/api.md, Table dice).",
    )


class CommandPreview(RootModel[PreviewAccepted | PreviewRefused]):
    """What a command would append now (nothing was appended), or why it would be refused."""


class SubmittedOrPreviewed(RootModel[CommandAccepted | PreviewAccepted | PreviewRefused]):
    """A retry of a command already applied (its events again), or with `dry_run=true` the
    preview's answer."""


class AuditCheck(BaseModel):
    name: str = Field(description="The step of the audit algorithm (docs/audit.md).")
    status: Literal["passed", "failed", "incomplete", "skipped"]
    count: int | None = Field(description="What it checked: events, draws, commands, receipts.")
    detail: str = Field(description="What it found, for people.")


class EncounterAudit(BaseModel):
    """The audit of an ended encounter's stream, as `fray audit` reaches it (run by a worker
    after the end): `pending` until then."""

    verdict: Literal["passed", "failed", "incomplete", "pending"] = Field(
        description="passed: every check ran and passed; failed: one found a forgery; "
        "incomplete: one could not run; pending: the encounter has not ended, or its audit "
        "has not run yet."
    )
    audited_version: int | None = Field(
        description="The verdict is about versions 1 to this one; null while pending."
    )
    audited_at: str | None = Field(json_schema_extra={"format": "date-time"})
    version: int = Field(description="The encounter's version now.")
    stale: bool = Field(
        description="True when the stream holds events after the audited version (a note after "
        "the end, audited again shortly): the verdict does not cover them."
    )
    checks: list[AuditCheck] = Field(description="Every check in order; [] while pending.")


class Health(BaseModel):
    status: Literal["ok"]


class Readiness(BaseModel):
    status: Literal["ready", "unavailable", "draining"] = Field(
        description="ready; unavailable: Redis does not answer; draining: the instance is "
        "shutting down (SIGTERM) and finishing the requests it has."
    )
    redis: str | None = Field(default=None, description="Why Redis is unreachable.")
    error: ErrorDetail | None = Field(
        default=None,
        description="With a 503: `store/unavailable` or `server/shutting-down`.",
    )
