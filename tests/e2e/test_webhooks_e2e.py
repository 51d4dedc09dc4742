"""Webhooks through the whole service (issue 28): `fray serve` and `fray worker` as real
processes, and a real receiver (tests/e2e/receiver.py) on a loopback port, so
FRAY_WEBHOOK_ALLOW_PRIVATE=true. The receiver fails the first attempts (a 500, a timeout,
a dropped connection): every matching event still arrives, in version order per
encounter, each signed as docs/api.md says; a player-view webhook never carries the
enemy's hidden health; a private URL is refused without the flag."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
import redis

from service.dispatch import DELIVERY_RESULT_TTL, RESULT_TTL
from tests.api.conftest import SECRET
from tests.api.process import fray_serve
from tests.e2e.helpers import bearer
from tests.e2e.helpers import eventually as helpers_eventually
from tests.e2e.receiver import Received, Receiver, receiving
from tests.workers.conftest import fray_worker

HIDDEN_HP = 4817  # the goblin's health: a number that appears nowhere else
WAIT = 90.0  # a bound, not a measure: retries of 0.2, 0.5 and 1 s, a 2 s timeout, the sweeper
DEV = {
    "FRAY_WEBHOOK_ALLOW_PRIVATE": "true",
    "FRAY_WEBHOOK_TIMEOUT": "2",
    "FRAY_WEBHOOK_RETRY_SCHEDULE": "0.2,0.5,1",
}


def eventually(read: Callable[[], Any], done: Callable[[Any], bool]) -> Any:
    """`read()` until `done` says so, for at most WAIT."""
    return helpers_eventually(read, done, within=WAIT)


def metrics(url: str) -> dict[str, float]:
    """The webhook lines of /metrics, by name and labels."""
    text = httpx.get(f"{url}/metrics", timeout=30).text
    found = {}
    for line in text.splitlines():
        if line.startswith("fray_webhook_"):
            name, value = line.rsplit(" ", 1)
            found[name] = float(value)
    return found


def versions_of(received: list[Received]) -> dict[str, list[int]]:
    """The versions each encounter's deliveries carried, in the order they were answered
    2xx. At least once: a delivery whose 2xx Fray missed (the answer came too late) is
    sent again before the next, never after it, so a repeat is dropped only there."""
    found: dict[str, list[int]] = {}
    for one in received:
        seen = found.setdefault(one.delivery["encounter_id"], [])
        version = one.delivery["event"]["version"]
        if not seen or seen[-1] != version:
            seen.append(version)
    return found


def verify(secret: str, received: Received) -> bool:
    """docs/api.md's check: v1 = HMAC-SHA256(secret, "<t>.<raw body>"), in hex."""
    parts = dict(p.split("=", 1) for p in received.headers["fray-signature"].split(","))
    signed = f"{parts['t']}.".encode() + received.body
    expected = hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, parts["v1"])


class Service:
    def __init__(self, url: str, key: str) -> None:
        self.url = url
        self.key = key

    def post(self, path: str, body: dict[str, Any]) -> httpx.Response:
        return httpx.post(f"{self.url}{path}", json=body, headers=bearer(self.key), timeout=30)

    def webhook(self, url: str, **body: Any) -> dict[str, Any]:
        response = self.post("/v1/webhooks", {"url": url, "events": ["*"], **body})
        assert response.status_code == 201, response.text
        made: dict[str, Any] = response.json()
        return made

    def fight(self, encounter_id: str) -> list[dict[str, Any]]:
        """A freeform fight with hidden enemy health, a blow to the goblin, and the end:
        every event appended after version 1, as the GM sees it."""
        options = {"hide_enemy_health": True}
        body = {"ruleset": "freeform", "encounter_id": encounter_id, "options": options}
        assert self.post("/v1/encounters", body).status_code == 201
        commands = [
            {"type": "add-combatant", "combatant_id": "bramli", "name": "Bramli",
             "side": "heroes", "stats": {"hp": 20, "initiative_modifier": 3}},
            {"type": "add-combatant", "combatant_id": "goblin", "name": "Goblin",
             "side": "goblins", "stats": {"hp": HIDDEN_HP, "initiative_modifier": 1}},
            {"type": "roll-initiative"},
            {"type": "start-encounter"},
            {"type": "adjust-resource", "combatant_id": "goblin", "delta": -5},
            {"type": "end-encounter"},
        ]  # fmt: skip
        events: list[dict[str, Any]] = []
        for command in commands:
            answer = self.post(f"/v1/encounters/{encounter_id}/commands", {"command": command})
            assert answer.status_code == 201, answer.text
            events += answer.json()["events"]
        return events


