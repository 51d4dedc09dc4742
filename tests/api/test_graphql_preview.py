"""`previewCommand`: REST's preview in GraphQL, the same shape, nothing appended."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from service.domain.draws import draw
from tests.api.conftest import KEY, settings_for
from tests.api.test_graphql import Gql, serving

pytestmark = pytest.mark.anyio

SEED = bytes(range(32))
PREVIEW = """
mutation Preview($encounterId: String!, $command: CommandInput!, $expectedVersion: Int) {
  previewCommand(encounterId: $encounterId, command: $command,
                 expectedVersion: $expectedVersion) {
    accepted version rolled duplicate
    events { version type data rolls }
    error { code message rule details status }
  }
}"""
ROLL = {"freeform": {"roll": {"expression": "8d1000"}}}


@pytest.fixture
async def gql(redis_url: str) -> AsyncIterator[Gql]:
    async with serving(settings_for(redis_url)) as client:
        yield client


async def preview(gql: Gql, encounter_id: str, credential: str, **variables: Any) -> Any:
    data = await gql.data(PREVIEW, credential, encounterId=encounter_id, **variables)
    return data["previewCommand"]


async def test_a_preview_answers_the_events_and_appends_nothing(gql: Gql, encounter_id: str):
    gm = await gql.skirmish(encounter_id)
    before = await gql.version(encounter_id, gm)

    previewed = await preview(gql, encounter_id, gm, command={"freeform": {"endTurn": {}}})

    assert previewed["accepted"] is True and previewed["error"] is None
    assert previewed["version"] == before and previewed["rolled"] is False
    assert previewed["events"][0]["version"] == before + 1
    assert await gql.version(encounter_id, gm) == before
    sent = await gql.ok(encounter_id, gm, {"freeform": {"endTurn": {}}})
    assert [(e["type"], e["data"]) for e in previewed["events"]] == [
        (e["type"], e["data"]) for e in sent["events"]
    ]


async def test_a_refused_preview_is_the_rejection_submit_command_answers(
    gql: Gql, encounter_id: str
):
    gm = await gql.skirmish(encounter_id)
    stale = {"command": ROLL, "expectedVersion": 2}

    previewed = await preview(gql, encounter_id, gm, **stale)
    sent = await gql.send(encounter_id, gm, ROLL, expectedVersion=2)

    assert previewed["accepted"] is False and previewed["events"] == []
    rejected = {k: sent[k] for k in ("code", "message", "rule", "details", "status")}
    assert previewed["error"] == rejected
    assert rejected["code"] == "encounter/version-conflict"


async def test_a_rolled_preview_draws_from_a_throwaway_seed(gql: Gql, encounter_id: str):
    created = await gql.data(
        "mutation($input: CreateEncounterInput!) { createEncounter(input: $input) { gmToken } }",
        KEY,
        input={"ruleset": "freeform", "encounterId": encounter_id, "seed": SEED.hex()},
    )
    gm = created["createEncounter"]["gmToken"]
    real = [draw(SEED, 2, n, 1000) + 1 for n in range(8)]

    previewed = await preview(gql, encounter_id, gm, command=ROLL)

    assert previewed["rolled"] is True
    assert [r["value"] for e in previewed["events"] for r in e["rolls"]] != real


TABLE_PREVIEW = """
mutation Preview($encounterId: String!, $command: CommandInput!, $dice: [Int!]) {
  previewCommand(encounterId: $encounterId, command: $command, dice: $dice) {
    accepted rolls
    diceNeeded { sides expression purpose roller }
    error { code details }
  }
}"""


async def test_a_preview_lists_the_table_dice_still_needed_and_the_dice_used(
    gql: Gql, encounter_id: str
):
    """The same application call as REST's preview (`Encounters.preview`): `diceNeeded` on
    a refusal for missing table dice, `rolls` when accepted."""
    created = await gql.data(
        "mutation($input: CreateEncounterInput!) { createEncounter(input: $input) { gmToken } }",
        KEY,
        input={"ruleset": "freeform", "encounterId": encounter_id, "options": {"dice": "table"}},
    )
    gm = created["createEncounter"]["gmToken"]
    roll = {"freeform": {"roll": {"expression": "3d6", "purpose": "fireball"}}}

    missing = await gql.data(TABLE_PREVIEW, gm, encounterId=encounter_id, command=roll, dice=[4])
    used = await gql.data(TABLE_PREVIEW, gm, encounterId=encounter_id, command=roll, dice=[4, 5, 6])

    refused = missing["previewCommand"]
    die = {"sides": 6, "expression": "3d6", "purpose": "fireball", "roller": "gm"}
    assert refused["accepted"] is False and refused["diceNeeded"] == [die, die]
    assert refused["error"]["code"] == "dice/table-dice-missing"
    assert refused["error"]["details"] == {"needed": [die, die]}
    accepted = used["previewCommand"]
    assert accepted["accepted"] is True and accepted["diceNeeded"] is None
    assert [r["value"] for r in accepted["rolls"]] == [4, 5, 6]
