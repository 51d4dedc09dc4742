"""The OpenAPI 3.1 document of the REST API, rendered from one source of truth.

Bodies and responses are the pydantic models (the request bodies of `service.api.models`
and `service.engine.CommandRequest`, the views of `service.domain.views`, the envelope of
`service.api.shapes`, and what the handlers answer, `service.api.replies`); the routes are
the declarative table of `service.api.operations`. `GET /openapi.json` serves the
document, `fray openapi` prints it as YAML, and `openapi/openapi.yaml` is that output,
checked in (a test fails when it drifts, or when the app's routes and the table disagree).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import yaml
from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema
from starlette.requests import Request
from starlette.responses import Response

from service.api import operations
from service.api.command_schemas import command_components
from service.api.operations import (
    JSON,
    REF,
    Operation,
    Reply,
    with_unavailable,
)
from service.api.replies import Error
from service.api.webhook_operations import (
    WEBHOOK_OPERATIONS,
    WEBHOOK_REQUEST_MODELS,
    WEBHOOK_RESPONSE_MODELS,
)
from service.rules.registry import RULESETS

OPERATIONS: tuple[Operation, ...] = (*operations.OPERATIONS, *WEBHOOK_OPERATIONS)
REQUEST_MODELS = (*operations.REQUEST_MODELS, *WEBHOOK_REQUEST_MODELS)
RESPONSE_MODELS = (*operations.RESPONSE_MODELS, *WEBHOOK_RESPONSE_MODELS)

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
    """The envelope's `command`: every ruleset's commands (service.api.command_schemas)."""
    components, command = command_components(list(RULESETS.values()), REF, schemas)
    clashes = [n for n, body in components.items() if schemas.setdefault(n, body) != body]
    assert not clashes and "Command" not in schemas, f"components named alike: {clashes}"
    schemas.update(components)
    schemas["Command"] = command
    request = schemas["CommandRequest"]["properties"]
    request["command"] = {"$ref": REF.format(model="Command")}


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
    if reply.media:  # none for a reply without a body (204)
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
        for r in sorted(with_unavailable(op), key=lambda r: r.status)
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
            {"name": "receipts"},
            {"name": "tokens"},
            {"name": "webhooks"},
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
                "streamTicket": {
                    "type": "apiKey",
                    "in": "query",
                    "name": "ticket",
                    "description": "A single-use stream ticket (mintStreamTicket), for one SSE "
                    "connection to an encounter's events: what a browser's EventSource, which "
                    "cannot send headers, passes instead.",
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
