"""Shared steps of the end-to-end tests: `fray serve` processes, the `gql` client over HTTP
and websockets, and an SSE reader. Everything here talks to real processes over sockets."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import ExitStack, asynccontextmanager, contextmanager
from pathlib import Path
from typing import IO, Any

import httpx
from gql import Client, GraphQLRequest, gql
from gql.client import AsyncClientSession
from gql.transport.httpx import HTTPXAsyncTransport
from gql.transport.websockets import WebsocketsTransport

from service.embedded_redis import free_port
from tests.api.conftest import KEY, SECRET

FRAY = str(Path(sys.executable).parent / "fray")
SCHEMA = (Path(__file__).resolve().parents[2] / "schema" / "schema.graphql").read_text()


def bearer(credential: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {credential}"}


# --- processes ----------------------------------------------------------------------------


@contextmanager
def fray_serving(redis_url: str, count: int = 1, **env: str) -> Iterator[list[str]]:
    """The base URLs of `count` `fray serve` processes on one Redis, started together.

    Their output goes to a file, not a pipe (a pipe nobody reads fills up and blocks the
    server), and is shown if a process does not come up."""
    with _serving(redis_url, count, env) as started:
        yield [url for _, _, url in started]


@contextmanager
def fray_serving_logged(redis_url: str, **env: str) -> Iterator[tuple[str, Callable[[], str]]]:
    """One `fray serve` process, unbuffered: its base URL, and a function that reads what
    it has written to its standard output and error so far."""

    with _serving(redis_url, 1, {**env, "PYTHONUNBUFFERED": "1"}) as [(_, log, url)]:

        def output() -> str:
            # pread: the process shares the file's offset, which a seek would move.
            size = os.fstat(log.fileno()).st_size
            return os.pread(log.fileno(), size, 0).decode(errors="replace")

        yield url, output


@contextmanager
def _serving(
    redis_url: str, count: int, env: dict[str, str]
) -> Iterator[list[tuple[subprocess.Popen[bytes], IO[bytes], str]]]:
    environment = {
        **os.environ,
        "FRAY_REDIS_URL": redis_url,
        "FRAY_API_KEYS": f"acme:{KEY}",
        "FRAY_TOKEN_SECRET": SECRET,
        **env,
    }
    started: list[tuple[subprocess.Popen[bytes], IO[bytes], str]] = []
    with ExitStack() as logs:
        try:
            for _ in range(count):
                port = free_port()
                log: IO[bytes] = logs.enter_context(tempfile.TemporaryFile())
                process = subprocess.Popen(
                    [FRAY, "serve", "--host", "127.0.0.1", "--port", str(port)],
                    env=environment,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
                started.append((process, log, f"http://127.0.0.1:{port}"))
            for process, log, url in started:
                _wait_ready(process, log, url)
            yield started
        finally:
            for process, _, _ in started:
                process.terminate()
            for process, _, _ in started:
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


# How long a `fray serve` may take to answer /readyz: only a ceiling for a server that never
# comes up. Several worker processes booting on two busy cores have needed over 30 s.
READY_WITHIN_S = 90


def _wait_ready(process: subprocess.Popen[bytes], log: IO[bytes], url: str) -> None:
    deadline = time.monotonic() + READY_WITHIN_S
    while True:
        try:
            if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            log.seek(0)
            output = log.read().decode(errors="replace")
            raise RuntimeError(f"fray serve at {url} did not come up: {output}")
        time.sleep(0.05)


# --- GraphQL documents --------------------------------------------------------------------

CREATE = gql("""
mutation Create($input: CreateEncounterInput!) {
  createEncounter(input: $input) { encounterId version gmToken }
}""")
MINT = gql("""
mutation Mint($encounterId: String!, $input: MintTokenInput!) {
  mintToken(encounterId: $encounterId, input: $input) { token role combatants }
}""")
SUBMIT = gql("""
mutation Submit($encounterId: String!, $command: CommandInput!, $commandId: String,
                $expectedVersion: Int) {
  submitCommand(encounterId: $encounterId, command: $command, commandId: $commandId,
                expectedVersion: $expectedVersion) {
    __typename
    ... on CommandAccepted { commandId version duplicate events { version type data } }
    ... on CommandRejected { code message rule details status }
  }
}""")
ENCOUNTER = gql("""
query Encounter($id: String!) {
  encounter(id: $id) { version summary { phase round acting } }
}""")
EVENTS = gql("""
subscription Events($id: String!, $after: Int!) {
  encounterEvents(encounterId: $id, after: $after) { version type data commandId }
}""")


def request(document: GraphQLRequest, **variables: Any) -> GraphQLRequest:
    return GraphQLRequest(document, variable_values=variables)


# --- GraphQL over HTTP --------------------------------------------------------------------


class Gql:
    """One `gql` session over HTTP; each call names the credential it sends."""

    def __init__(self, session: AsyncClientSession) -> None:
        self.session = session

    async def run(self, document: GraphQLRequest, credential: str, **variables: Any) -> Any:
        return await self.session.execute(
            request(document, **variables), extra_args={"headers": bearer(credential)}
        )

    async def create(self, encounter_id: str) -> str:
        data = await self.run(
            CREATE, KEY, input={"ruleset": "freeform", "encounterId": encounter_id}
        )
        token: str = data["createEncounter"]["gmToken"]
        return token

    async def mint(self, encounter_id: str, role: str, *combatants: str) -> str:
        data = await self.run(
            MINT, KEY, encounterId=encounter_id, input={"role": role, "combatants": [*combatants]}
        )
        token: str = data["mintToken"]["token"]
        return token

    async def send(
        self, encounter_id: str, credential: str, command: dict[str, Any], **extra: Any
    ) -> dict[str, Any]:
        data = await self.run(
            SUBMIT, credential, encounterId=encounter_id, command={"freeform": command}, **extra
        )
        result: dict[str, Any] = data["submitCommand"]
        return result

    async def ok(self, encounter_id: str, credential: str, command: dict[str, Any]) -> int:
        result = await self.send(encounter_id, credential, command)
        assert result["__typename"] == "CommandAccepted", result
        version: int = result["version"]
        return version

    async def encounter(self, encounter_id: str, credential: str) -> dict[str, Any]:
        data = await self.run(ENCOUNTER, credential, id=encounter_id)
        encounter: dict[str, Any] = data["encounter"]
        return encounter

    async def skirmish(self, encounter_id: str) -> str:
        """A started freeform fight, Bramli (heroes) against a Goblin; the GM token."""
        gm = await self.create(encounter_id)
        for combatant_id, side, hp in (("bramli", "heroes", 20), ("goblin", "goblins", 7)):
            add = {"combatantId": combatant_id, "name": combatant_id.title(), "side": side}
            await self.ok(encounter_id, gm, {"addCombatant": {**add, "stats": {"hp": hp}}})
        await self.ok(encounter_id, gm, {"rollInitiative": {}})
        await self.ok(encounter_id, gm, {"startEncounter": True})
        return gm


@asynccontextmanager
async def graphql_http(url: str) -> AsyncIterator[Gql]:
    transport = HTTPXAsyncTransport(url=f"{url}/graphql", timeout=10)
    client = Client(transport=transport, schema=SCHEMA)
    async with client as session:
        yield Gql(session)


# --- GraphQL subscriptions over websockets ------------------------------------------------


class Subscribed:
    """A live `encounterEvents` subscription: the events as they arrive, with the monotonic
    time each arrived."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.arrived: dict[int, float] = {}
        self.changed = asyncio.Event()
        self.ready = asyncio.Event()
        self.error: BaseException | None = None

    def versions(self) -> list[int]:
        return [event["version"] for event in self.events]

    async def wait_for(self, version: int, timeout: float = 10) -> None:
        """Until an event of at least `version` has arrived."""

        async def reached() -> None:
            while not self.events or self.events[-1]["version"] < version:
                if self.error is not None:
                    raise AssertionError("the subscription failed") from self.error
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(reached(), timeout)

    def fail(self, error: BaseException) -> None:
        self.error = error
        self.changed.set()

    def record(self, event: dict[str, Any]) -> None:
        self.arrived.setdefault(event["version"], time.perf_counter())
        self.events.append(event)
        self.changed.set()


