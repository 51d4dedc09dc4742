"""condition-applied at schema 2: a condition without rounds lasts until removed and has
no `ends`. Schema 1 wrote the command's default, "end-of-turn", there too; its upcaster
reads such an event as schema 2 does, and leaves a counted condition's `ends` alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.domain.common import ConditionApplied
from service.rules.registry import RULESETS

STREAMS = Path(__file__).parents[1] / "fixtures" / "streams"


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_every_ruleset_writes_condition_applied_at_schema_2(ruleset: str) -> None:
    event = ConditionApplied(combatant_id="a", condition="stuck")

    kind, schema, data = RULESETS[ruleset].event_data(event)

    assert (kind, schema) == ("condition-applied", 2)
    assert data["ends"] is None


@pytest.mark.parametrize(
    ("rounds", "ends", "read"),
    [
        (None, "end-of-turn", None),
        (None, "start-of-turn", None),
        (2, "start-of-turn", "start-of-turn"),
    ],
)
def test_a_schema_1_condition_applied_is_read_with_no_ends_when_it_has_no_rounds(
    rounds: int | None, ends: str, read: str | None
) -> None:
    stored = {"combatant_id": "a", "condition": "dazed", "rounds": rounds, "ends": ends}

    event = RULESETS["freeform"].event_from("condition-applied", 1, stored)

    assert isinstance(event, ConditionApplied)
    assert event.ends == read and event.rounds == rounds


@pytest.mark.parametrize(
    ("stream", "condition"),
    [
        ("older/d20-action-points-1.0.0-demo.jsonl", "hidden"),
        ("older/hex-tactical-1.0.0-demo.jsonl", "stuck"),
    ],
)
def test_the_golden_streams_persisting_conditions_were_recorded_at_schema_1(
    stream: str, condition: str
) -> None:
    """The golden streams re-decide these at schema 2 and compare them upcast
    (tests/test_golden_streams.py): the upcaster is exercised by recorded history."""
    events = [json.loads(line) for line in (STREAMS / stream).read_text().splitlines()]
    applied = [e for e in events if e.get("type") == "condition-applied"]

    assert [(e["schema"], e["data"]["condition"], e["data"]["ends"]) for e in applied] == [
        (1, condition, "end-of-turn")
    ]
