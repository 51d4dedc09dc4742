"""The `fray` command as a real process against the suite's Redis."""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from service.domain.canonical import canonical_bytes, envelope_hash
from service.embedded_redis import RedisServer, free_port
from tests.api.conftest import SECRET
from tests.e2e.helpers import bearer, fray_serving
from tests.engine_helpers import run_on_redis, send, skirmish

FRAY = str(Path(sys.executable).parent / "fray")


def fray(*args: str, redis_url: str | None = None, timeout: float = 60):
    env = {**os.environ}
    if redis_url is not None:
        env["FRAY_REDIS_URL"] = redis_url
    return subprocess.run([FRAY, *args], capture_output=True, text=True, env=env, timeout=timeout)


@pytest.fixture
def finished(redis_url: str, encounter_id: str) -> str:
    async def scenario(engine) -> None:
        await skirmish(engine, encounter_id)
        await send(engine, encounter_id, {"type": "roll", "expression": "1d20+4"})
        await send(engine, encounter_id, {"type": "end-turn"})
        await send(engine, encounter_id, {"type": "end-encounter"})

    run_on_redis(redis_url, scenario)
    return encounter_id


def test_help_lists_every_command():
    out = fray("--help").stdout
    for command in ("serve", "worker", "dev", "demo", "export", "audit", "schema", "openapi"):
        assert command in out


def test_schema_prints_the_checked_in_graphql_schema():
    result = fray("schema")
    assert result.returncode == 0 and "type Mutation" in result.stdout
    checked_in = Path(__file__).resolve().parents[2] / "schema" / "schema.graphql"
    assert result.stdout.strip() == checked_in.read_text().strip()


def test_openapi_prints_the_checked_in_spec():
    result = fray("openapi")
    assert result.returncode == 0 and "openapi: " in result.stdout
    checked_in = Path(__file__).resolve().parents[2] / "openapi" / "openapi.yaml"
    assert result.stdout == checked_in.read_text()


def test_audit_of_an_encounter_in_redis_passes(redis_url, finished):
    result = fray("audit", finished, redis_url=redis_url)
    assert result.returncode == 0, result.stdout + result.stderr
    for check in ("lines", "chain", "created", "seed", "draws", "rerun", "head"):
        assert f"ok    {check}: " in result.stdout
    assert "audit passed: every check ran and passed" in result.stdout


def test_audit_json_prints_every_check_with_its_counts(redis_url, finished):
    result = fray("audit", finished, "--json", redis_url=redis_url)
    report = json.loads(result.stdout)
    assert result.returncode == 0 and report["verdict"] == "passed"
    assert report["encounter_id"] == finished and report["ruleset"] == "freeform"
    checks = {c["name"]: c for c in report["checks"]}
    assert list(checks) == ["lines", "chain", "created", "seed", "draws", "rerun", "head",
                            "receipts"]  # fmt: skip
    assert checks["chain"]["count"] == report["audited_version"] > 0
    assert checks["receipts"]["status"] == "skipped"


def test_an_exported_stream_audits_and_a_tampered_one_fails(redis_url, finished, tmp_path):
    export = tmp_path / "fight.jsonl"
    assert fray("export", finished, "-o", str(export), redis_url=redis_url).returncode == 0
    header, *lines = export.read_bytes().splitlines()
    assert json.loads(header)["fray_export"] == 1
    plain = fray("audit", "--file", str(export))
    # This process has no signing key: the head is not anchored, so the audit is not a pass.
    assert plain.returncode == 3 and "----  head: the export's head is not signed" in plain.stdout
    lines[3] = (
        lines[3].replace(b'"hp"', b'"HP"', 1) if b'"hp"' in lines[3] else lines[3][:-2] + b"0}"
    )
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_bytes(b"\n".join([header, *lines]) + b"\n")
    result = fray("audit", "--file", str(tampered))
    assert result.returncode == 1 and "FAIL" in result.stdout and "version 4" in result.stdout