@pytest.fixture
def service(redis_url: str, queue_url: str) -> Iterator[tuple[Service, Receiver]]:
    key = f"hooks-{uuid.uuid4().hex[:8]}"
    keys = f"t{uuid.uuid4().hex[:8]}:{key}"
    with (
        receiving(hang=6.0) as receiver,
        fray_serve(redis_url, FRAY_QUEUE_REDIS_URL=queue_url, FRAY_API_KEYS=keys, **DEV) as url,
        fray_worker(redis_url, queue_url, FRAY_TOKEN_SECRET=SECRET, **DEV),
    ):
        yield Service(url, key), receiver


def test_every_matching_event_arrives_in_order_and_signed_through_failures(
    service: tuple[Service, Receiver],
) -> None:
    fray, receiver = service
    before = metrics(fray.url)
    receiver.fail_first("/gm", "500", "timeout", "drop")
    gm = fray.webhook(f"{receiver.url}/gm", view="gm")
    turns = fray.webhook(f"{receiver.url}/turns", view="observer", events=["turn-started"])
    fights = {name: fray.fight(name) for name in ("first", "second")}

    expected = {name: [e["version"] for e in events] for name, events in fights.items()}
    total = sum(len(v) for v in expected.values())
    eventually(lambda: versions_of(receiver.ok("/gm")), lambda found: found == expected)
    assert all(r.delivery["webhook_id"] == gm["id"] for r in receiver.ok("/gm"))
    assert versions_of(receiver.ok("/gm")) == expected  # every event answered 2xx, in order

    attempts = receiver.all("/gm")
    assert [r.outcome for r in attempts[:3]] == ["500", "timeout", "drop"]
    assert all(verify(gm["secret"], r) for r in attempts)
    assert not verify(turns["secret"], attempts[0])
    # Each failed delivery was sent again with the same id until a 2xx.
    failed = {r.delivery["delivery_id"] for r in attempts[:3]}
    succeeded = [r.delivery["delivery_id"] for r in receiver.ok("/gm")]
    assert all(delivery in succeeded for delivery in failed)

    started = {
        name: [e["version"] for e in events if e["type"] == "turn-started"]
        for name, events in fights.items()
    }
    eventually(lambda: versions_of(receiver.ok("/turns")), lambda found: found == started)
    for received in receiver.ok("/turns"):
        assert received.delivery["event"]["type"] == "turn-started"
        assert verify(turns["secret"], received)
    assert versions_of(receiver.ok("/turns")) == started

    log = httpx.get(
        f"{fray.url}/v1/webhooks/{gm['id']}/deliveries",
        headers=bearer(fray.key),
        params={"limit": 100},
        timeout=30,
    ).json()["deliveries"]
    retried = [d for d in log if d["delivery_id"] in failed]
    assert len(retried) == len(failed)
    assert sum(d["attempts"] - 1 for d in retried) >= 3  # the three failures
    assert all(d["status"] == "delivered" and d["last_response_code"] == 200 for d in retried)

    delivered = 'fray_webhook_deliveries_total{outcome="delivered"}'
    retrying = 'fray_webhook_deliveries_total{outcome="retrying"}'
    sent = total + sum(len(v) for v in started.values())
    # The worker counts a delivery just after its receiver's answer: wait for the count.
    after = eventually(
        lambda: metrics(fray.url), lambda now: now[delivered] - before[delivered] >= sent
    )
    assert after[delivered] - before[delivered] == sent
    assert after[retrying] - before[retrying] >= 3
    assert after["fray_webhook_backlog"] == before["fray_webhook_backlog"]
    count = "fray_webhook_delivery_latency_seconds_count"
    assert after[count] - before[count] == sent


