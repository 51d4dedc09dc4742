"""Hidden information per role: hidden rolls and notes, hidden enemy health, GM overrides."""

from __future__ import annotations

import httpx
import orjson
import pytest

from service.domain.canonical import canonical_bytes
from tests.api.conftest import Api, bearer, running, served, settings_for, sse_events
from tests.api.helpers import Fight, fight

pytestmark = pytest.mark.anyio

SECRET_NOTE = "the-ambush-is-at-dawn"


async def with_secrets(api: Api, encounter_id: str) -> Fight:
    f = await fight(api, encounter_id, hide_enemy_health=True, gm_overrides="hidden")
    await api.ok(encounter_id, f.gm, {"type": "roll", "expression": "1d20", "hidden": True,
                                      "purpose": "secret-check"})  # fmt: skip
    await api.ok(encounter_id, f.gm, {"type": "add-note", "text": SECRET_NOTE, "hidden": True})
    await api.ok(encounter_id, f.gm, {"type": "adjust-resource", "combatant_id": "goblin",
                                      "delta": -3, "reason": "fudge"})  # fmt: skip
    return f


def hero_player(f: Fight) -> str:
    return f.acting_player if f.acting == "bramli" else f.waiting_player


def leaks(text: str) -> list[str]:
    found = []
    for marker in (SECRET_NOTE, "secret-check", "fudge"):
        if marker in text:
            found.append(marker)
    return found


@pytest.fixture
async def secrets_fight(api: Api, encounter_id: str) -> Fight:
    return await with_secrets(api, encounter_id)


@pytest.mark.parametrize("role", ["player", "observer"])
async def test_hidden_things_stay_out_of_a_players_reads(secrets_fight: Fight, role: str) -> None:
    f = secrets_fight
    credential = hero_player(f) if role == "player" else f.observer
    for path in ("", "/events", "/export", "/legal-actions"):
        response = await f.api.get(f"{f.path}{path}", credential)
        assert response.status_code == 200
        assert leaks(response.text) == [], path
    view = (await f.api.get(f.path, credential)).json()
    goblin = next(c for c in view["summary"]["combatants"] if c["id"] == "goblin")
    assert goblin["health"] is None and goblin["pools"] == {}
    assert goblin["health_word"] == "wounded"  # 4 of 7
    assert view["state"]["table"]["combatants"]["goblin"]["pools"] == {}
    assert view["state"]["table"]["notes"] == []
    events = (await f.api.get(f"{f.path}/events", credential)).json()["events"]
    types = [e["type"] for e in events]
    assert "note-added" not in types and "resource-adjusted" not in types
    assert all(not e["data"].get("hidden") for e in events)


@pytest.mark.parametrize("role", ["gm", "auditor"])
async def test_gm_and_auditor_see_everything(secrets_fight: Fight, role: str) -> None:
    f = secrets_fight
    credential = f.gm if role == "gm" else f.auditor
    for path in ("/events", "/export"):
        response = await f.api.get(f"{f.path}{path}", credential)
        assert sorted(leaks(response.text)) == ["fudge", "secret-check", SECRET_NOTE], path
    assert SECRET_NOTE in (await f.api.get(f.path, credential)).text
    view = (await f.api.get(f.path, credential)).json()
    goblin = next(c for c in view["summary"]["combatants"] if c["id"] == "goblin")
    assert goblin["health"] == {"current": 4, "max": 7}


async def test_the_export_is_ndjson_and_redacted_per_viewer(secrets_fight: Fight) -> None:
    f = secrets_fight
    full = await f.api.get(f"{f.path}/export", f.auditor)
    partial = await f.api.get(f"{f.path}/export", hero_player(f))
    assert full.headers["content-type"].startswith("application/x-ndjson")
    full_header, *full_lines = [orjson.loads(line) for line in full.text.splitlines()]
    partial_header, *partial_lines = [orjson.loads(line) for line in partial.text.splitlines()]
    assert full_header["fray_export"] == partial_header["fray_export"] == 1
    assert [e["version"] for e in full_lines] == list(range(1, len(full_lines) + 1))
    assert [e["version"] for e in partial_lines] == [e["version"] for e in full_lines]
    assert sum(1 for e in partial_lines if e.get("left_out")) == 3


async def test_a_players_export_has_a_line_per_version_saying_what_was_hidden(
    secrets_fight: Fight,
) -> None:
    """docs/audit.md, "A player's export": an event seen whole is its stored line, one with
    hidden parts names them in `redacted`, one left out is a stub with its version only."""
    f = secrets_fight
    full = (await f.api.get(f"{f.path}/export", f.auditor)).content.splitlines()[1:]
    partial = (await f.api.get(f"{f.path}/export", hero_player(f))).content.splitlines()[1:]
    kinds = []
    for stored, shown in zip(full, partial, strict=True):
        envelope, seen = orjson.loads(stored), orjson.loads(shown)
        if shown == stored:
            kinds.append("whole")
        elif seen.get("left_out"):
            assert seen == {"left_out": True, "version": envelope["version"]}
            kinds.append(envelope["type"])
        else:
            assert seen["redacted"] == ["command", "data", "salt"], seen
            kept = ("actor", "at", "command_id", "hash", "prev_hash", "rolls", "type", "version")
            assert {k: seen[k] for k in kept} == {k: envelope[k] for k in kept}
            assert shown == canonical_bytes(seen)
            kinds.append(f"{envelope['type']} ({envelope['data']['combatant_id']}): hidden")
    assert [k for k in kinds if k != "whole"] == [
        "combatant-added (goblin): hidden",
        "dice-rolled",
        "note-added",
        "resource-adjusted",
    ]


async def test_a_command_response_is_redacted_for_the_sender(secrets_fight: Fight) -> None:
    f = secrets_fight
    command = {"type": "adjust-resource", "combatant_id": "goblin", "delta": -1}
    gm = await f.api.send(f.encounter_id, f.gm, command)
    assert [e["type"] for e in gm.json()["events"]] == ["resource-adjusted"]
    player = await f.api.send(f.encounter_id, hero_player(f), {"type": "roll", "expression": "1d4"})
    assert player.status_code == 201, player.text
    assert [e["type"] for e in player.json()["events"]] == ["dice-rolled"]


async def test_sse_hides_what_the_viewer_may_not_see(redis_url: str, encounter_id: str) -> None:
    settings = settings_for(redis_url)
    async with running(settings) as api:
        f = await with_secrets(api, encounter_id)
        async with served(settings) as url, httpx.AsyncClient() as client:
            player = await sse_events(
                client, f"{url}{f.path}/events?follow=true", bearer(hero_player(f)), 8
            )
            gm = await sse_events(client, f"{url}{f.path}/events?follow=true", bearer(f.gm), 11)
    assert leaks(str(player)) == []
    assert [int(e["id"]) for e in player] == list(range(1, 9))
    assert sorted(leaks(str(gm))) == ["fudge", "secret-check", SECRET_NOTE]
