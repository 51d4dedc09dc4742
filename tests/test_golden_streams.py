"""Golden streams (tests/fixtures/streams/): every stream recorded by earlier code still
folds with today's code, through the path the engine loads a stored stream by, and audits
clean: re-running `decide` on each stored command reproduces its stored events. A change
that alters what an old stream decides fails here until the ruleset's version is bumped
and the old decision kept registered (docs/architecture.md, "Bumping a ruleset version")."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from service.audit import AuditReport, audit_export
from service.deciding import Loaded
from service.domain.common import EncounterCreated
from service.domain.envelope import Envelope
from service.engine import Engine
from service.rules.registry import RULESETS, ruleset_at
from service.store.events import StoredEvent
from service.store.memory import MemoryStore
from tests.fixtures.streams.golden import (
    KEYS,
    OLDER,
    RECORDINGS,
    Recording,
    exported,
    fixture_files,
    read_export,
)

FIXTURES = fixture_files()


def created(envelopes: list[Envelope]) -> EncounterCreated:
    return EncounterCreated.model_validate(envelopes[0].data)


def revealed_seed(envelopes: list[Envelope]) -> bytes:
    (ended,) = [e for e in envelopes if e.type == "encounter-ended"]
    return bytes.fromhex(str(ended.data["seed"]))


def passed(report: AuditReport) -> bool:
    """Every check ran and passed."""
    return report.verdict == "passed"


async def stored_and_loaded(envelopes: list[Envelope], seed: bytes) -> Loaded:
    """The stream put in a store as the engine keeps one (each command's events appended
    under its command id, the meta naming the ruleset and version) and loaded by the
    engine, as after a restart."""
    store = MemoryStore()
    first = created(envelopes)
    meta = {"ruleset": first.ruleset, "ruleset_version": first.ruleset_version}
    encounter_id = first.encounter_id
    await store.create(encounter_id, _stored(envelopes[0]), seed, meta)
    for group in _commands(envelopes[1:]):
        version = group[0].version - 1
        stored = [_stored(e) for e in group]
        await store.append(encounter_id, version, group[0].command_id, "golden", stored, [], [])
    return await Engine(store).load(encounter_id)


def _stored(envelope: Envelope) -> StoredEvent:
    return StoredEvent(version=envelope.version, hash=envelope.hash, body=envelope.body())


def _commands(envelopes: list[Envelope]) -> list[list[Envelope]]:
    groups: list[list[Envelope]] = []
    for envelope in envelopes:
        if envelope.command is not None or not groups:
            groups.append([])
        groups[-1].append(envelope)
    return groups


def test_every_recording_has_its_golden_stream() -> None:
    missing = [r.path.name for r in RECORDINGS if not r.path.exists()]
    assert not missing, f"record them: python -m tests.fixtures.streams.record ({missing})"


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: str(p.relative_to(p.parents[1])))
def test_a_golden_stream_folds_with_todays_code(path: Path) -> None:
    envelopes = read_export(path)
    first = created(envelopes)

    loaded = asyncio.run(stored_and_loaded(envelopes, revealed_seed(envelopes)))

    assert loaded.ruleset is ruleset_at(first.ruleset, first.ruleset_version)
    assert (loaded.version, loaded.hash) == (envelopes[-1].version, envelopes[-1].hash)
    assert loaded.state.table.phase == "ended"


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: str(p.relative_to(p.parents[1])))
def test_a_golden_stream_audits_clean_with_todays_code(path: Path) -> None:
    # As an auditor audits an export: its head anchored by the header, the key trusted.
    report = audit_export(exported(path), trusted=KEYS)

    assert passed(report), report.problems or [c.detail for c in report.checks]


SERVER_DICE = [r for r in RECORDINGS if r.name.endswith("-server-dice")]


@pytest.mark.parametrize("recording", SERVER_DICE, ids=lambda r: r.name)
def test_a_server_dice_golden_stream_rolls_only_the_servers_dice(recording: Recording) -> None:
    envelopes = read_export(recording.path)
    rolls = [roll for e in envelopes for roll in e.rolls]

    assert created(envelopes).options["dice"] == "server"
    assert rolls and all(roll.get("source") != "table" for roll in rolls)
    assert envelopes[-1].type == "encounter-ended"


def test_every_ruleset_has_a_demo_and_a_server_dice_golden_stream() -> None:
    names = {r.name for r in RECORDINGS}
    for ruleset in RULESETS:
        assert {f"{ruleset}-demo", f"{ruleset}-server-dice"} <= names


def test_upcasters_are_exercised_by_an_older_golden_stream() -> None:
    assert sorted(OLDER.glob("*.jsonl"))


@pytest.mark.parametrize("path", sorted(OLDER.glob("*.jsonl")), ids=lambda p: p.name)
def test_an_older_golden_stream_is_older_than_todays_code(path: Path) -> None:
    """What makes it worth keeping: an event of an older schema, which its folding and its
    audit above read through an upcaster, or an older ruleset version, kept registered."""
    envelopes = read_export(path)
    first = created(envelopes)
    ruleset = ruleset_at(first.ruleset, first.ruleset_version)

    older = [e for e in envelopes if e.schema < ruleset.schema_of(e.type)]

    assert older or ruleset is not RULESETS[first.ruleset]
