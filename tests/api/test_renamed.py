"""One name for each concept across REST and GraphQL (issue 23 item 7), the old GraphQL
names kept as deprecated aliases that answer the same: a reaction window's `eligible`
(`waitingFor` before), and the version a subscription resumes after, `after` (the
subscription's `afterVersion` before; `after` in REST and in `Encounter.events`); a
window's `window_id` in the summary, as in `answer-reaction` and the window's events (its
`id` before; issue 27)."""

from __future__ import annotations

from typing import Any

import pytest
from graphql import GraphQLObjectType

from service.api.graphql.schema import build_schema
from service.api.openapi import build_openapi
from tests.api.conftest import Api, bearer

WINDOWS = """query($id: String!) {
  encounter(id: $id) { summary { reactionWindows { id windowId eligible waitingFor } } }
}"""


async def _an_open_window(api: Api, encounter_id: str) -> tuple[str, str]:
    """A freeform fight where the acting combatant readied an action and the GM called
    for readied actions: a window waits on that combatant. The GM token and its id."""
    gm = await api.skirmish(encounter_id)
    summary = (await api.get(f"/v1/encounters/{encounter_id}", gm)).json()["summary"]
    acting = summary["acting"][0]
    ready = {"type": "ready", "combatant_id": acting, "action": "strike", "trigger": "it moves"}
    await api.ok(encounter_id, gm, ready)
    await api.ok(encounter_id, gm, {"type": "call-for-readied", "trigger": "it moves"})
    return gm, acting


@pytest.mark.anyio
async def test_a_window_lists_who_may_answer_as_eligible_with_their_options(api: Api) -> None:
    gm, acting = await _an_open_window(api, "renamed-rest")

    summary = (await api.get("/v1/encounters/renamed-rest", gm)).json()["summary"]

    (window,) = summary["reaction_windows"]
    assert list(window["eligible"]) == [acting] == window["waiting_for"]
    assert window["window_id"] == window["id"] == "w1"
    assert "pass" in window["eligible"][acting]


@pytest.mark.anyio
async def test_graphql_answers_the_deprecated_waiting_for_as_eligibles_keys(api: Api) -> None:
    gm, acting = await _an_open_window(api, "renamed-graphql")

    response = await api.client.post(
        "/graphql",
        json={"query": WINDOWS, "variables": {"id": "renamed-graphql"}},
        headers=bearer(gm),
    )

    body: Any = response.json()
    assert "errors" not in body, body
    (window,) = body["data"]["encounter"]["summary"]["reactionWindows"]
    assert list(window["eligible"]) == [acting] == window["waitingFor"]
    assert window["windowId"] == window["id"] == "w1"


def test_the_old_graphql_names_are_deprecated_in_favour_of_the_new() -> None:
    schema = build_schema()._schema
    window = schema.type_map["Window"]
    assert isinstance(window, GraphQLObjectType)
    assert "`eligible`" in (window.fields["waitingFor"].deprecation_reason or "")
    assert window.fields["eligible"].deprecation_reason is None
    assert "`window_id`" in (window.fields["id"].deprecation_reason or "")
    assert window.fields["windowId"].deprecation_reason is None
    assert schema.subscription_type is not None
    arguments = schema.subscription_type.fields["encounterEvents"].args
    assert "`after`" in (arguments["afterVersion"].deprecation_reason or "")
    assert arguments["after"].deprecation_reason is None


def test_openapi_marks_waiting_for_deprecated() -> None:
    window = build_openapi()["components"]["schemas"]["WindowView"]["properties"]
    assert window["waiting_for"].get("deprecated") is True
    assert "deprecated" not in window["eligible"]
    assert window["id"].get("deprecated") is True
    assert "deprecated" not in window["window_id"]
