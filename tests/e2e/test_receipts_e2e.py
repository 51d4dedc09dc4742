"""Receipts as a client and an auditor meet them, against `fray serve` as a real process:
every accepted command's answer (REST and GraphQL), every SSE frame and every subscription
event carries a receipt that verifies with the keys `GET /v1/keys` serves.

The receipts are checked here with the `cryptography` package directly, the signed bytes
built by this file from DESIGN.md's canonical JSON: not with Fray's own signing or
verifying code."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from gql import gql

from service.embedded_redis import free_port
from tests.api.conftest import KEY
from tests.e2e.helpers import FRAY, _wait_ready, bearer, fray_serving, graphql_http, subscribed
from tests.engine_helpers import COMBATANTS

pytestmark = pytest.mark.anyio

OLD_SEED = hashlib.sha256(b"the old receipts key").digest()
NEW_SEED = hashlib.sha256(b"the new receipts key").digest()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def public_of(seed: bytes) -> str:
    public = Ed25519PrivateKey.from_private_bytes(seed).public_key()
    return b64(public.public_bytes(Encoding.Raw, PublicFormat.Raw))


OLD = f"old:{b64(OLD_SEED)}"
NEW = f"new:{b64(NEW_SEED)}"


def canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def verify(receipt: dict[str, Any], keys: list[dict[str, str]]) -> None:
    """Raises `InvalidSignature` unless the key the receipt names signed its encounter,
    hash and version (and `KeyError` if that key is not listed)."""
    assert sorted(receipt) == ["encounter_id", "hash", "kid", "sig", "version"]
    key = {k["kid"]: k for k in keys}[receipt["kid"]]
    assert key["alg"] == "Ed25519"
    signed = canonical({k: receipt[k] for k in ("encounter_id", "hash", "version")})
    public = Ed25519PublicKey.from_public_bytes(unb64(key["public_key"]))
    public.verify(unb64(receipt["sig"]), signed)


def plain(receipt: dict[str, Any]) -> dict[str, Any]:
    """A receipt as GraphQL spells it (`encounterId`), as JSON does."""
    return {("encounter_id" if k == "encounterId" else k): v for k, v in receipt.items()}


def envelope_hash(envelope: dict[str, Any]) -> str:
    return hashlib.sha256(canonical({k: v for k, v in envelope.items() if k != "hash"})).hexdigest()


SUBMIT = gql("""
mutation Submit($encounterId: String!, $command: CommandInput!) {
  submitCommand(encounterId: $encounterId, command: $command) {
    __typename
    ... on CommandAccepted { version events { version hash }
                             receipt { kid encounterId version hash sig } }
  }
}""")
EVENTS = gql("""
subscription Events($id: String!, $after: Int!) {
  encounterEvents(encounterId: $id, after: $after) {
    version hash receipt { kid encounterId version hash sig }
  }
}""")
KEYS = gql("query { signingKeys { kid alg publicKey } }")


def sse_frames(url: str, credential: str, count: int) -> list[dict[str, Any]]:
    """The first `count` SSE frames from version 1 on, each's `data` parsed."""
    frames: list[dict[str, Any]] = []
    headers = {**bearer(credential), "Accept": "text/event-stream"}
    with httpx.stream("GET", url, headers=headers, params={"after": 0}, timeout=15) as response:
        assert response.status_code == 200
        frame: dict[str, str] = {}
        for line in response.iter_lines():
            if line == "" and "data" in frame:
                frames.append({**frame, "data": json.loads(frame["data"])})
                if len(frames) == count:
                    break
                frame = {}
            elif line and not line.startswith(":"):
                name, _, value = line.partition(": ")
                frame[name] = value
    return frames


def create(http: httpx.Client, encounter_id: str) -> str:
    """A freeform encounter that hides enemy health from players, with its two combatants;
    the GM token."""
    body = {"ruleset": "freeform", "encounter_id": encounter_id}
    created = http.post(
        "/v1/encounters", headers=bearer(KEY), json={**body, "options": {"hide_enemy_health": True}}
    )
    assert created.status_code == 201, created.text
    gm: str = created.json()["gm_token"]
    return gm


def send(http: httpx.Client, encounter_id: str, gm: str, command: dict[str, Any], **more: Any):
    return http.post(
        f"/v1/encounters/{encounter_id}/commands",
        headers=bearer(gm),
        json={"command": command, **more},
    )


