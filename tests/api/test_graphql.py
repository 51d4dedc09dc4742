"""GraphQL at /graphql: generated command inputs, the result union, queries and limits.

Drives the real ASGI app in process (its lifespan, against the suite's Redis).
"""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, redirect_stdout
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from service.api.graphql import sdl
from service.api.graphql.schema import MAX_DEPTH, MAX_TOKENS
from service.api.server import create_app
from service.cli import main
from service.config import Settings
from service.rules.registry import RULESETS
from tests.api.conftest import KEY, bearer, settings_for

pytestmark = pytest.mark.anyio

MAX_BODY = 64 * 1024  # the default: documents near the token limit fit
SCHEMA_FILE = Path(__file__).resolve().parents[2] / "schema" / "schema.graphql"


def graphql_app(settings: Settings) -> Starlette:
    """`create_app`: the app every client talks to, /graphql included."""
    return create_app(settings)


class Gql:
    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client

    async def run(self, query: str, credential: str | None = None, **variables: Any) -> Any:
        headers = bearer(credential) if credential else {}
        response = await self.client.post(
            "/graphql", json={"query": query, "variables": variables}, headers=headers
        )
        assert response.status_code == 200, response.text
        return response.json()

    async def data(self, query: str, credential: str | None = None, **variables: Any) -> Any:
        body = await self.run(query, credential, **variables)
        assert "errors" not in body, body["errors"]
        return body["data"]

    async def create(self, encounter_id: str, ruleset: str = "freeform") -> str:
        data = await self.data(CREATE, KEY, input={"ruleset": ruleset, "encounterId": encounter_id})
        token: str = data["createEncounter"]["gmToken"]
        return token

    async def send(
        self, encounter_id: str, credential: str, command: dict[str, Any], **extra: Any
    ) -> dict[str, Any]:
        data = await self.data(
            SUBMIT, credential, encounterId=encounter_id, command=command, **extra
        )
        result: dict[str, Any] = data["submitCommand"]
        return result

    async def ok(self, encounter_id: str, credential: str, command: dict[str, Any]) -> Any:
        result = await self.send(encounter_id, credential, command)
        assert result["__typename"] == "CommandAccepted", result
        return result

    async def mint(self, encounter_id: str, credential: str, role: str, *combatants: str) -> str:
        data = await self.data(
            MINT,
            credential,
            encounterId=encounter_id,
            input={"role": role, "combatants": list(combatants)},
        )
        token: str = data["mintToken"]["token"]
        return token

    async def version(self, encounter_id: str, credential: str) -> int:
        data = await self.data(VERSION, credential, id=encounter_id)
        version: int = data["encounter"]["version"]
        return version

    async def skirmish(self, encounter_id: str) -> str:
        """A started freeform fight, Bramli (heroes) against a Goblin; the GM token."""
        gm = await self.create(encounter_id)
        for combatant_id, name, side in (
            ("bramli", "Bramli", "heroes"),
            ("goblin", "Goblin", "goblins"),
        ):
            add = {"combatantId": combatant_id, "name": name, "side": side, "stats": {"hp": 10}}
            await self.ok(encounter_id, gm, {"freeform": {"addCombatant": add}})
        await self.ok(encounter_id, gm, {"freeform": {"rollInitiative": {}}})
        await self.ok(encounter_id, gm, {"freeform": {"startEncounter": True}})
        return gm


CREATE = """
mutation Create($input: CreateEncounterInput!) {
  createEncounter(input: $input) {
    encounterId ruleset version gmToken gmTokenExpiresAt
    encounter { id version summary { ruleset phase } }
  }
}"""
MINT = """
mutation Mint($encounterId: String!, $input: MintTokenInput!) {
  mintToken(encounterId: $encounterId, input: $input) { token role subject combatants expiresAt }
}"""
SUBMIT = """
mutation Submit($encounterId: String!, $command: CommandInput!, $commandId: String,
                $expectedVersion: Int, $dice: [Int!]) {
  submitCommand(encounterId: $encounterId, command: $command, commandId: $commandId,
                expectedVersion: $expectedVersion, dice: $dice) {
    __typename
    ... on CommandAccepted { commandId version duplicate events { version type data } }
    ... on CommandRejected { code message rule details status }
  }
}"""
VERSION = "query V($id: String!) { encounter(id: $id) { version } }"
EVENTS = """
query E($id: String!, $after: String, $first: Int!) {
  encounter(id: $id) {
    events(after: $after, first: $first) {
      edges { cursor node { version type data } }
      pageInfo { hasNextPage endCursor }
    }
  }
}"""


