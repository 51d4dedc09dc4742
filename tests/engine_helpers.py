"""Running the pipeline: on an in-memory store (`run`), so engine and demo tests need no
Redis, or on the suite's Redis (`run_on_redis`) where a worker or the CLI reads the stream.

The store contract suite (tests/store) holds the in-memory store to the Redis store's
behaviour; the API, worker and end-to-end suites run the pipeline on Redis.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import replace
from functools import partial
from importlib.resources.abc import Traversable
from typing import Any, TypeVar

import redis.asyncio as aioredis

from service.deciding import CommandRequest
from service.demos.runner import Demo, play
from service.demos.scripts import read_script, read_spec
from service.domain.context import GM, Actor
from service.domain.envelope import Envelope
from service.engine import Engine, Outcome
from service.rules.registry import RULESETS
from service.store.memory import MemoryStore
from service.store.redis_store import EventStore

T = TypeVar("T")

COMBATANTS = [
    {"combatant_id": "bramli", "name": "Bramli", "side": "heroes",
     "stats": {"initiative_modifier": 3, "hp": 20}},
    {"combatant_id": "goblin", "name": "Goblin", "side": "goblins",
     "stats": {"initiative_modifier": 1, "hp": 7}},
]  # fmt: skip


def run(
    scenario: Callable[[Engine], Coroutine[Any, Any, T]],
    *,
    snapshot_every: int = 100,
    **engine: Any,
) -> T:
    """Run a scenario on an engine over a fresh in-memory store."""
    return asyncio.run(scenario(Engine(MemoryStore(snapshot_every=snapshot_every), **engine)))


def run_on_redis(redis_url: str, scenario: Callable[[Engine], Awaitable[T]], **engine: Any) -> T:
    """Run a scenario on an engine over the Redis at `redis_url`."""

    async def main() -> T:
        client = aioredis.Redis.from_url(redis_url)
        try:
            return await scenario(Engine(EventStore(client), **engine))
        finally:
            await client.aclose()

    return asyncio.run(main())


Played = tuple[list[str], list[Envelope], dict[str, dict[str, int]]]


def play_demo(demo: Demo) -> Played:
    """Play a scripted demo: its narration, its stored stream and every combatant's pools."""

    async def scenario(engine: Engine) -> Played:
        played = await play(engine, demo)
        stream = [Envelope.from_body(s.body) for s in await engine.store.read(played.encounter_id)]
        table = (await engine.load(played.encounter_id)).state.table
        pools = {cid: c.resource_values() for cid, c in table.combatants.items()}
        return played.lines, stream, pools

    return run(scenario)


def scripted_from(demo: Demo, directory: Traversable) -> Demo:
    """The demo, its script read from `directory` (a changed copy of its examples)."""
    return replace(demo, script=partial(read_script, directory))


async def send(
    engine: Engine,
    encounter_id: str,
    command: dict[str, Any],
    actor: Actor = GM,
    **request: Any,
) -> Outcome:
    return await engine.execute(encounter_id, CommandRequest(command=command, **request), actor)


async def skirmish(
    engine: Engine, encounter_id: str, options: dict[str, Any] | None = None
) -> None:
    """A freeform encounter with two combatants, initiative rolled, started."""
    await engine.create("freeform", options or {}, encounter_id=encounter_id, actor=GM)
    for combatant in COMBATANTS:
        await send(engine, encounter_id, {"type": "add-combatant", **combatant})
    await send(engine, encounter_id, {"type": "roll-initiative"})
    await send(engine, encounter_id, {"type": "start-encounter"})


def check_example_stat_blocks(ruleset: str, directory: Traversable) -> None:
    """A demo's script is for `ruleset` and adds every combatant it names, and every
    stat-block file in its examples is one the ruleset accepts."""
    model = RULESETS[ruleset].stats_model
    spec, roster = read_spec(directory)
    assert spec.ruleset == ruleset
    assert len(roster) == len(spec.combatants)
    for path in sorted(directory.iterdir(), key=lambda p: p.name):
        if path.name.endswith(".json") and path.name != "encounter.json":
            model.model_validate(json.loads(path.read_text())["stats"])
