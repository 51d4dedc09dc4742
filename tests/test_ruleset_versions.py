"""Version pinning: a stored encounter is folded and decided with the ruleset version it was
created with, new encounters with the newest, and a version this Fray does not run is
refused in clear words, appending nothing."""

from __future__ import annotations

import asyncio

import pytest

from service.deciding import CommandRequest
from service.domain.context import GM
from service.domain.envelope import Envelope
from service.domain.errors import RuleViolation
from service.engine import Engine
from service.rules.registry import RULESETS, RulesetUnavailable, versions_of
from service.store.memory import MemoryStore
from tests.engine_helpers import run, send, skirmish
from tests.versions import EARLIER, EARLIER_VERSION, before_the_upgrade, drop_earlier

DELAY = {"type": "delay"}


def test_a_new_encounter_is_created_with_the_newest_version_and_the_meta_names_it(
    encounter_id: str,
) -> None:
    async def scenario(engine: Engine) -> tuple[Envelope, dict[str, str]]:
        await engine.create("freeform", {}, encounter_id=encounter_id, actor=GM)
        first = Envelope.from_body((await engine.store.read(encounter_id))[0].body)
        return first, await engine.store.meta(encounter_id) or {}

    first, meta = run(scenario)
    newest = RULESETS["freeform"].version
    assert first.data["ruleset_version"] == newest
    assert (meta["ruleset"], meta["ruleset_version"]) == ("freeform", newest)


def test_an_encounter_recorded_before_an_upgrade_is_decided_by_its_own_version(
    monkeypatch: pytest.MonkeyPatch, encounter_id: str
) -> None:
    store = MemoryStore()

    async def scenario() -> None:
        with before_the_upgrade(monkeypatch):
            await skirmish(Engine(store), encounter_id)
        # The upgraded Fray, a new process: today's freeform delays, 0.9.0 did not.
        upgraded = Engine(store)
        loaded = await upgraded.load(encounter_id)
        assert loaded.ruleset is EARLIER
        with pytest.raises(RuleViolation) as refused:
            await send(upgraded, encounter_id, DELAY)
        assert refused.value.code == "turn/cannot-delay"
        assert (await upgraded.load_at(encounter_id, 2)).ruleset is EARLIER

        await skirmish(upgraded, "after-the-upgrade")
        outcome = await send(upgraded, "after-the-upgrade", DELAY)
        assert "turn-delayed" in [e.type for e in outcome.events]

    asyncio.run(scenario())


def test_a_version_this_fray_does_not_run_is_refused_and_nothing_is_appended(
    monkeypatch: pytest.MonkeyPatch, encounter_id: str
) -> None:
    store = MemoryStore()

    async def scenario() -> None:
        with before_the_upgrade(monkeypatch):
            await skirmish(Engine(store), encounter_id)
        drop_earlier()
        engine = Engine(store)
        head = await store.head(encounter_id)
        for attempt in (
            engine.execute(encounter_id, CommandRequest(command=DELAY), GM),
            engine.load(encounter_id),
            engine.load_at(encounter_id, 2),
        ):
            with pytest.raises(RulesetUnavailable) as refused:
                await attempt
            assert refused.value.message == (
                f"ruleset freeform {EARLIER_VERSION} is not available; this Fray runs "
                f"freeform {', '.join(versions_of('freeform'))}"
            )
        assert await store.head(encounter_id) == head

    asyncio.run(scenario())


def test_an_encounter_whose_meta_does_not_name_the_version_is_read_from_version_1(
    monkeypatch: pytest.MonkeyPatch, encounter_id: str
) -> None:
    """Encounters created before the meta recorded the version: version 1 names it."""

    async def scenario() -> None:
        scratch = Engine(MemoryStore())
        with before_the_upgrade(monkeypatch):
            await scratch.create("freeform", {}, encounter_id=encounter_id, actor=GM)
        first = (await scratch.store.read(encounter_id))[0]
        seed = await scratch.store.seed(encounter_id)
        assert seed is not None
        store = MemoryStore()
        await store.create(encounter_id, first, seed, {"ruleset": "freeform"})
        assert (await Engine(store).load(encounter_id)).ruleset is EARLIER

    asyncio.run(scenario())
