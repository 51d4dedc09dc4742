"""The API benchmarks' baselines: the least an HTTP command endpoint can do, one XADD each.

Served exactly as Fray is (uvicorn, one worker, the same host, access log on at "info"),
against the same private redis-server, so `python -m bench api` can divide Fray's rate by
theirs measured side by side:

  (a) `rest_app`: a minimal Starlette endpoint at Fray's command path that parses the JSON
      body and does one XADD of it;
  (b) `graphql_app`: a minimal strawberry mutation `submitCommand(encounterId, command)`
      with strawberry's parser and validation caches, doing one XADD;
  (b') `graphql_nocache_app`: the same mutation without the caches (for context).

Run one with `uvicorn bench.baselines:rest_app --factory`; `BENCH_REDIS_URL` names the
Redis (default: Fray's `FRAY_REDIS_URL`).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

import orjson
import redis.asyncio as aioredis
import strawberry
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route
from strawberry.asgi import GraphQL
from strawberry.extensions import ParserCache, SchemaExtension, ValidationCache
from strawberry.types import Info

_clients: dict[str, aioredis.Redis] = {}


def _redis() -> aioredis.Redis:
    return _clients["redis"]


def _redis_url() -> str:
    return os.environ.get(
        "BENCH_REDIS_URL", os.environ.get("FRAY_REDIS_URL", "redis://127.0.0.1:6379/0")
    )


@asynccontextmanager
async def _lifespan(app: Starlette) -> AsyncIterator[None]:
    _clients["redis"] = aioredis.Redis.from_url(_redis_url())
    try:
        yield
    finally:
        await _clients.pop("redis").aclose()


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


async def _healthz(request: Request) -> Response:
    return PlainTextResponse("ok")


# --- (a) REST ------------------------------------------------------------------------------


async def _post_command(request: Request) -> Response:
    body = orjson.loads(await request.body())
    if not isinstance(body, dict) or not isinstance(body.get("command"), dict):
        return JSONResponse({"error": "bad body"}, status_code=400)
    key = f"bench:a:{request.path_params['encounter_id']}"
    entry_id = await _redis().xadd(key, {"c": orjson.dumps(body["command"])})
    return JSONResponse({"id": _text(entry_id)}, status_code=201)


def rest_app() -> Starlette:
    routes: list[BaseRoute] = [
        Route("/healthz", _healthz),
        Route("/v1/encounters/{encounter_id}/commands", _post_command, methods=["POST"]),
    ]
    return Starlette(routes=routes, lifespan=_lifespan)


# --- (b) GraphQL ---------------------------------------------------------------------------


@strawberry.input
class AddNoteInput:
    text: str


@strawberry.input(one_of=True)
class CommandInput:
    add_note: AddNoteInput | None = strawberry.UNSET


@strawberry.type
class CommandAccepted:
    entry_id: str


@strawberry.type
class Query:
    @strawberry.field
    def ok(self) -> bool:
        return True


@strawberry.type
class Mutation:
    @strawberry.mutation
    async def submit_command(
        self, info: Info, encounter_id: str, command: CommandInput
    ) -> CommandAccepted:
        note = command.add_note
        text = note.text if note else ""
        entry_id = await _redis().xadd(f"bench:b:{encounter_id}", {"c": text})
        return CommandAccepted(entry_id=_text(entry_id))


def _graphql(cached: bool) -> Starlette:
    # Factories, as Fray passes them: strawberry builds the extensions per request, and
    # the caches live at module level, shared by every request.
    extensions: list[Callable[[], SchemaExtension]] = (
        [partial(ParserCache, maxsize=256), partial(ValidationCache, maxsize=256)] if cached else []
    )
    schema = strawberry.Schema(query=Query, mutation=Mutation, extensions=extensions)
    graphql: Any = GraphQL(schema, graphql_ide=None)
    routes: list[BaseRoute] = [
        Route("/healthz", _healthz),
        Route("/graphql", graphql, methods=["POST"]),
    ]
    return Starlette(routes=routes, lifespan=_lifespan)


def graphql_app() -> Starlette:
    return _graphql(cached=True)


def graphql_nocache_app() -> Starlette:
    return _graphql(cached=False)
