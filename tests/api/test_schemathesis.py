"""Schemathesis against the in-process app, driven by openapi/openapi.yaml's generator:
no input makes the server answer 5xx, and every response conforms to the spec (status
codes, content types, headers, bodies). Bounded for the suite; `make fuzz` (FRAY_FUZZ=1)
runs many more examples and steps."""

from __future__ import annotations

import asyncio
import hashlib
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import schemathesis
from hypothesis import given, seed, settings
from hypothesis.stateful import run_state_machine_as_test
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.python import asgi
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from starlette.applications import Starlette

from service.api.openapi import build_openapi
from service.api.server import create_app
from tests.api.conftest import KEY, Api, bearer, running, settings_for

FUZZ = os.environ.get("FRAY_FUZZ") == "1"
EXAMPLES = 500 if FUZZ else 25
# The stateful phase's rules are enabled by what earlier responses put in schemathesis's
# bundles, and schemathesis tracks the transitions it has covered across scenarios: over a
# hundred scenarios in one run Hypothesis replays a prefix whose rules have changed and
# stops with FlakyStrategyDefinition. A long run is many short ones, each seeded afresh.
STATEFUL_ROUNDS = 20 if FUZZ else 1
STATEFUL_RUNS = 5
STATEFUL_STEPS = 12 if FUZZ else 6
SSE_TIMEOUT = 0.5  # seconds of a followed event stream to read before cutting it

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


@dataclass(frozen=True)
class Target:
    app: Starlette
    encounter_id: str
    gm: str


@pytest.fixture(scope="module")
def target(redis_url: str) -> Iterator[Target]:
    """The app under test, and a started fight made through another instance of it (the
    state is all in Redis): generated cases hit this real encounter as well as unknown ids."""
    settings = settings_for(redis_url)
    encounter_id = f"fuzz-{os.urandom(4).hex()}"

    async def fight() -> str:
        async with running(settings) as api:
            return await api.skirmish(encounter_id)

    gm = asyncio.run(fight())
    yield Target(create_app(settings), encounter_id, gm)


@pytest.fixture(scope="module")
def api_schema(target: Target) -> Iterator[Any]:
    """The spec as the app serves it, bound to the app (schemathesis runs its lifespan)."""
    yield schemathesis.openapi.from_asgi("/openapi.json", target.app)
    # Stop the app's lifespan (Redis clients, the stream hub) while Redis is still up,
    # rather than at interpreter exit.
    asgi.shutdown_lifespans()


# One test per operation and generation mode, so xdist spreads them. (schemathesis's own
# `from_fixture(...).parametrize()` needs a pytest internal that pytest 9 removed.)
DOCUMENT = build_openapi()
OPERATIONS = [
    (method.upper(), path, mode)
    for path, item in DOCUMENT["paths"].items()
    for method, operation in item.items()
    for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
    # Negative cases need something to break: a parameter or a body.
    if mode is GenerationMode.POSITIVE or "parameters" in operation or "requestBody" in operation
]


def _coin(case: Any, salt: str, sides: int = 2) -> bool:
    """A reproducible 1-in-`sides` draw per case."""
    seed = f"{salt}:{case.path_parameters}:{case.query}:{case.body!r}"
    return hashlib.sha256(seed.encode()).digest()[0] % sides == 0


def credentials(case: Any, target: Target) -> dict[str, str]:
    """The credential to send: mostly a good one, so cases get past authentication; for an
    eighth of them the one schemathesis made up (401)."""
    if _coin(case, "made-up", 8):
        return {}
    if case.operation.path == "/v1/encounters" or case.operation.path.startswith("/v1/webhooks"):
        return bearer(KEY)
    if "encounter_id" in (case.path_parameters or {}):
        if _coin(case, "encounter"):
            case.path_parameters["encounter_id"] = target.encounter_id
        # The GM token, or the tenant's key (GM of its encounters; 404 for unknown ids).
        return bearer(target.gm if _coin(case, "credential") else KEY)
    return {}


