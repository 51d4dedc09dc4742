"""Ids: one pattern for encounters and combatants, and encounter ids per tenant, so that
another tenant's encounter is exactly as unknown as one never created."""

from __future__ import annotations

import pytest

from tests.api.conftest import KEY, RIVAL_KEY, Api, bearer

pytestmark = pytest.mark.anyio

BAD_IDS = [
    pytest.param("../../etc/passwd", id="a path"),
    pytest.param("a/b", id="a slash"),
    pytest.param("ford\n", id="a newline"),
    pytest.param("for\x00d", id="a NUL"),
    pytest.param("-ford", id="a leading dash"),
    pytest.param("f" * 65, id="65 characters"),
    pytest.param("caf\u00e9", id="a letter outside ASCII"),
    pytest.param("{ford}", id="braces"),
    pytest.param("", id="empty"),
]


@pytest.mark.parametrize("bad", BAD_IDS)
async def test_an_encounter_id_outside_the_pattern_is_a_bad_id(
    api: Api, encounter_id: str, bad: str
) -> None:
    response = await api.client.post(
        "/v1/encounters",
        json={"ruleset": "freeform", "encounter_id": bad},
        headers=bearer(KEY),
    )

    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "request/bad-id"
    assert "letters, digits" in error["message"]


@pytest.mark.parametrize("good", ["Ford.2~b_c-d", "7", "f" * 64])
async def test_an_id_inside_the_pattern_is_its_own_location(api: Api, good: str) -> None:
    created = await api.client.post(
        "/v1/encounters",
        json={"ruleset": "freeform", "encounter_id": good},
        headers=bearer(KEY),
    )

    assert created.status_code == 201, created.text
    location = created.headers["location"]
    assert location == f"/v1/encounters/{good}"
    assert (await api.get(location, KEY)).status_code == 200


async def test_two_tenants_may_both_have_an_encounter_with_the_same_id(
    api: Api, encounter_id: str
) -> None:
    for key, title in ((KEY, "acme's"), (RIVAL_KEY, "rival's")):
        created = await api.client.post(
            "/v1/encounters",
            json={"ruleset": "freeform", "encounter_id": encounter_id, "title": title},
            headers=bearer(key),
        )
        assert created.status_code == 201, created.text

    for key, title in ((KEY, "acme's"), (RIVAL_KEY, "rival's")):
        events = await api.get(f"/v1/encounters/{encounter_id}/events", key)
        assert events.json()["events"][0]["data"]["title"] == title


async def test_another_tenants_encounter_is_answered_as_an_unknown_one(
    api: Api, encounter_id: str
) -> None:
    await api.create(encounter_id)
    never = f"{encounter_id}-never"

    for path in ("", "/events", "/legal-actions", "/export"):
        theirs = await api.get(f"/v1/encounters/{encounter_id}{path}", RIVAL_KEY)
        unknown = await api.get(f"/v1/encounters/{never}{path}", RIVAL_KEY)
        assert theirs.status_code == unknown.status_code == 404
        assert theirs.json()["error"]["code"] == unknown.json()["error"]["code"]
        assert (
            theirs.json()["error"]["message"].replace(encounter_id, never)
            == (unknown.json()["error"]["message"])
        )
    sent = await api.send(encounter_id, RIVAL_KEY, {"type": "roll", "expression": "1d6"})
    assert sent.status_code == 404


async def test_a_combatant_id_outside_the_pattern_is_a_bad_id(api: Api, encounter_id: str) -> None:
    gm = await api.create(encounter_id)

    refused = await api.send(
        encounter_id, gm, {"type": "add-combatant", "combatant_id": "a/b", "name": "Odd"}
    )
    accepted = await api.send(
        encounter_id, gm, {"type": "add-combatant", "combatant_id": "Goblin.2", "name": "Gob"}
    )

    assert refused.status_code == 400, refused.text
    assert refused.json()["error"]["code"] == "request/bad-id"
    assert accepted.status_code == 201, accepted.text
