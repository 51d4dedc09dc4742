"""In-process A/B of one GraphQL (or REST) command: Fray's app against baselines (b) and (a), with
ASGI calls built by hand (no HTTP server or client in the figures), commands one at a time
on one event loop. What a change to the command path costs or saves, before wrk. Fray's
commands are also timed with its `Encounters` given no signer: what receipts cost.

    python -m bench.inprocess            # CPU per command: Fray GraphQL, REST, (b), (a)
    python -m bench.inprocess --profile  # and a cProfile of Fray's GraphQL commands
    python -m bench.inprocess --profile rest  # ... of Fray's REST commands

Not part of `make bench`: a tool for profiling (docs/benchmarks.md, "Where the time goes").
"""

from __future__ import annotations

import asyncio
import cProfile
import os
import pstats
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.routing import Route

from bench import baselines
from bench.api import BASE_SUBMIT, FRAY_SUBMIT, NOTE
from service.api.graphql.compiled import CompiledGraphQL
from service.api.server import create_app
from service.config import Settings
from service.embedded_redis import RedisServer

KEY = "bench-key"
ENCOUNTERS = 16
COMMANDS = 1600  # per measurement
REPS = 5

Call = Callable[[int], Awaitable[tuple[int, bytes]]]


def _asgi(
    app: Starlette, path: str, headers: dict[str, str]
) -> Callable[[bytes], Awaitable[tuple[int, bytes]]]:
    raw = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    raw.append((b"content-type", b"application/json"))

    async def call(body: bytes) -> tuple[int, bytes]:
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": [*raw, (b"content-length", str(len(body)).encode())],
            "client": ("127.0.0.1", 5000),
            "server": ("127.0.0.1", 8000),
            "app": app,
        }
        sent = False
        status = 0
        answer = b""

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.sleep(3600)
            return {"type": "http.disconnect"}

        async def send(message: MutableMapping[str, Any]) -> None:
            nonlocal status, answer
            if message["type"] == "http.response.start":
                status = message["status"]
            else:
                answer += message.get("body", b"")

        await app(scope, receive, send)
        return status, answer

    return call


async def _measure(call: Call, count: int) -> float:
    """CPU seconds per command over `count` commands, one at a time."""
    started = time.process_time()
    for n in range(count):
        status, answer = await call(n)
        if status not in (200, 201) or b"CommandRejected" in answer or b'"errors"' in answer:
            raise RuntimeError(f"status {status}: {answer[:300]!r}")
    return (time.process_time() - started) / count


def _settings(url: str) -> Settings:
    return Settings(
        redis_url=url,
        queue_redis_url=url,
        api_keys=(f"bench:{KEY}",),
        token_secret="bench-secret",
        rate_limit=1_000_000_000,
    )