async def test_answers_carry_receipts_that_verify_with_the_served_keys_across_a_rotation(
    redis_url: str, encounter_id: str
) -> None:
    with (
        fray_serving(redis_url, FRAY_SIGNING_KEY=OLD) as (url,),
        httpx.Client(base_url=url, timeout=10) as http,
    ):
        gm = create(http, encounter_id)
        answers = [
            send(http, encounter_id, gm, {"type": "add-combatant", **c}).json() for c in COMBATANTS
        ]
        keys_before = http.get("/v1/keys").json()["keys"]

    # The operator rotates: the new key signs, the old one stays listed after it.
    with fray_serving(redis_url, FRAY_SIGNING_KEY=f"{NEW},{OLD}") as (url,):
        with httpx.Client(base_url=url, timeout=10) as http:
            roll = {"type": "roll-initiative"}
            rolled = send(http, encounter_id, gm, roll, command_id="init-1")
            retried = send(http, encounter_id, gm, roll, command_id="init-1")
            served = http.get("/v1/keys")
        async with graphql_http(url) as graphql:
            command = {"freeform": {"startEncounter": True}}
            done = await graphql.run(SUBMIT, gm, encounterId=encounter_id, command=command)
            started = done["submitCommand"]
            listed = (await graphql.run(KEYS, gm))["signingKeys"]
        with httpx.Client(base_url=url, timeout=10) as http:
            page = http.get(f"/v1/encounters/{encounter_id}/events", headers=bearer(gm))

    assert [k["kid"] for k in keys_before] == ["old"]
    assert served.status_code == 200 and served.headers["cache-control"] == "public, max-age=300"
    keys = served.json()["keys"]
    assert keys == [
        {"kid": "new", "alg": "Ed25519", "public_key": public_of(NEW_SEED)},
        {"kid": "old", "alg": "Ed25519", "public_key": public_of(OLD_SEED)},
    ]
    assert listed == [
        {"kid": k["kid"], "alg": k["alg"], "publicKey": k["public_key"]} for k in keys
    ]
    stored = {e["version"]: e["hash"] for e in page.json()["events"]}
    # Each receipt names its command's last event, as the events page has it.
    answered = [*answers, rolled.json(), {**started, "receipt": plain(started["receipt"])}]
    assert [a["receipt"]["kid"] for a in answered] == ["old", "old", "new", "new"]
    for answer in answered:
        receipt = answer["receipt"]
        verify(receipt, keys)  # the old key's receipts too: it is still listed
        assert receipt["encounter_id"] == encounter_id
        assert receipt["version"] == answer["events"][-1]["version"] == answer["version"]
        assert receipt["hash"] == stored[receipt["version"]]
    assert retried.status_code == 200 and retried.json()["duplicate"]
    assert retried.json()["receipt"] == rolled.json()["receipt"]


async def test_sse_frames_and_subscription_events_carry_the_receipt_of_the_stored_event(
    redis_url: str, encounter_id: str
) -> None:
    path = f"/v1/encounters/{encounter_id}"
    with fray_serving(redis_url, FRAY_SIGNING_KEY=NEW) as (url,):
        with httpx.Client(base_url=url, timeout=10) as http:
            gm = create(http, encounter_id)
            for command in [
                *({"type": "add-combatant", **c} for c in COMBATANTS),
                {"type": "roll-initiative"},
            ]:
                assert send(http, encounter_id, gm, command).status_code == 201
            mint = {"role": "player", "combatants": ["bramli"]}
            player = http.post(f"{path}/tokens", headers=bearer(KEY), json=mint).json()["token"]
            events = http.get(f"{path}/events", headers=bearer(gm)).json()["events"]
            keys = http.get("/v1/keys").json()["keys"]
        head = events[-1]["version"]
        by_gm = await asyncio.to_thread(sse_frames, f"{url}{path}/events", gm, head)
        by_player = await asyncio.to_thread(sse_frames, f"{url}{path}/events", player, head)
        async with subscribed(url, player, encounter_id, 0, EVENTS) as live:
            await live.wait_for(head)

    stored = {e["version"]: e["hash"] for e in events}
    assert [int(f["id"]) for f in by_player] == list(range(1, head + 1))
    for frame in [*by_gm, *by_player]:
        assert frame["data"]["receipt"]["version"] == int(frame["id"])
    live_receipts = [plain(e["receipt"]) for e in live.events]
    assert [r["version"] for r in live_receipts] == list(range(1, head + 1))
    for receipt in [*(f["data"]["receipt"] for f in [*by_gm, *by_player]), *live_receipts]:
        verify(receipt, keys)
        assert receipt["encounter_id"] == encounter_id
        assert receipt["hash"] == stored[receipt["version"]]
    # The player sees the goblin's hit points blanked, so cannot re-hash that event; the
    # receipt binds the stored event, which the GM's (or an auditor's) copy re-hashes to.
    redacted = [
        f["data"]
        for f in by_player
        if envelope_hash({k: v for k, v in f["data"].items() if k != "receipt"})
        != f["data"]["receipt"]["hash"]
    ]
    assert [e["data"]["combatant_id"] for e in redacted] == ["goblin"]
    assert all(envelope_hash(e) == e["hash"] for e in events)


