"""The real ASGI app, its lifespan run, against the suite's real Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from service.api.server import create_app
from service.config import Settings
from tests.engine_helpers import COMBATANTS

KEY = "acme-secret"
RIVAL_KEY = "rival-secret"
SECRET = "test-token-secret"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def settings_for(redis_url: str, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "redis_url": redis_url,
        "queue_redis_url": redis_url,
        "api_keys": (f"acme:{KEY}", f"rival:{RIVAL_KEY}"),
        "token_secret": SECRET,
        "max_body": 4096,
        "rate_limit": 10_000,
        **overrides,
    }
    return Settings(**values)


def bearer(credential: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {credential}"}


class Api:
    """An httpx client on the in-process app, with the steps most tests share."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client

    async def create(self, encounter_id: str, **body: Any) -> str:
        response = await self.client.post(
            "/v1/encounters",
            json={"ruleset": "freeform", "encounter_id": encounter_id, **body},
            headers=bearer(KEY),
        )
        assert response.status_code == 201, response.text
        token: str = response.json()["gm_token"]
        return token

    async def mint(self, encounter_id: str, role: str, *combatants: str, **extra: Any) -> str:
        response = await self.client.post(
            f"/v1/encounters/{encounter_id}/tokens",
            json={"role": role, "combatants": list(combatants), **extra},
            headers=bearer(KEY),
        )
        assert response.status_code == 201, response.text
        token: str = response.json()["token"]
        return token

    async def send(
        self, encounter_id: str, credential: str, command: dict[str, Any], **request: Any
    ) -> httpx.Response:
        return await self.client.post(
            f"/v1/encounters/{encounter_id}/commands",
            json={"command": command, **request},
            headers=bearer(credential),
        )

    async def ok(self, encounter_id: str, credential: str, command: dict[str, Any]) -> Any:
        response = await self.send(encounter_id, credential, command)
        assert response.status_code == 201, response.text
        return response.json()

    async def get(self, path: str, credential: str, **params: Any) -> httpx.Response:
        return await self.client.get(path, headers=bearer(credential), params=params or None)

    async def skirmish(self, encounter_id: str, **options: Any) -> str:
        """A started freeform fight, Bramli (heroes) against a Goblin; the GM token."""
        gm = await self.create(encounter_id, options=options)
        for combatant in COMBATANTS:
            await self.ok(encounter_id, gm, {"type": "add-combatant", **combatant})
        await self.ok(encounter_id, gm, {"type": "roll-initiative"})
        await self.ok(encounter_id, gm, {"type": "start-encounter"})
        return gm


async def d20_hero_against(
    api: Api,
    encounter_id: str,
    options: dict[str, Any],
    weapon: dict[str, str],
    foe: tuple[str, dict[str, Any]],
) -> tuple[str, str]:
    """A d20-action-points fight at the hero's turn (table initiative 15 against 5): the
    hero (AC 14, 24 hp, `weapon`) against `foe` (its id and stats); the GM's and the hero's
    tokens."""
    gm = await api.create(encounter_id, ruleset="d20-action-points", options=options)
    hero = {"kind": "pc", "hp": 24, "ac": 14, "weapons": [weapon]}
    foe_id, foe_stats = foe
    for cid, side, stats in (("hero", "party", hero), (foe_id, "monsters", foe_stats)):
        add = {"type": "add-combatant", "combatant_id": cid, "name": cid.title(), "side": side}
        await api.ok(encounter_id, gm, {**add, "stats": stats})
    await api.ok(encounter_id, gm, {"type": "start-encounter"})
    await api.ok(encounter_id, gm, {"type": "begin-combat"})
    response = await api.send(encounter_id, gm, {"type": "roll-initiative"}, dice=[15, 5])
    assert response.status_code == 201, response.text
    return gm, await api.mint(encounter_id, "player", "hero")


@asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[Api]:
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://fray") as client:
            client.app = app  # type: ignore[attr-defined]
            yield Api(client)


@pytest.fixture
async def api(redis_url: str) -> AsyncIterator[Api]:
    async with running(settings_for(redis_url)) as client:
        yield client


@asynccontextmanager
async def served(settings: Settings) -> AsyncIterator[str]:
    """The app behind a real uvicorn server in this event loop: for streams (SSE), which
    httpx's ASGITransport buffers whole."""
    import asyncio

    import uvicorn

    from service.embedded_redis import free_port

    port = free_port()
    config = uvicorn.Config(
        create_app(settings), host="127.0.0.1", port=port, log_level="warning", lifespan="on"
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


async def sse_events(
    client: httpx.AsyncClient, url: str, headers: dict[str, str], count: int
) -> list[dict[str, str]]:
    """The first `count` events of an SSE stream, each {id, event, data}."""
    import asyncio

    frames: list[dict[str, str]] = []

    async def read() -> None:
        async with client.stream("GET", url, headers=headers) as response:
            assert response.status_code == 200, await response.aread()
            assert response.headers["content-type"].startswith("text/event-stream")
            frame: dict[str, str] = {}
            async for line in response.aiter_lines():
                if line == "":
                    if "data" in frame:
                        frames.append(frame)
                        if len(frames) == count:
                            return
                    frame = {}
                elif not line.startswith(":"):
                    name, _, value = line.partition(": ")
                    frame[name] = value

    await asyncio.wait_for(read(), 10)
    return frames