@asynccontextmanager
async def subscribed(
    url: str, credential: str, encounter_id: str, after: int, document: Any = EVENTS
) -> AsyncIterator[Subscribed]:
    """`encounterEvents` over graphql-transport-ws (selecting what `document` selects),
    the credential in `connection_init`; read in the background until the block ends."""
    transport = WebsocketsTransport(
        url=url.replace("http://", "ws://", 1) + "/graphql",
        init_payload={"authorization": f"Bearer {credential}"},
        subprotocols=[WebsocketsTransport.GRAPHQLWS_SUBPROTOCOL],
    )
    client = Client(transport=transport, schema=SCHEMA)
    live = Subscribed()
    async with client as session:

        async def read() -> None:
            try:
                async for data in session.subscribe(
                    request(document, id=encounter_id, after=after)
                ):
                    live.record(data["encounterEvents"])
            except Exception as error:
                live.fail(error)

        reader = asyncio.create_task(read())
        try:
            yield live
        finally:
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)


# --- SSE ----------------------------------------------------------------------------------


@asynccontextmanager
async def sse_followed(
    http: httpx.AsyncClient, url: str, credential: str, encounter_id: str, after: int
) -> AsyncIterator[Subscribed]:
    """`GET /v1/encounters/{id}/events?follow=true` read in the background: each frame's
    envelope as it arrives. `ready` is set once the response headers are in."""
    live = Subscribed()

    async def read() -> None:
        try:
            await follow()
        except Exception as error:
            live.fail(error)

    async def follow() -> None:
        async with http.stream(
            "GET",
            f"{url}/v1/encounters/{encounter_id}/events",
            params={"follow": "true", "after": after},
            headers=bearer(credential),
            timeout=httpx.Timeout(10, read=None),
        ) as response:
            assert response.status_code == 200
            live.ready.set()
            frame: dict[str, str] = {}
            async for line in response.aiter_lines():
                if line == "":
                    if "data" in frame:
                        live.record({"version": int(frame["id"]), "type": frame["event"]})
                    frame = {}
                elif not line.startswith(":"):
                    name, _, value = line.partition(": ")
                    frame[name] = value

    reader = asyncio.create_task(read())
    try:
        await asyncio.wait_for(live.ready.wait(), 10)
        yield live
    finally:
        reader.cancel()
        await asyncio.gather(reader, return_exceptions=True)


def eventually(read: Callable[[], Any], done: Callable[[Any], bool], within: float = 60.0) -> Any:
    """`read()` until `done` says so; fails after `within` seconds (a bound, not a measure)."""
    deadline = time.monotonic() + within
    while True:
        value = read()
        if done(value):
            return value
        assert time.monotonic() < deadline, f"still {value} after {within} s"
        time.sleep(0.1)