def test_an_export_that_dropped_its_end_and_forged_a_die_does_not_pass(
    redis_url, finished, tmp_path
):
    """Issue 22's reproduction through the CLI: drop the end (so the seed is not revealed)
    and forge a server die, re-hashing the chain. It passed; it is now incomplete (3), and
    fails (1) once the auditor brings the seed."""
    export = tmp_path / "fight.jsonl"
    fray("export", finished, "-o", str(export), redis_url=redis_url)
    envelopes = [json.loads(line) for line in export.read_bytes().splitlines()[1:]]
    ending = next(e for e in envelopes if (e["command"] or {}).get("type") == "end-encounter")
    kept = envelopes[: ending["version"] - 1]
    rolled = next(e for e in kept if e["type"] == "dice-rolled")
    rolled["rolls"][0]["value"] = 20 if rolled["rolls"][0]["value"] != 20 else 19
    previous = "0" * 64
    for envelope in kept:
        envelope["prev_hash"] = previous
        envelope["hash"] = envelope_hash(envelope)
        previous = envelope["hash"]
    forged = tmp_path / "forged.jsonl"
    forged.write_bytes(b"\n".join(canonical_bytes(e) for e in kept) + b"\n")

    unseeded = fray("audit", "--file", str(forged))
    assert unseeded.returncode == 3, unseeded.stdout
    assert "seed: not revealed (no encounter-ended) and not given" in unseeded.stdout
    seed = fray("export", finished, redis_url=redis_url)  # the true seed, from the real end
    revealed = next(json.loads(line) for line in seed.stdout.splitlines()[1:]
                    if json.loads(line)["type"] == "encounter-ended")["data"]["seed"]  # fmt: skip
    seeded = fray("audit", "--file", str(forged), "--seed", revealed)
    assert seeded.returncode == 1 and "FAIL  draws: version" in seeded.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["no-such-encounter"], "there is no encounter 'no-such-encounter'"),
        (["--file", "/nonexistent/x.jsonl"], "cannot read /nonexistent/x.jsonl"),
        (["--file", "/dev/null", "--seed", "zz"], "--seed: not hex"),
        ([], "give an encounter id"),
        (["x", "--url", "http://127.0.0.1:9"], "--url needs an auditor token"),
    ],
)
def test_an_audit_that_cannot_start_exits_2_and_says_why(redis_url, args, words):
    result = fray("audit", *args, redis_url=redis_url)
    assert result.returncode == 2 and words in result.stderr, result.stderr


def test_export_of_an_unknown_encounter_fails_clearly(redis_url):
    result = fray("export", "no-such-encounter", redis_url=redis_url)
    assert result.returncode == 1 and "no encounter" in result.stderr


def test_demo_plays_narrates_and_audits(redis_url):
    result = fray("demo", redis_url=redis_url)
    assert result.returncode == 0, result.stderr
    assert "It is Bramli's turn." in result.stdout and "  ok    draws: " in result.stdout


def test_dev_starts_an_embedded_redis_when_none_answers_and_serves_healthz(tmp_path):
    port = free_port()
    env = {**os.environ, "FRAY_REDIS_URL": f"redis://127.0.0.1:{free_port()}/0"}
    process = subprocess.Popen(
        [FRAY, "dev", "--port", str(port)], cwd=tmp_path, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        ready = _get_when_up(f"http://127.0.0.1:{port}/readyz")
        assert ready.status_code == 200
        assert httpx.get(f"http://127.0.0.1:{port}/healthz").json() == {"status": "ok"}
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=20)
    assert "started an embedded Redis" in output
    assert (tmp_path / ".fray" / "redis").is_dir()


def _get_when_up(url: str, timeout: float = 60) -> httpx.Response:
    deadline = time.monotonic() + timeout
    while True:
        try:
            return httpx.get(url, timeout=2)
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


DEV_SETTINGS = ("FRAY_API_KEYS", "FRAY_TOKEN_SECRET", "FRAY_SIGNING_KEY")


