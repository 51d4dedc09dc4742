"""What signing receipts costs the REST command path (issue 22, item 2: no more than 5% of
its throughput).

Two Fray processes on one private redis-server, side by side: `fray serve` as deployed (it
signs a receipt for every accepted command, FRAY_SIGNING_KEY set) and the same app with its
`Encounters` given no signer (`python -m bench.receipts serve-unsigned PORT`: the app of
`create_app()`, configured as `fray serve` configures it, whose lifespan then drops the
signer, so its answers carry `"receipt": null`). There is no operator's switch to sign
nothing: a deployment always signs, so the unsigned app exists only here.

wrk sends `add-note` commands to each, as the API suite does (two threads, one encounter
per connection, each server its own encounters); the two run back to back in alternating
order, several repetitions, and the cost is 1 - the median over repetitions of signed /
unsigned commands/s. The server's CPU per command is reported beside it: on a shared
machine it moves less than the throughput does.
"""

from __future__ import annotations

import contextlib
import secrets
import shutil
import sys
import tempfile
import timeit
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import redis
from starlette.applications import Starlette

from bench.api import (
    Config,
    Conn,
    Measured,
    Server,
    _environment,
    _median,
    _rest_body,
    _start,
    check,
    create_encounters,
    run_wrk,
    start_fray,
    write_script,
)
from bench.core import Outcome
from bench.report import Row, median, progress, rate, verdict
from service.app.receipts import Signer, new_key_entry, parse_signing_keys
from service.embedded_redis import RedisServer, free_port

TARGET = 0.05  # signing may cost the REST command path at most 5% of its throughput


@dataclass
class Settings:
    seconds: float = 3.0  # one wrk run (whole seconds)
    reps: int = 7  # repetitions, each running both servers back to back
    clients: tuple[int, ...] = (1, 16)

    @classmethod
    def quick(cls) -> Settings:
        return cls(seconds=1.0, reps=3)


def unsigned_app() -> Starlette:
    """Fray's app whose `Encounters` signs nothing: the baseline of this suite only."""
    from service.api.server import create_app

    app = create_app()
    lifespan = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def without_receipts(app: Starlette) -> AsyncIterator[None]:
        async with lifespan(app):
            app.state.encounters.signer = None
            yield

    app.router.lifespan_context = without_receipts
    return app


def _serve_unsigned(port: int) -> None:
    import uvicorn

    from service.cli import _log_config

    uvicorn.run(
        "bench.receipts:unsigned_app",
        factory=True,
        host="127.0.0.1",
        port=port,
        log_level="info",
        log_config=_log_config(),
    )


def start_unsigned(env: dict[str, str]) -> Server:
    port = free_port()
    argv = [sys.executable, "-m", "bench.receipts", "serve-unsigned", str(port)]
    return _start("fray (no signer)", argv, port, env)


def signing_cost_us() -> float:
    """One receipt, signed afresh (the cache missed), in-process: µs."""
    signer = Signer(parse_signing_keys(new_key_entry("bench")), cache_size=1)
    versions = iter(range(10**9))
    number = 5000
    seconds = timeit.timeit(lambda: signer.receipt("enc", next(versions), "ab" * 32), number=number)
    return seconds / number * 1e6


def run(settings: Settings) -> Outcome:
    outcome = Outcome()
    if shutil.which("wrk") is None:
        progress("receipts: wrk is not installed (apt-get install wrk); skipping the suite")
        outcome.rows.append(Row("Receipts", "not run", "—", "**not run**", "wrk is not installed"))
        return outcome
    redis_server = RedisServer().start()
    servers: list[Server] = []
    try:
        version = redis_server.version()
        outcome.environment.append(f"redis-server {version} ({redis_server.binary})")
        key = secrets.token_urlsafe(18)
        env = _environment(redis_server.url, key)
        env["FRAY_SIGNING_KEY"] = new_key_entry("bench")
        signed = start_fray(env)
        servers.append(signed)
        unsigned = start_unsigned(env)
        servers.append(unsigned)
        with tempfile.TemporaryDirectory(prefix="fray-bench-receipts-") as directory:
            _suite(settings, outcome, signed, unsigned, key, directory, redis_server.url)
    finally:
        for server in servers:
            server.stop()
        redis_server.close()
    return outcome


