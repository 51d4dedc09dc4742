"""Auditable draws follow DESIGN.md's algorithm to the letter."""

from __future__ import annotations

import hashlib
import hmac

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.domain.draws import Roller, RollRecord, draw, shuffle_from
from service.domain.errors import RuleViolation

SEED = bytes(range(32))


def reference(seed: bytes, v: int, n: int, a: int) -> int:
    digest = hmac.new(seed, f"{v}:{n}:{a}".encode("ascii"), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big")


def test_a_draw_is_the_first_eight_bytes_of_the_hmac_mod_k():
    assert draw(SEED, 7, 3, 20) == reference(SEED, 7, 3, 0) % 20


def test_a_draw_rejects_values_past_the_last_whole_multiple_of_k():
    k = 2**63 + 1  # about half of all 64-bit values are rejected for this k
    limit = 2**64 - (2**64 % k)
    rejected = next(n for n in range(200) if reference(SEED, 1, n, 0) >= limit)
    accepted = next(a for a in range(1, 50) if reference(SEED, 1, rejected, a) < limit)
    assert draw(SEED, 1, rejected, k) == reference(SEED, 1, rejected, accepted) % k


@given(st.integers(1, 10_000), st.integers(0, 1000), st.integers(1, 2**40))
def test_draws_stay_in_range(v: int, n: int, k: int):
    assert 0 <= draw(SEED, v, n, k) < k


def test_a_die_is_a_draw_plus_one_and_counts_n():
    roller = Roller(seed=SEED, version=5)
    faces = [roller.die(6, "test") for _ in range(3)]
    assert faces == [draw(SEED, 5, n, 6) + 1 for n in range(3)]
    assert [r.n for r in roller.records] == [0, 1, 2]
    assert roller.records[0].to_dict() == {
        "n": 0, "k": 6, "value": faces[0], "purpose": "test", "kind": "die"
    }  # fmt: skip


def test_a_shuffle_is_fisher_yates_from_the_end_with_one_draw_per_step():
    roller = Roller(seed=SEED, version=2)
    items = list("abcdef")
    shuffled = roller.shuffle(items, "deck")
    expected = list(items)
    for n, i in enumerate(range(len(items) - 1, 0, -1)):
        j = draw(SEED, 2, n, i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    assert shuffled == expected
    assert [r.k for r in roller.records] == [6, 5, 4, 3, 2]


def test_shuffle_from_is_a_permutation():
    assert sorted(shuffle_from(range(5), [0, 0, 0, 0])) == list(range(5))


def test_table_dice_are_used_in_order_and_marked():
    roller = Roller(seed=SEED, version=1, mode="mixed", table_dice=[4, 2])
    assert [roller.die(6, "a"), roller.die(6, "b")] == [4, 2]
    assert all(r.source == "table" and r.n is None for r in roller.records)
    assert "n" not in roller.records[0].to_dict()


@pytest.mark.parametrize(
    ("mode", "dice", "code"),
    [
        pytest.param("table", [], "dice/table-dice-missing", id="a die is missing"),
        pytest.param("table", [7], "dice/table-die-out-of-range", id="a d6 cannot show 7"),
    ],
)
def test_bad_table_dice_are_refused(mode, dice, code):
    roller = Roller(seed=SEED, version=1, mode=mode, table_dice=dice)
    with pytest.raises(RuleViolation) as caught:
        roller.die(6, "damage")
    assert caught.value.code == code


def test_unused_table_dice_are_refused():
    roller = Roller(seed=SEED, version=1, mode="mixed", table_dice=[3, 4])
    roller.die(6, "one")
    with pytest.raises(RuleViolation, match="1 more"):
        roller.finish()


def test_a_table_deck_order_must_be_a_permutation():
    roller = Roller(seed=SEED, version=1, mode="table", table_orders=[[0, 0, 1]])
    with pytest.raises(RuleViolation):
        roller.shuffle(["a", "b", "c"], "deck")
    ordered = Roller(seed=SEED, version=1, mode="table", table_orders=[[2, 0, 1]])
    assert ordered.shuffle(["a", "b", "c"], "deck") == ["c", "a", "b"]
    assert ordered.records[0].value == [2, 0, 1]


def test_a_table_encounter_never_draws_from_the_seed():
    roller = Roller(seed=SEED, version=1, mode="table")
    with pytest.raises(RuleViolation):
        roller.index(52, "card")


def test_roll_records_round_trip():
    record = RollRecord(20, 13, "attack", "die", n=4)
    assert RollRecord.from_dict(record.to_dict()) == record