def test_a_signing_key_that_does_not_parse_stops_fray_serve_with_its_name() -> None:
    env = {**os.environ, "FRAY_SIGNING_KEY": f"{OLD},short:{b64(OLD_SEED[:20])}"}

    result = subprocess.run(
        [FRAY, "serve", "--port", str(free_port())],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip

    assert result.returncode == 2
    assert result.stderr.strip() == (
        "fray serve: FRAY_SIGNING_KEY: the key of 'short' is 20 bytes; an Ed25519 seed is 32 "
        "(43 base64url characters)"
    )
    assert b64(OLD_SEED) not in result.stderr + result.stdout


def test_fray_serve_without_a_signing_key_signs_with_a_key_of_its_own_and_warns(
    redis_url: str,
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "FRAY_SIGNING_KEY"}
    env.update(FRAY_REDIS_URL=redis_url, FRAY_API_KEYS=f"acme:{KEY}", FRAY_TOKEN_SECRET="s")
    port = free_port()
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            [FRAY, "serve", "--port", str(port)], env=env, stdout=log, stderr=subprocess.STDOUT
        )
        try:
            _wait_ready(process, log, f"http://127.0.0.1:{port}")
            keys = httpx.get(f"http://127.0.0.1:{port}/v1/keys").json()["keys"]
        finally:
            process.terminate()
            process.wait(timeout=20)
        log.seek(0)
        output = log.read().decode()

    (only,) = keys
    assert only["kid"].startswith("ephemeral-")
    assert "FRAY_SIGNING_KEY is not set" in output
    assert "will not verify after a restart" in output


def _dev_keys(directory: Path, redis_url: str) -> tuple[list[dict[str, str]], str]:
    """The keys a `fray dev` run in `directory` serves, and what it printed."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "FRAY_SIGNING_KEY"}
    env["FRAY_REDIS_URL"] = redis_url
    process = subprocess.Popen(
        [FRAY, "dev", "--port", str(port)], cwd=directory, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                keys = httpx.get(f"http://127.0.0.1:{port}/v1/keys", timeout=2).json()["keys"]
                break
            except httpx.TransportError:
                assert process.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=30)
    return keys, output


def test_fray_dev_keeps_its_signing_key_across_restarts(tmp_path: Path, redis_url: str) -> None:
    first, made = _dev_keys(tmp_path, redis_url)
    kept = tmp_path / ".fray" / "signing-key"
    second, reused = _dev_keys(tmp_path, redis_url)

    (key,) = first
    assert key["kid"].startswith("dev-") and second == first
    assert kept.stat().st_mode & 0o777 == 0o600
    assert f"generated signing key '{key['kid']}' and kept it in .fray/signing-key" in made
    assert f"signing receipts with '{key['kid']}' from .fray/signing-key" in reused


def test_fray_dev_refuses_a_kept_key_that_does_not_parse(tmp_path: Path) -> None:
    (tmp_path / ".fray").mkdir()
    (tmp_path / ".fray" / "signing-key").write_text("not a key\n")
    env = {k: v for k, v in os.environ.items() if k != "FRAY_SIGNING_KEY"}

    result = subprocess.run(
        [FRAY, "dev", "--port", str(free_port())],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip

    assert result.returncode == 2
    assert result.stderr.strip() == (
        "fray dev: .fray/signing-key: entry 1 is not kid:<key> (a key id, a colon, then the "
        "base64url of a 32-byte Ed25519 seed)"
    )