@asynccontextmanager
async def serving(settings: Settings) -> AsyncIterator[Gql]:
    app = graphql_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://fray") as client:
            yield Gql(client)


@pytest.fixture
async def gql(redis_url: str) -> AsyncIterator[Gql]:
    async with serving(settings_for(redis_url, max_body=MAX_BODY)) as client:
        yield client


# --- schema -------------------------------------------------------------------------------


def test_the_checked_in_schema_is_what_fray_schema_prints():
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["schema"]) == 0
    assert out.getvalue() == sdl()
    assert SCHEMA_FILE.read_text() == sdl(), (
        "schema drifted: run `fray schema > schema/schema.graphql`"
    )


def camel(kind: str) -> str:
    head, *rest = kind.split("-")
    return head + "".join(part.capitalize() for part in rest)


INPUT_TYPE = """
query T($name: String!) {
  __type(name: $name) { name isOneOf inputFields { name type { name kind ofType { name } } } }
}"""


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
async def test_every_command_type_of_every_ruleset_is_a_member_of_its_one_of_input(gql, ruleset):
    name = "".join(part.capitalize() for part in ruleset.split("-")) + "CommandInput"

    found = (await gql.data(INPUT_TYPE, name=name))["__type"]

    assert found["isOneOf"] is True
    members = {f["name"]: f["type"] for f in found["inputFields"]}
    assert set(members) == {camel(kind) for kind in RULESETS[ruleset].command_types()}
    for kind, model in RULESETS[ruleset].command_models.items():
        member = members[camel(kind)]
        fields = [f for f in model.model_fields if f != "type"]
        if not fields:
            assert member["name"] == "Boolean"
            continue
        generated = (await gql.data(INPUT_TYPE, name=member["name"]))["__type"]
        keys = {model.model_fields[f].alias or f for f in fields}
        assert {f["name"] for f in generated["inputFields"]} == {
            camel(k.replace("_", "-")) for k in keys
        }


async def test_command_input_has_one_member_per_ruleset(gql):
    found = (await gql.data(INPUT_TYPE, name="CommandInput"))["__type"]

    assert found["isOneOf"] is True
    assert {f["name"] for f in found["inputFields"]} == {camel(r) for r in RULESETS}


async def test_a_repeated_document_is_validated_once(gql):
    # The schema's validation LRU: a second identical document must hit it, or every
    # command pays a full validation.
    from service.api.graphql.schema import validated as cache

    query = "{ rulesets { name title } }"
    await gql.data(query)
    before = cache.cache_info()
    await gql.data(query)
    after = cache.cache_info()

    assert after.hits == before.hits + 1 and after.misses == before.misses


async def test_rulesets_lists_commands_option_schemas_and_versions(gql):
    query = "{ rulesets { name version versions commands commandInput optionsSchema } }"

    rulesets = {r["name"]: r for r in (await gql.data(query))["rulesets"]}

    assert set(rulesets) == set(RULESETS)
    # freeform 1.0.0 is kept for the encounters created before issue 27's tie-break.
    assert rulesets["freeform"]["versions"] == ["1.0.0", RULESETS["freeform"].version]
    assert rulesets["delvers-deep"]["commandInput"] == "delversDeep"
    assert "attack" in rulesets["delvers-deep"]["commands"]
    assert rulesets["freeform"]["optionsSchema"]["type"] == "object"


# --- mutations ----------------------------------------------------------------------------


async def test_a_tenant_key_creates_an_encounter_and_a_gm_mints_a_player_token(gql, encounter_id):
    created = (
        await gql.data(CREATE, KEY, input={"ruleset": "freeform", "encounterId": encounter_id})
    )["createEncounter"]
    gm = created["gmToken"]
    add = {"combatantId": "bramli", "name": "Bramli", "side": "heroes"}
    await gql.ok(encounter_id, gm, {"freeform": {"addCombatant": add}})

    minted = (
        await gql.data(
            MINT, gm, encounterId=encounter_id, input={"role": "player", "combatants": ["bramli"]}
        )
    )["mintToken"]

    assert created["encounterId"] == encounter_id and created["version"] == 1
    assert created["encounter"]["summary"] == {"ruleset": "freeform", "phase": "setup"}
    assert minted["role"] == "player" and minted["combatants"] == ["bramli"]
    assert await gql.version(encounter_id, minted["token"]) == 2


