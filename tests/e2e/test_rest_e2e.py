"""A whole freeform encounter over plain HTTP against `fray serve` as a separate process."""

from __future__ import annotations

import queue
import threading
from typing import Any

import httpx
import pytest

from tests.api.conftest import KEY
from tests.api.process import fray_serve
from tests.engine_helpers import COMBATANTS


@pytest.fixture(scope="module")
def fray_url(redis_url: str):
    with fray_serve(redis_url) as url:
        yield url


def follow(url: str, headers: dict[str, str], count: int, out: queue.Queue[Any]) -> None:
    frames: list[dict[str, str]] = []
    with httpx.stream("GET", url, headers=headers, timeout=15) as response:
        frame: dict[str, str] = {}
        for line in response.iter_lines():
            if line == "":
                if "data" in frame:
                    frames.append(frame)
                    if len(frames) == count:
                        break
                frame = {}
            elif not line.startswith(":"):
                name, _, value = line.partition(": ")
                frame[name] = value
    out.put(frames)


def test_a_whole_encounter_over_rest(fray_url: str, encounter_id: str) -> None:
    with httpx.Client(base_url=fray_url, timeout=10) as http:
        run_encounter(http, fray_url, encounter_id)


def run_encounter(http: httpx.Client, fray_url: str, encounter_id: str) -> None:
    key = {"Authorization": f"Bearer {KEY}"}
    created = http.post("/v1/encounters", headers=key,
                        json={"ruleset": "freeform", "encounter_id": encounter_id})  # fmt: skip
    assert created.status_code == 201, created.text
    gm = {"Authorization": f"Bearer {created.json()['gm_token']}"}
    path = f"/v1/encounters/{encounter_id}"

    def send(headers: dict[str, str], command: dict[str, Any], **extra: Any) -> httpx.Response:
        return http.post(f"{path}/commands", headers=headers, json={"command": command, **extra})

    for combatant in COMBATANTS:
        assert send(gm, {"type": "add-combatant", **combatant}).status_code == 201
    assert send(gm, {"type": "roll-initiative"}).status_code == 201
    assert send(gm, {"type": "start-encounter"}).status_code == 201
    acting = http.get(path, headers=gm).json()["summary"]["acting"][0]
    minted = http.post(f"{path}/tokens", headers=key,
                       json={"role": "player", "combatants": [acting]})  # fmt: skip
    player = {"Authorization": f"Bearer {minted.json()['token']}"}
    head = http.get(path, headers=gm).json()["version"]

    frames: queue.Queue[Any] = queue.Queue()
    reader = threading.Thread(
        target=follow, args=(f"{fray_url}{path}/events?follow=true&after={head}", gm, 3, frames)
    )
    reader.start()

    rolled = send(player, {"type": "roll", "expression": "1d20+2", "combatant_id": acting})
    assert rolled.status_code == 201, rolled.text
    hurt = send(gm, {"type": "adjust-resource", "combatant_id": acting, "delta": -2})
    assert hurt.status_code == 201
    before_rejection = hurt.json()["version"]
    rejected = send(player, {"type": "start-encounter"})
    assert rejected.status_code == 422 and rejected.json()["error"]["code"] == "auth/gm-only"
    stale = send(gm, {"type": "roll", "expression": "1d4"}, expected_version=head)
    assert stale.status_code == 409
    assert stale.json()["error"]["details"] == {"expected": head, "actual": before_rejection}
    ended = send(player, {"type": "end-turn"})
    assert ended.status_code == 201, ended.text
    assert http.get(path, headers=gm).json()["version"] == ended.json()["version"]

    live = frames.get(timeout=15)
    reader.join()
    assert [int(f["id"]) for f in live] == [head + 1, head + 2, head + 3]
    assert [f["event"] for f in live][:2] == ["dice-rolled", "resource-adjusted"]

    resumed: queue.Queue[Any] = queue.Queue()
    follow(
        f"{fray_url}{path}/events",
        {**gm, "Accept": "text/event-stream", "Last-Event-ID": str(head + 1)},
        1,
        resumed,
    )
    assert int(resumed.get()[0]["id"]) == head + 2

    first = http.get(f"{path}/events", headers=gm, params={"after": 0, "limit": 4}).json()
    rest = http.get(f"{path}/events", headers=gm,
                    params={"after": first["next_after"], "limit": 1000}).json()  # fmt: skip
    versions = [e["version"] for e in first["events"] + rest["events"]]
    assert versions == list(range(1, ended.json()["version"] + 1))
    assert first["has_more"] and not rest["has_more"]
    assert "fray_commands_total" in http.get("/metrics").text
