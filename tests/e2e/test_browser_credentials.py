"""What a browser's credentials meet in a real `fray serve`: a stream ticket never reaches
its log, and a FRAY_CORS_ORIGINS that does not parse stops it before it serves."""

from __future__ import annotations

import os
import subprocess
import time

import httpx

from service.api.logs import REDACTED
from service.embedded_redis import free_port
from tests.api.conftest import KEY
from tests.e2e.helpers import FRAY, bearer, fray_serving_logged


def test_a_stream_ticket_never_reaches_the_log(redis_url: str, encounter_id: str) -> None:
    with fray_serving_logged(redis_url) as (url, output), httpx.Client(base_url=url) as http:
        created = http.post(
            "/v1/encounters", json={"ruleset": "freeform", "encounter_id": encounter_id},
            headers=bearer(KEY),
        )  # fmt: skip
        assert created.status_code == 201
        events = f"/v1/encounters/{encounter_id}/events"
        minted = http.post(f"/v1/encounters/{encounter_id}/stream-tickets", headers=bearer(KEY))
        ticket = minted.json()["ticket"]
        with http.stream("GET", f"{events}?follow=true&ticket={ticket}") as opened:
            assert opened.status_code == 200
            next(opened.iter_lines())
        # Spent: refused, and that line is logged too. The name percent-encoded is the same
        # parameter to Fray, so it is redacted alike.
        assert http.get(f"{events}?follow=true&%74icket={ticket}").status_code == 401
        # Written as each answer's headers go out: wait for both lines (a hang guard).
        deadline = time.monotonic() + 20
        while output().count(f"{events}?follow=true&") < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        logged = output()
    assert ticket not in logged
    assert ticket.split(".")[2] not in logged  # nor its signature alone
    assert f'"GET {events}?follow=true&ticket={REDACTED} HTTP/1.1" 200' in logged
    assert f'"GET {events}?follow=true&%74icket={REDACTED} HTTP/1.1" 401' in logged


def test_a_malformed_cors_origin_stops_fray_serve_with_its_name() -> None:
    env = {**os.environ, "FRAY_CORS_ORIGINS": "http://localhost:3000, https://vtt.example/"}

    result = subprocess.run(
        [FRAY, "serve", "--port", str(free_port())],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip

    assert result.returncode == 2
    assert result.stderr.strip() == (
        "fray serve: FRAY_CORS_ORIGINS: 'https://vtt.example/' is not an origin (an origin has "
        "no path, not even a trailing '/'); write scheme://host[:port], e.g. "
        "https://vtt.example.com or http://localhost:3000"
    )
