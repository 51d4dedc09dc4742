"""The OpenAPI 3.1 document of the REST API, generated from one source of truth.

Bodies and responses are the pydantic models (the request bodies of `service.api.models`
and `service.engine.CommandRequest`, the views of `service.domain.views`, and the small
response models below, which mirror what the handlers return); the routes are the
declarative table `OPERATIONS`. `GET /openapi.json` serves the document, `fray openapi`
prints it as YAML, and `openapi/openapi.yaml` is that output, checked in (a test fails
when it drifts, or when the app's routes and the table disagree).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal

import yaml
from pydantic import BaseModel, Field, RootModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema
from starlette.requests import Request
from starlette.responses import Response

from service.api.catalogue import codes_of
from service.api.events import MAX_LIMIT
from service.api.models import CreateEncounter, MintToken
from service.api.shapes import Event
from service.domain.views import ActionOption, EncounterSummary
from service.engine import CommandRequest
from service.rules.registry import RULESETS

REF = "#/components/schemas/{model}"
JSON = "application/json"

# --- response models: what the handlers return ---------------------------------------------


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
    version: str
    title: str
    commands: list[str] = Field(description="The command types this ruleset accepts.")
    options_schema: dict[str, Any] = Field(description="JSON Schema of the encounter options.")
    stats_schema: dict[str, Any] = Field(description="JSON Schema of a combatant's stats.")


class Rulesets(BaseModel):
    rulesets: list[RulesetInfo]


class EncounterCreated(BaseModel):
    encounter_id: str
    ruleset: str
    version: int
    gm_token: str = Field(description="A GM token for this encounter (24 hours).")
    gm_token_expires_at: str = Field(json_schema_extra={"format": "date-time"})


class Encounter(BaseModel):
    encounter_id: str
    ruleset: str
    version: int
    summary: EncounterSummary
    state: dict[str, Any] = Field(description="The ruleset's full state, as the viewer may see.")


class LegalActions(BaseModel):
    version: int
    actions: list[ActionOption]


class TokenMinted(BaseModel):
    token: str
    role: Literal["gm", "player", "observer", "auditor"]
    subject: str
    combatants: list[str]
    expires_at: str = Field(json_schema_extra={"format": "date-time"})


class Seed(BaseModel):
    seed: str = Field(pattern="^[0-9a-f]{64}$", description="32 bytes of hex.")
    commitment: str = Field(description="SHA-256 of the seed, as the stream committed to it.")


class EventPage(BaseModel):
    events: list[Event]
    next_after: int = Field(description="Send as `after` for the next page.")
    has_more: bool


class CommandAccepted(BaseModel):
    command_id: str
    version: int = Field(description="The encounter's version after the command.")
    duplicate: bool = Field(description="True when this command id was already applied.")
    events: list[Event] = Field(description="The events it appended, as the sender may see.")


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


class PreviewRefused(BaseModel):
    accepted: Literal[False]
    error: Refusal = Field(description="The error a submit now would get, and its status.")


class CommandPreview(RootModel[PreviewAccepted | PreviewRefused]):
    """What a command would append now (nothing was appended), or why it would be refused."""


class Health(BaseModel):
    status: Literal["ok"]


class Readiness(BaseModel):
    status: Literal["ready", "unavailable"]
    redis: str | None = Field(default=None, description="Why Redis is unreachable.")


# --- the route table -----------------------------------------------------------------------

AUTH_CODES = codes_of(401)
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


def _with_unavailable(op: Operation) -> tuple[Reply, ...]:
    """Every route that reads or writes the store may answer 503 while Redis is away."""
    return (*op.replies, UNAVAILABLE) if op.security else op.replies


def _not_found() -> Reply:
    return Reply(404, "No such encounter (or no such path).", Error, codes=("encounter/not-found",))


def _too_large() -> Reply:
    return Reply(
        413, "The body is over the limit (`FRAY_MAX_BODY`).", Error, codes=("request/too-large",)
    )


# Before OpenAPI 3.2's itemSchema, a text/event-stream schema describes each event.
SSE_EVENT: dict[str, Any] = {
    "type": "object",
    "description": "One event: `id` is its version (send it back as Last-Event-ID), `event` "
    "its type, `data` its envelope as JSON.",
    "required": ["id", "event", "data"],
    "properties": {
        "id": {"type": "string", "pattern": "^[0-9]+$"},
        "event": {"type": "string"},
        "data": {
            "type": "string",
            "contentMediaType": JSON,
            "contentSchema": {"$ref": REF.format(model="Event")},
        },
    },
}
FORBIDDEN_ENCOUNTER = "A token for another encounter, or another tenant's API key."
ENCOUNTER_PARAM = Param(
    "encounter_id", "path", {"type": "string", "minLength": 1}, "The encounter.", required=True
)


def _encounter_links() -> dict[str, Any]:
    """From a created encounter to every encounter route, with its id and GM token."""
    targets = {
        "GetEncounter": "getEncounter",
        "SubmitCommand": "submitCommand",
        "PreviewCommand": "previewCommand",
        "ListEvents": "listEvents",
        "LegalActions": "listLegalActions",
        "MintToken": "mintToken",
        "GetSeed": "getSeed",
        "ExportEvents": "exportEvents",
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
            Reply(200, "A retry of a command already applied: its events again.", CommandAccepted),
            Reply(
                400,
                "A malformed body, an unknown command type or a malformed command.",
                Error,
                codes=(*BODY_CODES, *VALUE_CODES, "command/unknown-type", "command/invalid"),
            ),
            _unauthorized(),
            _forbidden("Another encounter's credential, or a role that may not send this."),
            _not_found(),
            Reply(
                409,
                "A stale `expected_version` (details: expected, actual), a reused command id, "
                "or an encounter that kept changing.",
                Error,
                codes=("encounter/version-conflict", "command/id-reused", "encounter/busy"),
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
        params=(ENCOUNTER_PARAM,),
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
                400, "A bad `after`, `limit` or `Last-Event-ID`.", Error, codes=("request/invalid",)
            ),
            _unauthorized(),
            _forbidden(FORBIDDEN_ENCOUNTER),
            _not_found(),
        ),
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
                "Last-Event-ID",
                "header",
                {"type": "string", "pattern": "^[0-9]+$"},
                "Resume an SSE stream after this version.",
            ),
        ),
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
        ),
        params=(ENCOUNTER_PARAM,),
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
        "Readiness: Redis answers.",
        "operations",
        (Reply(200, "Ready.", Readiness), Reply(503, "Redis does not answer.", Readiness)),
        security=(),
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
    EncounterCreated,
    Encounter,
    EncounterSummary,
    LegalActions,
    ActionOption,
    TokenMinted,
    Seed,
    Event,
    EventPage,
    CommandAccepted,
    CommandPreview,
    Health,
    Readiness,
)

# --- the document --------------------------------------------------------------------------


def _components() -> tuple[dict[str, Any], dict[tuple[type[BaseModel], str], Any]]:
    inputs: list[tuple[type[BaseModel], JsonSchemaMode]] = [
        (m, "validation") for m in REQUEST_MODELS
    ]
    outputs: list[tuple[type[BaseModel], JsonSchemaMode]] = [
        (m, "serialization") for m in RESPONSE_MODELS
    ]
    refs, defs = models_json_schema([*inputs, *outputs], ref_template=REF)
    schemas: dict[str, Any] = dict(sorted(defs.get("$defs", {}).items()))
    schemas["CreateEncounter"]["properties"]["ruleset"]["enum"] = sorted(RULESETS)
    _command_types(schemas)
    by_model: dict[tuple[type[BaseModel], str], Any] = {}
    for (model, mode), ref in refs.items():
        assert isinstance(model, type) and issubclass(model, BaseModel)
        by_model[(model, mode)] = ref
    return schemas, by_model


def _command_types(schemas: dict[str, Any]) -> None:
    """The envelope's `command` is validated by its encounter's ruleset; name its types."""
    kinds = sorted({kind for r in RULESETS.values() for kind in r.command_types()})
    request = schemas["CommandRequest"]["properties"]
    request["command"] = {
        "type": "object",
        "title": "Command",
        "description": "A command of the encounter's ruleset (see GET /v1/rulesets): its "
        "`type` and that command's fields.",
        "required": ["type"],
        "properties": {"type": {"type": "string", "enum": kinds}},
        "additionalProperties": True,
    }


def _error_schema(codes: tuple[str, ...]) -> dict[str, Any]:
    ref = {"$ref": REF.format(model="Error")}
    if not codes:
        return ref
    narrowed = {"properties": {"error": {"properties": {"code": {"enum": list(codes)}}}}}
    return {"allOf": [ref, narrowed]}


def _response(reply: Reply, refs: dict[tuple[type[BaseModel], str], Any]) -> dict[str, Any]:
    description = reply.description
    if reply.codes:
        description += " Codes: " + ", ".join(f"`{c}`" for c in reply.codes) + "."
    out: dict[str, Any] = {"description": description}
    if reply.headers:
        out["headers"] = {
            name: {"description": text, "schema": {"type": "string"}}
            for name, text in reply.headers.items()
        }
    if reply.model is Error:
        schema: dict[str, Any] = _error_schema(reply.codes)
    elif reply.model is not None:
        schema = refs[(reply.model, "serialization")]
    else:
        schema = reply.schema or {}
    content = {reply.media: {"schema": schema}}
    content.update({media: {"schema": s} for media, s in reply.alternatives})
    out["content"] = content
    if reply.links:
        out["links"] = reply.links
    return out


def _operation(op: Operation, refs: dict[tuple[type[BaseModel], str], Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "operationId": op.operation_id,
        "summary": op.summary,
        "tags": [op.tag],
    }
    if op.description:
        out["description"] = op.description
    out["security"] = [{scheme: []} for scheme in op.security]
    if op.params:
        out["parameters"] = [
            {
                "name": p.name,
                "in": p.where,
                "required": p.required,
                "description": p.description,
                "schema": p.schema,
            }
            for p in op.params
        ]
    if op.body is not None:
        out["requestBody"] = {
            "required": True,
            "content": {JSON: {"schema": refs[(op.body, "validation")]}},
        }
    out["responses"] = {
        str(r.status): _response(r, refs)
        for r in sorted(_with_unavailable(op), key=lambda r: r.status)
    }
    return out


@cache
def _document() -> str:
    schemas, refs = _components()
    paths: dict[str, dict[str, Any]] = {}
    for op in OPERATIONS:
        paths.setdefault(op.path, {})[op.method] = _operation(op, refs)
    doc: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {
            "title": "Fray",
            "version": "1",
            "summary": "Tabletop combat encounters as a service.",
            "description": "The REST API under /v1, and operations. Every error is "
            '`{"error": {"code", "message", "rule"?, "details"?}}`; branch on `code`. '
            "GraphQL is at /graphql (see `x-graphql`). The integrator's guide is docs/api.md.",
        },
        # GraphQL is not a path of this document; OpenAPI wants an absolute URL in
        # externalDocs, and the server's own is not known here, so it is an extension.
        "x-graphql": {
            "path": "/graphql",
            "description": "GraphQL (queries, mutations, and subscriptions over "
            "graphql-transport-ws), with the same credentials; GraphiQL in a browser. "
            "Its schema is schema/schema.graphql (`fray schema`).",
        },
        "servers": [{"url": "/"}],
        "tags": [
            {"name": "encounters"},
            {"name": "commands"},
            {"name": "events"},
            {"name": "tokens"},
            {"name": "operations"},
        ],
        "security": [{"tenantKey": []}, {"encounterToken": []}],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "tenantKey": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "A tenant API key (one of FRAY_API_KEYS): creates "
                    "encounters, mints tokens and acts as the GM of the encounters its "
                    "tenant created.",
                },
                "encounterToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "bearerFormat": "fray1.<payload>.<signature>",
                    "description": "An encounter token for one encounter and one role (gm, "
                    "player, observer or auditor), with an expiry.",
                },
            },
        },
    }
    return json.dumps(doc)


def build_openapi() -> dict[str, Any]:
    """The OpenAPI document (a fresh copy)."""
    document: dict[str, Any] = json.loads(_document())
    return document


async def openapi_json(request: Request) -> Response:
    return Response(_document(), media_type=JSON)


# --- YAML ----------------------------------------------------------------------------------


def to_yaml(document: dict[str, Any]) -> str:
    """Block-style YAML of a JSON document, keys in the document's order."""
    text: str = yaml.safe_dump(
        document, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100
    )
    return text


def openapi_yaml() -> str:
    return to_yaml(build_openapi())
