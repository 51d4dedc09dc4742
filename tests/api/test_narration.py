"""The event log as sentences (`GET .../narration`): the page `/events` answers, each event
told by its ruleset from the copy the viewer is sent."""

from __future__ import annotations

import pytest

from tests.api.conftest import KEY, RIVAL_KEY, Api
from tests.api.outsider import shows
from tests.api.test_events import PAGES
from tests.api.test_hidden_health import BLOW, Fight, fifty_two

pytestmark = pytest.mark.anyio

SKIRMISH = [
    "A freeform encounter was created.",
    "Bramli joined the heroes.",
    "Goblin joined the goblins.",
]


def narration(encounter_id: str) -> str:
    return f"/v1/encounters/{encounter_id}/narration"


@pytest.mark.parametrize(("after", "limit", "versions", "has_more"), PAGES)
async def test_narration_pages_as_events_do(
    api: Api, encounter_id: str, after: int, limit: int, versions: list[int], has_more: bool
) -> None:
    gm = await api.skirmish(encounter_id)  # 8 events; the roll is the 9th
    await api.ok(encounter_id, gm, {"type": "roll", "expression": "1d6"})
    body = (await api.get(narration(encounter_id), gm, after=after, limit=limit)).json()
    assert [line["version"] for line in body["lines"]] == versions
    assert body["has_more"] is has_more
    assert body["next_after"] == (versions[-1] if versions else after)


async def test_each_line_is_the_rulesets_sentence_with_the_events_type_and_time(
    api: Api, encounter_id: str
) -> None:
    gm = await api.skirmish(encounter_id)
    rolled = await api.ok(encounter_id, gm, {"type": "roll", "expression": "1d6"})
    lines = (await api.get(narration(encounter_id), gm)).json()["lines"]
    events = (await api.get(f"/v1/encounters/{encounter_id}/events", gm)).json()["events"]
    assert [line["text"] for line in lines[:3]] == SKIRMISH
    assert [(line["version"], line["type"], line["at"]) for line in lines] == [
        (e["version"], e["type"], e["at"]) for e in events
    ]
    (roll,) = rolled["events"]
    assert lines[-1]["text"] == f"{roll['data']['by']} rolled {roll['data']['text']}."


async def test_a_player_and_an_observer_read_a_blow_without_the_enemys_health(
    api: Api, encounter_id: str
) -> None:
    fight = Fight(api, encounter_id)
    await fifty_two(fight)  # the hero's surprise attack on the brute, for 4321
    observer = await api.mint(encounter_id, "observer")
    credentials = {"gm": fight.gm, "player": fight.player, "observer": observer}
    read = {
        who: (await api.get(narration(encounter_id), credential)).json()["lines"]
        for who, credential in credentials.items()
    }
    blow = {who: [line["text"] for line in lines if line["type"] == "surprise-attacked"]
            for who, lines in read.items()}  # fmt: skip
    assert blow == {
        "gm": ["Hero surprises Brute for 4321 damage."],
        "player": ["Hero surprises Brute."],
        "observer": ["Hero surprises Brute."],
    }
    for who in ("player", "observer"):
        text = "\n".join(line["text"] for line in read[who])
        assert [label for label, number in BLOW.items() if shows(text, number)] == [], who
        # The brute's hit points changing is not told to them at all, as in /events.
        path = f"/v1/encounters/{encounter_id}/events"
        events = (await api.get(path, credentials[who])).json()
        assert [line["version"] for line in read[who]] == [e["version"] for e in events["events"]]
    gm_text = "\n".join(line["text"] for line in read["gm"])
    assert shows(gm_text, BLOW["hp"]) and shows(gm_text, BLOW["hp after the blow"])


async def _refusals(api: Api, encounter_id: str, gm: str) -> list[tuple[str, str, dict[str, str]]]:
    other = f"{encounter_id}-other"
    other_gm = await api.create(other)
    return [
        ("unknown encounter", "/v1/encounters/nope", {"Authorization": f"Bearer {KEY}"}),
        ("another tenant", f"/v1/encounters/{encounter_id}",
         {"Authorization": f"Bearer {RIVAL_KEY}"}),
        ("a token for another encounter", f"/v1/encounters/{encounter_id}",
         {"Authorization": f"Bearer {other_gm}"}),
        ("no credential", f"/v1/encounters/{encounter_id}", {}),
        ("a forged token", f"/v1/encounters/{encounter_id}", {"Authorization": "Bearer x.y.z"}),
    ]  # fmt: skip


async def test_refusals_are_the_ones_events_answers_and_change_nothing(
    api: Api, encounter_id: str
) -> None:
    gm = await api.skirmish(encounter_id)
    before = (await api.get(f"/v1/encounters/{encounter_id}/events", gm)).json()
    for why, path, headers in await _refusals(api, encounter_id, gm):
        told = await api.client.get(f"{path}/narration", headers=headers)
        events = await api.client.get(f"{path}/events", headers=headers)
        assert told.status_code == events.status_code and told.status_code >= 400, why
        assert told.json() == events.json(), why
    after = (await api.get(f"/v1/encounters/{encounter_id}/events", gm)).json()
    assert after == before


@pytest.mark.parametrize(
    ("params", "message"),
    [
        pytest.param({"limit": 0}, "limit", id="limit 0"),
        pytest.param({"limit": 1001}, "limit", id="limit over 1000"),
        pytest.param({"after": -1}, "after", id="negative after"),
        pytest.param({"after": "two"}, "after", id="after not a number"),
    ],
)
async def test_a_bad_page_is_refused_as_events_refuses_it(
    api: Api, encounter_id: str, params: dict[str, object], message: str
) -> None:
    gm = await api.skirmish(encounter_id)
    told = await api.get(narration(encounter_id), gm, **params)
    events = await api.get(f"/v1/encounters/{encounter_id}/events", gm, **params)
    assert told.status_code == 400, told.text
    assert told.json() == events.json()
    error = told.json()["error"]
    assert error["code"] == "request/invalid" and message in error["message"]


async def test_a_stream_ticket_does_not_read_the_narration(api: Api, encounter_id: str) -> None:
    gm = await api.skirmish(encounter_id)
    minted = await api.client.post(
        f"/v1/encounters/{encounter_id}/stream-tickets", headers={"Authorization": f"Bearer {gm}"}
    )
    ticket = minted.json()["ticket"]
    response = await api.client.get(narration(encounter_id), params={"ticket": ticket})
    assert response.status_code == 401, response.text
    assert response.json()["error"]["code"] == "auth/missing"