async def test_only_a_tenant_key_creates_encounters(gql, encounter_id):
    gm = await gql.create(encounter_id)

    body = await gql.run(CREATE, gm, input={"ruleset": "freeform"})

    assert body["data"] is None
    assert body["errors"][0]["extensions"]["code"] == "auth/forbidden"


async def test_a_player_token_must_name_a_combatant_of_the_encounter(gql, encounter_id):
    gm = await gql.create(encounter_id)

    body = await gql.run(
        MINT, gm, encounterId=encounter_id, input={"role": "player", "combatants": ["nobody"]}
    )

    assert body["errors"][0]["extensions"]["code"] == "request/invalid"
    assert "nobody" in body["errors"][0]["message"]


async def test_an_accepted_command_answers_its_events_and_the_new_version(gql, encounter_id):
    gm = await gql.skirmish(encounter_id)
    before = await gql.version(encounter_id, gm)

    result = await gql.ok(
        encounter_id, gm, {"freeform": {"roll": {"expression": "2d6+1", "purpose": "smash"}}}
    )

    assert result["version"] == before + 1 and result["duplicate"] is False
    assert [e["type"] for e in result["events"]] == ["dice-rolled"]
    assert result["events"][0]["data"]["purpose"] == "smash"


async def test_a_retried_command_id_is_a_duplicate_and_appends_nothing(gql, encounter_id):
    gm = await gql.skirmish(encounter_id)
    roll = {"freeform": {"roll": {"expression": "1d6"}}}

    first = await gql.send(encounter_id, gm, roll, commandId="retry-me")
    second = await gql.send(encounter_id, gm, roll, commandId="retry-me")

    assert second["duplicate"] is True and second["version"] == first["version"]
    assert await gql.version(encounter_id, gm) == first["version"]


async def test_an_encounter_says_who_is_looking(gql, encounter_id):
    gm = await gql.skirmish(encounter_id)
    player = await gql.mint(encounter_id, gm, "player", "bramli")
    query = "query($id: String!) { encounter(id: $id) { viewer { id role combatants } } }"

    as_player = (await gql.data(query, player, id=encounter_id))["encounter"]["viewer"]
    as_key = (await gql.data(query, KEY, id=encounter_id))["encounter"]["viewer"]

    assert as_player["role"] == "player" and as_player["combatants"] == ["bramli"]
    assert as_key["role"] == "gm" and as_key["combatants"] == []


async def test_a_rule_violation_is_data_and_appends_nothing(gql, encounter_id):
    gm = await gql.skirmish(encounter_id)
    before = await gql.version(encounter_id, gm)
    summary = await gql.data(
        "query($id: String!) { encounter(id: $id) { summary { acting } } }", gm, id=encounter_id
    )
    waiting = "goblin" if summary["encounter"]["summary"]["acting"] == ["bramli"] else "bramli"

    result = await gql.send(encounter_id, gm, {"freeform": {"endTurn": {"combatantId": waiting}}})

    assert result["__typename"] == "CommandRejected"
    assert result["code"] == "turn/not-your-turn" and result["rule"] == "freeform §3"
    assert result["status"] == 422
    assert await gql.version(encounter_id, gm) == before


async def test_a_stale_expected_version_is_a_conflict_with_expected_and_actual(gql, encounter_id):
    gm = await gql.skirmish(encounter_id)
    actual = await gql.version(encounter_id, gm)

    result = await gql.send(
        encounter_id, gm, {"freeform": {"roll": {"expression": "1d6"}}}, expectedVersion=2
    )

    assert result["code"] == "encounter/version-conflict" and result["status"] == 409
    assert result["details"] == {"expected": 2, "actual": actual}


