"""`tie-broken` schema 2 names the tied number `tied_at`; a stored schema 1 event (`at`) is
read through its upcaster, and a re-run of the command that wrote it reproduces it."""

from __future__ import annotations

from typing import Any

from service.deciding import reproduced
from service.domain.canonical import ZERO_HASH
from service.domain.envelope import Envelope, seal
from service.rules.fifty_two import RULESET
from service.rules.fifty_two.events import TieBroken

SCHEMA_1 = {"at": 13, "winner": "eckhart", "loser": "alan", "decided_by": 2,
            "tie_breaker": "surprise", "moved": "alan", "to": 12}  # fmt: skip
SCHEMA_2 = {key: value for key, value in SCHEMA_1.items() if key != "at"} | {"tied_at": 13}


def sealed(schema: int, data: dict[str, Any], **changes: Any) -> Envelope:
    fields: dict[str, Any] = {
        "version": 2, "type": "tie-broken", "schema": schema, "data": data,
        "at": "2026-01-01T12:00:00.000Z", "command_id": "c2",
        "actor": {"id": "gm", "role": "gm", "combatants": []},
        "command": {"type": "start-encounter"}, "rolls": [], "prev_hash": ZERO_HASH,
    }  # fmt: skip
    return seal(**(fields | changes))


def test_a_tie_broken_is_written_at_schema_2_with_tied_at() -> None:
    kind, schema, data = RULESET.event_data(TieBroken.model_validate(SCHEMA_2))

    assert (kind, schema, data) == ("tie-broken", 2, SCHEMA_2)


def test_a_stored_schema_1_tie_broken_is_read_as_schema_2() -> None:
    assert RULESET.event_from("tie-broken", 1, SCHEMA_1) == TieBroken.model_validate(SCHEMA_2)


def test_a_schema_1_event_that_upcasts_to_the_re_decided_one_is_reproduced() -> None:
    assert reproduced(RULESET, [sealed(1, SCHEMA_1)], [sealed(2, SCHEMA_2)])


def test_a_schema_1_event_that_upcasts_to_another_decision_is_not_reproduced() -> None:
    moved_elsewhere = SCHEMA_1 | {"to": 14}

    assert not reproduced(RULESET, [sealed(1, moved_elsewhere)], [sealed(2, SCHEMA_2)])


def test_an_old_schema_does_not_excuse_another_envelope_field() -> None:
    player = {"id": "p1", "role": "player", "combatants": ["alan"]}

    assert not reproduced(RULESET, [sealed(1, SCHEMA_1, actor=player)], [sealed(2, SCHEMA_2)])


def test_an_event_at_todays_schema_is_reproduced_only_exactly() -> None:
    assert reproduced(RULESET, [sealed(2, SCHEMA_2)], [sealed(2, SCHEMA_2)])
    assert not reproduced(RULESET, [sealed(2, SCHEMA_2 | {"to": 14})], [sealed(2, SCHEMA_2)])


def test_a_re_run_with_another_number_of_events_is_not_reproduced() -> None:
    assert not reproduced(RULESET, [sealed(1, SCHEMA_1)], [])


def test_a_stored_event_that_no_upcaster_reads_is_not_reproduced() -> None:
    assert not reproduced(RULESET, [sealed(1, {"winner": "eckhart"})], [sealed(2, SCHEMA_2)])
