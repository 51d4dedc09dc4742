"""The recorder of the golden streams (tests/fixtures/streams/record.py): it records a
missing stream that then audits clean, and never overwrites one unless told to."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from service.audit import audit
from service.store.redis_store import EventStore
from tests.fixtures.streams import record
from tests.fixtures.streams.golden import RECORDINGS, read_export


def test_a_golden_stream_that_exists_is_not_recorded_again_without_force(
    capsys: pytest.CaptureFixture[str],
) -> None:
    golden = RECORDINGS[0]
    before = golden.path.read_bytes()

    assert record.main([golden.name]) == 1

    assert "re-recorded only with --force" in capsys.readouterr().out
    assert golden.path.read_bytes() == before


def test_force_without_names_is_refused() -> None:
    with pytest.raises(SystemExit) as refused:
        record.main(["--force"])
    assert refused.value.code == 2


def test_a_missing_golden_stream_is_recorded_and_audits_clean(
    redis_url: str, tmp_path: Path
) -> None:
    (recording,) = [r for r in RECORDINGS if r.name == "freeform-server-dice"]
    fresh = replace(recording, directory=tmp_path)

    async def scenario() -> int:
        client = aioredis.Redis.from_url(redis_url)
        try:
            return await record.record(EventStore(client), fresh)
        finally:
            await client.aclose()

    count = asyncio.run(scenario())

    envelopes = read_export(fresh.path)
    assert count == len(envelopes) and envelopes[-1].type == "encounter-ended"
    assert audit(envelopes).ok
    # Salted, with the pinned salts (so recording again writes the same bytes); the stream
    # recorded before salts has none, and still hashes as it did.
    pinned = recording.salts()
    assert [e.salt for e in envelopes] == [pinned() for _ in envelopes]
    assert all(e.salt is None for e in read_export(recording.path))