@pytest.mark.parametrize(
    ("command", "code"),
    [
        pytest.param(
            {"delversDeep": {"fixOrder": True}}, "command/wrong-ruleset", id="other ruleset"
        ),
        pytest.param(
            {"freeform": {"roll": {"expression": ""}}}, "command/invalid", id="empty field"
        ),
        pytest.param({"freeform": {"startEncounter": False}}, "command/invalid", id="false flag"),
    ],
)
async def test_an_invalid_command_is_data(gql, encounter_id, command, code):
    gm = await gql.create(encounter_id)

    result = await gql.send(encounter_id, gm, command)

    assert result["__typename"] == "CommandRejected" and result["code"] == code
    assert await gql.version(encounter_id, gm) == 1


async def test_a_forbidden_action_and_a_bad_token_are_data(gql, encounter_id):
    gm = await gql.skirmish(encounter_id)
    observer = await gql.mint(encounter_id, gm, "observer")
    roll = {"freeform": {"roll": {"expression": "1d6"}}}

    forbidden = await gql.send(encounter_id, observer, roll)
    garbled = await gql.send(encounter_id, "fray1.nonsense.sig", roll)

    assert forbidden["code"] == "auth/forbidden" and forbidden["status"] == 403
    assert garbled["code"] == "auth/invalid-token" and garbled["status"] == 401


async def test_nested_inputs_and_aliased_fields_reach_the_rules_as_the_models_name_them(
    gql, encounter_id
):
    gm = await gql.create(encounter_id, ruleset="delvers-deep")
    grid = {
        "kind": "square",
        "width": 5,
        "height": 5,
        "terrain": [{"cell": {"x": 1, "y": 1}, "terrain": {"kind": "difficult"}}],
    }

    mapped = await gql.ok(encounter_id, gm, {"delversDeep": {"setMap": {"map": grid}}})
    placed = await gql.ok(
        encounter_id,
        gm,
        {
            "delversDeep": {
                "addCombatant": {"combatantId": "a", "name": "A", "position": {"x": 2, "y": 3}}
            }
        },
    )

    assert mapped["events"][0]["data"]["map"]["terrain"][0]["terrain"]["kind"] == "difficult"
    assert placed["events"][0]["data"]["position"] == {"x": 2, "y": 3}


# --- queries ------------------------------------------------------------------------------


async def test_an_encounter_shows_a_typed_summary_its_state_and_legal_actions(gql, encounter_id):
    gm = await gql.skirmish(encounter_id)
    query = """query($id: String!) { encounter(id: $id) {
        id ruleset version state
        summary {
          round phase acting
          combatants { id name side health { current max } position { x } }
        }
        legalActions { type label actor }
    } }"""

    encounter = (await gql.data(query, gm, id=encounter_id))["encounter"]

    assert encounter["ruleset"] == "freeform" and encounter["summary"]["round"] == 1
    names = {c["id"]: c["name"] for c in encounter["summary"]["combatants"]}
    assert names == {"bramli": "Bramli", "goblin": "Goblin"}
    assert "bramli" in encounter["state"]["table"]["combatants"]
    assert {"end-turn", "roll"} <= {a["type"] for a in encounter["legalActions"]}


async def test_a_legal_action_carries_its_commands_parameter_schema(gql, encounter_id):
    gm = await gql.skirmish(encounter_id)
    query = """query($id: String!) { encounter(id: $id) { legalActions { type paramsSchema } } }"""

    actions = (await gql.data(query, gm, id=encounter_id))["encounter"]["legalActions"]

    (roll,) = [a["paramsSchema"] for a in actions if a["type"] == "roll"]
    assert roll["required"] == ["expression"]
    assert "type" not in roll["properties"] and "expression" in roll["properties"]


async def test_events_page_with_cursors(gql, encounter_id):
    gm = await gql.skirmish(encounter_id)
    total = await gql.version(encounter_id, gm)

    first = (await gql.data(EVENTS, gm, id=encounter_id, first=2))["encounter"]["events"]
    after = first["pageInfo"]["endCursor"]
    rest = (await gql.data(EVENTS, gm, id=encounter_id, after=after, first=100))["encounter"][
        "events"
    ]

    versions = [e["node"]["version"] for e in first["edges"] + rest["edges"]]
    assert versions == list(range(1, total + 1))
    assert first["pageInfo"]["hasNextPage"] is True and rest["pageInfo"]["hasNextPage"] is False
    assert [e["cursor"] for e in first["edges"]] == ["1", "2"]


