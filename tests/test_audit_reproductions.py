"""Issue 22's two reproductions, for every ruleset, on its golden server-dice stream.

1. Drop the end (so the seed is not revealed) and forge a server die, re-hashing the chain
   as a forger would: this passed. Now the audit is incomplete without the seed (exit 3)
   and fails with it (exit 1).
2. Drop the tail: this passed, nothing anchoring the head. Now the export's head receipt
   fails it, and so does a receipt a client kept.

The receipts are signed here with the `cryptography` package, not Fray's signer.
"""

from __future__ import annotations

import pytest

from service.audit import audit, audit_export
from service.domain.envelope import Envelope
from service.rules.registry import RULESETS
from tests.fixtures.streams.golden import fixture_files, read_export
from tests.test_audit import rehash
from tests.test_audit_anchors import TRUSTED, export_of, receipt

SERVER_DICE = [p for p in fixture_files() if p.name.endswith("-server-dice.jsonl")]


def test_every_ruleset_has_a_server_dice_stream():
    current = {p.name for p in SERVER_DICE if p.parent.name != "older"}
    assert current == {f"{name}-server-dice.jsonl" for name in RULESETS}


def commands_before_the_end(envelopes: list[Envelope]) -> list[Envelope]:
    """The stream as it stood before the command that ended it: a forger drops it whole."""
    ending = next(e for e in envelopes if e.type == "encounter-ended")
    start = max(e.version for e in envelopes[: ending.version] if e.command is not None)
    return envelopes[: start - 1]


def forge_a_server_die(envelopes: list[Envelope]) -> list[Envelope]:
    rolled = next(e for e in envelopes if any(r.get("source") != "table" for r in e.rolls))
    rolls = [dict(r) for r in rolled.rolls]
    index = next(i for i, r in enumerate(rolls) if r.get("source") != "table")
    rolls[index]["value"] = rolls[index]["value"] + 1 if rolls[index]["value"] == 1 else 1
    return rehash(envelopes, rolled.version, rolls=rolls)


def encounter_id(envelopes: list[Envelope]) -> str:
    return str(envelopes[0].data["encounter_id"])


@pytest.mark.parametrize("path", SERVER_DICE, ids=lambda p: p.stem)
def test_dropping_the_end_and_forging_a_die_is_incomplete_then_failed(path):
    envelopes = read_export(path)
    seed = bytes.fromhex(next(e for e in envelopes if e.type == "encounter-ended").data["seed"])
    forged = forge_a_server_die(commands_before_the_end(envelopes))

    unseeded = audit(forged)
    assert unseeded.verdict == "incomplete" and unseeded.exit_code == 3
    assert {c.name: c.status for c in unseeded.checks}["seed"] == "incomplete"

    seeded = audit(forged, seed)
    assert seeded.exit_code == 1 and seeded.first_failure is not None
    assert seeded.first_failure.name == "draws"


@pytest.mark.parametrize("path", SERVER_DICE, ids=lambda p: p.stem)
def test_dropping_the_tail_fails_the_head_receipt_and_a_kept_receipt(path):
    envelopes = read_export(path)
    head = receipt(envelopes[-1], encounter=encounter_id(envelopes))  # as Fray signed it
    whole = audit_export(export_of(envelopes, head), trusted=TRUSTED)
    assert whole.verdict == "passed", whole.problems

    short = commands_before_the_end(envelopes)
    truncated = audit_export(export_of(short, head), trusted=TRUSTED)
    assert truncated.exit_code == 1 and truncated.first_failure is not None
    assert truncated.first_failure.name == "head"

    kept = audit(short, receipts=[head], keys=TRUSTED)
    assert kept.exit_code == 1 and "truncated" in kept.problems[0]
