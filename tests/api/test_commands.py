"""Sending commands: the response, idempotent retries, versions."""

from __future__ import annotations

import pytest

from tests.api.conftest import KEY, Api, bearer

pytestmark = pytest.mark.anyio


async def test_creating_an_encounter_answers_201_with_location_and_a_gm_token(
    api: Api, encounter_id: str
) -> None:
    response = await api.client.post(
        "/v1/encounters",
        json={
            "ruleset": "freeform",
            "encounter_id": encounter_id,
            "title": "Bridge",
            "seed": "ab" * 32,
        },
        headers=bearer(KEY),
    )
    assert response.status_code == 201
    assert response.headers["location"] == f"/v1/encounters/{encounter_id}"
    body = response.json()
    assert body["encounter_id"] == encounter_id and body["version"] == 1
    assert body["gm_token"].startswith("fray1.")
    seed = await api.get(f"/v1/encounters/{encounter_id}/seed", body["gm_token"])
    assert seed.json()["seed"] == "ab" * 32


async def test_a_server_assigned_encounter_id(api: Api) -> None:
    response = await api.client.post(
        "/v1/encounters", json={"ruleset": "freeform"}, headers=bearer(KEY)
    )
    assert response.status_code == 201 and len(response.json()["encounter_id"]) == 32


async def test_an_accepted_command_answers_201_with_its_events(api: Api, encounter_id: str) -> None:
    gm = await api.skirmish(encounter_id)
    response = await api.send(
        encounter_id, gm, {"type": "roll", "expression": "2d6"}, expected_version=8
    )
    assert response.status_code == 201
    body = response.json()
    assert body["version"] == 9 and body["duplicate"] is False
    assert [e["version"] for e in body["events"]] == [9]
    assert body["events"][0]["type"] == "dice-rolled"


async def test_an_idempotent_retry_returns_200_with_the_first_outcome(
    api: Api, encounter_id: str
) -> None:
    gm = await api.skirmish(encounter_id)
    command = {"type": "roll", "expression": "1d100"}
    first = await api.send(encounter_id, gm, command, command_id="retry-me")
    again = await api.send(encounter_id, gm, command, command_id="retry-me")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["duplicate"] is True
    assert again.json()["events"] == first.json()["events"]
    assert again.json()["command_id"] == "retry-me"
    events = (await api.get(f"/v1/encounters/{encounter_id}/events", gm)).json()["events"]
    assert [e["command_id"] for e in events].count("retry-me") == 1


async def test_as_of_reads_an_earlier_version(api: Api, encounter_id: str) -> None:
    gm = await api.skirmish(encounter_id)
    response = await api.get(f"/v1/encounters/{encounter_id}", gm, as_of=2)
    body = response.json()
    assert body["version"] == 2
    assert list(body["state"]["table"]["combatants"]) == ["bramli"]


async def test_legal_actions_for_the_acting_player(api: Api, encounter_id: str) -> None:
    gm = await api.skirmish(encounter_id)
    summary = (await api.get(f"/v1/encounters/{encounter_id}", gm)).json()["summary"]
    player = await api.mint(encounter_id, "player", summary["acting"][0])
    response = await api.get(f"/v1/encounters/{encounter_id}/legal-actions", player)
    body = response.json()
    assert body["version"] == 8
    assert "end-turn" in {a["type"] for a in body["actions"]}
