"""Encounters: create, list, read, archive, legal actions, tokens, the seed, exports, the
audit verdict; and the rulesets."""

from __future__ import annotations

from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from service.api.access import (
    audits_of,
    encounter_id_of,
    encounters_of,
    management_of,
    viewer,
)
from service.api.bodies import json_body, query_int, query_model
from service.api.models import CreateEncounter, MintToken
from service.api.responses import JSONResponse
from service.app.management import MAX_LIMIT, EncounterFilter
from service.app.views import encounter_view
from service.domain.canonical import sha256_hex
from service.rules.registry import RULESETS, ruleset_named, versions_of

EXPORT_PAGE = 500


async def list_rulesets(request: Request) -> JSONResponse:
    rulesets = [
        {
            "name": r.name,
            "version": r.version,
            "versions": versions_of(r.name),
            "title": r.title,
            "commands": r.command_types(),
            "options_schema": r.options_model.model_json_schema(),
            "stats_schema": r.stats_model.model_json_schema(),
        }
        for r in RULESETS.values()
    ]
    return JSONResponse({"rulesets": rulesets})


async def get_ruleset(request: Request) -> JSONResponse:
    ruleset = ruleset_named(request.path_params["name"], code="ruleset/not-found")
    return JSONResponse(
        {
            "name": ruleset.name,
            "version": ruleset.version,
            "versions": versions_of(ruleset.name),
            "title": ruleset.title,
            "schemas": ruleset.json_schemas(),
        }
    )


async def create_encounter(request: Request) -> JSONResponse:
    encounters = encounters_of(request)
    tenant = encounters.creator(request.headers.get("authorization"))
    body = await json_body(request, CreateEncounter)
    created = await encounters.create(
        tenant,
        body.ruleset,
        body.options,
        title=body.title,
        encounter_id=body.encounter_id,
        seed=bytes.fromhex(body.seed) if body.seed else None,
    )
    return JSONResponse(
        {
            "encounter_id": created.encounter_id,
            "ruleset": created.ruleset,
            "version": created.version,
            "gm_token": created.gm_token,
            "gm_token_expires_at": created.gm_token_expires_at.isoformat(),
        },
        status_code=201,
        # Percent-encoded: an id may hold characters a header cannot carry.
        headers={"Location": f"/v1/encounters/{quote(created.encounter_id, safe='')}"},
    )


async def list_encounters(request: Request) -> JSONResponse:
    tenant = encounters_of(request).creator(request.headers.get("authorization"))
    query = query_model(request, EncounterFilter, {"limit": (1, MAX_LIMIT)})
    listing = await management_of(request).list(tenant, query)
    return JSONResponse(listing.to_dict())


async def archive_encounter(request: Request) -> JSONResponse:
    principal = await viewer(request)
    archived = await management_of(request).archive(principal)
    return JSONResponse(archived.to_dict())


async def get_encounter(request: Request) -> JSONResponse:
    principal = await viewer(request)
    as_of = query_int(request, "as_of", 0, 1, None)
    loaded = await encounters_of(request).view(principal, as_of)
    return JSONResponse(encounter_view(loaded, principal.actor, encounter_id_of(request)))


async def legal_actions(request: Request) -> JSONResponse:
    principal = await viewer(request)
    version, actions, blocked = await encounters_of(request).legal_actions(principal)
    return JSONResponse(
        {
            "version": version,
            "actions": [a.model_dump(mode="json") for a in actions],
            "blocked": [b.model_dump(mode="json") for b in blocked],
        }
    )


async def mint_token(request: Request) -> JSONResponse:
    encounters = encounters_of(request)
    encounter_id = encounter_id_of(request)
    principal = await encounters.minter(request.headers.get("authorization"), encounter_id)
    body = await json_body(request, MintToken)
    minted = await encounters.mint_token(
        principal,
        encounter_id,
        role=body.role,
        combatants=body.combatants,
        subject=body.subject,
        ttl_seconds=body.ttl_seconds,
    )
    return JSONResponse(
        {
            "token": minted.token,
            "role": minted.role,
            "subject": minted.subject,
            "combatants": minted.combatants,
            "expires_at": minted.expires_at.isoformat(),
        },
        status_code=201,
    )


async def get_seed(request: Request) -> JSONResponse:
    principal = await viewer(request)
    seed = await encounters_of(request).seed(principal)
    return JSONResponse({"seed": seed.hex(), "commitment": sha256_hex(seed)})


async def export(request: Request) -> Response:
    principal = await viewer(request)
    lines = await encounters_of(request).export(principal)
    return StreamingResponse(lines, media_type="application/x-ndjson")


async def get_audit(request: Request) -> JSONResponse:
    principal = await viewer(request)
    verdict = await audits_of(request).verdict(principal)
    return JSONResponse(verdict.to_dict())
