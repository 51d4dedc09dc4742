"""`submitCommand` compiled (service.api.graphql.compiled) answers exactly as strawberry's
view does: every request here is sent both ways, against the same encounter, and the two
answers (status, content type, body with its key order) must be the same.

A first submission appends, so the two ways cannot both be first: each comparison re-sends
a command id the encounter has already taken (the answer is then `duplicate: true` with
the original events, the same for both), or a command that is refused (nothing appended),
or a request that never reaches the engine.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest

from service.api.graphql.compiled import CompiledGraphQL
from service.api.graphql.plans import Plan, plan_for
from service.api.graphql.types import CommandAccepted
from tests.api.conftest import KEY, Api, bearer, running, settings_for

pytestmark = pytest.mark.anyio


FULL = """
mutation Submit($encounterId: String!, $command: CommandInput!, $commandId: String,
                $expectedVersion: Int, $dice: [Int!]) {
  submitCommand(encounterId: $encounterId, command: $command, commandId: $commandId,
                expectedVersion: $expectedVersion, dice: $dice) {
    __typename
    ... on CommandAccepted {
      commandId version duplicate receipt { kid encounterId version hash sig }
      events { version type schema data at commandId actor command rolls prevHash hash
               receipt { sig } }
    }
    ... on CommandRejected { code message rule details status }
  }
}
"""

ALIASED = """
mutation ($e: String!, $c: CommandInput!, $id: String) {
  sent: submitCommand(encounterId: $e, command: $c, commandId: $id) {
    ... on CommandAccepted { v: version, events { t: type, version, v: version } }
    kind: __typename
    ... on CommandRejected { why: message, code }
  }
}
"""

FRAGMENTS = """
mutation Send($e: String!, $c: CommandInput!, $id: String) {
  submitCommand(encounterId: $e, command: $c, commandId: $id) { ...Result }
}
fragment Result on CommandResult {
  ... on CommandAccepted { events { type } ...Accepted events { version ...Ev } }
  ... on CommandRejected { ...Rejected }
  __typename
}
fragment Accepted on CommandAccepted { duplicate version commandId }
fragment Rejected on CommandRejected { status code }
fragment Ev on Event { hash at data }
"""

LITERAL = """
mutation {
  submitCommand(encounterId: "ENCOUNTER", command: {freeform: {addNote: {text: "lit"}}},
                commandId: "literal-1") {
    ... on CommandAccepted { version duplicate events { type data } }
    ... on CommandRejected { code }
  }
}
"""

NOTE = {"freeform": {"addNote": {"text": "the torches gutter"}}}


class Both:
    """Sends a request with the compiled path on and then off, on one app."""

    def __init__(self, client: httpx.AsyncClient, endpoint: CompiledGraphQL) -> None:
        self.client = client
        self.endpoint = endpoint

    async def post(self, body: bytes, headers: dict[str, str]) -> tuple[int, str, bytes]:
        response = await self.client.post(
            "/graphql", content=body, headers={"content-type": "application/json", **headers}
        )
        # Parsed and dumped again: the same JSON in the same key order compares equal,
        # whatever the spacing of the encoder.
        try:
            text = orjson.dumps(response.json())
        except ValueError:
            text = response.content
        return response.status_code, response.headers.get("content-type", ""), text

    async def first(self, body: dict[str, Any], credential: str) -> dict[str, Any]:
        """The first submission of a command id: it appends, so it is not compared."""
        response = await self.client.post("/graphql", json=body, headers=bearer(credential))
        assert response.status_code == 200, response.text
        answer: dict[str, Any] = response.json()
        return answer

    async def compare(
        self, body: dict[str, Any] | bytes, credential: str | None = None
    ) -> dict[str, Any]:
        raw = body if isinstance(body, bytes) else orjson.dumps(body)
        headers = bearer(credential) if credential else {}
        self.endpoint.compiled = True
        compiled = await self.post(raw, headers)
        self.endpoint.compiled = False
        try:
            reference = await self.post(raw, headers)
        finally:
            self.endpoint.compiled = True
        assert compiled == reference
        answer: dict[str, Any] = orjson.loads(compiled[2]) if compiled[2][:1] == b"{" else {}
        return answer


@pytest.fixture
async def api(redis_url: str) -> AsyncIterator[Api]:
    async with running(settings_for(redis_url, max_body=64 * 1024)) as client:
        yield client


@pytest.fixture
async def both(api: Api) -> Both:
    app = api.client.app  # type: ignore[attr-defined]
    (endpoint,) = [r.endpoint for r in app.routes if isinstance(r.endpoint, CompiledGraphQL)]
    return Both(api.client, endpoint)


@pytest.fixture
async def encounter(api: Api) -> str:
    encounter_id = f"compiled-{uuid.uuid4().hex[:8]}"
    token = await api.skirmish(encounter_id)
    await api.ok(encounter_id, token, {"type": "add-note", "text": "warm-up"})
    TOKENS[encounter_id] = token
    return encounter_id


@pytest.fixture
def gm(encounter: str) -> str:
    return TOKENS[encounter]


TOKENS: dict[str, str] = {}


def submit(query: str, operation: str | None = None, **variables: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"query": query, "variables": variables}
    if operation is not None:
        body["operationName"] = operation
    return body


async def test_the_benchmarks_document_is_compiled_and_answers_as_strawberry_does(
    both: Both, encounter: str, gm: str
) -> None:
    first = submit(FULL, encounterId=encounter, command=NOTE, commandId="note-1")
    accepted = (await both.first(first, gm))["data"]["submitCommand"]
    assert accepted["__typename"] == "CommandAccepted" and not accepted["duplicate"]
    assert [e["type"] for e in accepted["events"]] == ["note-added"]

    again = await both.compare(first, gm)

    assert isinstance(plan_for(FULL, None), Plan)
    assert again["data"]["submitCommand"]["duplicate"] is True
    assert again["data"]["submitCommand"]["events"] == accepted["events"]
    # A retry answers with the receipt of the first outcome's last event.
    assert again["data"]["submitCommand"]["receipt"] == accepted["receipt"]
    last = accepted["events"][-1]
    assert (accepted["receipt"]["version"], accepted["receipt"]["hash"]) == (
        last["version"],
        last["hash"],
    )
    assert last["receipt"] is None  # the answer's own receipt names it


@pytest.mark.parametrize(
    ("query", "operation", "names"),
    [
        (ALIASED, None, ("e", "c", "id")),
        (FRAGMENTS, "Send", ("e", "c", "id")),
        (FRAGMENTS, None, ("e", "c", "id")),
    ],
)
async def test_aliases_fragments_and_merged_fields_answer_alike(
    both: Both,
    encounter: str,
    gm: str,
    query: str,
    operation: str | None,
    names: tuple[str, str, str],
) -> None:
    e, c, id_ = names
    body = submit(query, operation, **{e: encounter, c: NOTE, id_: "note-2"})
    await both.first(body, gm)
    answer = await both.compare(body, gm)

    assert isinstance(plan_for(query, operation), Plan)
    assert "errors" not in answer


async def test_literal_arguments_answer_alike(both: Both, encounter: str, gm: str) -> None:
    query = LITERAL.replace("ENCOUNTER", encounter)
    await both.first({"query": query}, gm)
    answer = await both.compare({"query": query}, gm)

    assert isinstance(plan_for(query, None), Plan)
    assert answer["data"]["submitCommand"]["duplicate"] is True


@pytest.mark.parametrize(
    ("variables", "expected"),
    [
        ({"expectedVersion": 1}, "encounter/version-conflict"),
        ({"command": {"fiftyTwo": {"pauseClocks": True}}}, "command/wrong-ruleset"),
        ({"encounterId": "no-such-encounter"}, None),
        (
            {"command": {"freeform": {"adjustResource": {"combatantId": "nobody", "delta": -3}}}},
            None,
        ),
    ],
)
async def test_refusals_answer_alike(
    both: Both, encounter: str, gm: str, variables: dict[str, Any], expected: str | None
) -> None:
    body = submit(FULL, **{"encounterId": encounter, "command": NOTE, **variables})
    answer = await both.compare(body, gm)

    result = answer["data"]["submitCommand"]
    assert result["__typename"] == "CommandRejected", result
    if expected is not None:
        assert result["code"] == expected


async def test_a_bad_credential_is_refused_alike(both: Both, encounter: str, gm: str) -> None:
    for credential in (None, "not-a-token", KEY + "x"):
        answer = await both.compare(submit(FULL, encounterId=encounter, command=NOTE), credential)
        assert answer["data"]["submitCommand"]["__typename"] == "CommandRejected"


@pytest.mark.parametrize(
    "variables",
    [
        {"command": {"freeform": {"addNote": {"text": "a"}}, "fiftyTwo": {"endTurn": True}}},
        {"command": {"freeform": {"addNote": {"text": 7}}}},
        {"command": {"freeform": {"addNote": None}}},
        {"command": {"freeform": {}}},
        {"command": {"freeform": {"addNote": {"text": "a", "colour": "red"}}}},
        {"command": {"noSuchRuleset": {"addNote": {"text": "a"}}}},
        {"command": "add-note"},
        {"command": None},
        {"encounterId": None},
        {"expectedVersion": "3"},
        {"expectedVersion": 2**40},
        {"dice": ["a"]},
        {"dice": 4},
    ],
)
async def test_variables_that_do_not_coerce_get_graphql_cores_errors(
    both: Both, encounter: str, gm: str, variables: dict[str, Any]
) -> None:
    body = submit(FULL, **{"encounterId": encounter, "command": NOTE, **variables})
    answer = await both.compare(body, gm)

    assert "errors" in answer or answer["data"]["submitCommand"]["__typename"] == "Command" + (
        "Rejected"
    )


async def test_a_missing_variable_and_a_deep_one_are_answered_alike(
    both: Both, encounter: str, gm: str
) -> None:
    missing = await both.compare(submit(FULL, encounterId=encounter), gm)
    assert missing["errors"]

    deep: Any = "x"
    for _ in range(80):
        deep = [deep]
    body = submit(FULL, encounterId=encounter, command={"freeform": {"addNote": {"text": deep}}})
    assert "errors" in await both.compare(body, gm)


@pytest.mark.parametrize(
    "body",
    [
        b"{not json",
        b"[]",
        orjson.dumps({"query": 3}),
        b'["x"]',
        b"[]",
        orjson.dumps({"query": FULL, "variables": []}),
        orjson.dumps({"query": FULL, "variables": {}, "extensions": "x"}),
        orjson.dumps({"query": FULL, "variables": {}, "operationName": "Other"}),
        orjson.dumps({"query": FULL, "variables": {}, "operationName": 5}),
        b'{"query": "mutation { submitCommand(encounterId: 1) }", "variables": null}',
        orjson.dumps({"query": "{ rulesets { name } }"}),
        orjson.dumps({"query": "mutation { submitCommand(", "variables": {}}),
        b'{"query": "query Q { rulesets { name } } mutation M { __typename }", '
        b'"operationName": "Q"}',
        b'{"query": "mutation M { __typename }"}',
    ],
)
async def test_bodies_the_plan_does_not_take_are_answered_by_strawberry(
    both: Both, encounter: str, gm: str, body: bytes
) -> None:
    await both.compare(body, gm)


@pytest.mark.parametrize(
    "query",
    [
        # a directive, a variable default, a variable inside a literal, two root fields
        FULL.replace("__typename", "__typename @include(if: true)"),
        FULL.replace("$commandId: String,", '$commandId: String = "d-1",'),
        'mutation ($t: String!) { submitCommand(encounterId: "compiled-1", command: '
        "{freeform: {addNote: {text: $t}}}) { __typename } }",
        'mutation ($c: CommandInput!) { a: submitCommand(encounterId: "compiled-1", '
        'command: $c) { __typename } b: submitCommand(encounterId: "compiled-1", '
        "command: $c) { __typename } }",
        "query { rulesets { name } }",
    ],
)
def test_documents_outside_the_plans_reach_are_not_compiled(query: str) -> None:
    assert plan_for(query, None) is None


async def test_an_uncompiled_document_still_works(
    api: Api, both: Both, encounter: str, gm: str
) -> None:
    query = (
        f'mutation ($t: String!) {{ submitCommand(encounterId: "{encounter}", command: '
        '{freeform: {addNote: {text: $t}}}, commandId: "inner-1") '
        "{ ... on CommandAccepted { duplicate } } }"
    )
    body = {"query": query, "variables": {"t": "x"}}
    first = await both.first(body, gm)
    again = await both.compare(body, gm)

    assert plan_for(query, None) is None
    assert first["data"]["submitCommand"] == {"duplicate": False}
    assert again["data"]["submitCommand"] == {"duplicate": True}


async def test_a_body_over_the_limit_is_refused_even_without_a_length(api: Api, gm: str) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(70):
            yield b" " * 1024

    response = await api.client.post(
        "/graphql",
        content=chunks(),
        headers={"content-type": "application/json", **bearer(gm)},
    )

    assert response.status_code == 413
    assert response.json()["error"]["code"] == "request/too-large"


NOT_AN_OBJECT = "The GraphQL request body must be a JSON object"
UNPARSABLE = "Unable to parse request body as JSON"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        # strawberry's view alone answered these with a 500: it calls `.get` on a JSON
        # scalar, and Python's parser recurses into a deep one.
        *((scalar, NOT_AN_OBJECT) for scalar in (b'"query"', b"3", b"null", b"true")),
        (b"[" * 3000, UNPARSABLE),
        (b'{"query": "x", "variables": ' + b"[" * 3000, UNPARSABLE),
    ],
)
async def test_a_json_scalar_or_too_deep_a_body_is_refused_with_400(
    api: Api, gm: str, body: bytes, message: str
) -> None:
    headers = {"content-type": "application/json", **bearer(gm)}
    response = await api.client.post("/graphql", content=body, headers=headers)

    assert response.status_code == 400
    assert response.text == message


def test_a_result_the_schema_does_not_allow_names_its_path() -> None:
    plan = plan_for(FULL, None)
    assert plan is not None
    broken = CommandAccepted(command_id="c", version=None, duplicate=False, events=[], receipt=None)  # type: ignore[arg-type]

    with pytest.raises(Exception) as raised:
        plan.complete(broken)

    assert getattr(raised.value, "path", None) == ["submitCommand", "version"]
