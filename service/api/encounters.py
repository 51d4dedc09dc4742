"""Encounters: create, read, legal actions, tokens, the seed, exports; and the rulesets."""

from __future__ import annotations

from collections.abc import AsyncIterator
from urllib.parse import quote

import orjson
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from service.api.access import encounter_id_of, encounters_of, engine_of, viewer
from service.api.bodies import json_body, query_int
from service.api.models import CreateEncounter, MintToken
from service.api.responses import JSONResponse
from service.app.views import encounter_view, may_see_seed, redacted_envelope, sees_raw_events
from service.domain.canonical import sha256_hex
from service.domain.envelope import Envelope
from service.domain.errors import Forbidden, NotFound
from service.rules.registry import RULESETS

EXPORT_PAGE = 500


async def list_rulesets(request: Request) -> JSONResponse:
    rulesets = [
        {
            "name": r.name,
            "version": r.version,
            "title": r.title,
            "commands": r.command_types(),
            "options_schema": r.options_model.model_json_schema(),
            "stats_schema": r.stats_model.model_json_schema(),
        }
        for r in RULESETS.values()
    ]
    return JSONResponse({"rulesets": rulesets})


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


async def get_encounter(request: Request) -> JSONResponse:
    principal = await viewer(request)
    stream = principal.stream_of()
    engine = engine_of(request)
    as_of = query_int(request, "as_of", 0, 1, None)
    loaded = await (engine.load_at(stream, as_of) if as_of else engine.load(stream))
    return JSONResponse(encounter_view(loaded, principal.actor, encounter_id_of(request)))


async def legal_actions(request: Request) -> JSONResponse:
    principal = await viewer(request)
    loaded = await engine_of(request).load(principal.stream_of())
    actions = loaded.ruleset.legal_actions(loaded.state, principal.actor)
    return JSONResponse(
        {"version": loaded.version, "actions": [a.model_dump(mode="json") for a in actions]}
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
    encounter_id = principal.stream_of()
    engine = engine_of(request)
    loaded = await engine.load(encounter_id)
    if loaded.state.table.phase != "ended" and not may_see_seed(principal.actor, loaded.ruleset):
        if loaded.ruleset.seed_sealed:
            raise Forbidden(
                f"a {loaded.ruleset.name} seed orders the face-down cards: nobody sees it "
                "before the encounter ends"
            )
        raise Forbidden("only auditors and the GM see the seed before the encounter ends")
    seed = await engine.store.seed(encounter_id)
    if seed is None:
        raise NotFound(f"there is no encounter '{encounter_id_of(request)}'")
    return JSONResponse({"seed": seed.hex(), "commitment": sha256_hex(seed)})


async def export(request: Request) -> Response:
    principal = await viewer(request)
    encounter_id = principal.stream_of()
    engine = engine_of(request)
    loaded = await engine.load(encounter_id)
    actor = principal.actor
    full = sees_raw_events(loaded, actor)

    async def lines() -> AsyncIterator[bytes]:
        after = 0
        while True:
            page = await engine.store.read(encounter_id, after=after, limit=EXPORT_PAGE)
            for stored in page:
                if full:
                    yield stored.body + b"\n"
                    continue
                seen = redacted_envelope(
                    loaded.ruleset, Envelope.from_body(stored.body), actor, loaded.state
                )
                if seen is not None:
                    yield orjson.dumps(seen) + b"\n"
            if len(page) < EXPORT_PAGE:
                return
            after = page[-1].version

    return StreamingResponse(lines(), media_type="application/x-ndjson")
