"""Schemathesis against the in-process app's GraphQL schema: queries and mutations built
from the schema by schemathesis's generator, valid and invalid, never make the server
fail (no HTTP 5xx, no masked internal error, no resolver error without a Fray code) and
every answer conforms to the schema. Bounded for the suite; `make fuzz` (FRAY_FUZZ=1)
runs many more examples.

schemathesis's own `not_a_server_error` counts every error a resolver raises as a server
error unless it carries an Apollo or graphql-java "bad input" marker, so an unknown
encounter or a token for another encounter would count as one. Fray's resolvers refuse on
purpose with a stable code in `extensions.code` (docs/api.md, "Errors"), and an error
Fray did not raise on purpose is masked as "an internal error occurred": the check below
fails on exactly those, and on any HTTP 5xx.

(The stateful phase runs against the OpenAPI spec, whose links chain the operations;
schemathesis's GraphQL state machine needs mutations that return an object with an `id`
field, which Fray's schema does not have: encounters are named by `encounterId`.)"""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.graphql import nodes
from schemathesis.python import asgi
from schemathesis.specs.openapi.checks import response_schema_conformance

from service.api.server import create_app
from tests.api.conftest import KEY, bearer, running, settings_for

FUZZ = os.environ.get("FRAY_FUZZ") == "1"
EXAMPLES = 300 if FUZZ else 20
MASKED = "an internal error occurred"


@schemathesis.check
def refusals_are_deliberate(ctx: Any, response: Any, case: Any) -> bool | None:
    assert response.status_code < 500, f"HTTP {response.status_code}"
    for error in response.json().get("errors") or []:
        assert error.get("message") != MASKED, f"an internal error: {error}"
        if "path" in error:  # raised by a resolver, not by parsing or validation
            code = (error.get("extensions") or {}).get("code")
            assert isinstance(code, str) and code, f"a resolver error without a code: {error}"
    return None


CHECKS = [refusals_are_deliberate, response_schema_conformance]
# A webhook's `view` is JSON, as in REST: "gm", "observer" or {"player": [ids]}; the
# generator draws roles, other strings and numbers for it.
schemathesis.graphql.scalar(
    "JSON",
    st.one_of(
        st.sampled_from(["gm", "observer", "player"]).map(nodes.String),
        st.text(max_size=12).map(nodes.String),
        st.integers(-5, 5).map(nodes.Int),
    ),
)
OPERATIONS = [
    "Query.rulesets",
    "Query.signingKeys",
    "Query.encounters",
    "Query.encounter",
    "Query.audit",
    "Query.webhooks",
    "Query.webhook",
    "Query.webhookDeliveries",
    "Mutation.createEncounter",
    "Mutation.mintToken",
    "Mutation.submitCommand",
    "Mutation.previewCommand",
    "Mutation.archiveEncounter",
    "Mutation.createWebhook",
    "Mutation.updateWebhook",
    "Mutation.deleteWebhook",
    "Mutation.redeliverWebhookDelivery",
]


@pytest.fixture(scope="module")
def gm_token(redis_url: str) -> str:
    """A GM token of a started fight: generated cases carrying it get past authentication
    (and, for random encounter ids, meet `auth/forbidden` or `not-found`)."""
    encounter_id = f"gqlfuzz-{os.urandom(4).hex()}"

    async def fight() -> str:
        async with running(settings_for(redis_url)) as api:
            return await api.skirmish(encounter_id)

    return asyncio.run(fight())


@pytest.fixture(scope="module")
def graphql_schema(redis_url: str) -> Iterator[Any]:
    yield schemathesis.graphql.from_asgi("/graphql", create_app(settings_for(redis_url)))
    asgi.shutdown_lifespans()


def test_the_generator_sees_every_query_and_mutation(graphql_schema: Any) -> None:
    labels = sorted(result.ok().label for result in graphql_schema.get_all_operations())
    assert labels == sorted(OPERATIONS)


def _credential(case: Any, gm: str) -> dict[str, str]:
    """Mostly the tenant's key or the GM token; for an eighth of cases none (401-like)."""
    draw = hashlib.sha256(repr(case.body).encode()).digest()[0]
    if draw % 8 == 0:
        return {}
    return bearer(KEY if draw % 2 else gm)


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
@pytest.mark.parametrize("label", OPERATIONS)
def test_every_operation_answers_within_the_schema(
    label: str, mode: GenerationMode, graphql_schema: Any, gm_token: str
) -> None:
    root, field = label.split(".")
    operation = graphql_schema[root][field]

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(max_examples=EXAMPLES, derandomize=True, database=None)
    def check(case: Any) -> None:
        case.call_and_validate(headers=_credential(case, gm_token), checks=CHECKS)

    check()
