"""A hidden value cannot be guessed back from its event's hash (docs/audit.md, "The salt"),
against `fray serve` as a real process.

The attack: with `hide_enemy_health`, a player sees the goblin's `combatant-added` with its
hit points blanked but its stored `hash`, and every other member. Before salts, filling in
hp = 0, 1, 2 … and hashing found the goblin's hp in a few hundred tries. Each event now
hashes a secret salt, left out wherever a part of the event is hidden. The test first shows
that the enumeration below is the right attack (with the salt only the GM sees added back,
it finds the hidden hp, and only it), then that from each way a player reads the event (the
export, the events page, SSE frames, GraphQL) it finds nothing."""

from __future__ import annotations

import asyncio
import copy
import hashlib
import json
from typing import Any

import httpx
import pytest
from gql import gql

from tests.api.conftest import KEY
from tests.e2e.helpers import bearer, fray_serving, graphql_http
from tests.e2e.test_receipts_e2e import NEW, canonical, sse_frames

pytestmark = pytest.mark.anyio

HIDDEN_HP = 37
TRIES = range(0, 2001)
SALT = set("0123456789abcdef")
EVENTS = gql("""
query Events($id: String!) {
  encounter(id: $id) { events(first: 50) { nodes {
    version type schema data at commandId actor command rolls prevHash hash salt
  } } }
}""")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def filled(shown: dict[str, Any], hp: int, salt: str | None) -> dict[str, Any]:
    """The goblin's `combatant-added` as a player would rebuild it from what it is shown:
    the hidden hit points filled in with a guess, and `salt` if the guesser had one."""
    body = copy.deepcopy({k: v for k, v in shown.items() if k not in ("hash", "redacted")})
    body.pop("receipt", None)
    body.pop("salt", None)
    body["data"]["stats"]["hp"] = hp
    body["command"]["stats"]["hp"] = hp
    body["data"]["pools"] = {"hp": {"current": hp, "max": hp}}
    if salt is not None:
        body["salt"] = salt
    return body


def found(shown: dict[str, Any], salt: str | None = None) -> list[int]:
    """Every hp in 0 … 2000 whose rebuilt event hashes to the shown `hash`, with `salt`,
    else the salt shown if there is one."""
    salt = salt if salt is not None else shown.get("salt")
    return [
        hp
        for hp in TRIES
        if hashlib.sha256(canonical(filled(shown, hp, salt))).hexdigest() == shown["hash"]
    ]


def recomputes(envelope: dict[str, Any]) -> bool:
    body = {k: v for k, v in envelope.items() if k not in ("hash", "receipt")}
    return hashlib.sha256(canonical(body)).hexdigest() == envelope["hash"]


def snake(node: dict[str, Any]) -> dict[str, Any]:
    """A GraphQL `Event` as the envelope spells it (a null `salt` is no salt)."""
    names = {"commandId": "command_id", "prevHash": "prev_hash"}
    out = {names.get(k, k): v for k, v in node.items()}
    if out["salt"] is None:
        del out["salt"]
    return out


def play(http: httpx.Client, encounter_id: str) -> str:
    """A freeform fight hiding enemy health: Bramli, and a goblin of `HIDDEN_HP` hit points;
    a token of the player who plays Bramli."""
    body = {"ruleset": "freeform", "encounter_id": encounter_id,
            "options": {"hide_enemy_health": True}}  # fmt: skip
    assert http.post("/v1/encounters", headers=bearer(KEY), json=body).status_code == 201
    for cid, side, hp in (("bramli", "heroes", 20), ("goblin", "goblins", HIDDEN_HP)):
        command = {"type": "add-combatant", "combatant_id": cid, "name": cid.title(),
                   "side": side, "stats": {"hp": hp}}  # fmt: skip
        sent = http.post(
            f"/v1/encounters/{encounter_id}/commands",
            headers=bearer(KEY),
            json={"command": command},
        )
        assert sent.status_code == 201, sent.text
    mint = {"role": "player", "combatants": ["bramli"]}
    minted = http.post(f"/v1/encounters/{encounter_id}/tokens", headers=bearer(KEY), json=mint)
    token: str = minted.json()["token"]
    return token


def export_lines(http: httpx.Client, encounter_id: str, credential: str) -> list[dict[str, Any]]:
    answer = http.get(f"/v1/encounters/{encounter_id}/export", headers=bearer(credential))
    assert answer.status_code == 200, answer.text
    return [json.loads(line) for line in answer.text.splitlines()[1:]]


async def test_a_players_views_of_hidden_health_cannot_be_brute_forced_from_the_hash(
    redis_url: str, encounter_id: str
) -> None:
    path = f"/v1/encounters/{encounter_id}"
    with fray_serving(redis_url, FRAY_SIGNING_KEY=NEW) as (url,):
        with httpx.Client(base_url=url, timeout=10) as http:
            player = play(http, encounter_id)
            full = export_lines(http, encounter_id, KEY)
            exported = export_lines(http, encounter_id, player)
            page = http.get(f"{path}/events", headers=bearer(player)).json()["events"]
        frames = await asyncio.to_thread(sse_frames, f"{url}{path}/events", player, 3)
        async with graphql_http(url) as graphql:
            nodes = (await graphql.run(EVENTS, player, id=encounter_id))["encounter"]
        graphql_events = [snake(n) for n in nodes["events"]["nodes"]]

    # Version 3 adds the goblin. The GM's copy is whole: salted, and it re-hashes.
    stored = full[2]
    assert stored["data"]["combatant_id"] == "goblin"
    assert len(stored["salt"]) == 32 and set(stored["salt"]) <= SALT
    assert all(recomputes(e) for e in full)
    assert len({e["salt"] for e in full}) == 3  # a fresh salt per event

    views = {
        "export": exported[2],
        "events page": page[2],
        "SSE frame": frames[2]["data"],
        "GraphQL": graphql_events[2],
    }
    for how, shown in views.items():
        assert shown["version"] == 3 and shown["hash"] == stored["hash"], how
        assert shown["data"]["stats"]["hp"] is None, how  # blanked
        assert shown["command"]["stats"].get("hp") is None, how
        # The attack is the right one: given the salt, it finds the goblin's hp, and only it.
        assert found(shown, stored["salt"]) == [HIDDEN_HP], how
        # Without it, no guess reproduces the hash.
        assert found(shown) == [], how
        assert "salt" not in shown, how
    assert exported[2]["redacted"] == ["command", "data", "salt"]
    assert frames[2]["data"]["receipt"]["hash"] == stored["hash"]

    # Bramli's and version 1 are shown whole to the player: with their salts, they re-hash.
    for whole in (exported[:2], page[:2], [f["data"] for f in frames[:2]], graphql_events[:2]):
        assert [e["salt"] for e in whole] == [e["salt"] for e in full[:2]]
        assert all(recomputes(e) for e in whole)
