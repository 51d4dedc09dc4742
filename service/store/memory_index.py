"""The memory store's tenant index: a dictionary per tenant (stored id -> updated, ms),
paged as the Redis store pages its sorted sets (`service.store.redis_index`): read
`INDEX_LAG_MS` further back than the lower bound, bounded by the meta, entries whose
encounter is gone left out and dropped once past `GHOST_GRACE_MS`, stale ones re-scored."""

from __future__ import annotations

from collections.abc import Callable

from service.store import checks
from service.store.listing import (
    GHOST_GRACE_MS,
    INDEX_LAG_MS,
    IndexPage,
    Listed,
    Position,
    select,
    updated_of,
    within,
)


class MemoryIndex:
    def __init__(
        self, meta_of: Callable[[str], dict[str, str] | None], now_ms: Callable[[], int]
    ) -> None:
        self._meta_of = meta_of  # a live encounter's meta, or None
        self._now_ms = now_ms
        self._tenants: dict[str | None, dict[str, int]] = {}

    def enter(self, encounter_id: str, updated: int) -> None:
        self._tenants.setdefault(checks.tenant_of(encounter_id), {})[encounter_id] = updated

    def members(self, tenant: str | None) -> list[str]:
        entries = self._tenants.get(tenant, {})
        return sorted(eid for eid in entries if self._meta_of(eid) is not None)

    def page(
        self,
        tenant: str | None,
        count: int,
        after: Position | None,
        newest: int | None,
        oldest: int | None,
    ) -> IndexPage:
        entries = self._tenants.get(tenant, {})
        reach = None if oldest is None else max(oldest - INDEX_LAG_MS, 0)
        positions = select(entries, count, after, newest, reach)
        listed = []
        for position in positions:
            meta = self._meta_of(position.encounter_id)
            if meta is None:
                if self._now_ms() - position.updated > GHOST_GRACE_MS:
                    del entries[position.encounter_id]
                continue
            updated = updated_of(meta)
            if updated != position.updated:
                entries[position.encounter_id] = updated
            if within(updated, newest, oldest):
                listed.append(Listed(position, meta))
        return IndexPage(listed, positions[-1] if len(positions) == count else None)
