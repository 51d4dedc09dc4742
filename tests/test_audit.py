"""`audit` catches any flipped byte, a forged die and an edited event, even re-hashed."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.audit import audit, parse_lines
from service.domain.canonical import envelope_hash
from service.domain.context import Actor
from service.domain.envelope import Envelope
from service.rules.freeform import RULESET
from tests.rules.delvers_deep import given as delvers
from tests.rules.harness import Table

BRAMLI = Actor("p1", "player", frozenset({"bramli"}))


def played(end: bool = True) -> Table:
    table = Table(RULESET, {"turn_time_limit": 30})
    for name, modifier in [("Bramli", 3), ("Goblin", 1)]:
        table.send(
            {
                "type": "add-combatant",
                "name": name,
                "stats": {"initiative_modifier": modifier, "hp": 9},
            }
        )
    table.send({"type": "roll-initiative"})
    table.send({"type": "start-encounter"})
    table.send({"type": "roll", "expression": "2d6+3", "purpose": "damage"})
    table.send({"type": "adjust-resource", "combatant_id": "goblin", "delta": -5})
    table.send({"type": "end-turn"})
    if end:
        table.send({"type": "end-encounter"})
    return table


LINES = [e.body() for e in played().envelopes]
BLOB = b"\n".join(LINES)


def audit_blob(blob: bytes):
    envelopes, problems = parse_lines(blob.split(b"\n"))
    return problems if problems else audit(envelopes).problems


def rehash(envelopes: list[Envelope], version: int, **changes) -> list[Envelope]:
    """Edit one envelope and re-seal the whole chain after it, as a careful forger would."""
    out: list[Envelope] = []
    previous = None
    for envelope in envelopes:
        data = envelope.to_dict()
        if envelope.version == version:
            data.update(changes)
        if previous is not None:
            data["prev_hash"] = previous
        data["hash"] = envelope_hash(data)
        previous = data["hash"]
        out.append(Envelope.from_dict(data))
    return out


def test_an_untouched_stream_passes_every_check():
    report = audit(played().envelopes)
    assert report.ok, report.problems
    assert [c.split(":")[0] for c in report.checked] == [
        "hash chain", "seed commitment", "draws", "decide re-run",
    ]  # fmt: skip


@settings(max_examples=300)
@given(position=st.integers(0, len(BLOB) - 1), bit=st.integers(0, 7))
def test_a_flipped_bit_anywhere_is_caught(position: int, bit: int):
    flipped = bytearray(BLOB)
    flipped[position] ^= 1 << bit
    assert audit_blob(bytes(flipped))


def test_every_flipped_byte_of_one_event_is_caught():
    start = len(b"\n".join(LINES[:5])) + 1
    for position in range(start, start + len(LINES[5])):
        flipped = bytearray(BLOB)
        flipped[position] ^= 0x20
        assert audit_blob(bytes(flipped)), f"byte {position} flipped unnoticed"


def test_a_forged_die_is_caught_even_when_the_chain_is_re_hashed():
    envelopes = played().envelopes
    rolled = next(e for e in envelopes if e.type == "dice-rolled")
    forged_rolls = [dict(r) for r in rolled.rolls]
    forged_rolls[0]["value"] = 6 if forged_rolls[0]["value"] != 6 else 5
    report = audit(rehash(envelopes, rolled.version, rolls=forged_rolls))
    assert not report.ok and "draw n=0" in report.problems[0]


def test_an_edited_event_is_caught_by_re_running_decide_even_when_re_hashed():
    envelopes = played().envelopes
    hit = next(e for e in envelopes if e.type == "resource-adjusted")
    edited = {**hit.data, "after": 1}
    report = audit(rehash(envelopes, hit.version, data=edited))
    assert not report.ok and "does not reproduce" in report.problems[0]


def test_a_removed_event_breaks_the_chain():
    envelopes = played().envelopes
    report = audit(envelopes[:4] + envelopes[5:])
    assert not report.ok and "version 5" in report.problems[0]


def test_a_wrong_seed_fails_the_commitment():
    report = audit(played(end=False).envelopes, seed=b"\x00" * 32)
    assert not report.ok and "commitment" in report.problems[0]


def test_before_the_seed_is_revealed_only_dice_free_commands_are_re_run():
    report = audit(played(end=False).envelopes)
    assert report.ok
    assert any("awaiting the seed" in c for c in report.checked)


@pytest.mark.parametrize("seedless", [True, False], ids=["seed not known", "seed given"])
def test_the_auditor_may_bring_the_seed(seedless: bool):
    table = played(end=False)
    report = audit(table.envelopes, None if seedless else table.seed)
    assert report.ok and any(c.startswith("draws") for c in report.checked) is not seedless


def test_a_rewind_between_the_events_of_one_command_is_re_run_from_that_state():
    table = delvers.encounter()
    delvers.pc(table, "hero")
    delvers.creature(table, "foe")
    table.send({"type": "start-encounter"}, dice=[3])
    fixed = table.send({"type": "fix-order"})  # order-fixed, round-started, turn-started
    table.send({"type": "rewind", "to_version": fixed[0].version})

    noted = table.send({"type": "add-note", "text": "the round begins again"})

    assert [e.type for e in noted] == ["note-added", "turn-started"]
    assert audit(table.envelopes, table.seed).ok
