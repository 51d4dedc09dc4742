"""Receipts anchor the head: truncation, a fork or an edit after a receipt fails the audit.

The receipts here are signed with the `cryptography` package in the test, over JSON built
with `json.dumps` as DESIGN.md defines the canonical form, not with Fray's own signer.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from service.audit import Export, audit, audit_export, keys_of
from service.domain.envelope import Envelope
from tests.test_audit import played

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
FORGER = Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33)))


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def listing(key: Ed25519PrivateKey, kid: str = "k1") -> dict[str, Any]:
    public = key.public_key().public_bytes_raw()
    return {"keys": [{"kid": kid, "alg": "Ed25519", "public_key": b64(public)}]}


def receipt(
    envelope: Envelope, key: Ed25519PrivateKey = KEY, kid: str = "k1", encounter: str = "test"
) -> dict[str, Any]:
    body = {"encounter_id": encounter, "hash": envelope.hash, "version": envelope.version}
    signed = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return {**body, "kid": kid, "sig": b64(key.sign(signed.encode()))}


def export_of(
    envelopes: list[Envelope], head: dict[str, Any] | None, key: Ed25519PrivateKey = KEY
) -> Export:
    encounter = envelopes[0].data["encounter_id"]
    header = {"fray_export": 1, "encounter_id": encounter, "head": head, **listing(key)}
    return Export(header=header, envelopes=envelopes, lines=len(envelopes))


TRUSTED = keys_of(listing(KEY))
ENVELOPES = played().envelopes


def head_check(export: Export, trusted=TRUSTED) -> tuple[str, str]:
    report = audit_export(export, trusted=trusted)
    check = next(c for c in report.checks if c.name == "head")
    return check.status, check.detail


def test_an_export_whose_head_receipt_verifies_with_a_trusted_key_passes():
    report = audit_export(export_of(ENVELOPES, receipt(ENVELOPES[-1])), trusted=TRUSTED)
    assert report.verdict == "passed", report.problems


def test_a_truncated_export_fails_its_head_receipt():
    export = export_of(ENVELOPES[:-2], receipt(ENVELOPES[-1]))
    status, detail = head_check(export)
    assert status == "failed" and "ends at version" in detail and "truncated" in detail


def test_a_forger_who_truncates_and_re_signs_with_their_own_key_fails_against_trusted_keys():
    short = ENVELOPES[:-2]
    export = export_of(short, receipt(short[-1], FORGER), key=FORGER)
    status, detail = head_check(export)
    assert status == "failed" and "does not verify" in detail


def test_a_key_only_the_export_lists_leaves_the_head_incomplete():
    status, detail = head_check(export_of(ENVELOPES, receipt(ENVELOPES[-1])), trusted=None)
    assert status == "incomplete" and "--keys" in detail


@pytest.mark.parametrize("header", [None, "unsigned"], ids=["no header", "unsigned head"])
def test_an_unanchored_export_is_incomplete_never_passed(header):
    export = export_of(ENVELOPES, None)
    if header is None:
        export.header = None
    report = audit_export(export, trusted=TRUSTED)
    assert report.verdict == "incomplete" and report.exit_code == 3


def test_every_receipt_a_client_kept_is_a_prefix_of_the_stream():
    kept = [receipt(e) for e in ENVELOPES[3::4]]
    report = audit(ENVELOPES, receipts=kept, keys=TRUSTED)
    check = next(c for c in report.checks if c.name == "receipts")
    assert report.verdict == "passed" and check.count == len(kept)


def test_truncation_after_a_receipt_fails():
    unended = played(end=False).envelopes  # the same stream without its last command
    assert unended == ENVELOPES[: len(unended)]
    report = audit(unended, receipts=[receipt(ENVELOPES[-1])], keys=TRUSTED)
    assert report.verdict == "failed" and "truncated" in report.problems[0]


def test_the_last_receipt_alone_catches_any_rewrite_of_history_before_it():
    fork = played(blow=-4).envelopes  # the goblin took 4, not 5: a valid other history
    assert audit(fork).verdict == "passed" and fork[-1].version == ENVELOPES[-1].version
    report = audit(fork, receipts=[receipt(ENVELOPES[-1])], keys=TRUSTED)
    assert report.verdict == "failed" and "rewritten" in report.problems[0]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"sig": b64(b"\0" * 64)}, "does not verify"),
        ({"kid": "k9"}, "not among the trusted keys"),
        ({"version": 3}, "does not verify"),  # the signed fields were edited
    ],
)
def test_a_receipt_that_fray_did_not_sign_fails(change, words):
    held = {**receipt(ENVELOPES[-1]), **change}
    report = audit(ENVELOPES, receipts=[held], keys=TRUSTED)
    assert report.verdict == "failed" and words in report.problems[0]


def test_receipts_without_trusted_keys_are_not_checked_and_say_so():
    report = audit(ENVELOPES, receipts=[receipt(ENVELOPES[-1])])
    check = next(c for c in report.checks if c.name == "receipts")
    assert report.verdict == "incomplete" and "no trusted keys" in check.detail