class DevRun:
    """`fray dev` running in a directory, on the suite's Redis, until `stop()`."""

    def __init__(self, directory: Path, redis_url: str, **env: str) -> None:
        self.url = f"http://127.0.0.1:{free_port()}"
        environment = {k: v for k, v in os.environ.items() if k not in DEV_SETTINGS}
        environment.update(FRAY_REDIS_URL=redis_url, **env)
        self.process = subprocess.Popen(
            [FRAY, "dev", "--port", self.url.rsplit(":", 1)[1]], cwd=directory,
            env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        assert _get_when_up(f"{self.url}/readyz").status_code == 200

    def stop(self) -> str:
        self.process.terminate()
        output, _ = self.process.communicate(timeout=30)
        return output


def test_dev_keeps_its_key_and_token_secret_so_tokens_outlive_a_restart(tmp_path, redis_url):
    first = DevRun(tmp_path, redis_url)
    try:
        key = (tmp_path / ".fray" / "api-keys").read_text().strip().partition(":")[2]
        created = httpx.post(
            f"{first.url}/v1/encounters", json={"ruleset": "freeform", "encounter_id": "kept"},
            headers=_bearer(key),
        )  # fmt: skip
        assert created.status_code == 201, created.text
        gm = created.json()["gm_token"]
    finally:
        made = first.stop()

    second = DevRun(tmp_path, redis_url)
    try:
        as_gm = httpx.get(f"{second.url}/v1/encounters/kept", headers=_bearer(gm))
        listed = httpx.get(f"{second.url}/v1/encounters", headers=_bearer(key))
    finally:
        reused = second.stop()

    assert as_gm.status_code == 200, as_gm.text
    assert "kept" in [item["encounter_id"] for item in listed.json()["encounters"]]
    for name in ("api-keys", "token-secret", "signing-key"):
        assert (tmp_path / ".fray" / name).stat().st_mode & 0o777 == 0o600, name
    assert "FRAY_API_KEYS was unset; generated one and kept it in .fray/api-keys" in made
    assert f"tenant 'dev': {key}" in made and f"tenant 'dev': {key}" in reused
    assert "FRAY_API_KEYS was unset; using the one kept in .fray/api-keys" in reused
    assert "FRAY_TOKEN_SECRET was unset; generated one and kept it in .fray/token-secret" in made
    assert "FRAY_TOKEN_SECRET was unset; using the one kept in .fray/token-secret" in reused


def test_dev_lets_a_setting_in_the_environment_win_over_a_kept_one(tmp_path, redis_url):
    (tmp_path / ".fray").mkdir()
    (tmp_path / ".fray" / "api-keys").write_text("dev:kept-key\n")
    run = DevRun(tmp_path, redis_url, FRAY_API_KEYS="env:env-key")
    try:
        kept = httpx.get(f"{run.url}/v1/encounters", headers=_bearer("kept-key"))
        env = httpx.get(f"{run.url}/v1/encounters", headers=_bearer("env-key"))
    finally:
        output = run.stop()
    assert (kept.status_code, env.status_code) == (401, 200)
    assert "FRAY_API_KEYS" not in output and "kept-key" not in output


def test_dev_refuses_a_kept_key_file_that_holds_no_key(tmp_path):
    (tmp_path / ".fray").mkdir()
    (tmp_path / ".fray" / "api-keys").write_text("\n")
    env = {k: v for k, v in os.environ.items() if k not in DEV_SETTINGS}
    result = subprocess.run(
        [FRAY, "dev", "--port", str(free_port())], cwd=tmp_path, capture_output=True,
        text=True, env=env, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "fray dev: .fray/api-keys is empty: delete it to have a new value generated"
    )


def _bearer(credential: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {credential}"}


def test_dev_stopped_leaves_no_process_behind(tmp_path):
    """RQ's scheduler runs in a fork of the worker, which `fray dev` has killed with it:
    the fork stops too, instead of running on orphaned (and holding the terminal). A Redis
    of the test's own: a fresh scheduler lock, and a server that outlives `fray dev` (an
    embedded one dies with it, and the orphan with its connection)."""
    with RedisServer() as server:
        env = {k: v for k, v in os.environ.items() if k not in DEV_SETTINGS}
        env["FRAY_REDIS_URL"] = server.url
        scheduler = _stop_dev_once_scheduling(tmp_path, env)
    assert not _alive(scheduler)


def _stop_dev_once_scheduling(tmp_path: Path, env: dict[str, str]) -> int:
    """Start `fray dev`, stop it once its worker's scheduler runs, and wait until nothing
    holds its output; the scheduler's pid."""
    process = subprocess.Popen(
        [FRAY, "dev", "--port", str(free_port())], cwd=tmp_path, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        for line in process.stdout or ():
            lines.put(line)
        lines.put(None)  # end of file: no process holds the output any more

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    scheduler = None
    while scheduler is None:
        line = lines.get(timeout=60)
        assert line is not None, "fray dev stopped before its scheduler started"
        found = re.search(r"Scheduler for .* started with PID (\d+)", line)
        scheduler = int(found.group(1)) if found else None
    process.terminate()
    process.wait(timeout=30)
    reader.join(timeout=30)
    # Checked before closing: closing waits for the reader, which waits for the holder.
    assert not reader.is_alive(), "a process outlived fray dev, holding its output"
    assert process.stdout is not None
    process.stdout.close()
    return scheduler


def _alive(pid: int) -> bool:
    """Running: not gone, nor a zombie that nobody reaped (an orphan's parent is init)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "State:\tZ" not in status


@pytest.mark.parametrize("command", ["serve", "worker"])
def test_a_shutdown_grace_that_does_not_parse_stops_the_process_before_it_starts(command):
    env = {**os.environ, "FRAY_SHUTDOWN_GRACE": "soon"}
    result = subprocess.run([FRAY, command], capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        f"fray {command}: FRAY_SHUTDOWN_GRACE must be a positive number of seconds, not 'soon'"
    )


def test_demo_table_prints_a_url_a_server_on_the_same_redis_shows_as_the_gm(redis_url):
    env = {**os.environ, "FRAY_REDIS_URL": redis_url, "FRAY_TOKEN_SECRET": SECRET}
    with fray_serving(redis_url) as [url]:
        played = subprocess.run(
            [FRAY, "demo", "fifty-two", "--table", url],
            capture_output=True, text=True, env=env, timeout=60,
        )  # fmt: skip
        assert played.returncode == 0, played.stderr
        (line,) = [x for x in played.stdout.splitlines() if x.startswith("table: ")]
        encounter_id = played.stdout.split("\n", 1)[0].removeprefix("encounter ")
        address, _, token = line.removeprefix("table: ").partition("#token=")
        page = httpx.get(address)
        seen = httpx.get(f"{url}/v1/encounters/{encounter_id}", headers=bearer(token))
        # Only the GM (or the tenant's key) may mint the encounter's tokens.
        minted = httpx.post(
            f"{url}/v1/encounters/{encounter_id}/tokens", headers=bearer(token),
            json={"role": "observer", "subject": "watcher"},
        )  # fmt: skip

    assert address == f"{url}/table/{encounter_id}"
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert seen.status_code == 200, seen.text
    assert seen.json()["ruleset"] == "fifty-two"
    assert minted.status_code == 201, minted.text


def test_demo_table_on_an_embedded_redis_says_why_there_is_no_url(tmp_path):
    env = {**os.environ, "FRAY_REDIS_URL": f"redis://127.0.0.1:{free_port()}/0"}
    played = subprocess.run(
        [FRAY, "demo", "freeform", "--table"],
        capture_output=True, text=True, env=env, timeout=60, cwd=tmp_path,
    )  # fmt: skip

    assert played.returncode == 0, played.stderr
    assert "table: not shown: this demo played on an embedded Redis" in played.stdout
    assert "#token=" not in played.stdout
