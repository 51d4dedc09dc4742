"""Anchoring the head of the chain: the export's head receipt and the receipts a client kept.

The chain proves that nothing before an event was changed, never that nothing after it was
dropped: a receipt does. A receipt signs `{"encounter_id", "hash", "version"}` with a key of
Fray's (DESIGN.md, "Audit algorithm"), so a stream that still holds that hash at that
version holds, byte for byte, everything the receipt's holder was told up to it.

Keys are trusted only when the auditor brings them (`--keys`, `--url`) or reads the store
itself; a key an export merely lists could be the forger's own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from service.audit.report import AuditReport
from service.domain.envelope import Envelope
from service.domain.receipts import verify_receipt

Keys = Sequence[Mapping[str, Any]]  # `{"kid", "alg", "public_key"}`, as GET /v1/keys lists them


@dataclass(frozen=True)
class StoreHead:
    """The auditor read the stream from the store: its head is the store's."""


@dataclass(frozen=True)
class ExportHead:
    """The stream came from an export: its header's receipt names the head."""

    header: Mapping[str, Any] | None
    trusted: Keys | None = None  # keys the auditor brought; None: only the export's own


Anchor = StoreHead | ExportHead
STORE_HEAD = StoreHead()


def keys_of(listing: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The keys of a `GET /v1/keys` answer (or of an export header)."""
    keys = listing.get("keys")
    return [k for k in keys if isinstance(k, Mapping)] if isinstance(keys, list) else []


def head(
    envelopes: Sequence[Envelope], encounter_id: str, anchor: Anchor, report: AuditReport
) -> None:
    last = envelopes[-1]
    if isinstance(anchor, StoreHead):
        report.passed("head", f"read from the store itself: version {last.version} is its head")
        return
    receipt = (anchor.header or {}).get("head")
    if anchor.header is None:
        report.add("head", "incomplete", "the export has no header line: nothing anchors its "
                   "last event, so a truncated export would look the same")  # fmt: skip
        return
    if receipt is None:
        report.add("head", "incomplete", "the export's head is not signed (the Fray that "
                   "exported it had no signing key)")  # fmt: skip
        return
    keys = anchor.trusted if anchor.trusted is not None else keys_of(anchor.header)
    problem = verify_receipt(receipt, keys) or _names(receipt, encounter_id, last)
    if problem is not None:
        report.failed("head", f"the export's head receipt: {problem}")
        return
    if anchor.trusted is None:
        report.add("head", "incomplete", f"version {last.version} is signed by key "
                   f"'{receipt['kid']}', which only the export itself lists: give --keys or "
                   "--url to check that it is Fray's")  # fmt: skip
        return
    report.passed("head", f"version {last.version} is the head, signed by key '{receipt['kid']}'")


def _names(receipt: Mapping[str, Any], encounter_id: str, last: Envelope) -> str | None:
    if receipt.get("encounter_id") != encounter_id:
        return f"it is for encounter '{receipt.get('encounter_id')}', not '{encounter_id}'"
    if receipt.get("version") != last.version:
        return (
            f"it names version {receipt.get('version')} but the export ends at version "
            f"{last.version} (truncated or extended)"
        )
    if receipt.get("hash") != last.hash:
        return f"the hash it signs is not that of version {last.version}"
    return None


def receipts(
    envelopes: Sequence[Envelope],
    encounter_id: str,
    held: Sequence[Any] | None,
    keys: Keys | None,
    report: AuditReport,
) -> None:
    """Every receipt a client holds names an event of this stream, as it is now."""
    if not held:
        report.add("receipts", "skipped", "no receipts given (--receipts R.jsonl)")
        return
    if keys is None:
        report.add("receipts", "incomplete", f"{len(held)} receipts not checked: no trusted "
                   "keys (give --keys or --url)")  # fmt: skip
        return
    for number, receipt in enumerate(held, start=1):
        problem = verify_receipt(receipt, keys) or _prefix(receipt, encounter_id, envelopes)
        if problem is not None:
            report.failed("receipts", f"receipt {number}: {problem}")
            return
    report.passed(
        "receipts", f"{len(held)} receipts each name an event of this stream as it is", len(held)
    )


def _prefix(
    receipt: Mapping[str, Any], encounter_id: str, envelopes: Sequence[Envelope]
) -> str | None:
    version = receipt.get("version")
    if receipt.get("encounter_id") != encounter_id:
        return f"it is for encounter '{receipt.get('encounter_id')}', not '{encounter_id}'"
    if not isinstance(version, int) or version < 1:
        return f"it names version {version!r}, not a version"
    if version > len(envelopes):
        return (
            f"it names version {version} but the stream ends at version {len(envelopes)}: "
            "the stream was truncated after the receipt was given"
        )
    if envelopes[version - 1].hash != receipt.get("hash"):
        return (
            f"version {version} is not the event the receipt was given for: history up to "
            "it was rewritten (a fork or an edit)"
        )
    return None
