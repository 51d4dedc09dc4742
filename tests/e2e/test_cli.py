"""The `fray` command as a real process against the suite's Redis."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from service.embedded_redis import free_port
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
    assert "ok    hash chain" in result.stdout and "ok    draws" in result.stdout
    assert "audit passed" in result.stdout


def test_an_exported_stream_audits_and_a_tampered_one_fails(redis_url, finished, tmp_path):
    export = tmp_path / "fight.jsonl"
    assert fray("export", finished, "-o", str(export), redis_url=redis_url).returncode == 0
    assert fray("audit", "--file", str(export)).returncode == 0
    lines = export.read_bytes().splitlines()
    lines[3] = (
        lines[3].replace(b'"hp"', b'"HP"', 1) if b'"hp"' in lines[3] else lines[3][:-2] + b"0}"
    )
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_bytes(b"\n".join(lines) + b"\n")
    result = fray("audit", "--file", str(tampered))
    assert result.returncode == 1 and "FAIL" in result.stdout and "version 4" in result.stdout


def test_export_of_an_unknown_encounter_fails_clearly(redis_url):
    result = fray("export", "no-such-encounter", redis_url=redis_url)
    assert result.returncode == 1 and "no encounter" in result.stderr


def test_demo_plays_narrates_and_audits(redis_url):
    result = fray("demo", redis_url=redis_url)
    assert result.returncode == 0, result.stderr
    assert "It is Bramli's turn." in result.stdout and "audit: draws" in result.stdout


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
