"""What the engine loads from besides the stream: snapshots, its own cache, its seed cache."""

from __future__ import annotations

from service.audit import audit
from service.domain.canonical import canonical_bytes
from service.domain.envelope import Envelope
from service.domain.fold import replay
from service.engine import SNAPSHOT_FORMAT, Engine
from service.rules.freeform import RULESET
from tests.engine_helpers import run, send, skirmish

WOUND = {"type": "adjust-resource", "combatant_id": "goblin", "delta": -4}


async def stream(engine: Engine, encounter_id: str) -> list[Envelope]:
    return [Envelope.from_body(s.body) for s in await engine.store.read(encounter_id)]


def test_a_rewind_past_the_latest_snapshot_loads_afresh_to_the_state_rewound_to(encounter_id):
    async def scenario(engine: Engine):
        await skirmish(engine, encounter_id)
        at = (await engine.load(encounter_id)).version
        earlier = (await engine.load(encounter_id)).state
        await send(engine, encounter_id, WOUND)
        snapshot = await engine.store.load_snapshot(encounter_id)
        while snapshot is None or snapshot[0] <= at:
            await send(engine, encounter_id, {"type": "add-note", "text": "time passes"})
            snapshot = await engine.store.load_snapshot(encounter_id)
        stale = Engine(engine.store)  # another process, its cache past the snapshot
        await stale.load(encounter_id)
        rewind = await send(engine, encounter_id, {"type": "rewind", "to_version": at})
        # The latest snapshot lies between the version rewound to and the rewind itself.
        assert await engine.store.load_snapshot(encounter_id) == snapshot
        assert at < snapshot[0] < rewind.version
        loads = [
            (await engine.load(encounter_id)).state,
            (await Engine(engine.store).load(encounter_id)).state,
            (await stale.load(encounter_id)).state,
        ]
        return earlier, loads, replay(RULESET, await stream(engine, encounter_id))

    earlier, (live, fresh, stale), replayed = run(scenario, snapshot_every=5)
    assert live == earlier and fresh == earlier and stale == earlier
    assert replayed == earlier
    assert fresh.table.combatants["goblin"].pools["hp"].current == 7


def test_a_snapshot_from_another_ruleset_version_is_not_used(encounter_id):
    async def scenario(engine: Engine):
        await skirmish(engine, encounter_id)
        unhurt = (await engine.load(encounter_id)).state
        await send(engine, encounter_id, WOUND)

        async def snapshot_unhurt(ruleset_version: str) -> None:
            # A snapshot at the head whose state is one from before the wound: a load
            # that trusts it shows the goblin unhurt.
            head = await engine.store.head(encounter_id)
            assert head is not None
            body = {
                "format": SNAPSHOT_FORMAT,
                "ruleset_version": ruleset_version,
                "hash": head.hash,
                "state": unhurt.model_dump(mode="json"),
            }
            assert await engine.store.save_snapshot(
                encounter_id, head.version, canonical_bytes(body)
            )

        await snapshot_unhurt(f"{RULESET.version}-other")
        other_version = await Engine(engine.store).load(encounter_id)
        replayed = replay(RULESET, await stream(engine, encounter_id))
        # The same snapshot with this ruleset's version is used: the check alone refused it.
        await send(engine, encounter_id, {"type": "add-note", "text": "later"})
        await snapshot_unhurt(RULESET.version)
        same_version = await Engine(engine.store).load(encounter_id)
        return other_version.state, replayed, same_version.state

    other_version, replayed, same_version = run(scenario)
    assert other_version == replayed
    assert other_version.table.combatants["goblin"].pools["hp"].current == 3
    assert same_version.table.combatants["goblin"].pools["hp"].current == 7


def test_the_seed_cache_keeps_the_most_recent_encounters_and_reads_an_evicted_seed_again(
    encounter_id,
):
    roll = {"type": "roll", "expression": "4d6"}
    first, second, third = (f"{encounter_id}-{n}" for n in range(3))

    async def scenario(engine: Engine):
        cached = []
        for each in (first, second, third):
            await skirmish(engine, each)
            cached.append(list(engine._seeds))
        await send(engine, second, roll)
        cached.append(list(engine._seeds))
        await send(engine, first, roll)  # its seed was evicted: read from the store again
        cached.append(list(engine._seeds))
        return cached, await stream(engine, first), await engine.store.seed(first)

    cached, events, seed = run(scenario, cache_size=2)
    assert cached == [
        [first],
        [first, second],
        [second, third],
        [third, second],
        [second, first],
    ]
    assert events[-1].type == "dice-rolled" and events[-1].rolls
    report = audit(events, seed)
    assert report.ok, report.problems