async def test_a_player_does_not_see_the_gms_hidden_roll_in_events(gql, encounter_id):
    gm = await gql.skirmish(encounter_id)
    player = await gql.mint(encounter_id, gm, "player", "bramli")
    secret = {"freeform": {"roll": {"expression": "1d20", "purpose": "stealth", "hidden": True}}}
    hidden = (await gql.ok(encounter_id, gm, secret))["version"]
    await gql.ok(encounter_id, gm, {"freeform": {"roll": {"expression": "1d4", "purpose": "open"}}})

    seen = {
        who: [
            e["node"]["version"]
            for e in (await gql.data(EVENTS, token, id=encounter_id, first=100))["encounter"][
                "events"
            ]["edges"]
        ]
        for who, token in (("gm", gm), ("player", player))
    }

    assert hidden in seen["gm"] and hidden not in seen["player"]
    assert hidden + 1 in seen["player"]


async def test_an_unknown_encounter_and_a_missing_credential_are_errors_with_codes(
    gql, encounter_id
):
    missing = await gql.run(VERSION, None, id=encounter_id)
    unknown = await gql.run(VERSION, KEY, id=encounter_id)

    assert missing["errors"][0]["extensions"]["code"] == "auth/missing"
    assert unknown["errors"][0]["extensions"]["code"] == "encounter/not-found"


async def test_graphiql_is_served_to_a_browser(gql):
    response = await gql.client.get("/graphql", headers={"Accept": "text/html"})

    assert response.status_code == 200 and "graphiql" in response.text.lower()


# --- limits -------------------------------------------------------------------------------


async def test_a_query_nested_too_deep_is_refused(gql):
    nested = "{ round }"
    for _ in range(MAX_DEPTH):
        nested = f"{{ summary {nested} }}"

    body = await gql.run(f'query TooDeep {{ encounter(id: "x") {nested} }}')

    assert body["data"] is None
    assert "exceeds maximum operation depth" in body["errors"][0]["message"]


async def test_the_deepest_real_query_is_within_the_depth_limit(gql, encounter_id):
    gm = await gql.skirmish(encounter_id)
    query = """query($id: String!) { encounter(id: $id) {
        summary { combatants { position { x } } }
        events(first: 1) { edges { node { version } } }
    } }"""

    assert (await gql.data(query, gm, id=encounter_id))["encounter"]


async def test_too_many_aliases_are_refused(gql):
    aliased = " ".join(f"r{i}: rulesets {{ name }}" for i in range(50))

    body = await gql.run(f"{{ {aliased} }}")

    assert body["data"] is None and "aliases" in body["errors"][0]["message"]


async def test_too_many_tokens_are_refused(gql):
    body = await gql.run("{ " + "rulesets { name } " * (MAX_TOKENS // 4 + 1) + "}")

    assert body["data"] is None and "token" in body["errors"][0]["message"].lower()


async def test_a_command_naming_two_rulesets_is_refused_before_any_resolver_runs(gql):
    body = await gql.run(
        'mutation { submitCommand(encounterId: "e", command: '
        "{freeform: {endEncounter: {}}, fiftyTwo: {endTurn: {}}}) { __typename } }"
    )

    assert body["data"] is None
    (error,) = body["errors"]
    assert "exactly one" in error["message"] and "path" not in error


# --- subscriptions over HTTP ----------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "operation"),
    [
        ('subscription { encounterEvents(encounterId: "e1") { version } }', None),
        (
            'query Q { rulesets { name } } subscription S { encounterEvents(encounterId: "e1") '
            "{ version } }",
            "S",
        ),
    ],
)
async def test_a_subscription_sent_over_http_is_refused_with_its_code(gql, query, operation):
    response = await gql.client.post(
        "/graphql", json={"query": query, "operationName": operation}, headers=bearer(KEY)
    )

    assert response.status_code == 200
    (error,) = response.json()["errors"]
    assert error["extensions"] == {"code": "request/subscription-over-http", "status": 400}
    assert "websocket" in error["message"]


async def test_a_query_beside_a_subscription_still_runs_over_http(gql):
    query = 'query Q { rulesets { name } } subscription S { encounterEvents(encounterId: "e1") { version } }'  # noqa: E501
    response = await gql.client.post("/graphql", json={"query": query, "operationName": "Q"})

    assert response.status_code == 200
    assert "freeform" in {r["name"] for r in response.json()["data"]["rulesets"]}
