"""`fray audit` as an auditor runs it against a real `fray serve`: from the API (`--url` with
an auditor token), from a saved export with the served keys (`--keys`), with the receipts a
client kept (`--receipts`). Exit codes: 0 passed, 1 failed, 3 incomplete."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import httpx

from tests.e2e.helpers import FRAY, bearer, fray_serving
from tests.e2e.test_receipts_e2e import NEW, create, send
from tests.engine_helpers import COMBATANTS


def audit(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "FRAY_SIGNING_KEY"}
    return subprocess.run(
        [FRAY, "audit", *args], capture_output=True, text=True, env={**environment, **env},
        timeout=60,
    )  # fmt: skip


def play(http: httpx.Client, encounter_id: str, end: bool) -> tuple[str, list[dict[str, Any]]]:
    """A freeform fight with server dice; the GM token and every answer's receipt."""
    gm = create(http, encounter_id)
    commands = [
        *({"type": "add-combatant", **c} for c in COMBATANTS),
        {"type": "roll-initiative"},
        {"type": "start-encounter"},
        {"type": "roll", "expression": "2d6+3", "purpose": "damage"},
        *([{"type": "end-encounter"}] if end else []),
    ]
    receipts = []
    for command in commands:
        answer = send(http, encounter_id, gm, command)
        assert answer.status_code == 201, answer.text
        receipts.append(answer.json()["receipt"])
    return gm, receipts


def auditor(http: httpx.Client, encounter_id: str, gm: str) -> str:
    minted = http.post(
        f"/v1/encounters/{encounter_id}/tokens", headers=bearer(gm), json={"role": "auditor"}
    )
    assert minted.status_code == 201, minted.text
    token: str = minted.json()["token"]
    return token


def test_an_auditor_audits_through_the_api_before_and_after_the_end(
    redis_url: str, encounter_id: str, tmp_path: Path
) -> None:
    ongoing = f"{encounter_id}-ongoing"
    with (
        fray_serving(redis_url, FRAY_SIGNING_KEY=NEW) as (url,),
        httpx.Client(base_url=url, timeout=10) as http,
    ):
        gm, receipts = play(http, encounter_id, end=True)
        token = auditor(http, encounter_id, gm)
        # The seed of an ongoing fight is the auditor's to fetch: the audit is complete.
        ongoing_gm, _ = play(http, ongoing, end=False)
        ongoing_token = auditor(http, ongoing, ongoing_gm)
        kept = tmp_path / "receipts.jsonl"
        kept.write_text("".join(json.dumps(r) + "\n" for r in receipts))

        ended = audit(encounter_id, "--url", url, "--token", token, "--receipts", str(kept))
        started = audit(ongoing, "--url", url, "--json", FRAY_AUDIT_TOKEN=ongoing_token)
        refused = audit(encounter_id, "--url", url, "--token", "not-a-token")

        keys = tmp_path / "keys.json"
        keys.write_text(http.get("/v1/keys").text)
        export = tmp_path / "fight.jsonl"
        export.write_bytes(
            http.get(f"/v1/encounters/{encounter_id}/export", headers=bearer(token)).content
        )

    assert ended.returncode == 0, ended.stdout + ended.stderr
    assert f"ok    receipts: {len(receipts)} receipts each name an event" in ended.stdout
    report = json.loads(started.stdout)
    assert started.returncode == 0 and report["verdict"] == "passed", started.stdout
    assert {c["name"]: c["status"] for c in report["checks"]}["seed"] == "passed"
    assert refused.returncode == 2 and "answered 401" in refused.stderr

    # A saved export: complete with the saved keys, incomplete without them.
    with_keys = audit("--file", str(export), "--keys", str(keys))
    without = audit("--file", str(export))
    assert with_keys.returncode == 0, with_keys.stdout
    assert without.returncode == 3 and "which only the export itself lists" in without.stdout

    # Truncated (the end dropped): the head receipt no longer names the last line.
    header, *lines = export.read_bytes().splitlines()
    short = tmp_path / "short.jsonl"
    short.write_bytes(b"\n".join([header, *lines[:-2]]) + b"\n")
    truncated = audit("--file", str(short), "--keys", str(keys))
    assert truncated.returncode == 1 and "FAIL  head: " in truncated.stdout, truncated.stdout
    # And a client's kept receipts catch it without the header's help.
    headless = tmp_path / "headless.jsonl"
    headless.write_bytes(b"\n".join(lines[:-2]) + b"\n")
    caught = audit("--file", str(headless), "--keys", str(keys), "--receipts", str(kept))
    assert caught.returncode == 1 and "truncated" in caught.stdout