REDIS_STREAM_ID_MAX = 2**64 - 1


def call_kwargs(case: Any) -> dict[str, Any]:
    follow = str((case.query or {}).get("follow", "")).lower() in ("1", "true", "yes")
    return {"timeout": SSE_TIMEOUT} if follow else {}


@pytest.mark.parametrize(
    ("method", "path", "mode"), OPERATIONS, ids=[f"{m} {p} {g}" for m, p, g in OPERATIONS]
)
def test_every_operation_conforms_and_never_fails(
    method: str, path: str, mode: GenerationMode, api_schema: Any, target: Target
) -> None:
    operation = api_schema[path][method]

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(max_examples=EXAMPLES, derandomize=True, database=None)
    def check(case: Any) -> None:
        case.call_and_validate(
            headers=credentials(case, target), checks=CHECKS, **call_kwargs(case)
        )

    check()


@pytest.mark.parametrize("round_", range(STATEFUL_ROUNDS))
def test_stateful_phase_follows_the_links(round_: int, api_schema: Any, target: Target) -> None:
    """Scenarios chained by the spec's links: create an encounter, then use its id and GM
    token on the encounter routes (commands, events, tokens, ...)."""

    class Machine(api_schema.as_state_machine()):  # type: ignore[misc]
        # Hypothesis replays choice prefixes and insists that they behave the same, so
        # every scenario keeps off state other scenarios change: a created encounter gets a
        # fresh id (a replayed one would be a 409), and the shared fight is not used.
        def before_call(self, case: Any) -> None:
            body = case.body if isinstance(case.body, dict) else {}
            if case.operation.path == "/v1/encounters" and "encounter_id" in body:
                body["encounter_id"] = f"st-{uuid.uuid4().hex}"

        def get_call_kwargs(self, case: Any) -> dict[str, Any]:
            # A link hands on the new encounter's GM token; any other credential in the
            # case is one schemathesis made up for the security scheme.
            given = {k.lower(): str(v) for k, v in (case.headers or {}).items()}
            if given.get("authorization", "").startswith("Bearer fray1."):
                headers = {}
            else:
                headers = {} if _coin(case, "made-up", 8) else bearer(KEY)
            return {"headers": headers, **call_kwargs(case)}

        def validate_response(
            self, response: Any, case: Any, additional_checks: Any = None, **kwargs: Any
        ) -> None:
            case.validate_response(response, checks=CHECKS, transport_kwargs=kwargs)

    run_state_machine_as_test(
        seed(round_)(Machine) if FUZZ else Machine,
        settings=settings(
            max_examples=STATEFUL_RUNS,
            stateful_step_count=STATEFUL_STEPS,
            derandomize=not FUZZ,
            database=None,
        ),
    )


# --- 500s schemathesis found, fixed; these keep them fixed ---


@pytest.mark.anyio
async def test_creating_an_encounter_with_a_non_ascii_id_is_a_bad_id(api: Api) -> None:
    # Such an id once reached the `Location` header (latin-1) raw, a 500; ids follow one
    # pattern now, the characters a URL path carries unescaped.
    encounter_id = f"caf\u00e9-\u1d00-{os.urandom(3).hex()}"
    response = await api.client.post(
        "/v1/encounters",
        json={"ruleset": "freeform", "encounter_id": encounter_id},
        headers=bearer(KEY),
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "request/bad-id"


@pytest.mark.anyio
async def test_an_as_of_beyond_any_version_is_not_a_server_error(api: Api) -> None:
    # It reached XRANGE with an id over 2**64 - 1 (a Redis ResponseError, a 500); query
    # integers are bounded by JSON's safe integers now.
    encounter_id = f"as-of-{os.urandom(3).hex()}"
    gm = await api.create(encounter_id)
    path = f"/v1/encounters/{encounter_id}"
    response = await api.get(path, gm, as_of=REDIS_STREAM_ID_MAX + 1)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "request/invalid"
