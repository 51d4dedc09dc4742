"""Verify a stream as DESIGN.md's audit algorithm defines it (docs/audit.md for auditors).

`audit` runs every check in order — the lines, the hash chain, version 1, the seed, every
server draw, the decide re-run with the recorded ruleset version, the head anchor and any
receipts a client kept — and answers a report whose verdict is `passed` only when every
check ran and passed. A failure stops the checks that depend on it; they are reported as
not run, never as passed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.audit import anchors, stream
from service.audit.anchors import STORE_HEAD, Anchor, ExportHead, Keys, StoreHead, keys_of
from service.audit.lines import Export, parse_lines, read_export
from service.audit.report import CHECKS, EXIT_UNSTARTED, AuditReport, Check
from service.domain.envelope import Envelope

__all__ = [
    "CHECKS",
    "EXIT_UNSTARTED",
    "Anchor",
    "AuditReport",
    "Check",
    "Export",
    "ExportHead",
    "Keys",
    "StoreHead",
    "audit",
    "audit_export",
    "keys_of",
    "parse_lines",
    "read_export",
]


def audit(
    envelopes: list[Envelope],
    seed: bytes | None = None,
    *,
    anchor: Anchor = STORE_HEAD,
    receipts: Sequence[Any] | None = None,
    keys: Keys | None = None,
) -> AuditReport:
    """Audit `envelopes`. `seed`: the auditor's, for a stream that has not revealed it.
    `anchor`: where the head comes from (the default: the caller read the store itself).
    `receipts`, checked with `keys` (trusted keys) as prefixes of the stream."""
    report = AuditReport(audited_version=len(envelopes))
    report.passed("lines", f"{len(envelopes)} events read", len(envelopes))
    return _audit(envelopes, seed, anchor, receipts, keys, report)


def audit_export(
    export: Export,
    seed: bytes | None = None,
    *,
    trusted: Keys | None = None,
    receipts: Sequence[Any] | None = None,
) -> AuditReport:
    """Audit an export file read back with `read_export`, its head anchored by its header."""
    report = AuditReport(audited_version=len(export.envelopes))
    if export.problems:
        report.failed("lines", export.problems[0])
    else:
        report.passed("lines", f"{export.lines} events, each the canonical JSON of an "
                      "envelope", export.lines)  # fmt: skip
    if report.first_failure is not None:
        report.not_run(CHECKS, "the export does not read")
        return report
    anchor = ExportHead(export.header, trusted)
    return _audit(export.envelopes, seed, anchor, receipts, trusted, report)


def _audit(
    envelopes: list[Envelope],
    seed: bytes | None,
    anchor: Anchor,
    receipts: Sequence[Any] | None,
    keys: Keys | None,
    report: AuditReport,
) -> AuditReport:
    if not envelopes:
        report.failed("chain", "the stream is empty")
        report.not_run(CHECKS, "there is no stream")
        return report
    if not stream.chain(envelopes, report):
        report.not_run(CHECKS, "the hash chain is broken")
        return report
    recorded = stream.created(envelopes, report)
    if recorded is None:
        report.not_run(CHECKS, "version 1 does not say what the encounter is")
        return report
    opened = stream.seed_matches(recorded, envelopes, seed, report)
    if report.first_failure is not None:
        report.not_run(CHECKS, "the seed does not match its commitment")
        return report
    if not stream.draws(envelopes, opened, report):
        report.not_run(CHECKS, "a draw does not match the seed")
        return report
    stream.rerun(recorded, envelopes, opened, report)
    if report.first_failure is not None:
        report.not_run(CHECKS, "a command does not reproduce its events")
        return report
    encounter_id = recorded.created.encounter_id
    anchors.head(envelopes, encounter_id, anchor, report)
    anchors.receipts(envelopes, encounter_id, receipts, keys, report)
    return report
