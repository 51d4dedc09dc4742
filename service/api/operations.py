"""The REST API's routes as a declarative table: each operation's path, parameters, body,
replies and the error codes each reply carries. `service.api.openapi` renders it; a test
checks it against the app's routes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from service.api.catalogue import codes_of
from service.api.events import MAX_LIMIT
from service.api.models import CreateEncounter, MintToken
from service.api.replies import (
    CommandAccepted,
    CommandPreview,
    Encounter,
    EncounterAudit,
    EncounterCreated,
    EncounterItem,
    EncounterList,
    Error,
    EventPage,
    Health,
    Keys,
    LegalActions,
    NarrationLine,
    NarrationPage,
    Readiness,
    Receipt,
    Rulesets,
    RulesetSchemas,
    Seed,
    StreamTicketMinted,
    SubmittedOrPreviewed,
    TokenMinted,
)
from service.api.shapes import Event
from service.app.management import EncounterFilter
from service.deciding import CommandRequest
from service.domain.views import ActionOption, EncounterSummary
from service.rules.registry import RULESETS

REF = "#/components/schemas/{model}"
JSON = "application/json"


TICKET_CODES = ("auth/invalid-ticket",)
AUTH_CODES = tuple(code for code in codes_of(401) if code not in TICKET_CODES)
BODY_CODES = ("request/malformed-json", "request/invalid")
# A number out of range or nesting too deep anywhere in a command or the options.
VALUE_CODES = ("request/number-out-of-range", "request/too-deep", "request/bad-id")
ENCOUNTER_ID = "/v1/encounters/{encounter_id}"


@dataclass(frozen=True)
class Param:
    name: str
    where: Literal["path", "query", "header"]
    schema: dict[str, Any]
    description: str
    required: bool = False


@dataclass(frozen=True)
class Reply:
    status: int
    description: str
    model: type[BaseModel] | None = None
    media: str = JSON
    schema: dict[str, Any] | None = None  # for a body that is not a model
    codes: tuple[str, ...] = ()  # the error codes this status carries; () for any code
    headers: dict[str, str] = field(default_factory=dict)
    links: dict[str, Any] = field(default_factory=dict)
    alternatives: tuple[tuple[str, dict[str, Any]], ...] = ()  # other media types


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    operation_id: str
    summary: str
    tag: str
    replies: tuple[Reply, ...]
    security: tuple[str, ...] = ("tenantKey", "encounterToken")  # () for public routes
    params: tuple[Param, ...] = ()
    body: type[BaseModel] | None = None
    description: str = ""


def _unauthorized() -> Reply:
    return Reply(401, "No credential, a bad one or an expired one.", Error, codes=AUTH_CODES)


def _forbidden(why: str) -> Reply:
    return Reply(403, why, Error, codes=("auth/forbidden",))


UNAVAILABLE = Reply(
    503,
    "Redis is not answering; try again after `Retry-After` seconds (a command retried with "
    "the same `command_id` is never applied twice).",
    Error,
    codes=("store/unavailable",),
    headers={"Retry-After": "Seconds to wait."},
)


def with_unavailable(op: Operation) -> tuple[Reply, ...]:
    """Every route that reads or writes the store may answer 503 while Redis is away."""
    return (*op.replies, UNAVAILABLE) if op.security else op.replies


def _not_found() -> Reply:
    return Reply(404, "No such encounter (or no such path).", Error, codes=("encounter/not-found",))


def _ruleset_unavailable() -> Reply:
    return Reply(
        409,
        "The encounter was recorded with a ruleset version this Fray does not run.",
        Error,
        codes=("encounter/ruleset-unavailable",),
    )


def _too_large() -> Reply:
    return Reply(
        413, "The body is over the limit (`FRAY_MAX_BODY`).", Error, codes=("request/too-large",)
    )


# Before OpenAPI 3.2's itemSchema, a text/event-stream schema describes each event.
SSE_EVENT: dict[str, Any] = {
    "type": "object",
    "description": "One event: `id` is its version (send it back as Last-Event-ID), `event` "
    "its type, `data` its envelope as JSON with the event's `receipt` beside the envelope's "
    "keys.",
    "required": ["id", "event", "data"],
    "properties": {
        "id": {"type": "string", "pattern": "^[0-9]+$"},
        "event": {"type": "string"},
        "data": {
            "type": "string",
            "contentMediaType": JSON,
            "contentSchema": {
                "allOf": [
                    {"$ref": REF.format(model="Event")},
                    {
                        "type": "object",
                        "required": ["receipt"],
                        "properties": {"receipt": {"$ref": REF.format(model="Receipt")}},
                    },
                ]
            },
        },
    },
}
FORBIDDEN_ENCOUNTER = "A token for another encounter, or another tenant's API key."
ENCOUNTER_PARAM = Param(
    "encounter_id", "path", {"type": "string", "minLength": 1}, "The encounter.", required=True
)


def query_params(model: type[BaseModel]) -> tuple[Param, ...]:
    """A query parameter per field of `model`, described by its JSON Schema."""
    properties = model.model_json_schema()["properties"]
    params = []
    for name, schema in properties.items():
        schema = {k: v for k, v in schema.items() if k not in ("title", "description")}
        options = schema.pop("anyOf", None)
        if options is not None:  # `X | None`: a query parameter is absent, not null
            (schema,) = (o | schema for o in options if o.get("type") != "null")
            schema.pop("default", None)
        params.append(Param(name, "query", schema, properties[name].get("description", "")))
    return tuple(params)


def _encounter_links() -> dict[str, Any]:
    """From a created encounter to every encounter route, with its id and GM token."""
    targets = {
        "GetEncounter": "getEncounter",
        "SubmitCommand": "submitCommand",
        "PreviewCommand": "previewCommand",
        "ListEvents": "listEvents",
        "ListNarration": "listNarration",
        "LegalActions": "listLegalActions",
        "MintToken": "mintToken",
        "MintStreamTicket": "mintStreamTicket",
        "GetSeed": "getSeed",
        "ExportEvents": "exportEvents",
        "GetAudit": "getAudit",
        "ArchiveEncounter": "archiveEncounter",
    }
    return {
        name: {
            "operationId": operation_id,
            "parameters": {
                "path.encounter_id": "$response.body#/encounter_id",
                "header.Authorization": "Bearer {$response.body#/gm_token}",
            },
            "description": "The new encounter, with its GM token.",
        }
        for name, operation_id in targets.items()
    }


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "get",
        "/v1/rulesets",
        "listRulesets",
        "The rulesets: their command types and the JSON Schemas of options and stat blocks.",
        "encounters",
        (Reply(200, "Every ruleset.", Rulesets),),
        security=(),
    ),
    Operation(
        "get",
        "/v1/rulesets/{name}",
        "getRuleset",
        "A ruleset's JSON Schemas: its commands, events, options and stat block.",
        "encounters",
        (
            Reply(200, "The ruleset and its schemas.", RulesetSchemas),
            Reply(404, "No such ruleset.", Error, codes=("ruleset/not-found",)),
        ),
        security=(),
        params=(
            Param(
                "name",
                "path",
                {"type": "string", "enum": sorted(RULESETS)},
                "The ruleset's name, as GET /v1/rulesets lists it.",
                required=True,
            ),
        ),
        description="The same documents are checked in under `schema/<name>/` (`fray "
        "schemas`), and the OpenAPI `Command` is the union of every ruleset's commands.",
    ),
    Operation(
        "get",
        "/v1/keys",
        "listKeys",
        "The public keys that receipts verify with: the signing key first, then keys "
        "rotated out (their receipts still verify).",
        "receipts",
        (
            Reply(
                200,
                "Every key.",
                Keys,
                headers={"Cache-Control": "`public, max-age=300`: keys change only on a restart."},
            ),
        ),
        security=(),
    ),
    Operation(
        "post",
        "/v1/encounters",
        "createEncounter",
        "Create an encounter (tenant API key only); answers with a GM token.",
        "encounters",
        (
            Reply(
                201,
                "Created.",
                EncounterCreated,
                headers={"Location": "The new encounter's URL."},
                links=_encounter_links(),
            ),
            Reply(
                400,
                "A malformed body, an unknown ruleset, bad options or a bad id.",
                Error,
                codes=(
                    *BODY_CODES,
                    *VALUE_CODES,
                    "encounter/unknown-ruleset",
                    "encounter/bad-options",
                ),
            ),
            _unauthorized(),
            _forbidden("An encounter token: only a tenant API key creates encounters."),
            Reply(409, "The encounter id is taken.", Error, codes=("encounter/exists",)),
            _too_large(),
        ),
        security=("tenantKey",),
        body=CreateEncounter,
    ),
    Operation(
        "get",
        "/v1/encounters",
        "listEncounters",
        "The tenant's encounters, newest updated first, a page at a time (tenant API key "
        "only), filtered by ruleset, status and updated time.",
        "encounters",
        (
            Reply(200, "A page of encounters.", EncounterList),
            Reply(
                400,
                "A bad filter, `limit` or `cursor`.",
                Error,
                codes=("request/invalid",),
            ),
            _unauthorized(),
            _forbidden("An encounter token: only a tenant API key lists encounters."),
        ),
        security=("tenantKey",),
        params=query_params(EncounterFilter),
        description="Pages go on from a cursor: send the same filters with the `next_cursor` "
        "of the page before. A page reads at most 1,000 encounters, so with a filter few "
        "match it may hold fewer than `limit` and still carry a cursor: only "
        "`next_cursor: null` says there are no more.",
    ),
    Operation(
        "delete",
        ENCOUNTER_ID,
        "archiveEncounter",
        "Archive the encounter (GM token or tenant API key): it takes no more commands; "
        "reads, exports and the audit go on until it expires. Archiving again answers the same.",
        "encounters",
        (
            Reply(200, "The encounter, archived.", EncounterItem),
            _unauthorized(),
            _forbidden("Not the GM: another role, or another encounter's credential."),
            _not_found(),
        ),
        params=(ENCOUNTER_PARAM,),
        description="Nothing is deleted at once and nothing is appended: the stream, its "
        "hash chain and every receipt stay as they were. Commands are refused with `409 "
        "encounter/archived`. With `FRAY_RETENTION_DAYS` set, an archived (or ended) "
        "encounter's data expire that many days after its last write.",
    ),
    Operation(
        "get",
        ENCOUNTER_ID,
        "getEncounter",
        "The encounter: its summary and its full state, as the viewer may see them.",
        "encounters",
        (
            Reply(200, "The encounter.", Encounter),
            Reply(400, "A bad `as_of`.", Error, codes=("request/invalid",)),
            _unauthorized(),
            _forbidden(FORBIDDEN_ENCOUNTER),
            _not_found(),
            _ruleset_unavailable(),
        ),
        params=(
            ENCOUNTER_PARAM,
            Param(
                "as_of",
                "query",
                {"type": "integer", "minimum": 1},
                "The state as of this version (what everyone saw then).",
            ),
        ),
    ),
    Operation(
        "post",
        f"{ENCOUNTER_ID}/commands",
        "submitCommand",
        "Submit a command; the rules accept it (its events) or refuse it (nothing appended).",
        "commands",
        (
            Reply(201, "Accepted: the events it appended.", CommandAccepted),
            Reply(
                200,
                "A retry of a command already applied: its events again. With "
                "`dry_run=true`: the preview's answer (`previewCommand`), nothing appended.",
                SubmittedOrPreviewed,
            ),
            Reply(
                400,
                "A malformed body, an unknown command type or a malformed command.",
                Error,
                codes=(*BODY_CODES, *VALUE_CODES, "command/unknown-type", "command/invalid"),
            ),
            _unauthorized(),
            Reply(
                403,
                "Another encounter's credential, a role that may not send this, or a table "
                "die that is neither the sender's nor the GM's to supply (`dice/not-yours`).",
                Error,
                codes=("auth/forbidden", "dice/not-yours"),
            ),
            _not_found(),
            Reply(
                409,
                "A stale `expected_version` (details: expected, actual), a reused command id, "
                "an encounter that kept changing, an archived one, or one recorded with a "
                "ruleset version this Fray does not run.",
                Error,
                codes=(
                    "encounter/version-conflict",
                    "command/id-reused",
                    "encounter/busy",
                    "encounter/archived",
                    "encounter/ruleset-unavailable",
                ),
            ),
            _too_large(),
            Reply(422, "The rules forbid the command; `rule` cites the section.", Error),
            Reply(
                429,
                "Too many commands from this credential; wait `Retry-After` seconds.",
                Error,
                codes=("rate/limited",),
                headers={"Retry-After": "Seconds to wait."},
            ),
        ),
        params=(
            ENCOUNTER_PARAM,
            Param(
                "dry_run",
                "query",
                {"type": "boolean", "default": False},
                "Decide without appending: answers as `previewCommand` does (200, accepted or "
                "refused), nothing stored, no deadline armed.",
            ),
        ),
        body=CommandRequest,
    ),
    Operation(
        "post",
        f"{ENCOUNTER_ID}/commands/preview",
        "previewCommand",
        "Preview a command: what it would append now, or the refusal it would get. "
        "Nothing is appended.",
        "commands",
        (
            Reply(
                200,
                "Accepted (its events, as the sender may see them) or refused (`error`: the code "
                "and words a submit would get, `error.status` the status it would answer).",
                CommandPreview,
            ),
            Reply(400, "A malformed body.", Error, codes=BODY_CODES),
            _unauthorized(),
            _forbidden(FORBIDDEN_ENCOUNTER),
            _not_found(),
            _too_large(),
            Reply(
                429,
                "Too many commands from this credential (previews count as commands); wait "
                "`Retry-After` seconds.",
                Error,
                codes=("rate/limited",),
                headers={"Retry-After": "Seconds to wait."},
            ),
        ),
        params=(ENCOUNTER_PARAM,),
        body=CommandRequest,
        description="Decided like `submitCommand` against the encounter as it is now, with "
        "the same authorization and rate limit, but nothing is appended, no lock is held and "
        "the command id is not recorded. Dice are drawn from a throwaway seed, never the "
        "encounter's: a preview never tells the dice the real command will roll.",
    ),
    Operation(
        "get",
        f"{ENCOUNTER_ID}/events",
        "listEvents",
        "The events, a page at a time by version; or, with `follow=true` or "
        "`Accept: text/event-stream`, live as SSE (resume with `Last-Event-ID`).",
        "events",
        (
            Reply(
                200,
                "A page of events (JSON), or an SSE stream whose ids are versions.",
                EventPage,
                alternatives=(("text/event-stream", SSE_EVENT),),
            ),
            Reply(
                400,
                "A bad `after`, `limit` or `Last-Event-ID`; a `ticket` without `follow=true`, "
                "or with an Authorization header.",
                Error,
                codes=("request/invalid",),
            ),
            Reply(
                401,
                "No credential, a bad one or an expired one; or a stream ticket that is "
                "forged, for another encounter, expired or used.",
                Error,
                codes=(*AUTH_CODES, *TICKET_CODES),
            ),
            _forbidden(FORBIDDEN_ENCOUNTER),
            _not_found(),
            _ruleset_unavailable(),
        ),
        security=("tenantKey", "encounterToken", "streamTicket"),
        description="A browser's `EventSource` cannot send an Authorization header: it "
        "passes a stream ticket (`mintStreamTicket`) as `ticket` instead, good for one "
        "connection. To resume, mint a new ticket and pass `after` (the last `id` received).",
        params=(
            ENCOUNTER_PARAM,
            Param(
                "after", "query", {"type": "integer", "minimum": 0}, "Events after this version."
            ),
            Param(
                "limit",
                "query",
                {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT},
                "At most this many events (default 100).",
            ),
            Param("follow", "query", {"type": "boolean"}, "Stream live as SSE."),
            Param(
                "ticket",
                "query",
                {"type": "string"},
                "A stream ticket, in place of the Authorization header (SSE only; spent by "
                "this request).",
            ),
            Param(
                "Last-Event-ID",
                "header",
                {"type": "string", "pattern": "^[0-9]+$"},
                "Resume an SSE stream after this version.",
            ),
        ),
    ),
    Operation(
        "get",
        f"{ENCOUNTER_ID}/narration",
        "listNarration",
        "The event log as sentences, a page at a time by version: each event you may see, "
        "told as its ruleset tells it.",
        "events",
        (
            Reply(200, "A page of sentences.", NarrationPage),
            Reply(400, "A bad `after` or `limit`.", Error, codes=("request/invalid",)),
            _unauthorized(),
            _forbidden(FORBIDDEN_ENCOUNTER),
            _not_found(),
            _ruleset_unavailable(),
        ),
        description="The same page as `listEvents` with the same `after` and `limit` (the "
        "same events left out, the same cursor), each event told from the copy you are sent: "
        "a player who may not see an enemy's health reads that the blow hit, not for how "
        "much. The events themselves are the hash chain's links and carry no sentence.",
        params=(
            ENCOUNTER_PARAM,
            Param(
                "after", "query", {"type": "integer", "minimum": 0}, "Events after this version."
            ),
            Param(
                "limit",
                "query",
                {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT},
                "At most this many events (default 100).",
            ),
        ),
    ),
    Operation(
        "post",
        f"{ENCOUNTER_ID}/stream-tickets",
        "mintStreamTicket",
        "Mint a single-use ticket for this encounter's SSE stream (any role's token or the "
        "tenant API key): what a browser's EventSource passes in place of the header.",
        "events",
        (
            Reply(201, "The ticket.", StreamTicketMinted),
            _unauthorized(),
            _forbidden(FORBIDDEN_ENCOUNTER),
            _not_found(),
            Reply(
                429,
                "Too many commands from this credential (a ticket counts as one); wait "
                "`Retry-After` seconds.",
                Error,
                codes=("rate/limited",),
                headers={"Retry-After": "Seconds to wait."},
            ),
        ),
        params=(ENCOUNTER_PARAM,),
        description="The ticket grants what the credential grants (its role, subject and "
        "combatants: the same events, redacted alike), for this encounter's event stream, "
        "once, for 60 seconds (less if the token expires sooner). Pass it as `ticket` in "
        "`GET .../events?follow=true&ticket=...`. Fray never logs it.",
    ),
    Operation(
        "get",
        f"{ENCOUNTER_ID}/legal-actions",
        "listLegalActions",
        "What the viewer may do now, one option per button a front end would draw.",
        "encounters",
        (
            Reply(200, "The viewer's options.", LegalActions),
            _unauthorized(),
            _forbidden(FORBIDDEN_ENCOUNTER),
            _not_found(),
            _ruleset_unavailable(),
        ),
        params=(ENCOUNTER_PARAM,),
    ),
    Operation(
        "post",
        f"{ENCOUNTER_ID}/tokens",
        "mintToken",
        "Mint a token for a role (GM token or tenant API key only).",
        "tokens",
        (
            Reply(201, "The token.", TokenMinted),
            Reply(400, "A malformed body, or bad combatants.", Error, codes=BODY_CODES),
            _unauthorized(),
            _forbidden("Not the GM: another role, or another encounter's credential."),
            _not_found(),
            _ruleset_unavailable(),
            _too_large(),
        ),
        params=(ENCOUNTER_PARAM,),
        body=MintToken,
    ),
    Operation(
        "get",
        f"{ENCOUNTER_ID}/seed",
        "getSeed",
        "The encounter's seed: for auditors and the GM, and for everyone once it has ended.",
        "encounters",
        (
            Reply(200, "The seed and its commitment.", Seed),
            _unauthorized(),
            _forbidden("Not yet: the encounter has not ended. Or another encounter's credential."),
            _not_found(),
            _ruleset_unavailable(),
        ),
        params=(ENCOUNTER_PARAM,),
    ),
    Operation(
        "get",
        f"{ENCOUNTER_ID}/export",
        "exportEvents",
        "Every event as JSON lines (one envelope a line), as the viewer may see them.",
        "events",
        (
            Reply(
                200,
                "The stream, one event envelope per line.",
                media="application/x-ndjson",
                schema={"type": "string"},
            ),
            _unauthorized(),
            _forbidden(FORBIDDEN_ENCOUNTER),
            _not_found(),
            _ruleset_unavailable(),
        ),
        params=(ENCOUNTER_PARAM,),
    ),
    Operation(
        "get",
        f"{ENCOUNTER_ID}/audit",
        "getAudit",
        "The audit verdict of an ended encounter (GM, auditor or tenant API key).",
        "encounters",
        (
            Reply(200, "The verdict, or `pending`.", EncounterAudit),
            _unauthorized(),
            _forbidden("A player or observer token, or another encounter's credential."),
            _not_found(),
        ),
        params=(ENCOUNTER_PARAM,),
        description="When an encounter ends, a worker audits its stream with the code of "
        "`fray audit` (the hash chain, the seed, every draw, the decide re-run, the head) "
        "and keeps the verdict; until then the answer is `pending`. A note added after the "
        "end is audited again: meanwhile `stale` is true.",
    ),
    Operation(
        "get",
        "/healthz",
        "healthz",
        "Liveness: the process answers.",
        "operations",
        (Reply(200, "Alive.", Health),),
        security=(),
    ),
    Operation(
        "get",
        "/readyz",
        "readyz",
        "Readiness: Redis answers and the instance is not shutting down.",
        "operations",
        (
            Reply(200, "Ready.", Readiness),
            Reply(
                503,
                "Redis does not answer (`store/unavailable`), or the instance is shutting "
                "down (`server/shutting-down`).",
                Readiness,
            ),
        ),
        security=(),
        description="Point a load balancer's (or Kubernetes') readiness probe here: on a 503 "
        "it stops sending the instance requests. `/healthz` says only that the process "
        "answers.",
    ),
    Operation(
        "get",
        "/metrics",
        "metrics",
        "Prometheus metrics (text exposition format).",
        "operations",
        (
            Reply(
                200,
                "The metrics.",
                media="text/plain",
                schema={"type": "string"},
            ),
        ),
        security=(),
    ),
    Operation(
        "get",
        "/openapi.json",
        "openapi",
        "This document.",
        "operations",
        (Reply(200, "The OpenAPI document.", schema={"type": "object"}),),
        security=(),
    ),
)

REQUEST_MODELS: tuple[type[BaseModel], ...] = (CreateEncounter, MintToken, CommandRequest)
RESPONSE_MODELS: tuple[type[BaseModel], ...] = (
    Error,
    Rulesets,
    RulesetSchemas,
    EncounterCreated,
    EncounterList,
    EncounterItem,
    Encounter,
    EncounterSummary,
    LegalActions,
    ActionOption,
    TokenMinted,
    StreamTicketMinted,
    Seed,
    Event,
    EventPage,
    NarrationLine,
    NarrationPage,
    CommandAccepted,
    CommandPreview,
    SubmittedOrPreviewed,
    Receipt,
    Keys,
    EncounterAudit,
    Health,
    Readiness,
)
