"""Audit verdicts and a tenant's encounters: the same contract on every store."""

from __future__ import annotations

import uuid

import pytest

from service.store import EncounterNotFound, InvalidArgument, Store
from tests.store.conftest import RunStore
from tests.store.helpers import event, events


def test_a_verdict_is_kept_and_read_back(run_store: RunStore, encounter_id: str) -> None:
    async def scenario(store: Store) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        await store.append(encounter_id, 1, "cmd", "fp", events(2, 3))
        assert await store.load_audit(encounter_id) is None
        payload = b'{"verdict":"passed"}:\xff'
        assert await store.save_audit(encounter_id, 4, payload)
        assert await store.load_audit(encounter_id) == (4, payload)

    run_store(scenario)


def test_a_re_audit_replaces_a_verdict_but_an_older_one_never_does(
    run_store: RunStore, encounter_id: str
) -> None:
    async def scenario(store: Store) -> None:
        await store.create(encounter_id, event(1), seed=b"s")
        await store.append(encounter_id, 1, "cmd", "fp", events(2, 9))
        assert await store.save_audit(encounter_id, 6, b"passed")
        assert await store.save_audit(encounter_id, 6, b"failed")  # the same stream, again
        assert await store.load_audit(encounter_id) == (6, b"failed")
        assert await store.save_audit(encounter_id, 10, b"later")
        assert not await store.save_audit(encounter_id, 6, b"finished last")
        assert await store.load_audit(encounter_id) == (10, b"later")

    run_store(scenario)


def test_a_verdict_must_be_of_a_version_the_encounter_has(
    run_store: RunStore, encounter_id: str
) -> None:
    async def scenario(store: Store) -> None:
        with pytest.raises(EncounterNotFound):
            await store.save_audit(encounter_id, 1, b"x")
        await store.create(encounter_id, event(1), seed=b"s")
        with pytest.raises(InvalidArgument):
            await store.save_audit(encounter_id, 2, b"x")
        with pytest.raises(InvalidArgument):
            await store.save_audit(encounter_id, 0, b"x")
        with pytest.raises(InvalidArgument):
            await store.save_audit("bad {id}", 1, b"x")
        assert await store.load_audit(encounter_id) is None

    run_store(scenario)


def test_a_tenants_encounters_are_listed_and_no_one_elses(run_store: RunStore) -> None:
    tenant, other = f"t-{uuid.uuid4().hex[:8]}", f"t-{uuid.uuid4().hex[:8]}"
    bare = f"enc-{uuid.uuid4().hex[:8]}"

    async def scenario(store: Store) -> None:
        assert await store.tenant_encounters(tenant) == []
        for stored_as in (f"{tenant}/b", f"{tenant}/a", f"{other}/a", f"{tenant}x/c", bare):
            await store.create(stored_as, event(1), seed=b"s")
        assert await store.tenant_encounters(tenant) == [f"{tenant}/a", f"{tenant}/b"]
        assert await store.tenant_encounters(other) == [f"{other}/a"]
        # None: the encounters no tenant owns (the suite's Redis holds other tests' too).
        unowned = await store.tenant_encounters(None)
        assert bare in unowned and not any("/" in found for found in unowned)

    run_store(scenario)


def test_a_tenant_name_is_matched_literally_not_as_a_pattern(run_store: RunStore) -> None:
    tenant = f"t-{uuid.uuid4().hex[:8]}"

    async def scenario(store: Store) -> None:
        await store.create(f"{tenant}/a", event(1), seed=b"s")
        await store.create(f"{tenant}?/b", event(1), seed=b"s")
        assert await store.tenant_encounters(f"{tenant}?") == [f"{tenant}?/b"]
        assert await store.tenant_encounters("*") == []
        assert await store.tenant_encounters(tenant[:-1] + "[0-9a-f]") == []

    run_store(scenario)
