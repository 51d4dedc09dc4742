"""A roll request nobody answers, through the whole service: `fray serve` holds a command for
a player's die, and at the request's deadline the real `fray worker` sends
`expire-roll-requests`, which decides the held command with the seed rolling the missing
die; the stream then audits clean, `fray audit` included (the draw checked against the
revealed seed, the expiry re-decided from the folded state)."""

from __future__ import annotations

import json
from typing import Any

import httpx

from service.audit import audit
from service.domain.envelope import Envelope
from tests.api.conftest import KEY
from tests.api.process import fray_serve
from tests.e2e.helpers import bearer
from tests.e2e.test_audit_cli import audit as fray_audit
from tests.e2e.test_audit_worker import eventually
from tests.workers.conftest import fray_worker

WINDOW = 1  # second: the roll request's deadline


def send(
    url: str, encounter_id: str, credential: str, command: dict[str, Any], **extra: Any
) -> Any:
    answer = httpx.post(
        f"{url}/v1/encounters/{encounter_id}/commands",
        json={"command": command, **extra},
        headers=bearer(credential),
    )
    assert answer.status_code == 201, answer.text
    return answer.json()


def events_of(url: str, encounter_id: str) -> list[dict[str, Any]]:
    answer = httpx.get(f"{url}/v1/encounters/{encounter_id}/events", headers=bearer(KEY))
    assert answer.status_code == 200, answer.text
    events: list[dict[str, Any]] = answer.json()["events"]
    return events


def hold_bramlis_axe(url: str, encounter_id: str) -> Any:
    """Bramli's player rolls 2d8 for the axe with one die: the command is held for the other."""
    token = httpx.post(
        f"{url}/v1/encounters/{encounter_id}/tokens",
        json={"role": "player", "combatants": ["bramli"]},
        headers=bearer(KEY),
    ).json()["token"]
    roll = {"type": "roll", "combatant_id": "bramli", "expression": "2d8", "purpose": "axe"}
    held = send(url, encounter_id, token, roll, dice=[6])
    assert [e["type"] for e in held["events"]] == ["command-held", "roll-requested"]
    return held


def test_the_worker_rolls_an_unanswered_die_from_the_seed_at_the_deadline(
    redis_url: str, queue_url: str, encounter_id: str
) -> None:
    with (
        fray_serve(redis_url, FRAY_QUEUE_REDIS_URL=queue_url) as url,
        fray_worker(redis_url, queue_url),
    ):
        body = {"ruleset": "freeform", "encounter_id": encounter_id,
                "options": {"dice": "prompt", "roll_request_window": WINDOW}}  # fmt: skip
        created = httpx.post(f"{url}/v1/encounters", json=body, headers=bearer(KEY))
        assert created.status_code == 201, created.text
        add = {"type": "add-combatant", "combatant_id": "bramli", "name": "Bramli",
               "side": "heroes", "stats": {"hp": 20}}  # fmt: skip
        send(url, encounter_id, KEY, add)
        held = hold_bramlis_axe(url, encounter_id)
        request = held["events"][1]
        events = eventually(
            lambda: events_of(url, encounter_id),
            lambda events: events[-1]["type"] == "dice-rolled",
        )
        send(url, encounter_id, KEY, {"type": "end-encounter"})
        stream = [Envelope.from_dict(e) for e in events_of(url, encounter_id)]
        auditor = httpx.post(
            f"{url}/v1/encounters/{encounter_id}/tokens",
            json={"role": "auditor"},
            headers=bearer(KEY),
        ).json()["token"]
        audited = fray_audit(encounter_id, "--url", url, "--token", auditor, "--json")
    released, rolled = events[-2:]
    assert released["type"] == "command-released"
    assert released["data"]["reason"] == "deadline" and released["data"]["dropped"] is None
    assert released["actor"]["role"] == "system"
    assert released["command"] == {"type": "expire-roll-requests",
                                   "request_id": request["data"]["request_id"]}  # fmt: skip
    assert released["at"] >= request["data"]["deadline"]
    table, server = rolled["rolls"]
    assert table == {"k": 8, "value": 6, "purpose": "axe", "kind": "die", "source": "table"}
    assert server["n"] == 0 and server["k"] == 8 and "source" not in server
    assert rolled["data"]["total"] == 6 + server["value"]
    report = audit(stream)
    assert report.verdict == "passed", report.checks
    # `fray audit`, as a third party runs it, re-decides the expiry and checks its draw.
    assert audited.returncode == 0, audited.stdout + audited.stderr
    verdict = json.loads(audited.stdout)
    checks = {c["name"]: c for c in verdict["checks"]}
    assert verdict["verdict"] == "passed"
    assert checks["draws"]["count"] == 1 and checks["rerun"]["status"] == "passed"


def test_a_turn_clock_that_runs_out_during_a_roll_request_fires_once_it_is_settled(
    redis_url: str, queue_url: str, encounter_id: str
) -> None:
    """The turn clock (1 s) runs out while Bramli's roll waits for a die (3 s): the
    encounter refuses the expiry (`dice/roll-pending`), the worker keeps the deadline, and
    once the request's own deadline has rolled the die, the turn clock expires."""
    with (
        fray_serve(redis_url, FRAY_QUEUE_REDIS_URL=queue_url) as url,
        fray_worker(redis_url, queue_url),
    ):
        options = {"dice": "prompt", "roll_request_window": 3, "turn_time_limit": 1,
                   "idle_timeouts": 0}  # fmt: skip
        body = {"ruleset": "freeform", "encounter_id": encounter_id, "options": options}
        created = httpx.post(f"{url}/v1/encounters", json=body, headers=bearer(KEY))
        assert created.status_code == 201, created.text
        for combatant in ("bramli", "goblin"):
            add = {"type": "add-combatant", "combatant_id": combatant, "name": combatant,
                   "side": combatant, "stats": {"hp": 20}}  # fmt: skip
            send(url, encounter_id, KEY, add)
        send(url, encounter_id, KEY, {"type": "roll-initiative"}, dice=[20, 1, 1, 1])
        started = send(url, encounter_id, KEY, {"type": "start-encounter"})
        assert "bramli" in json.dumps(started["events"][-1])  # Bramli's turn, its clock armed
        held = hold_bramlis_axe(url, encounter_id)
        events = eventually(
            lambda: events_of(url, encounter_id),
            lambda events: any(e["type"] == "clock-expired" for e in events),
        )
    kinds = [e["type"] for e in events[held["events"][-1]["version"] :]]
    assert kinds.index("command-released") < kinds.index("dice-rolled")
    assert kinds.index("dice-rolled") < kinds.index("clock-expired")
    (expired,) = [e for e in events if e["type"] == "clock-expired"]
    assert expired["actor"]["role"] == "system" and expired["data"]["owner"] == "bramli"
