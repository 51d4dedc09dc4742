"""`Encounter.narration` in GraphQL: REST's `GET .../narration`, paged as `events`."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.conftest import KEY, Api, bearer
from tests.api.outsider import shows
from tests.api.test_hidden_health import BLOW, Fight, fifty_two

pytestmark = pytest.mark.anyio

NARRATION = """query($id: String!, $asOf: Int, $after: String, $first: Int!) {
  encounter(id: $id, asOf: $asOf) {
    narration(after: $after, first: $first) {
      edges { cursor node { version type at text } }
      nodes { text }
      pageInfo { hasNextPage endCursor }
    }
  }
}"""


async def run(api: Api, credential: str, **variables: Any) -> Any:
    variables.setdefault("first", 100)
    response = await api.client.post(
        "/graphql", json={"query": NARRATION, "variables": variables}, headers=bearer(credential)
    )
    assert response.status_code == 200, response.text
    return response.json()


async def narration(api: Api, credential: str, **variables: Any) -> Any:
    body = await run(api, credential, **variables)
    assert "errors" not in body, body["errors"]
    return body["data"]["encounter"]["narration"]


async def test_the_lines_are_rests_page_by_page(api: Api, encounter_id: str) -> None:
    gm = await api.skirmish(encounter_id)
    rest = (await api.get(f"/v1/encounters/{encounter_id}/narration", gm)).json()["lines"]
    seen: list[dict[str, Any]] = []
    after: str | None = None
    while True:
        page = await narration(api, gm, id=encounter_id, after=after, first=3)
        seen += [edge["node"] for edge in page["edges"]]
        assert [edge["cursor"] for edge in page["edges"]] == [
            str(edge["node"]["version"]) for edge in page["edges"]
        ]
        assert [n["text"] for n in page["nodes"]] == [e["node"]["text"] for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert seen == rest and len(seen) == 8


async def test_as_of_a_version_the_narration_stops_there(api: Api, encounter_id: str) -> None:
    gm = await api.skirmish(encounter_id)
    page = await narration(api, gm, id=encounter_id, asOf=3)
    assert [n["text"] for n in page["nodes"]] == [
        "A freeform encounter was created.",
        "Bramli joined the heroes.",
        "Goblin joined the goblins.",
    ]
    assert page["pageInfo"] == {"hasNextPage": False, "endCursor": "3"}


async def test_a_player_reads_the_blow_without_the_enemys_health(
    api: Api, encounter_id: str
) -> None:
    fight = Fight(api, encounter_id)
    await fifty_two(fight)
    observer = await api.mint(encounter_id, "observer")
    told: dict[str, list[str]] = {}
    for who, credential in (("gm", fight.gm), ("player", fight.player), ("observer", observer)):
        page = await narration(api, credential, id=encounter_id)
        told[who] = [n["text"] for n in page["nodes"]]
    assert "Hero surprises Brute for 4321 damage." in told["gm"]
    for who in ("player", "observer"):
        assert "Hero surprises Brute." in told[who], who
        text = "\n".join(told[who])
        assert [label for label, number in BLOW.items() if shows(text, number)] == [], who


@pytest.mark.parametrize(
    ("variables", "code"),
    [
        pytest.param({"first": 0}, "request/invalid", id="first 0"),
        pytest.param({"first": 1001}, "request/invalid", id="first over 1000"),
        pytest.param({"after": "v2"}, "request/invalid", id="a cursor this API did not give"),
    ],
)
async def test_a_bad_page_is_an_error_with_a_code(
    api: Api, encounter_id: str, variables: dict[str, Any], code: str
) -> None:
    gm = await api.skirmish(encounter_id)
    body = await run(api, gm, id=encounter_id, **variables)
    assert body["errors"][0]["extensions"]["code"] == code


async def test_an_unknown_encounter_and_another_encounters_token_are_refused(
    api: Api, encounter_id: str
) -> None:
    gm = await api.skirmish(encounter_id)
    other = await api.create(f"{encounter_id}-other")
    unknown = await run(api, KEY, id="nope")
    foreign = await run(api, other, id=encounter_id)
    assert unknown["errors"][0]["extensions"]["code"] == "encounter/not-found"
    assert foreign["errors"][0]["extensions"]["code"] == "auth/forbidden"
    after = await narration(api, gm, id=encounter_id)
    assert len(after["nodes"]) == 8  # nothing was appended by the refusals
