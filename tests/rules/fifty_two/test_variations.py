"""fifty-two Variations: a field four deep, and the hybrid that adds a row in round 2 or 3."""

from __future__ import annotations

from typing import Any

import pytest

from service.rules.fifty_two import RULESET
from service.rules.fifty_two.cards import full_deck
from service.rules.fifty_two.state import FiftyTwoState
from tests.rules.harness import Table


def dealt(**options: Any) -> Table:
    table = Table(RULESET, {"dice": "mixed", "decision_seconds": None, **options})
    table.send({"type": "add-combatant", "combatant_id": "hero", "name": "Hero",
                "side": "allies", "stats": {"hp": 20}})  # fmt: skip
    table.send({"type": "add-combatant", "combatant_id": "orc", "name": "Orc",
                "side": "orcs", "stats": {"hp": 20}})  # fmt: skip
    table.send({"type": "start-encounter"}, dice=[20, 1])
    table.send({"type": "choose-columns", "modifier": 0})
    table.send({"type": "deal", "deck": [c.text for c in full_deck()]})
    return table


def state(table: Table) -> FiftyTwoState:
    assert isinstance(table.state, FiftyTwoState)
    return table.state


def test_a_field_four_deep_deals_four_rows():
    table = dealt(depth=4)
    field = state(table).field
    assert field is not None
    assert [len(c) for c in field.columns] == [4, 4, 4] and field.depth == 4
    assert len(field.pool) == 52 - 12


@pytest.mark.parametrize("round_added", [2, 3])
def test_the_hybrid_adds_a_card_to_each_column_in_its_round(round_added: int):
    table = dealt(depth=4, add_row_in_round=round_added)
    field = state(table).field
    assert field is not None
    pool = field.pool
    while state(table).round < round_added:
        assert not [e for e in table.envelopes if e.type == "row-added"]
        table.send({"type": "end-turn"})
    (added,) = [e for e in table.envelopes if e.type == "row-added"]
    assert added.data["cards"] == [c.text for c in pool[:3]]
    after = state(table).field
    assert after is not None and after.depth == 5
    assert [c[-1] for c in after.columns] == list(pool[:3])
    for _ in range(4):
        table.send({"type": "end-turn"})
    assert len([e for e in table.envelopes if e.type == "row-added"]) == 1
    assert table.replayed() == table.state


def test_the_hybrid_on_a_field_five_deep_grows_it_to_six():
    # Interpretation (docs/rules/fifty-two.md, Variations): "you can vary it based on how
    # dramatic you want a particular combat to be"; the option is not tied to depth 4.
    table = dealt(add_row_in_round=2)
    while state(table).round < 2:
        table.send({"type": "end-turn"})
    field = state(table).field
    assert field is not None and field.depth == 6
    assert [len(c) for c in field.columns] == [6, 6, 6]