def _configs(
    signed: Server, unsigned: Server, key: str, clients: int, directory: str
) -> list[Config]:
    made = []
    for name, server in (("signed", signed), ("unsigned", unsigned)):
        # Each server its own encounters: the other's appends would make its cache stale.
        encounters = create_encounters(signed, key, clients, f"{name}-{clients}")
        path = "/v1/encounters/{}/commands"
        conns = [Conn(path.format(e), t, _rest_body()) for e, t in encounters]
        config = Config(name, server, conns)
        config.script = write_script(conns, directory, f"{name}-{clients}")
        check(config)
        made.append(config)
    return made


def _suite(
    settings: Settings,
    outcome: Outcome,
    signed: Server,
    unsigned: Server,
    key: str,
    directory: str,
    redis_url: str,
) -> None:
    answer = _one_answer(signed, unsigned, key)
    grid = {n: _configs(signed, unsigned, key, n, directory) for n in settings.clients}
    results: dict[tuple[int, str], list[Measured]] = {}
    rds = redis.Redis.from_url(redis_url)
    try:
        for config in grid[max(settings.clients)]:  # the warm-up: see bench.api.warm_up
            run_wrk(config.server, config.script, max(settings.clients), 1.0, rds)
        for rep in range(settings.reps):
            for clients, configs in grid.items():
                for config in configs if rep % 2 == 0 else configs[::-1]:
                    progress(f"rep {rep + 1}/{settings.reps}: {config.name}, {clients} clients")
                    measured = run_wrk(config.server, config.script, clients, settings.seconds, rds)
                    results.setdefault((clients, config.name), []).append(measured)
    finally:
        rds.close()
    _rows(settings, outcome, results, answer)


def _one_answer(signed: Server, unsigned: Server, key: str) -> dict[str, Any]:
    """One command's answer from each server: the signed one carries a receipt."""
    import httpx

    out = {}
    for name, server in (("signed", signed), ("unsigned", unsigned)):
        ((encounter_id, token),) = create_encounters(signed, key, 1, f"probe-{name}")
        answer = httpx.post(
            f"{server.base}/v1/encounters/{encounter_id}/commands",
            content=_rest_body(),
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )
        answer.raise_for_status()
        out[name] = answer.json()["receipt"]
    if out["signed"] is None or out["unsigned"] is not None:
        raise RuntimeError(f"the servers do not sign as they should: {out}")
    return out


def _rows(
    settings: Settings,
    outcome: Outcome,
    results: dict[tuple[int, str], list[Measured]],
    answer: dict[str, Any],
) -> None:
    rows = outcome.rows
    for clients in settings.clients:
        runs_signed, runs_unsigned = results[(clients, "signed")], results[(clients, "unsigned")]
        ratios = [
            s.rate / max(u.rate, 1e-9) for s, u in zip(runs_signed, runs_unsigned, strict=True)
        ]
        cost = 1 - median(ratios)
        signed_m, unsigned_m = _median(runs_signed), _median(runs_unsigned)
        who = f"{clients} client{'s' if clients != 1 else ''} over {clients} encounter" + (
            "s" if clients != 1 else ""
        )
        for name, m in (("with receipts", signed_m), ("no signer", unsigned_m)):
            rows.append(
                Row(
                    f"REST add-note, {who}, {name}",
                    f"{rate(m.rate, 'commands/s')}; p50 {m.p50 * 1000:.1f} ms, "
                    f"p99 {m.p99 * 1000:.1f} ms",
                    notes=f"server CPU {m.server_cpu_us:,.0f} µs per command"
                    + (f"; **{m.errors} errors**" if m.errors else ""),
                )
            )
        extra_cpu = signed_m.server_cpu_us - unsigned_m.server_cpu_us
        rows.append(
            Row(
                f"Signing's cost to REST throughput, {who}",
                f"{cost:.1%} (signed / unsigned per repetition: "
                + ", ".join(f"{r:.3f}" for r in ratios)
                + ")",
                f"≤ {TARGET:.0%}",
                verdict(cost <= TARGET),
                f"server CPU {extra_cpu:+,.0f} µs per command "
                f"({extra_cpu / max(unsigned_m.server_cpu_us, 1e-9):+.1%})",
            )
        )
    rows.append(
        Row(
            "One receipt signed afresh, in-process (Ed25519 via cryptography, base64url, dict)",
            f"{signing_cost_us():.1f} µs",
            notes=f"kid {answer['signed']['kid']}; the answer carries it as `receipt`",
        )
    )


def _main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "serve-unsigned":
        _serve_unsigned(int(argv[1]))
        return 0
    print("usage: python -m bench.receipts serve-unsigned PORT (run by `python -m bench receipts`)")
    return 2


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
