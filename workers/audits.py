"""The job RQ runs when an encounter ends: audit its stream as `fray audit` does, and keep
the verdict for `GET /v1/encounters/{id}/audit`.

The append that ends an encounter (or adds to an ended one) records an outbox entry keyed
`audit` in the same atomic step as its events (`service.engine`), so the audit is owed
whatever dies next: the API schedules it at once on the `fray-audits` queue, and if it
never does (it died, the queue's Redis was away) or a worker dies mid-job, a worker's
sweeper finds the entry overdue and enqueues it again (`workers.sweeper`). Only a finished
audit clears the entry, and only the arming it audited (a later append's entry stays, and
its own job audits the longer stream).

Running twice is harmless: the second run audits the same stream to the same verdict. A
lease (`AUDIT_LEASE_MS`) keeps two workers from auditing one arming at once; a killed
worker's lease lapses, and the sweeper's next job takes it.
"""

from __future__ import annotations

import logging
from typing import Literal

import orjson

from service.app.audits import Audits
from service.audit import AuditReport
from service.audit_metrics import AuditMetrics
from service.dispatch import job_id
from service.domain.errors import NotFound
from service.domain.ids import split_stream
from service.engine import Engine
from workers.jobs import Leases, pending, runner

Audited = Literal["passed", "failed", "incomplete", "done", "taken", "gone"]
AUDIT_LEASE_MS = 60_000  # an audit takes well under this; a killed worker's lapses after it

_log = logging.getLogger("fray.workers")


def audit_encounter(encounter_id: str, key: str, due: float) -> str:
    """RQ's entry point: the outbox entry's identity in, the outcome's name out."""
    process = runner()
    metrics = AuditMetrics(process.client)
    leases = Leases(process.client, ttl_ms=AUDIT_LEASE_MS)
    return process.call(audit_due(process.engine, encounter_id, key, due, metrics, leases))


async def audit_due(
    engine: Engine,
    encounter_id: str,
    key: str,
    due: float,
    metrics: AuditMetrics | None = None,
    leases: Leases | None = None,
) -> Audited:
    """Audit the encounter if its outbox still owes this audit; keep and count the verdict.

    `done`: the entry is gone (audited already) or was armed again for a later append
    (whose own job audits it); `taken`: another worker is auditing it now; `gone`: the
    encounter is."""
    entry = await pending(engine.store, encounter_id, key, due)
    if entry is None:
        return "done"
    job = job_id(encounter_id, entry)
    if leases is not None and not await leases.take(job):
        return "taken"
    try:
        audits = Audits(engine)
        try:
            report = await audits.audit(encounter_id)
        except NotFound:
            await engine.store.clear_deadline(encounter_id, entry.key, entry.due, entry.payload)
            return "gone"
        await audits.record(encounter_id, report)
        await engine.store.clear_deadline(encounter_id, entry.key, entry.due, entry.payload)
    finally:
        if leases is not None:
            await leases.release(job)
    if metrics is not None:
        await metrics.audited(report.verdict)
    _report(encounter_id, report)
    return report.verdict


def _report(stream: str, report: AuditReport) -> None:
    """One JSON line per audit; a failed one names its first failing check (a warning)."""
    tenant, encounter_id = split_stream(stream)
    line: dict[str, object] = {
        "event": "audit",
        "tenant": tenant,
        "encounter_id": encounter_id,
        "verdict": report.verdict,
        "audited_version": report.audited_version,
    }
    failure = report.first_failure
    if failure is None:
        _log.info(orjson.dumps(line).decode())
        return
    line.update(failed_check=failure.name, detail=failure.detail)
    _log.warning(orjson.dumps(line).decode())