def test_a_delivery_is_sent_again_on_request(service: tuple[Service, Receiver]) -> None:
    fray, receiver = service
    gm = fray.webhook(f"{receiver.url}/gm", view="gm", events=["encounter-ended"])
    fray.fight("again")
    (first,) = eventually(lambda: receiver.ok("/gm"), lambda r: len(r) == 1)
    path = f"/v1/webhooks/{gm['id']}/deliveries"
    sent = first.delivery["delivery_id"]
    answer = fray.post(f"{path}/{sent}/redeliver", {})
    assert answer.status_code == 202, answer.text
    queued = answer.json()
    assert queued["redelivery_of"] == sent and queued["delivery_id"] != sent
    (_, second) = eventually(lambda: receiver.ok("/gm"), lambda r: len(r) == 2)
    assert second.delivery["delivery_id"] == queued["delivery_id"]
    assert second.delivery["event"] == first.delivery["event"]
    assert verify(gm["secret"], second)
    # The worker logs a delivery just after its receiver's answer: wait for the entry.
    log = eventually(
        lambda: httpx.get(f"{fray.url}{path}", headers=bearer(fray.key), timeout=30).json(),
        lambda found: len(found["deliveries"]) == 2,
    )
    assert [d["redelivery"] for d in log["deliveries"]] == [1, 0]
    unknown = fray.post(f"{path}/whd_nothing/redeliver", {})
    assert unknown.status_code == 404
    assert unknown.json()["error"]["code"] == "webhook/delivery-not-found"


def test_a_delivery_jobs_result_is_kept_a_minute_not_ten(
    service: tuple[Service, Receiver], queue_url: str
) -> None:
    """The delivery log is a delivery's record: its finished RQ job goes after
    DELIVERY_RESULT_TTL (kept RESULT_TTL, 100 deliveries a second would hold 60,000)."""
    fray, receiver = service
    fray.webhook(f"{receiver.url}/kept", view="gm")
    events = fray.fight("kept")
    eventually(lambda: receiver.ok("/kept"), lambda r: len(r) >= len(events))
    queue = redis.Redis.from_url(queue_url)

    def finished_delivery_jobs() -> list[int]:
        found = []
        for key in queue.keys("rq:job:*"):
            description = queue.hget(key, "description") or b""
            finished = queue.hget(key, "status") == b"finished"
            if description.startswith(b"webhook:") and finished:
                found.append(int(queue.ttl(key)))
        return found

    ttls = eventually(finished_delivery_jobs, bool)
    assert all(0 < ttl <= DELIVERY_RESULT_TTL < RESULT_TTL for ttl in ttls), ttls
    queue.close()


def test_a_player_view_webhook_never_carries_the_enemys_hidden_health(
    service: tuple[Service, Receiver],
) -> None:
    fray, receiver = service
    fray.webhook(f"{receiver.url}/player", view={"player": ["bramli"]})
    fray.webhook(f"{receiver.url}/gm", view="gm")
    fray.fight("hidden")
    eventually(
        lambda: receiver.ok("/player"),
        lambda r: r and r[-1].delivery["event"]["type"] == "encounter-ended",
    )
    eventually(
        lambda: receiver.ok("/gm"),
        lambda r: r and r[-1].delivery["event"]["type"] == "encounter-ended",
    )
    assert any(shows(HIDDEN_HP, r.body.decode()) for r in receiver.ok("/gm"))
    for received in receiver.all("/player"):
        assert not shows(HIDDEN_HP, received.body.decode())
        assert not shows(HIDDEN_HP - 5, received.body.decode())
    # Nor its salt where a part is hidden (docs/audit.md, "The salt"), so the hash cannot be
    # brute-forced; an event the player's view shows whole carries it and re-hashes.
    gm = {r.delivery["event"]["version"]: r.delivery["event"] for r in receiver.ok("/gm")}
    player = {r.delivery["event"]["version"]: r.delivery["event"] for r in receiver.ok("/player")}
    assert all(rehashes(event) and len(event["salt"]) == 32 for event in gm.values())
    salted, unsalted = set(), set()
    for version, event in player.items():
        assert event["hash"] == gm[version]["hash"]
        if "salt" in event:
            assert event == gm[version] and rehashes(event)
            salted.add((event["type"], event["data"].get("combatant_id")))
        else:
            assert not rehashes({**event, "salt": gm[version]["salt"]})  # a part is hidden
            unsalted.add((event["type"], event["data"].get("combatant_id")))
    assert ("combatant-added", "goblin") in unsalted
    assert ("combatant-added", "bramli") in salted


