"""`POST /v1/encounters/{id}/commands`: the command envelope into the engine, and back."""

from __future__ import annotations

import logging
import time

import orjson
from starlette.requests import Request

from service.api.access import credential, engine_of, viewer
from service.api.bodies import json_body
from service.api.metrics import Metrics
from service.api.ratelimit import RateLimiter
from service.api.responses import JSONResponse
from service.api.views import redacted_envelopes, sees_raw_events
from service.domain.errors import FrayError
from service.domain.ids import split_stream
from service.engine import CommandRequest, Loaded, Outcome
from service.rules.registry import RULESETS

_log = logging.getLogger("fray.api")


async def post_command(request: Request) -> JSONResponse:
    principal = await viewer(request)
    limiter: RateLimiter = request.app.state.limiter
    await limiter.check(credential(request))
    body = await json_body(request, CommandRequest)
    encounter_id = principal.stream_of()
    engine = engine_of(request)
    started = time.perf_counter()
    try:
        outcome = await engine.execute(encounter_id, body, principal.actor)
    except FrayError as error:
        ruleset, kind = _labels(engine.peek(encounter_id), body)
        _record(request, ruleset, encounter_id, body.command_id, kind, error.code, started)
        raise
    # The engine hands back the state after the append: no second read to redact.
    loaded = outcome.loaded or await engine.load(encounter_id)
    ruleset, kind = _labels(loaded, body)
    label = "duplicate" if outcome.duplicate else "accepted"
    _record(request, ruleset, encounter_id, outcome.command_id, kind, label, started, outcome)
    events = (
        [e.to_dict() for e in outcome.events]
        if sees_raw_events(loaded, principal.actor)
        else redacted_envelopes(loaded, outcome.events, principal.actor)
    )
    return JSONResponse(
        {
            "command_id": outcome.command_id,
            "version": outcome.version,
            "duplicate": outcome.duplicate,
            "events": events,
        },
        status_code=200 if outcome.duplicate else 201,
    )


def _labels(loaded: Loaded | None, body: CommandRequest) -> tuple[str, str]:
    """The ruleset and command type as metric labels, bounded to known values."""
    ruleset = loaded.ruleset.name if loaded is not None else "unknown"
    kind = str(body.command.get("type", "?"))[:60]
    known = RULESETS[ruleset].command_models if ruleset in RULESETS else {}
    return ruleset, kind if kind in known else "unknown"


def _record(
    request: Request,
    ruleset: str,
    encounter_id: str,
    command_id: str | None,
    kind: str,
    outcome: str,
    started: float,
    result: Outcome | None = None,
) -> None:
    seconds = time.perf_counter() - started
    metrics: Metrics = request.app.state.metrics
    metrics.command(ruleset, kind, outcome, seconds)
    if result is not None and not result.duplicate:
        metrics.inc("fray_appends_total", by=len(result.events))
    tenant, public = split_stream(encounter_id)
    line = {
        "event": "command",
        "tenant": tenant,
        "encounter_id": public,
        "command_id": command_id,
        "type": kind,
        "outcome": outcome,
        "version": result.version if result else None,
        "duration_ms": round(seconds * 1000, 3),
    }
    _log.info(orjson.dumps(line).decode())
