"""Every error of the API: its status and code, and that a rejected request appends nothing."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from service.api.errors import status_of
from service.app.auth import Auth
from service.config import Settings
from service.domain.errors import (
    Conflict,
    Forbidden,
    FrayError,
    InvalidCommand,
    NotFound,
    RuleViolation,
)
from service.store.errors import StoreUnavailable
from tests.api.conftest import KEY, RIVAL_KEY, SECRET, Api, bearer
from tests.api.helpers import Fight, fight

pytestmark = pytest.mark.anyio


def expired_token(encounter_id: str) -> str:
    settings = Settings("redis://unused", "redis://unused", token_secret=SECRET)
    past = Auth(settings, clock=lambda: time.time() - 7200)
    return past.mint(encounter_id, "gm", [], "gm", 3600, "acme")[0]


def tampered(token: str) -> str:
    head, payload, signature = token.split(".")
    return f"{head}.{payload}.{'A' if signature[0] != 'A' else 'B'}{signature[1:]}"


COMMAND = {"command": {"type": "roll", "expression": "1d6"}}


def deep(levels: int) -> list[Any]:
    nested: list[Any] = []
    for _ in range(levels):
        nested = [nested]
    return nested


def who(f: Fight, credential: str) -> str:
    return {
        "gm": f.gm,
        "key": KEY,
        "rival": RIVAL_KEY,
        "player": f.acting_player,
        "waiting-player": f.waiting_player,
        "observer": f.observer,
        "auditor": f.auditor,
        "expired": expired_token(f.encounter_id),
        "tampered": tampered(f.gm),
        "garbage": "not-a-credential",
    }[credential]


CASES = [
    pytest.param("gm", b"{not json", 400, "request/malformed-json", "not valid JSON",
                 id="malformed JSON"),
    pytest.param("gm", b"[1, 2]", 400, "request/invalid", "JSON object", id="body not an object"),
    pytest.param("gm", {"command": {"type": "fly"}}, 400, "command/unknown-type", "end-turn",
                 id="unknown command type lists the valid ones"),
    pytest.param("gm", {"command": {"type": "roll", "expression": 5}}, 400, "command/invalid",
                 "expression", id="command field of the wrong type is named"),
    pytest.param("gm", {**COMMAND, "expected_version": "soon"}, 400, "request/invalid",
                 "expected_version", id="envelope field of the wrong type is named"),
    pytest.param("gm", {**COMMAND, "surprise": 1}, 400, "request/invalid", "surprise",
                 id="unknown envelope field"),
    pytest.param("gm", {"expected_version": 1}, 400, "request/invalid", "command",
                 id="missing command"),
    pytest.param("gm", {**COMMAND, "expected_version": 1}, 409, "encounter/version-conflict",
                 "expected version 1", id="stale expected_version"),
    pytest.param("player", {"command": {"type": "roll-initiative", "combatant_ids": ["@waiting"],
                                        "reroll": True}},
                 422, "auth/not-your-combatant", "do not control",
                 id="player acts for another's combatant"),
    pytest.param("waiting-player", {"command": {"type": "end-turn", "combatant_id": "@waiting"}},
                 422, "turn/not-your-turn", "turn", id="rule violation"),
    pytest.param("observer", COMMAND, 403, "auth/forbidden", "observer", id="observer commands"),
    pytest.param("auditor", COMMAND, 403, "auth/forbidden", "auditor", id="auditor commands"),
    pytest.param(None, COMMAND, 401, "auth/missing", "Bearer", id="no credential"),
    pytest.param("garbage", COMMAND, 401, "auth/invalid-token", "neither", id="bad credential"),
    pytest.param("tampered", COMMAND, 401, "auth/invalid-token", "signature",
                 id="tampered token"),
    pytest.param("expired", COMMAND, 401, "auth/expired", "expired", id="expired token"),
    pytest.param("rival", COMMAND, 404, "encounter/not-found", "no encounter",
                 id="another tenant's key: as unknown as an id never created"),
    pytest.param("gm", b"x" * 5000, 413, "request/too-large", "limit", id="body over the limit"),
    pytest.param("player", {"command": {"type": "roll", "expression": "1d6*9999999999*9999999999"}},
                 422, "dice/too-large", "9999999999 is too large", id="dice: a factor too large"),
    pytest.param("player", {"command": {"type": "roll", "expression": "99999999999999999999"}},
                 422, "dice/too-large", "the limit is 2147483647", id="dice: a constant too large"),
    pytest.param("player", {"command": {"type": "roll", "expression": "-9223372036854775807-2"}},
                 422, "dice/too-large", "too large", id="dice: past 64 bits"),
    pytest.param("player", {"command": {"type": "roll", "expression": "65536 * 65536"}},
                 422, "dice/too-large", "beyond", id="dice: a product too large"),
    pytest.param("gm", {"command": {"type": "adjust-resource", "combatant_id": "@waiting",
                                    "delta": "1"}},
                 400, "command/invalid", "'delta'", id="a number as a string is not coerced"),
    pytest.param("gm", {"command": {"type": "adjust-resource", "combatant_id": "@waiting",
                                    "delta": 1.0}},
                 400, "command/invalid", "'delta'", id="a float for an integer is not coerced"),
    pytest.param("gm", {**COMMAND, "expected_version": "3"}, 400, "request/invalid",
                 "expected_version", id="expected_version as a string is not coerced"),
    pytest.param("gm", {**COMMAND, "expected_version": 2**60}, 400, "request/invalid",
                 "expected_version", id="expected_version past JSON's safe integers"),
    pytest.param("gm", {**COMMAND, "dice": [2**70]}, 400, "request/invalid", "dice.0",
                 id="a table die past 64 bits"),
    pytest.param("gm", {"command": {"type": "adjust-resource", "combatant_id": "@waiting",
                                    "delta": 2**40}},
                 400, "request/number-out-of-range", "'delta'", id="a number out of range"),
    pytest.param("gm", {"command": {"type": "adjust-resource", "combatant_id": "@waiting",
                                    "delta": 2_000_000}},
                 400, "command/invalid", "'delta'", id="a delta beyond any health"),
    pytest.param("gm", {"command": {"type": "add-combatant", "name": "Ogre",
                                    "stats": {"hp": 2**64}}},
                 400, "request/number-out-of-range", "'stats.hp'", id="a stat past 64 bits"),
    pytest.param("gm", {"command": {"type": "add-combatant", "name": "Ogre",
                                    "stats": {"hp": -(2**63) - 2}}},
                 400, "request/number-out-of-range", "'stats.hp'", id="a stat below -2**63"),
    pytest.param("gm", {"command": {"type": "add-combatant", "name": "Ogre",
                                    "stats": {"hp": "24"}}},
                 422, "combatant/bad-stats", "hp", id="a stat as a string is not coerced"),
    pytest.param("gm", {"command": {"type": "add-combatant", "name": "Ogre",
                                    "stats": {"notes": deep(40)}}},
                 400, "request/too-deep", "'stats.notes", id="a command nested too deeply"),
]  # fmt: skip


@pytest.fixture
async def the_fight(api: Api, encounter_id: str) -> AsyncIterator[Fight]:
    yield await fight(api, encounter_id)


def _substitute(body: Any, f: Fight) -> Any:
    if isinstance(body, dict):
        return {k: _substitute(v, f) for k, v in body.items()}
    if isinstance(body, list):
        return [_substitute(v, f) for v in body]
    return f.waiting if body == "@waiting" else body


@pytest.mark.parametrize(("credential", "body", "status", "code", "words"), CASES)
async def test_a_bad_command_request_is_answered_with_its_code_and_appends_nothing(
    the_fight: Fight, credential: str | None, body: Any, status: int, code: str, words: str
) -> None:
    f = the_fight
    before = await f.version()
    headers = bearer(who(f, credential)) if credential else {}
    # The standard library writes integers of any size, as a hostile client may.
    content = body if isinstance(body, bytes) else json.dumps(_substitute(body, f)).encode()
    response = await f.api.client.post(
        f"{f.path}/commands",
        content=content,
        headers={**headers, "Content-Type": "application/json"},
    )
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code
    assert words in error["message"]
    assert await f.version() == before


async def test_a_rule_violation_carries_code_message_and_rule(the_fight: Fight) -> None:
    f = the_fight
    response = await f.api.send(
        f.encounter_id, f.waiting_player, {"type": "end-turn", "combatant_id": f.waiting}
    )
    assert response.status_code == 422
    assert response.json()["error"] == {
        "code": "turn/not-your-turn",
        "message": response.json()["error"]["message"],
        "rule": "freeform §3",
    }


async def test_a_stale_expected_version_reports_expected_and_actual(the_fight: Fight) -> None:
    f = the_fight
    actual = await f.version()
    response = await f.api.send(
        f.encounter_id, f.gm, {"type": "roll", "expression": "1d6"}, expected_version=2
    )
    assert response.status_code == 409
    assert response.json()["error"]["details"] == {"expected": 2, "actual": actual}


async def test_a_reused_command_id_for_another_command_is_409(the_fight: Fight) -> None:
    f = the_fight
    first = await f.api.send(f.encounter_id, f.gm, {"type": "roll", "expression": "1d6"},
                             command_id="once")  # fmt: skip
    assert first.status_code == 201
    before = await f.version()
    again = await f.api.send(f.encounter_id, f.gm, {"type": "roll", "expression": "1d8"},
                             command_id="once")  # fmt: skip
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "command/id-reused"
    assert await f.version() == before


async def test_a_chunked_body_over_the_limit_is_413(the_fight: Fight) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(10):
            yield b" " * 1000

    response = await the_fight.api.client.post(
        f"{the_fight.path}/commands", content=chunks(), headers=bearer(the_fight.gm)
    )
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "request/too-large"


@pytest.mark.parametrize(
    ("path", "credential", "status", "code"),
    [
        pytest.param("/v1/encounters/nope", "key", 404, "encounter/not-found",
                     id="unknown encounter, tenant key"),
        pytest.param("/v1/encounters/nope/events", "key", 404, "encounter/not-found",
                     id="unknown encounter events"),
        pytest.param("/v1/encounters/nope", "gm", 403, "auth/forbidden",
                     id="token for another encounter"),
        pytest.param("/v1/encounters/{enc}?as_of=x", "gm", 400, "request/invalid",
                     id="as_of not a number"),
        pytest.param("/v1/encounters/{enc}/events?limit=5000", "gm", 400, "request/invalid",
                     id="limit over 1000"),
        pytest.param("/v1/encounters/{enc}/events?after=-1", "gm", 400, "request/invalid",
                     id="negative after"),
        pytest.param("/v1/nowhere", "gm", 404, "route/not-found", id="unknown route"),
        pytest.param("/v1/encounters/{enc}/tokens", "key", 405, "route/method-not-allowed",
                     id="wrong method"),
        pytest.param("/v1/encounters?limit=0", "key", 400, "request/invalid",
                     id="listing limit under 1"),
        pytest.param("/v1/encounters", "gm", 403, "auth/forbidden",
                     id="listing with an encounter token"),
    ],
)  # fmt: skip
async def test_a_bad_read_is_answered_with_its_code(
    the_fight: Fight, path: str, credential: str, status: int, code: str
) -> None:
    response = await the_fight.api.get(
        path.format(enc=the_fight.encounter_id), who(the_fight, credential)
    )
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code


@pytest.mark.parametrize(
    ("body", "credential", "status", "code"),
    [
        pytest.param({"ruleset": "chess"}, "key", 400, "encounter/unknown-ruleset",
                     id="unknown ruleset"),
        pytest.param({"ruleset": "freeform", "options": {"dice": "dreams"}}, "key", 400,
                     "encounter/bad-options", id="bad options"),
        pytest.param({"ruleset": "freeform", "seed": "abc"}, "key", 400, "request/invalid",
                     id="seed not 32 bytes of hex"),
        pytest.param({"ruleset": "freeform"}, "gm", 403, "auth/forbidden",
                     id="a token may not create"),
        pytest.param({"ruleset": "freeform"}, "garbage", 401, "auth/invalid-token",
                     id="bad credential"),
    ],
)  # fmt: skip
async def test_a_bad_create_is_answered_with_its_code(
    the_fight: Fight, body: dict[str, Any], credential: str, status: int, code: str
) -> None:
    response = await the_fight.api.client.post(
        "/v1/encounters", json=body, headers=bearer(who(the_fight, credential))
    )
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code


async def test_reusing_an_encounter_id_is_409(api: Api, encounter_id: str) -> None:
    await api.create(encounter_id)
    response = await api.client.post(
        "/v1/encounters",
        json={"ruleset": "freeform", "encounter_id": encounter_id},
        headers=bearer(KEY),
    )
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "encounter/exists"


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        pytest.param({"role": "king"}, 400, "role", id="unknown role"),
        pytest.param({"role": "player"}, 400, "combatants", id="player without combatants"),
        pytest.param({"role": "player", "combatants": ["ghost"]}, 400, "combatants",
                     id="player with an unknown combatant"),
        pytest.param({"role": "observer", "ttl_seconds": 31 * 86400}, 400, "ttl_seconds",
                     id="ttl over 30 days"),
    ],
)  # fmt: skip
async def test_a_bad_token_request_names_the_field(
    the_fight: Fight, body: dict[str, Any], status: int, field: str
) -> None:
    response = await the_fight.api.client.post(
        f"{the_fight.path}/tokens", json=body, headers=bearer(KEY)
    )
    assert response.status_code == status, response.text
    assert field in response.json()["error"]["message"]


@pytest.mark.parametrize(
    ("error", "status"),
    [
        pytest.param(RuleViolation("turn/not-your-turn", "not yet"), 422, id="a rule: 422"),
        pytest.param(Conflict("stale"), 409, id="a version conflict"),
        pytest.param(Conflict("taken", code="encounter/exists"), 409, id="an id taken"),
        pytest.param(NotFound("none"), 404, id="not found"),
        pytest.param(Forbidden("no"), 403, id="forbidden"),
        pytest.param(InvalidCommand("bad"), 400, id="a malformed command"),
        pytest.param(FrayError("odd", code="request/invalid"), 400, id="a plain refusal"),
        pytest.param(StoreUnavailable("down"), 503, id="the store away"),
    ],
)
def test_one_table_maps_each_code_to_its_status(error: FrayError, status: int) -> None:
    assert status_of(error) == status
    assert not hasattr(error, "status")  # the domain's errors carry codes, not statuses
