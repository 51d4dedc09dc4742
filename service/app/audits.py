"""`Audits`: auditing an encounter's stream from the store, keeping the verdict, serving it.

One read of the store for every auditor: `fray audit <id>` and `fray audit --all` (the CLI)
and the audit worker (`workers.audits`) read the stream as stored and the seed as the
system principal, and audit them with `service.audit.audit`, so the verdict the API serves
is the verdict `fray audit` prints. The worker keeps it (`record`); `verdict` serves it to
the GM, auditors and the tenant's key.

A verdict speaks for versions 1..`audited_version`. Nothing after them can change them (the
hash chain), but what came after is not audited: while an encounter's stream holds more,
its verdict is `stale` (the worker audits it again after each append that leaves the
encounter ended: the end, a note after it).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from service.app.auth import Principal, system_principal
from service.app.encounters import Encounters
from service.audit import AuditReport, Export, Keys, audit, audit_export, read_export
from service.domain.errors import Forbidden, NotFound
from service.domain.ids import public_id
from service.domain.timefmt import iso
from service.engine import Engine

ENDED = "encounter-ended"


@dataclass(frozen=True)
class Verdict:
    """What `GET .../audit` answers: the last audit kept, or `pending` before the first."""

    verdict: str  # passed | failed | incomplete | pending
    version: int  # the encounter's version now
    audited_version: int | None = None
    audited_at: str | None = None
    checks: list[dict[str, Any]] = field(default_factory=list)

    @property
    def stale(self) -> bool:
        """The stream holds events the verdict did not audit."""
        return self.audited_version is not None and self.audited_version < self.version

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "audited_version": self.audited_version,
            "audited_at": self.audited_at,
            "version": self.version,
            "stale": self.stale,
            "checks": self.checks,
        }


@dataclass
class Audits:
    engine: Engine
    keys: Keys | None = None  # trusted for receipts: this Fray's own (the CLI's setting)

    async def audit(
        self, stream: str, seed: bytes | None = None, receipts: Sequence[Any] | None = None
    ) -> AuditReport:
        """Audit the encounter stored at `stream` as it is now, with the stored seed unless
        the auditor brings one; `NotFound` for an unknown encounter."""
        return await self._audit(stream, await self._read(stream), seed, receipts)

    async def ended(self, tenant: str | None) -> AsyncIterator[tuple[str, AuditReport]]:
        """The audit of every ended encounter of `tenant` (its id as the tenant knows it):
        those whose stream holds `encounter-ended`, and those whose stream does not read
        (whether they ended cannot be told; their audit fails either way)."""
        for stream in await self.engine.store.tenant_encounters(tenant):
            try:
                export = await self._read(stream)
            except NotFound:
                continue  # gone since it was listed (or a meta left without its stream)
            if export.problems or any(e.type == ENDED for e in export.envelopes):
                yield public_id(stream), await self._audit(stream, export, None, None)

    async def record(self, stream: str, report: AuditReport) -> bool:
        """Keep `report` as the encounter's verdict, unless a verdict of a later version is
        kept; True if kept."""
        payload = {"audited_at": iso(self.engine.clock()), **report.to_dict()}
        # An emptied stream audits 0 events (and fails); the store counts from version 1.
        version = max(report.audited_version, 1)
        return await self.engine.store.save_audit(stream, version, orjson.dumps(payload))

    async def verdict(self, principal: Principal) -> Verdict:
        """The encounter's verdict, for the GM, its auditors and its tenant's key."""
        actor = principal.actor
        if not (actor.is_gm or actor.role == "auditor"):
            raise Forbidden(
                f"a {actor.role} may not read the audit verdict: only the GM, an auditor or "
                "the tenant's API key may"
            )
        stream = principal.stream_of()
        head = await self.engine.store.head(stream)
        if head is None:
            raise NotFound(f"there is no encounter '{public_id(stream)}'")
        kept = await self.engine.store.load_audit(stream)
        if kept is None:
            return Verdict("pending", head.version)
        stored = orjson.loads(kept[1])
        return Verdict(
            verdict=stored["verdict"],
            version=head.version,
            audited_version=stored["audited_version"],
            audited_at=stored["audited_at"],
            checks=stored["checks"],
        )

    async def _read(self, stream: str) -> Export:
        principal = system_principal(stream)
        lines = [line async for line in await Encounters(self.engine).export(principal)]
        return read_export(lines)

    async def _audit(
        self,
        stream: str,
        export: Export,
        seed: bytes | None,
        receipts: Sequence[Any] | None,
    ) -> AuditReport:
        if export.problems:
            return audit_export(export)
        known = seed or await self._stored_seed(stream)
        # Re-deciding a whole stream is CPU work: off the event loop, so that a worker's
        # timers (deadlines due meanwhile) still fire on time.
        return await asyncio.to_thread(
            audit, export.envelopes, known, receipts=receipts, keys=self.keys
        )

    async def _stored_seed(self, stream: str) -> bytes | None:
        try:
            return await Encounters(self.engine).seed(system_principal(stream))
        except NotFound:
            return None