def rehashes(event: dict[str, Any]) -> bool:
    body = {k: v for k, v in event.items() if k != "hash"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest() == event["hash"]


def shows(number: int, body: str) -> bool:
    """Whether `body` has `number` as a number of its own (a value, or a word in a text),
    not as digits inside a hash or an id."""
    return re.search(rf"(?<!\w){number}(?!\w)", body) is not None


def test_a_private_url_is_refused_without_the_flag(redis_url: str, queue_url: str) -> None:
    key = f"hooks-{uuid.uuid4().hex[:8]}"
    keys = f"t{uuid.uuid4().hex[:8]}:{key}"
    with (
        receiving() as receiver,
        fray_serve(redis_url, FRAY_QUEUE_REDIS_URL=queue_url, FRAY_API_KEYS=keys) as url,
    ):
        fray = Service(url, key)
        response = fray.post(
            "/v1/webhooks", {"url": f"{receiver.url}/x", "events": ["*"], "view": "gm"}
        )
        assert response.status_code == 422
        assert response.json()["error"]["code"] == "webhook/bad-url"  # http, first of all
        https = receiver.url.replace("http://", "https://")
        response = fray.post("/v1/webhooks", {"url": f"{https}/x", "events": ["*"], "view": "gm"})
        assert response.status_code == 422
        assert response.json()["error"]["code"] == "webhook/private-address"


def test_a_webhook_that_keeps_failing_is_disabled(redis_url: str, queue_url: str) -> None:
    key = f"hooks-{uuid.uuid4().hex[:8]}"
    keys = f"t{uuid.uuid4().hex[:8]}:{key}"
    failing = {**DEV, "FRAY_WEBHOOK_DISABLE_AFTER": "3"}
    with (
        receiving() as receiver,
        fray_serve(redis_url, FRAY_QUEUE_REDIS_URL=queue_url, FRAY_API_KEYS=keys, **DEV) as url,
        fray_worker(redis_url, queue_url, **failing),
    ):
        receiver.fail_first("/down", *["500"] * 50)
        fray = Service(url, key)
        hook = fray.webhook(f"{receiver.url}/down", view="gm", events=["encounter-ended"])
        fray.fight("doomed")
        path = f"{url}/v1/webhooks/{hook['id']}"
        found = eventually(
            lambda: httpx.get(path, headers=bearer(key), timeout=30).json(),
            lambda webhook: not webhook["enabled"],
        )
        assert found["disabled_reason"] == "3 failed delivery attempts in a row"
        assert found["failing"] is True and found["failure_streak"] == 3
        assert [r.outcome for r in receiver.all("/down")] == ["500"] * 3
        log = httpx.get(f"{path}/deliveries", headers=bearer(key), timeout=30).json()
        (delivery,) = log["deliveries"]
        assert delivery["status"] == "abandoned" and delivery["attempts"] == 3
        assert delivery["last_response_code"] == 500
        # Enabled again, it starts afresh; a redelivery sends the event once more.
        enabled = httpx.patch(path, json={"enabled": True}, headers=bearer(key), timeout=30)
        assert enabled.json()["enabled"] is True and enabled.json()["failure_streak"] == 0
        receiver.fail_first("/down")
        again = fray.post(
            f"/v1/webhooks/{hook['id']}/deliveries/{delivery['delivery_id']}/redeliver", {}
        )
        assert again.status_code == 202, again.text
        (ok,) = eventually(lambda: receiver.ok("/down"), lambda r: len(r) == 1)
        assert ok.delivery["event"]["type"] == "encounter-ended"