async def _calls(fray: Starlette, base: Starlette, base_rest: Starlette) -> dict[str, Call]:
    """One command per call, spread over ENCOUNTERS freeform encounters: Fray's GraphQL
    (compiled, and through strawberry's view), Fray's REST, and baselines (b) and (a)."""
    create = _asgi(fray, "/v1/encounters", {"Authorization": f"Bearer {KEY}"})
    tokens = []
    for n in range(ENCOUNTERS):
        body = {"ruleset": "freeform", "encounter_id": f"e{n}", "title": "bench"}
        _, answer = await create(orjson.dumps(body))
        tokens.append(orjson.loads(answer)["gm_token"])
    gql = [_asgi(fray, "/graphql", {"Authorization": f"Bearer {t}"}) for t in tokens]
    rest = [
        _asgi(fray, f"/v1/encounters/e{n}/commands", {"Authorization": f"Bearer {t}"})
        for n, t in enumerate(tokens)
    ]
    b = _asgi(base, "/graphql", {})
    a = [_asgi(base_rest, f"/v1/encounters/e{n}/commands", {}) for n in range(ENCOUNTERS)]
    (endpoint,) = [r.endpoint for r in fray.routes if isinstance(r, Route)
                   and isinstance(r.endpoint, CompiledGraphQL)]  # fmt: skip

    def fray_gql(n: int) -> Awaitable[tuple[int, bytes]]:
        e = n % ENCOUNTERS
        variables = {"encounterId": f"e{e}", "command": {"freeform": {"addNote": {"text": NOTE}}}}
        return gql[e](orjson.dumps({"query": FRAY_SUBMIT, "variables": variables}))

    async def fray_strawberry(n: int) -> tuple[int, bytes]:
        endpoint.compiled = False
        try:
            return await fray_gql(n)
        finally:
            endpoint.compiled = True

    def fray_rest(n: int) -> Awaitable[tuple[int, bytes]]:
        e = n % ENCOUNTERS
        return rest[e](orjson.dumps({"command": {"type": "add-note", "text": NOTE}}))

    encounters = fray.state.encounters
    signer = encounters.signer

    def unsigned(call: Call) -> Call:
        """`call` with the app's `Encounters` signing nothing: what receipts cost."""

        async def without_receipts(n: int) -> tuple[int, bytes]:
            encounters.signer = None
            try:
                return await call(n)
            finally:
                encounters.signer = signer

        return without_receipts

    def base_gql(n: int) -> Awaitable[tuple[int, bytes]]:
        variables = {"encounterId": f"e{n % ENCOUNTERS}", "command": {"addNote": {"text": NOTE}}}
        return b(orjson.dumps({"query": BASE_SUBMIT, "variables": variables}))

    def base_rest_call(n: int) -> Awaitable[tuple[int, bytes]]:
        return a[n % ENCOUNTERS](orjson.dumps({"command": {"type": "add-note", "text": NOTE}}))

    return {
        "fray graphql": fray_gql,
        "fray graphql, strawberry's view": fray_strawberry,
        "fray graphql, no signer": unsigned(fray_gql),
        "fray rest": fray_rest,
        "fray rest, no signer": unsigned(fray_rest),
        "(b)": base_gql,
        "(a)": base_rest_call,
    }


async def main(profile: str | None) -> None:
    with RedisServer() as server:
        fray = create_app(_settings(server.url))
        os.environ["BENCH_REDIS_URL"] = server.url
        base = baselines.graphql_app()
        base_rest = baselines.rest_app()  # shares (b)'s Redis client, which (b)'s lifespan opens
        async with fray.router.lifespan_context(fray), base.router.lifespan_context(base):
            calls = await _calls(fray, base, base_rest)
            for call in calls.values():
                await _measure(call, 200)  # warm-up
            results: dict[str, list[float]] = {name: [] for name in calls}
            for _ in range(REPS):  # interleaved
                for name, call in calls.items():
                    results[name].append(await _measure(call, COMMANDS))
            b_cpu = statistics.median(results["(b)"])
            a_cpu = statistics.median(results["(a)"])
            for name, values in results.items():
                cpu = statistics.median(values)
                print(
                    f"{name:32} {cpu * 1e6:6.0f} µs CPU/command = {cpu / b_cpu:.2f}x (b), "
                    f"{cpu / a_cpu:.2f}x (a)"
                )
            if profile:
                profiler = cProfile.Profile()
                profiler.enable()
                await _measure(calls[f"fray {profile}"], COMMANDS)
                profiler.disable()
                stats = pstats.Stats(profiler).sort_stats("cumulative")
                stats.print_stats(60)
                stats.sort_stats("tottime").print_stats(40)


def _profile_arg(argv: list[str]) -> str | None:
    if "--profile" not in argv:
        return None
    rest = argv[argv.index("--profile") + 1 :]
    return rest[0] if rest and rest[0] in ("graphql", "rest") else "graphql"


if __name__ == "__main__":
    asyncio.run(main(_profile_arg(sys.argv[1:])))
